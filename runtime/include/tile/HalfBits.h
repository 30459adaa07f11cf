//===- HalfBits.h - float <-> IEEE half / bfloat16 bits on the host -------===//
// To bits: rounds to nearest even, as the GPU's cvt.rn does; NaN stays NaN. From bits: exact.
// Header-only: the DSL converts f16/bf16 scalar launch arguments with it, the tests build
// references and the benchmarks read results back.
#pragma once

#include <cstdint>
#include <cstring>

namespace tile {

/// IEEE half and bfloat16 bits of a float, rounding to nearest even (as cvt.rn does).
inline uint16_t halfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  if ((x & 0x7fffffff) > 0x7f800000) return uint16_t(sign | 0x7e00);
  int exp = int((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp >= 31) return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = 14 - exp, half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = uint32_t(exp) << 10 | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return uint16_t(sign | half);
}
inline uint16_t bf16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

/// The float an IEEE half's bits hold (exact: every half is a float).
inline float halfFloat(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t x;
  if (exp == 31) x = 0x7f800000u | uint32_t(mant) << 13; // inf, NaN (payload kept)
  else if (exp != 0) x = uint32_t(exp - 15 + 127) << 23 | uint32_t(mant) << 13;
  else {
    // Subnormal: mant * 2^-24, exact in float.
    float v = float(mant) * 0x1p-24f;
    std::memcpy(&x, &v, 4);
  }
  x |= uint32_t(h & 0x8000) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
/// The float a bfloat16's bits hold (its top half).
inline float bf16Float(uint16_t h) {
  const uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

} // namespace tile
