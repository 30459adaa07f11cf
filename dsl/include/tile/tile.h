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

#include "tile/Atomic.h"
#include "tile/Error.h"
#include "tile/Math.h"
#include "tile/Spec.h"
#include "tile/Types.h"
#include "tile/Value.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace tile {

// Element types (tile/Types.h); values, operands and the kernel parameter types Ptr<T>,
// I32, ..., TensorDesc<T, R>, Const<T> (tile/Value.h).
// Errors: tile::ProgramError (a malformed kernel: the message names the user's
// file:line:col and the problem), tile::UnsupportedError, ... all derive from tile::Error
// (tile/Error.h).

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
// Math functions (exp, sin, floor, fast_exp2, ...): tile/Math.h.
/// a · b + c rounded once (a fused multiply-add, Triton's tl.fma): floats, broadcast like the
/// binary operators; f16/bf16 are computed in f32 and rounded back once.
Value fma(Operand a, Operand b, Operand c, SrcLoc loc = SrcLoc::current());
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
// Atomics (atomic_add, atomic_max, ..., atomic_cas, with Triton's sem and scope): tile/Atomic.h.

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
std::vector<Value> for_range(Operand lo, Operand hi, Operand step, std::vector<Value> init, const LoopBody &body,
                             SrcLoc loc = SrcLoc::current());
/// How the compiler may run a loop (Triton's tl.range arguments).
struct LoopOptions {
  /// On sm_90a, a K loop that feeds wgmma from TMA copies (descriptor loads) runs on a
  /// producer warp that issues the copies beside the kernel's num_warps consumer warps
  /// (num_warps a multiple of 4; the launch adds one warpgroup), with the loop at the kernel's
  /// top level after only register work. Elsewhere (other loops, targets, the CPU executor)
  /// the loop runs as without it: a hint, like num_stages.
  bool warpSpecialize = false;
  /// With warpSpecialize, a loop whose iteration issues a dot, computes on its result in
  /// registers and feeds that to a second dot (attention: S = Q Kᵀ, the softmax, O += P V)
  /// issues the next iteration's first dot together with this iteration's second, so the work
  /// between them runs while a product does (FlashAttention-3's intra-warpgroup overlap). Costs
  /// registers: the values between the two dots (P) are held one iteration longer. A hint.
  bool overlapIterations = false;
  /// With warpSpecialize and two or more consumer warpgroups, the warpgroups take turns at
  /// their dots (FlashAttention-3's ping-pong: one's softmax runs while the other's wgmmas do).
  /// false: each issues its dots as soon as it can (FlashAttention-3's backward, whose dots
  /// outweigh the work between them). A hint.
  bool pingPong = true;
};
std::vector<Value> for_range(Operand lo, Operand hi, Operand step, std::vector<Value> init, const LoopBody &body,
                             LoopOptions options, SrcLoc loc = SrcLoc::current());
/// One carried value, the common K loop:
///   Value acc = tile::for_range(0, k, BK, zeros({BM, BN}, DType::f32),
///       [&](Value k0, Value acc) { return dot(load(a + ...), load(b + ...), acc); });
Value for_range(Operand lo, Operand hi, Operand step, Value init,
                const std::function<Value(Value iv, Value carried)> &body, SrcLoc loc = SrcLoc::current());
Value for_range(Operand lo, Operand hi, Operand step, Value init,
                const std::function<Value(Value iv, Value carried)> &body, LoopOptions options,
                SrcLoc loc = SrcLoc::current());
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
