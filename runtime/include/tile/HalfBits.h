//===- HalfBits.h - float to IEEE half / bfloat16 bits on the host --------===//
// Rounds to nearest even, as the GPU's cvt.rn does; NaN stays NaN. Header-only: the DSL
// converts f16/bf16 scalar launch arguments with it, and the tests build references.
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

} // namespace tile
