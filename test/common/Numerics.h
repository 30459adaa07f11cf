//===- Numerics.h - host-side numerics shared by the CPU and GPU tests ----===//
// Poisoned outputs (NaN bytes), error against float64 references where NaN never passes
// (relative to the result, or to the magnitudes that entered each sum), and IEEE half /
// bfloat16 conversions rounding to nearest even as the GPU's cvt.rn does. Header-only;
// depends on GoogleTest alone.
#pragma once

#include "tile/HalfBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tile::testutil {

constexpr uint32_t kPoisonBits = 0xFFFFFFFFu; // a NaN

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline std::vector<float> poisoned(size_t n) {
  std::vector<float> v(n);
  std::memset(v.data(), 0xFF, n * sizeof(float));
  return v;
}

/// The failure for a non-finite element i of `got` (NaN never passes; the poison is NaN).
inline ::testing::AssertionResult notFinite(const std::vector<float> &got, const std::vector<double> &ref, size_t i,
                                            const std::string &what) {
  return ::testing::AssertionFailure() << what << ": element " << i << " is " << got[i]
                                       << (bitsOf(got[i]) == kPoisonBits ? " (poison: never written)" : "")
                                       << ", expected " << ref[i];
}

/// ||got - ref|| / ||ref|| <= tol; any non-finite element fails (the poison is NaN, so
/// this also proves every element was written).
inline ::testing::AssertionResult closeTo(const std::vector<float> &got, const std::vector<double> &ref, double tol,
                                          const std::string &what) {
  if (got.size() != ref.size()) return ::testing::AssertionFailure() << what << ": size mismatch";
  double num = 0, den = 0, worst = -1;
  size_t worstAt = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return notFinite(got, ref, i, what);
    double d = got[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
    if (std::fabs(d) > worst) worst = std::fabs(d), worstAt = i;
  }
  double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (rel <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": relative error " << rel << " > " << tol << " (worst at " << worstAt
                                       << ": got " << got[worstAt] << ", expected " << ref[worstAt] << ")";
}

/// ||got - ref|| <= tol * ||magnitude||, where magnitude[i] is the size of what entered
/// element i: Σ|term| of the sum it is (Σ_k |a·b| + |bias| for a matmul). Rounding moves a
/// sum by a fraction of its terms' magnitudes, not of its result, which cancellation (or
/// relu) can make arbitrarily small: a bound relative to the result (closeTo) fails for
/// some inputs, this one does not. Any non-finite element fails, as in closeTo.
inline ::testing::AssertionResult closeToMagnitude(const std::vector<float> &got, const std::vector<double> &ref,
                                                   const std::vector<double> &magnitude, double tol,
                                                   const std::string &what) {
  if (got.size() != ref.size() || ref.size() != magnitude.size())
    return ::testing::AssertionFailure() << what << ": size mismatch";
  double num = 0, den = 0, worst = -1;
  size_t worstAt = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return notFinite(got, ref, i, what);
    double d = std::fabs(got[i] - ref[i]);
    num += d * d;
    den += magnitude[i] * magnitude[i];
    // The worst element relative to its own magnitude (an exact 0 of both counts as 0).
    double rel = d == 0 ? 0 : magnitude[i] > 0 ? d / magnitude[i] : INFINITY;
    if (rel > worst) worst = rel, worstAt = i;
  }
  if (std::sqrt(num) <= tol * std::sqrt(den)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": error " << (den > 0 ? std::sqrt(num / den) : INFINITY)
                                       << " of the magnitudes > " << tol << " (worst at " << worstAt << ": got "
                                       << got[worstAt] << ", expected " << ref[worstAt] << ", magnitude "
                                       << magnitude[worstAt] << ")";
}

/// IEEE half and bfloat16 bits of a float, rounded to nearest even (tile/HalfBits.h).
inline uint16_t toHalf(float f) { return tile::halfBits(f); }
inline uint16_t toBf16(float f) { return tile::bf16Bits(f); }

/// The floats such bits hold (tile/HalfBits.h).
inline float halfToFloat(uint16_t h) { return tile::halfFloat(h); }
inline float bf16BitsToFloat(uint16_t h) { return tile::bf16Float(h); }

/// What test/kernels' small_float_fma writes for half inputs a, b, c: their fma computed in
/// float and rounded once to half, and that of their bfloat16 roundings rounded once to bfloat16.
inline std::pair<uint16_t, uint16_t> smallFloatFma(uint16_t a, uint16_t b, uint16_t c) {
  auto bf = [](uint16_t h) { return bf16BitsToFloat(toBf16(halfToFloat(h))); };
  return {toHalf(std::fma(halfToFloat(a), halfToFloat(b), halfToFloat(c))), toBf16(std::fma(bf(a), bf(b), bf(c)))};
}

/// Whether `got` is what fast_exp2(x) may give (tile.h): within `relTol` of 2^x where that is a
/// normal float, +0 where it is below 2^-126 (flushed), 2^x itself at ±inf, NaN for NaN.
inline bool fastExp2Admits(float x, float got, double relTol) {
  if (std::isnan(x)) return std::isnan(got);
  const double want = std::exp2(double(x));
  if (want < 0x1p-126) return got == 0.f && !std::signbit(got);
  if (std::isinf(float(want))) return std::isinf(got) && got > 0;
  return std::fabs(double(got) - want) <= relTol * want;
}

/// Inputs for fast_exp2: every region of 2^x (normal, subnormal, flushed, overflowing) and the
/// specials; `uniform(lo, hi)` draws one float.
template <class Uniform> std::vector<float> fastExp2Inputs(int n, Uniform uniform) {
  std::vector<float> x(n);
  const float specials[] = {0.f,
                            -0.f,
                            1.f,
                            -1.f,
                            -126.f,
                            -126.5f,
                            -149.f,
                            -150.f,
                            127.9f,
                            128.f,
                            0x1p-140f,
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  for (int i = 0; i < n; ++i) {
    const int region = i % 4;
    x[i] = size_t(i) < std::size(specials) ? specials[i]
           : region == 0                   ? uniform(-20.f, 20.f)
           : region == 1                   ? uniform(-160.f, -120.f) // results around 2^-126: flushed or not
           : region == 2                   ? uniform(-1.f, 1.f)
                                           : uniform(100.f, 130.f); // up to overflow
  }
  return x;
}

inline bool isHalfNaN(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
inline bool isBf16NaN(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

} // namespace tile::testutil
