//===- Hash.h - 64-bit FNV-1a and hex digests (not cryptographic) ---------===//
// The one FNV-1a of the tree: cache keys, specialisation hashes, checkpoint checksums and
// stage-dump names all hash with it. Its values key on-disk caches and files: never change
// what it computes (RuntimeHash tests pin known values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tile::rt {

inline constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
inline constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

// seed is the starting state; the default gives standard FNV-1a 64.
constexpr uint64_t fnv1a64(std::string_view s, uint64_t seed = kFnvOffsetBasis) {
  uint64_t h = seed;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= kFnvPrime;
  }
  return h;
}

// The same over raw bytes (file contents, binary records).
inline uint64_t fnv1a64Bytes(const void *data, size_t size, uint64_t seed = kFnvOffsetBasis) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= kFnvPrime;
  }
  return h;
}

// Continues state h over the 8 bytes of v, least significant first (hashing fields of a struct
// without building a string).
constexpr uint64_t fnv1a64Mix(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= kFnvPrime;
  }
  return h;
}

// 16 lowercase hex digits, zero-padded.
inline std::string hex64(uint64_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = digits[v & 0xf];
  return out;
}

// 32 hex digits: two FNV-1a passes with different seeds, so that on-disk keys (which collect inputs
// from many kernels and compiler builds) are very unlikely to collide.
inline std::string digest(std::string_view s) { return hex64(fnv1a64(s)) + hex64(fnv1a64(s, 0x6c62272e07bb0142ULL)); }

} // namespace tile::rt
