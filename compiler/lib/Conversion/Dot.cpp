//===- Dot.cpp - tile.dot on CUDA cores: one FMA per product -----------------===//
// Layout assignment gives the operands blocked layouts derived from the result's: a
// [M, K] holds, in each thread, the full K extent of the rows the thread's result
// registers cover (sizePerThread = [spt0, K], lanes and warps as the result's, so the
// lanes along N hold copies), and b [K, N] the full K extent of its columns. So result
// register (i, j) needs only this thread's registers a(i, k) and b(k, j): no data moves.
// The accumulation is the documented one: fma in increasing k, starting from acc, which
// is what the CPU executor does too. (The tensor-core path replaces this where shapes
// and types allow.)
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// An input element as the f32 factor the documented arithmetic uses.
Value factor(OpBuilder &b, Location loc, Value v, InputPrecision precision) {
  Type f32 = b.getF32Type();
  if (v.getType() != f32) return arith::ExtFOp::create(b, loc, f32, v); // f16/bf16: exact
  if (precision != InputPrecision::TF32) return v;
  // cvt.rna.tf32.f32: nearest, ties away from zero; the result's bits are an f32.
  Value bits = NVVM::ConvertFloatToTF32Op::create(b, loc, b.getI32Type(), v, NVVM::FPRoundingMode::RNA,
                                                  NVVM::SaturationMode::NONE, /*relu=*/false);
  return LLVM::BitcastOp::create(b, loc, f32, bits);
}

struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout a = ThreadLayout::get(op.getA().getType()), b = ThreadLayout::get(op.getB().getType());
    ThreadLayout c = ThreadLayout::get(op.getType());
    const int64_t k = op.getA().getType().getDimSize(1);
    if (a.sliceDim >= 0 || b.sliceDim >= 0 || c.sliceDim >= 0 || a.nreg[1] != k || b.nreg[0] != k ||
        a.nreg[0] != c.nreg[0] || b.nreg[1] != c.nreg[1])
      return rewriter.notifyMatchFailure(op, "operand layouts are not the FMA dot's (layout assignment's job)");
    InputPrecision precision = op.getInputPrecision();

    // Each operand register converted once, not once per use.
    auto factors = [&](ValueRange regs) {
      SmallVector<Value> out;
      for (Value v : regs) out.push_back(factor(rewriter, loc, v, precision));
      return out;
    };
    SmallVector<Value> av = factors(adaptor.getA()), bv = factors(adaptor.getB());
    SmallVector<Value> results;
    for (unsigned r = 0; r < c.numRegs(); ++r) {
      SmallVector<unsigned> ij = c.regIndex(r);
      Value acc = adaptor.getAcc()[r];
      for (int64_t kk = 0; kk < k; ++kk) {
        Value x = av[a.regNumber({ij[0], unsigned(kk)})];
        Value y = bv[b.regNumber({unsigned(kk), ij[1]})];
        acc = LLVM::FMAOp::create(rewriter, loc, x, y, acc);
      }
      results.push_back(acc);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// trans: layout assignment gives the result the source layout with its dimensions
/// permuted, so every thread keeps its registers in the same order.
struct TransLowering : OpConversionPattern<TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (ThreadLayout::get(op.getType()).numRegs() != adaptor.getSrc().size())
      return rewriter.notifyMatchFailure(op, "result layout is not the permuted source layout");
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

} // namespace

void mlir::tile::populateDotPatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotLowering, TransLowering>(converter, patterns.getContext());
}
