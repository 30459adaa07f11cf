//===- AtomicSemantics.h - tile atomics as LLVM atomics --------------------===//
// What tile.atomic_rmw / tile.atomic_cas mean in LLVM's terms, for both executors' lowering:
// the read-modify-write operation, the memory order of `sem`, and (GPU) the NVPTX
// synchronisation scope of `scope` (the CPU executor's threads share one coherent memory:
// its atomics are system-wide whatever the scope).
#ifndef TILE_ATOMICSEMANTICS_H
#define TILE_ATOMICSEMANTICS_H

#include "tile/Dialect/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tile {

/// The LLVM operation of `kind` on elements of type `elem` (max/min: signed integers, and
/// maxnum/minnum on floats).
inline LLVM::AtomicBinOp llvmAtomicBinOp(AtomicKind kind, Type elem) {
  const bool isFloat = isa<FloatType>(elem);
  switch (kind) {
  case AtomicKind::Add: return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case AtomicKind::Max: return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case AtomicKind::Min: return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case AtomicKind::And: return LLVM::AtomicBinOp::_and;
  case AtomicKind::Or: return LLVM::AtomicBinOp::_or;
  case AtomicKind::Xor: return LLVM::AtomicBinOp::_xor;
  case AtomicKind::Xchg: return LLVM::AtomicBinOp::xchg;
  }
  return LLVM::AtomicBinOp::xchg;
}

/// `sem` as LLVM's ordering (relaxed is monotonic).
inline LLVM::AtomicOrdering llvmOrdering(MemSem sem) {
  switch (sem) {
  case MemSem::Relaxed: return LLVM::AtomicOrdering::monotonic;
  case MemSem::Acquire: return LLVM::AtomicOrdering::acquire;
  case MemSem::Release: return LLVM::AtomicOrdering::release;
  case MemSem::AcqRel: return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::monotonic;
}

/// A compare-and-swap's order where the comparison fails (it writes nothing: no release).
inline LLVM::AtomicOrdering llvmFailureOrdering(MemSem sem) {
  return sem == MemSem::Acquire || sem == MemSem::AcqRel ? LLVM::AtomicOrdering::acquire
                                                         : LLVM::AtomicOrdering::monotonic;
}

/// NVPTX's synchronisation scope names: block (.cta), device (.gpu), the default (.sys).
inline StringRef nvptxSyncScope(MemScope scope) {
  switch (scope) {
  case MemScope::Cta: return "block";
  case MemScope::Gpu: return "device";
  case MemScope::Sys: return "";
  }
  return "";
}

/// One compare-and-swap of `value` for `cmp` at `ptr`, returning the old value: floats as
/// integers of their width (LLVM's cmpxchg takes integers; the comparison is bit for bit).
inline Value compareAndSwap(OpBuilder &b, Location loc, Value ptr, Value cmp, Value value, MemSem sem,
                            StringRef syncscope) {
  Type type = value.getType();
  const bool isFloat = isa<FloatType>(type);
  Type bits = isFloat ? Type(b.getIntegerType(type.getIntOrFloatBitWidth())) : type;
  if (isFloat) {
    cmp = LLVM::BitcastOp::create(b, loc, bits, cmp);
    value = LLVM::BitcastOp::create(b, loc, bits, value);
  }
  auto swap =
      LLVM::AtomicCmpXchgOp::create(b, loc, ptr, cmp, value, llvmOrdering(sem), llvmFailureOrdering(sem), syncscope);
  Value old = LLVM::ExtractValueOp::create(b, loc, swap, 0);
  return isFloat ? Value(LLVM::BitcastOp::create(b, loc, type, old)) : old;
}

} // namespace mlir::tile

#endif
