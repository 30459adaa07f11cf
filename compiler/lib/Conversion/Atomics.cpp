//===- Atomics.cpp - tile.atomic_rmw / atomic_cas → PTX atomics and fences -===//
// One atomic per element, by the thread that owns it (replicas would apply it twice). A
// scalar atomic runs on the leader thread, which hands its old value to the others through
// the op's scratch (tile-allocate-shared sized it where the value is used).
//
// Memory order. LLVM 22's NVPTX honours a cmpxchg's ordering and syncscope
// (atom.acquire.gpu.cas) but emits every atomicrmw as a relaxed gpu-scope atom, whatever
// both say (llc: `atomicrmw max ... seq_cst` is `atom.global.max.s32`). So a read-modify-
// write is built as the PTX memory model's fence mapping: relaxed atomics with
// fence.release (or acq_rel) before where `sem` releases and fence.acquire after where it
// acquires, at the op's scope; at system scope the atom itself must be .sys, which only
// NVVM's llvm.nvvm.atomic.*.gen.*.sys intrinsics give (float max/min stay atomicrmw: LLVM
// expands them into a compare-and-swap loop, whose cmpxchg keeps the scope). gpu scope
// covers cta (a wider scope is still correct).
#include "TileToLLVM.h"

#include "tile/AtomicSemantics.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The fence `sem` needs before (release) or after (acquire) the atomics of one op.
void emitFence(OpBuilder &b, Location loc, MemSem sem, MemScope scope, bool before) {
  const bool releases = sem == MemSem::Release || sem == MemSem::AcqRel;
  const bool acquires = sem == MemSem::Acquire || sem == MemSem::AcqRel;
  if (before ? !releases : !acquires) return;
  LLVM::FenceOp::create(b, loc, before ? LLVM::AtomicOrdering::release : LLVM::AtomicOrdering::acquire,
                        nvptxSyncScope(scope));
}

/// NVVM's system-scope intrinsic for `kind` on `elem` (llvm.nvvm.atomic.<op>.gen.<i|f>.sys),
/// or empty where there is none (float max/min).
StringRef systemScopeIntrinsic(LLVM::AtomicBinOp kind, Type elem) {
  const bool isFloat = isa<FloatType>(elem);
  switch (kind) {
  case LLVM::AtomicBinOp::add: return "llvm.nvvm.atomic.add.gen.i.sys";
  case LLVM::AtomicBinOp::fadd: return "llvm.nvvm.atomic.add.gen.f.sys";
  case LLVM::AtomicBinOp::max: return "llvm.nvvm.atomic.max.gen.i.sys";
  case LLVM::AtomicBinOp::min: return "llvm.nvvm.atomic.min.gen.i.sys";
  case LLVM::AtomicBinOp::_and: return "llvm.nvvm.atomic.and.gen.i.sys";
  case LLVM::AtomicBinOp::_or: return "llvm.nvvm.atomic.or.gen.i.sys";
  case LLVM::AtomicBinOp::_xor: return "llvm.nvvm.atomic.xor.gen.i.sys";
  case LLVM::AtomicBinOp::xchg: return isFloat ? "" : "llvm.nvvm.atomic.exch.gen.i.sys";
  default: return "";
  }
}

/// One relaxed read-modify-write at `scope`; returns the old value.
Value emitRelaxedRMW(OpBuilder &b, Location loc, LLVM::AtomicBinOp kind, Value ptr, Value value, MemScope scope) {
  Type type = value.getType();
  StringRef intrinsic = scope == MemScope::Sys ? systemScopeIntrinsic(kind, type) : StringRef();
  if (intrinsic.empty()) {
    // An exchange of floats at system scope moves their bits.
    if (scope == MemScope::Sys && kind == LLVM::AtomicBinOp::xchg) {
      Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
      Value old = emitRelaxedRMW(b, loc, kind, ptr, LLVM::BitcastOp::create(b, loc, bits, value), scope);
      return LLVM::BitcastOp::create(b, loc, type, old);
    }
    return LLVM::AtomicRMWOp::create(b, loc, kind, ptr, value, LLVM::AtomicOrdering::monotonic, nvptxSyncScope(scope));
  }
  Value generic = LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), ptr);
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(intrinsic), ValueRange{generic, value})
      .getResult(0);
}

/// The atomics of `op`, masked-off and replicated elements reading 0, between the fences of
/// its order; `emit` builds register r's atomic.
template <class AtomicOp>
LogicalResult lowerAtomic(AtomicOp op, ValueRange masks, const TypeConverter &converter, SharedMemory &smem,
                          ConversionPatternRewriter &rewriter, bool fenced,
                          function_ref<Value(OpBuilder &, unsigned)> emit) {
  Location loc = op.getLoc();
  Type elem = converter.convertType(getElementTypeOrSelf(op.getType()));
  auto tensorType = dyn_cast<RankedTensorType>(op.getType());
  IntBuilder ib{rewriter, loc};
  std::optional<ThreadLayout> layout;
  ThreadPosition pos;
  if (tensorType) {
    layout = ThreadLayout::get(tensorType);
    pos = emitThreadPosition(rewriter, loc, *layout);
  }
  Value leader = tensorType ? Value() : emitIsLeader(rewriter, loc, op);
  if (fenced) emitFence(rewriter, loc, op.getSem(), op.getScope(), /*before=*/true);
  SmallVector<Value> regs;
  for (unsigned r = 0, n = ThreadLayout::regsOf(op.getType()); r < n; ++r) {
    Value cond = masks.empty() ? Value() : masks[r];
    cond = ib.andi(cond, layout ? emitIsOwner(rewriter, loc, *layout, pos, r) : leader);
    if (!cond) {
      regs.push_back(emit(rewriter, r));
      continue;
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{elem}, cond, /*withElse=*/true);
    OpBuilder thenB = ifOp.getThenBodyBuilder();
    scf::YieldOp::create(thenB, loc, emit(thenB, r));
    OpBuilder elseB = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(elseB, loc, arith::ConstantOp::create(elseB, loc, rewriter.getZeroAttr(elem)).getResult());
    regs.push_back(ifOp.getResult(0));
  }
  if (fenced) emitFence(rewriter, loc, op.getSem(), op.getScope(), /*before=*/false);
  if (!tensorType && !op.getResult().use_empty()) {
    Value slot = smem.scratch(rewriter, loc, op, std::max(1u, elem.getIntOrFloatBitWidth() / 8));
    Value old = regs[0];
    emitIf(rewriter, loc, [&] { return leader; }, [&] { LLVM::StoreOp::create(rewriter, loc, old, slot); });
    emitProgramBarrier(rewriter, loc, op);
    regs[0] = LLVM::LoadOp::create(rewriter, loc, elem, slot);
  }
  rewriter.replaceOpWithMultiple(op, {regs});
  return success();
}

struct AtomicRMWLowering : OpConversionPattern<AtomicRMWOp> {
  AtomicRMWLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem)
      : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;
  LogicalResult matchAndRewrite(AtomicRMWOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const LLVM::AtomicBinOp kind = llvmAtomicBinOp(op.getKind(), getElementTypeOrSelf(op.getType()));
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue();
    return lowerAtomic(op, adaptor.getMask(), *getTypeConverter(), smem, rewriter, /*fenced=*/true,
                       [&](OpBuilder &b, unsigned r) -> Value {
                         return emitRelaxedRMW(b, op.getLoc(), kind, ptrs[r], values[r], op.getScope());
                       });
  }
};

/// cmpxchg keeps its order and scope through NVPTX: no fences.
struct AtomicCASLowering : OpConversionPattern<AtomicCASOp> {
  AtomicCASLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem)
      : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;
  LogicalResult matchAndRewrite(AtomicCASOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ValueRange ptrs = adaptor.getPtr(), cmps = adaptor.getCmp(), values = adaptor.getValue();
    return lowerAtomic(op, adaptor.getMask(), *getTypeConverter(), smem, rewriter, /*fenced=*/false,
                       [&](OpBuilder &b, unsigned r) -> Value {
                         return compareAndSwap(b, op.getLoc(), ptrs[r], cmps[r], values[r], op.getSem(),
                                               nvptxSyncScope(op.getScope()));
                       });
  }
};

} // namespace

void mlir::tile::populateAtomicPatterns(TileTypeConverter &converter, RewritePatternSet &patterns, SharedMemory &smem) {
  patterns.add<AtomicRMWLowering, AtomicCASLowering>(converter, patterns.getContext(), smem);
}
