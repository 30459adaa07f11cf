//===- Value.h - handles to traced values and the kernel parameter types --===//
// A tile::Value is an opaque handle into the IR of the kernel being traced. It is valid
// only while that trace runs: every handle carries the id of the trace that created it,
// and a handle used after its trace ended (kept in a static, or read by another kernel)
// throws ProgramError at the using line instead of reading the freed IR.
#ifndef TILE_VALUE_H
#define TILE_VALUE_H

#include "tile/Types.h"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace tile {

/// A scalar or a block-level tensor in the kernel being traced. Cheap to copy. The queries
/// take the caller's location: on a Value whose trace has ended they throw ProgramError.
class Value {
public:
  Value() = default;
  bool valid() const { return impl_ != nullptr; }
  bool isTensor(SrcLoc loc = SrcLoc::current()) const;
  bool isPointer(SrcLoc loc = SrcLoc::current()) const;             ///< pointer or tensor of pointers
  DType dtype(SrcLoc loc = SrcLoc::current()) const;                ///< element type (the pointee for pointers)
  std::vector<int64_t> shape(SrcLoc loc = SrcLoc::current()) const; ///< empty for scalars
  int rank(SrcLoc loc = SrcLoc::current()) const { return static_cast<int>(shape(loc).size()); }

  /// Opaque mlir::Value and the id of the trace that made it (for compiler-internal code only).
  void *raw() const { return impl_; }
  uint64_t traceId() const { return trace_; }
  static Value fromRaw(void *p, uint64_t traceId) {
    Value v;
    v.impl_ = p;
    v.trace_ = traceId;
    return v;
  }

private:
  void *impl_ = nullptr;
  uint64_t trace_ = 0; ///< 0: no trace (an empty Value)
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
  template <class T> Operand(const Const<T> &c, SrcLoc l = SrcLoc::current());
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
class I32 : public Value {
public:
  I32() = default;
  explicit I32(Value v) : Value(v) {}
};
class I64 : public Value {
public:
  I64() = default;
  explicit I64(Value v) : Value(v) {}
};
class F32 : public Value {
public:
  F32() = default;
  explicit F32(Value v) : Value(v) {}
};
/// Half-precision and boolean scalars; at launch a C++ number (rounded to nearest even)
/// or a tile::f16 / tile::bf16 holding the bits, and a bool.
class F16 : public Value {
public:
  F16() = default;
  explicit F16(Value v) : Value(v) {}
};
class BF16 : public Value {
public:
  BF16() = default;
  explicit BF16(Value v) : Value(v) {}
};
class I1 : public Value {
public:
  I1() = default;
  explicit I1(Value v) : Value(v) {}
};

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

} // namespace tile

#endif
