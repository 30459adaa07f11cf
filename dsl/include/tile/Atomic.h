//===- Atomic.h - atomic read-modify-writes of global memory (tl.atomic_*) ===//
// Each element where the mask holds is one atomic on the address its pointer holds,
// returning the old value (0 where masked off); masked-off elements are not touched.
// Values are converted to the pointee type. Included by tile/tile.h.
//
// Order (Triton's `sem` and `scope`): relaxed by default (Triton's default is acq_rel);
// `acquire` orders the program's later accesses after the atomic, `release` its earlier ones
// before it (a lock's acquire and release), `acq_rel` both; `scope` is the threads that
// order is promised to: the program's block (`Cta`), the GPU (`Gpu`, the default) or the
// system (`Sys`, host and other devices). On the CPU executor every atomic is system-wide.
#ifndef TILE_ATOMIC_H
#define TILE_ATOMIC_H

#include "tile/Value.h"

#include <vector>

namespace tile {

enum class MemSem { Relaxed, Acquire, Release, AcqRel };
enum class MemScope { Cta, Gpu, Sys };
struct AtomicOrder {
  MemSem sem = MemSem::Relaxed;
  MemScope scope = MemScope::Gpu;
};

/// Atomic fetch-add (integers, f32, f64, f16 and bf16); returns the old values.
Value atomic_add(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_add(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_add(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());
/// Adds `value` atomically to the block of `desc` at `offsets` (elements outside the tensor are
/// not touched), Triton's TensorDescriptor.atomic_add: each element one relaxed device-scope
/// add, in no particular order among programs. On sm_90a an f32/f16/bf16 rank-2 block goes
/// through shared memory and the tensor memory accelerator's reduce-add (FlashAttention-3's dQ).
void atomic_add(Value desc, const std::vector<Operand> &offsets, Value value, SrcLoc loc = SrcLoc::current());

/// max / min: signed integers, and f32/f64 as maxnum/minnum (a NaN value loses to the number
/// in memory). and / or / xor: integers. xchg: stores `value`, any 32- or 64-bit type. All on
/// 32- and 64-bit elements.
Value atomic_max(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_max(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_max(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());
Value atomic_min(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_min(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_min(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());
Value atomic_and(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_and(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_and(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());
Value atomic_or(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_or(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_or(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());
Value atomic_xor(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_xor(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_xor(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());
Value atomic_xchg(Value ptr, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_xchg(Value ptr, Operand value, Value mask, SrcLoc loc = SrcLoc::current());
Value atomic_xchg(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());

/// Compare-and-swap: where memory holds `cmp` (bit for bit) it becomes `value`; returns the
/// old values either way (32- and 64-bit integers and floats).
Value atomic_cas(Value ptr, Operand cmp, Operand value, SrcLoc loc = SrcLoc::current());
Value atomic_cas(Value ptr, Operand cmp, Operand value, AtomicOrder order, SrcLoc loc = SrcLoc::current());
Value atomic_cas(Value ptr, Operand cmp, Operand value, Value mask, AtomicOrder order, SrcLoc loc = SrcLoc::current());

} // namespace tile

#endif
