//===- Types.h - the DSL's element types and source locations -------------===//
// Free of MLIR and LLVM headers, like every public DSL header.
#ifndef TILE_TYPES_H
#define TILE_TYPES_H

#include <cstdint>
#include <source_location>

namespace tile {

using SrcLoc = std::source_location;

enum class DType : uint8_t { i1, i8, i16, i32, i64, f16, bf16, f32, f64 };

struct f16 {
  uint16_t bits;
}; ///< tag/storage type for IEEE half
struct bf16 {
  uint16_t bits;
}; ///< tag/storage type for bfloat16

template <class T> struct DTypeOf;
template <> struct DTypeOf<bool> {
  static constexpr DType value = DType::i1;
};
template <> struct DTypeOf<int8_t> {
  static constexpr DType value = DType::i8;
};
template <> struct DTypeOf<int16_t> {
  static constexpr DType value = DType::i16;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::i32;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::i64;
};
template <> struct DTypeOf<f16> {
  static constexpr DType value = DType::f16;
};
template <> struct DTypeOf<bf16> {
  static constexpr DType value = DType::bf16;
};
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::f32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::f64;
};

const char *dtypeName(DType t);
bool isFloat(DType t);
unsigned dtypeBytes(DType t);

} // namespace tile

#endif
