//===- MemoryOps.cpp - masked, vectorised global loads and stores ---------===//
// `tile.vec` (from tile-coalesce) says how many consecutive registers form one access.
// Such a group lies inside one thread's run of contiguous elements, its address is
// aligned to the group's size, and its mask is uniform, so one predicate guards a
// single `ld.global.v4`-style instruction.
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"

#include <cassert>

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

unsigned byteWidth(Type t) { return std::max<unsigned>(1, t.getIntOrFloatBitWidth() / 8); }

/// `op`'s `tile.vec` where it fits its `regs` registers of `elem` per thread: a power of two
/// dividing them, at most 16 bytes (what tile-coalesce chooses; the dialect's verifier bounds
/// it, but only the layout and element type tell whether it fits: a group past the last
/// register would read registers that do not exist).
FailureOr<unsigned> accessWidth(Operation *op, unsigned regs, Type elem) {
  const int64_t vec = vecOf(op);
  assert(regs > 0 && "a tensor holds at least one register per thread");
  if (llvm::isPowerOf2_64(uint64_t(vec)) && regs % vec == 0 && vec * byteWidth(elem) <= 16) return unsigned(vec);
  return op->emitOpError("tile.vec = ") << vec << " does not fit " << regs << " registers of " << elem
                                        << " per thread (a power of two dividing them, at most 16 bytes)";
}

/// `vec` scalars as one vector value (or the scalar itself when vec == 1).
Value pack(OpBuilder &b, Location loc, ArrayRef<Value> elems, Type vecType) {
  if (elems.size() == 1) return elems[0];
  Value v = LLVM::PoisonOp::create(b, loc, vecType);
  for (unsigned i = 0; i < elems.size(); ++i)
    v = LLVM::InsertElementOp::create(b, loc, v, elems[i], arith::ConstantIntOp::create(b, loc, i, 32));
  return v;
}

void unpack(OpBuilder &b, Location loc, Value v, unsigned vec, SmallVectorImpl<Value> &out) {
  if (vec == 1) return out.push_back(v);
  for (unsigned i = 0; i < vec; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, loc, v, arith::ConstantIntOp::create(b, loc, i, 32)));
}

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    unsigned n = ThreadLayout::regsOf(op.getType());
    FailureOr<unsigned> width = accessWidth(op, n, elem);
    if (failed(width)) return failure();
    unsigned vec = *width;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.load at " << loc << ": " << n << " register(s) per thread in "
                            << n / vec << " access(es) of " << vec << " x " << elem << "\n");
    Type accessType = vec == 1 ? elem : VectorType::get({vec}, elem);
    unsigned alignment = vec * byteWidth(elem);
    ValueRange ptrs = adaptor.getPtr(), masks = adaptor.getMask(), others = adaptor.getOther();

    SmallVector<Value> regs;
    for (unsigned g = 0; g < n; g += vec) {
      auto emitLoad = [&](OpBuilder &b) -> Value {
        return LLVM::LoadOp::create(b, loc, accessType, ptrs[g], alignment);
      };
      Value loaded;
      if (masks.empty()) {
        loaded = emitLoad(rewriter);
      } else {
        SmallVector<Value> fill;
        for (unsigned i = 0; i < vec; ++i)
          fill.push_back(others.empty()
                             ? arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elem)).getResult()
                             : others[g + i]);
        Value fallback = pack(rewriter, loc, fill, accessType);
        auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{accessType}, masks[g], /*withElse=*/true);
        OpBuilder thenB = ifOp.getThenBodyBuilder();
        scf::YieldOp::create(thenB, loc, emitLoad(thenB));
        OpBuilder elseB = ifOp.getElseBodyBuilder();
        scf::YieldOp::create(elseB, loc, fallback);
        loaded = ifOp.getResult(0);
      }
      unpack(rewriter, loc, loaded, vec, regs);
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getTypeConverter()->convertType(getElementTypeOrSelf(op.getValue().getType()));
    unsigned n = ThreadLayout::regsOf(op.getValue().getType());
    FailureOr<unsigned> width = accessWidth(op, n, elem);
    if (failed(width)) return failure();
    unsigned vec = *width;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.store at " << loc << ": " << n << " register(s) per thread in "
                            << n / vec << " access(es) of " << vec << " x " << elem << "\n");
    Type accessType = vec == 1 ? elem : VectorType::get({vec}, elem);
    unsigned alignment = vec * byteWidth(elem);
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue(), masks = adaptor.getMask();
    // A scalar is stored once, by the leader (as Triton does): a store of every thread would
    // land at times of its own, after a lock's release by the leader, say.
    const bool scalar = !isa<RankedTensorType>(op.getValue().getType());
    IntBuilder ib{rewriter, loc};
    for (unsigned g = 0; g < n; g += vec) {
      Value packed = pack(rewriter, loc, llvm::to_vector(values.slice(g, vec)), accessType);
      Value cond = masks.empty() ? Value() : masks[g];
      if (scalar) cond = ib.andi(cond, emitIsLeader(rewriter, loc, op));
      if (!cond) {
        LLVM::StoreOp::create(rewriter, loc, packed, ptrs[g], alignment);
        continue;
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, cond, /*withElse=*/false);
      OpBuilder thenB = ifOp.getThenBodyBuilder();
      LLVM::StoreOp::create(thenB, loc, packed, ptrs[g], alignment);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateMemoryOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering>(converter, patterns.getContext());
}
