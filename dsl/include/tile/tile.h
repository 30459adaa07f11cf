//===- tile.h - the tile DSL: block-level GPU kernels in C++ --------------===//
// A kernel is a C++ callable traced once per specialisation into tile IR. Its code runs
// per program (one block of the launch grid) on tensors whose shapes are compile-time
// constants, as in Triton. This header is free of MLIR and LLVM headers: values are
// opaque handles into the IR being built.
//
//   auto add = tile::kernel("add", [](tile::Ptr<float> x, tile::Ptr<float> y, tile::Ptr<float> z,
//                                     tile::I32 n, tile::Const<int> BLOCK) {
//     auto offs = tile::program_id(0) * BLOCK + tile::arange(0, BLOCK);
//     auto mask = offs < n;
//     tile::store(z + offs, tile::load(x + offs, mask) + tile::load(y + offs, mask), mask);
//   });
//   add.launch({tile::cdiv(n, 1024)}, x, y, z, n, 1024);
//
// Every operation records the caller's std::source_location; a malformed program throws
// tile::ProgramError whose message starts with the user's "file:line:col:".
#ifndef TILE_TILE_H
#define TILE_TILE_H

#include "tile/Error.h"
#include "tile/Spec.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tile {

using SrcLoc = std::source_location;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//
enum class DType : uint8_t { i1, i8, i16, i32, i64, f16, bf16, f32, f64 };

struct f16 { uint16_t bits; };  ///< tag/storage type for IEEE half
struct bf16 { uint16_t bits; }; ///< tag/storage type for bfloat16

template <class T> struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::i1; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::i8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::i16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::i32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::i64; };
template <> struct DTypeOf<f16> { static constexpr DType value = DType::f16; };
template <> struct DTypeOf<bf16> { static constexpr DType value = DType::bf16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::f32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::f64; };

const char *dtypeName(DType t);
bool isFloat(DType t);
unsigned dtypeBytes(DType t);

// Errors: tile::ProgramError (a malformed kernel: the message names the user's
// file:line:col and the problem), tile::UnsupportedError, ... all derive from tile::Error
// (tile/Error.h).

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//
/// A scalar or a block-level tensor in the kernel being traced. Cheap to copy.
class Value {
public:
  Value() = default;
  bool valid() const { return impl_ != nullptr; }
  bool isTensor() const;
  bool isPointer() const;           ///< pointer or tensor of pointers
  DType dtype() const;              ///< element type (the pointee for pointers)
  std::vector<int64_t> shape() const; ///< empty for scalars
  int rank() const { return static_cast<int>(shape().size()); }

  /// Opaque mlir::Value (for compiler-internal code only).
  void *raw() const { return impl_; }
  static Value fromRaw(void *p) { Value v; v.impl_ = p; return v; }

private:
  void *impl_ = nullptr;
};

template <class T> class Ptr;
template <class T> class Const;

/// A DSL operand: a Value or a C++ number (a constant typed by the other operand, as in
/// Triton). Its constructors capture the caller's location, so `a + b` reports the line
/// of the expression.
struct Operand {
  enum class Kind : uint8_t { V, Int, Float } kind;
  Value value;
  int64_t i = 0;
  double f = 0;
  SrcLoc loc;
  Operand(const Value &v, SrcLoc l = SrcLoc::current()) : kind(Kind::V), value(v), loc(l) {}
  Operand(int v, SrcLoc l = SrcLoc::current()) : kind(Kind::Int), i(v), loc(l) {}
  Operand(long v, SrcLoc l = SrcLoc::current()) : kind(Kind::Int), i(v), loc(l) {}
  Operand(long long v, SrcLoc l = SrcLoc::current()) : kind(Kind::Int), i(v), loc(l) {}
  Operand(unsigned v, SrcLoc l = SrcLoc::current()) : kind(Kind::Int), i(v), loc(l) {}
  Operand(float v, SrcLoc l = SrcLoc::current()) : kind(Kind::Float), f(v), loc(l) {}
  Operand(double v, SrcLoc l = SrcLoc::current()) : kind(Kind::Float), f(v), loc(l) {}
  template <class T>
  Operand(const Const<T> &c, SrcLoc l = SrcLoc::current());
};

//===----------------------------------------------------------------------===//
// Kernel parameters (the types a kernel lambda takes)
//===----------------------------------------------------------------------===//
/// Pointer to T in global memory. At launch: a device address (CUdeviceptr / uint64_t).
template <class T> class Ptr : public Value {
public:
  using element_type = T;
  Ptr() = default;
  explicit Ptr(Value v) : Value(v) {}
};
/// Scalar runtime arguments.
class I32 : public Value { public: I32() = default; explicit I32(Value v) : Value(v) {} };
class I64 : public Value { public: I64() = default; explicit I64(Value v) : Value(v) {} };
class F32 : public Value { public: F32() = default; explicit F32(Value v) : Value(v) {} };
/// Half-precision and boolean scalars; at launch a C++ number (rounded to nearest even)
/// or a tile::f16 / tile::bf16 holding the bits, and a bool.
class F16 : public Value { public: F16() = default; explicit F16(Value v) : Value(v) {} };
class BF16 : public Value { public: BF16() = default; explicit BF16(Value v) : Value(v) {} };
class I1 : public Value { public: I1() = default; explicit I1(Value v) : Value(v) {} };

/// A tensor in global memory described by base, shape and strides (Triton's tensor
/// descriptor): blocks are read and written by coordinates, out-of-bounds elements of a
/// block read as zero and are not written. R dimensions (1..4), outermost first. At launch:
/// a tile::TensorDescArg{address, {shape...}, {strides...}} (strides in elements), checked
/// as TMA requires on every executor: base 16-byte aligned, innermost stride 1, the other
/// strides multiples of 16 bytes. On sm_90a, blocks of a descriptor that feed a K loop's
/// `dot` move by the tensor memory accelerator (cp.async.bulk.tensor on mbarriers); elsewhere,
/// and on the CPU executor, by ordinary masked loads.
template <class T, int R> class TensorDesc : public Value {
  static_assert(R >= 1 && R <= 4, "TensorDesc has 1 to 4 dimensions");
public:
  using element_type = T;
  static constexpr int rank = R;
  TensorDesc() = default;
  explicit TensorDesc(Value v) : Value(v) {}
};

/// A compile-time constant: each distinct value compiles its own kernel variant. Usable
/// wherever a C++ number is (shapes, loop bounds) and as a DSL operand.
template <class T> class Const {
  static_assert(std::is_integral_v<T>, "Const<T> supports integral T");
public:
  Const() = default;
  explicit Const(T v) : v_(v) {}
  operator T() const { return v_; }
  T value() const { return v_; }
private:
  T v_{};
};

template <class T>
Operand::Operand(const Const<T> &c, SrcLoc l) : kind(Kind::Int), i(static_cast<int64_t>(c.value())), loc(l) {}

/// Constants combine like the numbers they are (`BM * BK`, `BLOCK / 2 > 1`): without
/// these, both the built-in operators and the DSL's are one conversion away.
#define TILE_CONST_BINARY(op)                                                                                          \
  template <class T, class U> constexpr auto operator op(const Const<T> &a, const Const<U> &b) {                       \
    return a.value() op b.value();                                                                                     \
  }
TILE_CONST_BINARY(+)
TILE_CONST_BINARY(-)
TILE_CONST_BINARY(*)
TILE_CONST_BINARY(/)
TILE_CONST_BINARY(%)
TILE_CONST_BINARY(<)
TILE_CONST_BINARY(<=)
TILE_CONST_BINARY(>)
TILE_CONST_BINARY(>=)
TILE_CONST_BINARY(==)
TILE_CONST_BINARY(!=)
#undef TILE_CONST_BINARY

//===----------------------------------------------------------------------===//
// Operations (all record the caller's location)
//===----------------------------------------------------------------------===//
Value program_id(int axis, SrcLoc loc = SrcLoc::current());
Value num_programs(int axis, SrcLoc loc = SrcLoc::current());
/// [start, end) as an i32 tensor; end - start must be a power of two.
Value arange(int64_t start, int64_t end, SrcLoc loc = SrcLoc::current());
Value full(const std::vector<int64_t> &shape, Operand value, DType dtype, SrcLoc loc = SrcLoc::current());
Value zeros(const std::vector<int64_t> &shape, DType dtype, SrcLoc loc = SrcLoc::current());
/// A scalar constant of the given type.
Value constant(double value, DType dtype, SrcLoc loc = SrcLoc::current());

// Shape manipulation. Binary operators broadcast automatically (numpy rules).
Value expand_dims(Value x, int axis, SrcLoc loc = SrcLoc::current());
Value broadcast_to(Value x, const std::vector<int64_t> &shape, SrcLoc loc = SrcLoc::current());
/// x[:, None] and x[None, :] of Triton.
inline Value col(Value x, SrcLoc loc = SrcLoc::current()) { return expand_dims(x, 1, loc); }
inline Value row(Value x, SrcLoc loc = SrcLoc::current()) { return expand_dims(x, 0, loc); }

// Arithmetic and comparisons (elementwise, broadcasting). Pointer + integer advances
// pointers by elements.
Value operator+(Operand a, Operand b);
Value operator-(Operand a, Operand b);
Value operator*(Operand a, Operand b);
Value operator/(Operand a, Operand b); ///< true division for floats, truncating for ints
Value operator%(Operand a, Operand b);
Value operator-(Operand a);
Value operator<(Operand a, Operand b);
Value operator<=(Operand a, Operand b);
Value operator>(Operand a, Operand b);
Value operator>=(Operand a, Operand b);
Value operator==(Operand a, Operand b);
Value operator!=(Operand a, Operand b);
Value operator&(Operand a, Operand b);
Value operator|(Operand a, Operand b);
Value operator^(Operand a, Operand b);
Value operator!(Operand a);
Value operator<<(Operand a, Operand b);
Value operator>>(Operand a, Operand b);

Value where(Operand cond, Operand a, Operand b, SrcLoc loc = SrcLoc::current());
Value cast(Operand x, DType to, SrcLoc loc = SrcLoc::current());
Value exp(Operand x, SrcLoc loc = SrcLoc::current());
Value exp2(Operand x, SrcLoc loc = SrcLoc::current());
Value log(Operand x, SrcLoc loc = SrcLoc::current());
Value sqrt(Operand x, SrcLoc loc = SrcLoc::current());
Value rsqrt(Operand x, SrcLoc loc = SrcLoc::current());
Value abs(Operand x, SrcLoc loc = SrcLoc::current());
Value maximum(Operand a, Operand b, SrcLoc loc = SrcLoc::current());
Value minimum(Operand a, Operand b, SrcLoc loc = SrcLoc::current());

// Memory. Masked-off elements are not accessed; loads give `other` there (0 if absent).
Value load(Value ptr, SrcLoc loc = SrcLoc::current());
Value load(Value ptr, Value mask, SrcLoc loc = SrcLoc::current());
Value load(Value ptr, Value mask, Operand other, SrcLoc loc = SrcLoc::current());
void store(Value ptr, Value value, SrcLoc loc = SrcLoc::current());
void store(Value ptr, Value value, Value mask, SrcLoc loc = SrcLoc::current());
/// The block of `desc` with shape `block` (powers of two) whose first element is at
/// `offsets` (one per dimension, may be negative or past the end: those elements read 0).
Value load(Value desc, const std::vector<Operand> &offsets, const std::vector<int64_t> &block,
           SrcLoc loc = SrcLoc::current());
/// Writes `value` as the block of `desc` at `offsets`; elements outside the tensor are not written.
void store(Value desc, const std::vector<Operand> &offsets, Value value, SrcLoc loc = SrcLoc::current());
/// Atomic fetch-add; returns the old values.
Value atomic_add(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_add(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());

// Matrix product (Triton's tl.dot): a [M, K] times b [K, N] plus acc [M, N] (f32; zeros
// when absent). a and b share one element type: f16 or bf16 (f32 accumulation), or f32,
// multiplied exactly (Precision::IEEE, one FMA per product in increasing k) or through
// TF32 tensor cores (Precision::TF32: inputs rounded to tf32 first).
enum class Precision { IEEE, TF32 };
Value dot(Value a, Value b, SrcLoc loc = SrcLoc::current());
Value dot(Value a, Value b, Value acc, SrcLoc loc = SrcLoc::current());
Value dot(Value a, Value b, Value acc, Precision precision, SrcLoc loc = SrcLoc::current());
/// Permuted dimensions: result dimension i is x's dimension order[i]; no order reverses
/// them (x.T).
Value trans(Value x, SrcLoc loc = SrcLoc::current());
Value trans(Value x, const std::vector<int> &order, SrcLoc loc = SrcLoc::current());
/// The elements in row-major order with another shape (same count).
Value reshape(Value x, const std::vector<int64_t> &shape, SrcLoc loc = SrcLoc::current());
/// `ptr` (a pointer tensor) unchanged, with a directive for every load and store through it:
/// consecutive lanes of a warp step along dimension `dim`. For gathers whose addresses run
/// along `dim` in long stretches the compiler cannot prove (indices through `/` and `%`, like
/// pixels that cross from one image into the next): without it such an access keeps the
/// default order and may touch a cache line per lane. Only the order changes, never a result
/// or the width of an access (that still needs proven contiguity and alignment).
Value lanes_along(Value ptr, int dim, SrcLoc loc = SrcLoc::current());

// Reductions along an axis; the result drops that axis (a scalar for 1-D input).
Value sum(Value x, int axis = 0, SrcLoc loc = SrcLoc::current());
Value max(Value x, int axis = 0, SrcLoc loc = SrcLoc::current());
Value min(Value x, int axis = 0, SrcLoc loc = SrcLoc::current());
Value argmax(Value x, int axis = 0, SrcLoc loc = SrcLoc::current());
Value argmin(Value x, int axis = 0, SrcLoc loc = SrcLoc::current());

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//
/// A loop with loop-carried values: `for (iv = lo; iv < hi; iv += step)`. The body gets the
/// induction variable and the current carried values and returns the next ones (same
/// types and shapes). Returns the final carried values.
///   auto acc = tile::for_range(0, n, BLOCK, {tile::zeros({BLOCK}, DType::f32)},
///       [&](Value k, std::vector<Value> c) { return std::vector<Value>{c[0] + ...}; })[0];
using LoopBody = std::function<std::vector<Value>(Value iv, std::vector<Value> carried)>;
std::vector<Value> for_range(Operand lo, Operand hi, Operand step, std::vector<Value> init,
                             const LoopBody &body, SrcLoc loc = SrcLoc::current());
/// How the compiler may run a loop (Triton's tl.range arguments).
struct LoopOptions {
  /// On sm_90a, a K loop that feeds wgmma from TMA copies (descriptor loads) runs on a
  /// producer warp that issues the copies beside the kernel's num_warps consumer warps
  /// (num_warps a multiple of 4; the launch adds one warpgroup), with the loop at the kernel's
  /// top level after only register work. Elsewhere (other loops, targets, the CPU executor)
  /// the loop runs as without it: a hint, like num_stages.
  bool warpSpecialize = false;
};
std::vector<Value> for_range(Operand lo, Operand hi, Operand step, std::vector<Value> init,
                             const LoopBody &body, LoopOptions options, SrcLoc loc = SrcLoc::current());
/// One carried value, the common K loop:
///   Value acc = tile::for_range(0, k, BK, zeros({BM, BN}, DType::f32),
///       [&](Value k0, Value acc) { return dot(load(a + ...), load(b + ...), acc); });
Value for_range(Operand lo, Operand hi, Operand step, Value init, const std::function<Value(Value iv, Value carried)> &body,
                SrcLoc loc = SrcLoc::current());
Value for_range(Operand lo, Operand hi, Operand step, Value init, const std::function<Value(Value iv, Value carried)> &body,
                LoopOptions options, SrcLoc loc = SrcLoc::current());
/// Convenience for a loop without carried values.
void for_range(Operand lo, Operand hi, Operand step, const std::function<void(Value iv)> &body,
               SrcLoc loc = SrcLoc::current());

/// A scalar condition. Both branches yield values of the same types (possibly none).
using Branch = std::function<std::vector<Value>()>;
std::vector<Value> if_then_else(Value cond, const Branch &then, const Branch &otherwise,
                                SrcLoc loc = SrcLoc::current());
void if_then(Value cond, const std::function<void()> &then, SrcLoc loc = SrcLoc::current());

//===----------------------------------------------------------------------===//
// Host-side helpers
//===----------------------------------------------------------------------===//
constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t next_power_of_2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

} // namespace tile

#include "tile/Kernel.h"

#endif
