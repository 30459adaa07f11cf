//===- MathReference.h - the math library's functions, references, bounds ===//
// The functions of tile/Math.h as test/kernels/MathKernels.h applies them, each with a
// reference in long double (64-bit mantissa: correctly rounded results stay so after
// rounding to f32, f16 or f64) and the bound docs/dsl.md promises. The CPU and GPU tests
// check every function on the same inputs with admits(); exact functions must give the
// correctly rounded result bit for bit.
#pragma once

#include "Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tile::testutil {

enum class MathFn : int {
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log1p,
  Rsqrt,
  Sin,
  Cos,
  Tan,
  Tanh,
  Erf,
  Pow,
  Sigmoid,
  Sqrt,
  DivRn,
  Floor,
  Ceil,
  Trunc,
  Rint,
  Round,
  Clamp,
  IsNan,
  IsInf,
  Signbit,
  FastExp2,
  FastExp,
  FastLog2,
  FastLog,
  FastSqrt,
  FastTanh,
  FastSin,
  FastCos,
  Fdiv,
  Count
};
constexpr int kMathFns = int(MathFn::Count);

/// clamp's bounds in the kernel.
constexpr double kClampLo = -2, kClampHi = 3;

enum class MathKind { Exact, Accurate, Fast };

/// A function's name, kind and f32 bound: |got - exact| <= ulps · ulp(exact) + absolute
/// + relative · |exact| + perX · |x| (f32 inputs; fast_exp adds |x| · 2^-24 · |exact|, its
/// scaling's rounding).
struct MathFnInfo {
  const char *name;
  MathKind kind;
  double ulps, absolute = 0, relative = 0, perX = 0;
};

inline MathFnInfo mathFnInfo(MathFn f) {
  using K = MathKind;
  switch (f) {
  // libdevice's documented maxima (CUDA's math API) or the C library's, the larger.
  case MathFn::Exp: return {"exp", K::Accurate, 2};
  case MathFn::Exp2: return {"exp2", K::Accurate, 2};
  case MathFn::Expm1: return {"expm1", K::Accurate, 2};
  case MathFn::Log: return {"log", K::Accurate, 2};
  case MathFn::Log2: return {"log2", K::Accurate, 2};
  case MathFn::Log1p: return {"log1p", K::Accurate, 2};
  case MathFn::Rsqrt: return {"rsqrt", K::Accurate, 2};
  case MathFn::Sin: return {"sin", K::Accurate, 2};
  case MathFn::Cos: return {"cos", K::Accurate, 2};
  case MathFn::Tan: return {"tan", K::Accurate, 4};
  case MathFn::Tanh: return {"tanh", K::Accurate, 2};
  case MathFn::Erf: return {"erf", K::Accurate, 2};
  case MathFn::Pow: return {"pow", K::Accurate, 4};
  case MathFn::Sigmoid: return {"sigmoid", K::Accurate, 4};
  case MathFn::Sqrt: return {"sqrt", K::Exact, 0};
  case MathFn::DivRn: return {"div_rn", K::Exact, 0};
  case MathFn::Floor: return {"floor", K::Exact, 0};
  case MathFn::Ceil: return {"ceil", K::Exact, 0};
  case MathFn::Trunc: return {"trunc", K::Exact, 0};
  case MathFn::Rint: return {"rint", K::Exact, 0};
  case MathFn::Round: return {"round", K::Exact, 0};
  case MathFn::Clamp: return {"clamp", K::Exact, 0};
  case MathFn::IsNan: return {"isnan", K::Exact, 0};
  case MathFn::IsInf: return {"isinf", K::Exact, 0};
  case MathFn::Signbit: return {"signbit", K::Exact, 0};
  // The PTX ISA's bounds for the approximate instructions.
  case MathFn::FastExp2: return {"fast_exp2", K::Fast, 0, 0, 0x1p-21};
  case MathFn::FastExp: return {"fast_exp", K::Fast, 0, 0, 0x1p-21};
  case MathFn::FastLog2: return {"fast_log2", K::Fast, 2, 0x1p-21};
  case MathFn::FastLog: return {"fast_log", K::Fast, 3, 0x1p-21};
  case MathFn::FastSqrt: return {"fast_sqrt", K::Fast, 2};
  case MathFn::FastTanh:
    return {"fast_tanh", K::Fast, 0, 0, 0x1.6a09e6p-11}; // 2^-10.5
  // sin.approx's range reduction loses |x| · 2^-23 or so (seen on an H200 up to |x| = 314).
  case MathFn::FastSin: return {"fast_sin", K::Fast, 0, 0x1.6a09e6p-21, 0, 0x1p-22}; // 2^-20.5
  case MathFn::FastCos: return {"fast_cos", K::Fast, 0, 0x1.6a09e6p-21, 0, 0x1p-22};
  case MathFn::Fdiv: return {"fdiv", K::Fast, 2};
  case MathFn::Count: break;
  }
  return {"?", MathKind::Exact, 0};
}

/// fast_sin and fast_cos are bounded on [-100π, 100π] only (sin.approx's range reduction).
constexpr long double kFastTrigRange = 314.0L;

/// The element formats the tests run: mantissa bits (with the implicit one), the smallest
/// normal exponent, the largest finite value.
struct FloatFormat {
  int mantissa, minExponent;
  long double max;
  bool narrow; ///< computed in f32 and rounded back
};
constexpr FloatFormat kF32{24, -126, 0x1.fffffep127L, false};
constexpr FloatFormat kF16{11, -14, 65504.0L, true};
constexpr FloatFormat kBF16{8, -126, 0x1.fep127L, true};
constexpr FloatFormat kF64{53, -1022, 0x1.fffffffffffffp1023L, false};

/// One unit in the last place of `fmt` at v (subnormals: the smallest subnormal).
inline long double ulpAt(const FloatFormat &fmt, long double v) {
  int e = v == 0 || std::isinf(v) ? fmt.minExponent : std::max(int(std::ilogb(v)), fmt.minExponent);
  return std::ldexp(1.0L, e - (fmt.mantissa - 1));
}

/// `v` rounded to `fmt` (to nearest even; overflow to ±inf).
inline long double roundTo(const FloatFormat &fmt, long double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return v;
  long double u = ulpAt(fmt, v);
  long double r = std::nearbyint(v / u) * u;
  return std::fabs(r) > fmt.max ? std::copysign(INFINITY, v) : r;
}

/// What the fast f32 instructions read a subnormal input as (`.ftz`).
inline bool flushesInput(MathFn f) {
  return f == MathFn::FastLog2 || f == MathFn::FastLog || f == MathFn::FastSqrt || f == MathFn::FastSin ||
         f == MathFn::FastCos;
}
inline bool flushesResult(MathFn f) {
  return f == MathFn::FastExp2 || f == MathFn::FastExp || f == MathFn::FastSin || f == MathFn::FastCos;
}

/// The exact value of f at (x, y) (y: pow's exponent, div_rn's and fdiv's divisor), in R.
template <class R = long double> R mathReference(MathFn f, R x, R y) {
  switch (f) {
  case MathFn::Exp:
  case MathFn::FastExp: return std::exp(x);
  case MathFn::Exp2:
  case MathFn::FastExp2: return std::exp2(x);
  case MathFn::Expm1: return std::expm1(x);
  case MathFn::Log:
  case MathFn::FastLog: return std::log(x);
  case MathFn::Log2:
  case MathFn::FastLog2: return std::log2(x);
  case MathFn::Log1p: return std::log1p(x);
  case MathFn::Rsqrt: return 1 / std::sqrt(x);
  case MathFn::Sin:
  case MathFn::FastSin: return std::sin(x);
  case MathFn::Cos:
  case MathFn::FastCos: return std::cos(x);
  case MathFn::Tan: return std::tan(x);
  case MathFn::Tanh:
  case MathFn::FastTanh: return std::tanh(x);
  case MathFn::Erf: return std::erf(x);
  case MathFn::Pow: return std::pow(x, y);
  case MathFn::Sigmoid: return 1 / (1 + std::exp(-x));
  case MathFn::Sqrt:
  case MathFn::FastSqrt: return std::sqrt(x);
  case MathFn::DivRn:
  case MathFn::Fdiv: return x / y;
  case MathFn::Floor: return std::floor(x);
  case MathFn::Ceil: return std::ceil(x);
  case MathFn::Trunc: return std::trunc(x);
  case MathFn::Rint: return std::nearbyint(x);
  case MathFn::Round: return std::round(x);
  case MathFn::Clamp: return std::isnan(x) ? x : std::min(std::max(x, R(kClampLo)), R(kClampHi));
  case MathFn::IsNan: return std::isnan(x) ? 1 : 0;
  case MathFn::IsInf: return std::isinf(x) ? 1 : 0;
  case MathFn::Signbit: return std::signbit(x) ? 1 : 0;
  case MathFn::Count: break;
  }
  return NAN;
}

/// How far `got` is from f(x, y) in units of the allowed error (<= 1 passes; NaN where the
/// function promises nothing, e.g. fast_sin far from 0), for inputs and result of format
/// `fmt`. Exact functions: 0 for the correctly rounded bits, else infinity.
inline double mathError(MathFn f, const FloatFormat &fmt, long double x, long double y, long double got) {
  const MathFnInfo info = mathFnInfo(f);
  // f64 computes the fast functions accurately: exp2's bound for fast_exp2, ...
  const bool fast = info.kind == MathKind::Fast && fmt.mantissa <= 24;
  const FloatFormat &computed = fmt.narrow ? kF32 : fmt;
  if (fast && flushesInput(f) && x != 0 && std::fabs(x) < 0x1p-126L) x = std::copysign(0.0L, x);
  if (fast && (f == MathFn::FastSin || f == MathFn::FastCos) && std::fabs(x) > kFastTrigRange) return NAN;
  if (fast && f == MathFn::FastTanh && x != 0 && std::fabs(x) < 0x1p-126L) return NAN;
  // f64's exact functions in double: a long double sqrt or quotient rounded again to double
  // may miss the correctly rounded one (64 bits are not 2 · 53 + 2).
  const bool inDouble = info.kind == MathKind::Exact && fmt.mantissa > 24;
  const long double want = inDouble ? mathReference<double>(f, double(x), double(y)) : mathReference(f, x, y);
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (info.kind == MathKind::Exact) {
    long double rounded = roundTo(fmt, want);
    return std::isnan(got) || got != rounded || std::signbit(got) != std::signbit(rounded) ? INFINITY : 0;
  }
  if (std::isnan(got)) return INFINITY;
  if (std::isinf(want)) return got == want ? 0 : INFINITY;
  // The allowed error in `computed`, then the rounding to a narrower result.
  const double scale = fmt.mantissa > 24 ? 0x1p-29 : 1; // f64: relative bounds 2^29 times tighter
  long double allowed = (fast ? info.ulps : std::max(info.ulps, 1.0)) * ulpAt(computed, want) +
                        scale * (info.absolute + info.relative * std::fabs(want) + info.perX * std::fabs(x));
  if (!fast && info.kind == MathKind::Fast) allowed += 2 * ulpAt(computed, want); // composed in f64
  if (f == MathFn::FastExp) allowed += std::fabs(x) * ulpAt(computed, 1) * std::fabs(want);
  if (fmt.narrow) allowed += ulpAt(fmt, want);
  // A result at the edge of the format: rounded past its largest value, or flushed.
  if (std::isinf(got) && std::fabs(want) + allowed >= fmt.max) return 0;
  if (fast && flushesResult(f) && got == 0 && std::fabs(want) <= 0x1p-126L + allowed) return 0;
  return double(std::fabs(got - want) / allowed);
}

/// Inputs over every region the functions care about: the specials (zeros, infinities, NaN,
/// subnormals, ties for the rounding functions, the edges of exp's and log's ranges), then
/// random magnitudes from 2^-40 to 2^40 of either sign and values in [-10, 10].
/// `uniform()` draws from [0, 1).
template <class Uniform> std::vector<long double> mathInputs(const FloatFormat &fmt, int n, Uniform uniform) {
  const long double inf = INFINITY;
  std::vector<long double> specials = {
      0.0L, -0.0L, 1, -1, 0.5L, -0.5L, 1.5L, 2.5L, -2.5L, 3.5L, 0.49999997L, 2, 3, -2, 10, 88.5L, -87.5L, 127.5L,
      -149.5L, 1e-3L, -1e-3L, 1e-6L, 3.14159265L, 1.5707963L, 100, 314, 1e4L, -1e4L, inf, -inf, NAN,
      // the smallest and largest subnormal, the smallest normal
      std::ldexp(1.0L, fmt.minExponent - (fmt.mantissa - 1)), -std::ldexp(1.0L, fmt.minExponent - (fmt.mantissa - 1)),
      std::ldexp(1.0L, fmt.minExponent) * (1 - std::ldexp(1.0L, 1 - fmt.mantissa)), std::ldexp(1.0L, fmt.minExponent),
      fmt.max, -fmt.max};
  std::vector<long double> x;
  for (int i = 0; i < n; ++i) {
    long double v;
    if (size_t(i) < specials.size()) v = specials[size_t(i)];
    else if (i % 2) v = (uniform() < 0.5 ? -1 : 1) * std::exp2(80 * uniform() - 40);
    else v = 20 * uniform() - 10;
    x.push_back(roundTo(fmt, v));
  }
  return x;
}

/// The second operands: pow's exponents (integers, halves, a few others) and divisors.
template <class Uniform> std::vector<long double> mathSecondInputs(const FloatFormat &fmt, int n, Uniform uniform) {
  const long double exps[] = {0, 1, 2, 3, -1, -2, 0.5L, -0.5L, 1.5L, 2.25L, 10, -3.75L};
  std::vector<long double> y;
  for (int i = 0; i < n; ++i) y.push_back(roundTo(fmt, i % 3 ? exps[size_t(i) % std::size(exps)] : 8 * uniform() - 4));
  return y;
}

/// Every function's results `out` ([kMathFns][n], as the format's values) on inputs x, y:
/// the failures (empty when all pass, else one line each, the first 20) and per function
/// the largest error as a fraction of its bound.
struct MathReport {
  std::string failures;
  double worst[kMathFns] = {};
  std::string table() const {
    std::string t;
    for (int f = 0; f < kMathFns; ++f)
      t += std::string(mathFnInfo(MathFn(f)).name) + " " + std::to_string(worst[f]) + (f + 1 < kMathFns ? ", " : "");
    return t;
  }
};
inline MathReport checkMath(const FloatFormat &fmt, const std::vector<long double> &x,
                            const std::vector<long double> &y, const std::vector<long double> &out) {
  MathReport r;
  const size_t n = x.size();
  int failures = 0;
  for (int f = 0; f < kMathFns; ++f)
    for (size_t i = 0; i < n; ++i) {
      const long double got = out[size_t(f) * n + i];
      const double err = mathError(MathFn(f), fmt, x[i], y[i], got);
      if (std::isnan(err)) continue;
      r.worst[f] = std::max(r.worst[f], err);
      if (err <= 1 || ++failures > 20) continue;
      char line[256];
      std::snprintf(line, sizeof line, "%s(%.9Lg, %.9Lg) = %.9Lg, want %.12Lg (%.3g of the bound)\n",
                    mathFnInfo(MathFn(f)).name, x[i], y[i], got, mathReference(MathFn(f), x[i], y[i]), err);
      r.failures += line;
    }
  return r;
}

} // namespace tile::testutil
