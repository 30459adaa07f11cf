//===- Dot.cpp - tile.dot: mma.sync on tensor cores, or one FMA per product ===//
// Layout assignment gives the operands blocked layouts derived from the result's: a
// [M, K] holds, in each thread, the full K extent of the rows the thread's result
// registers cover (sizePerThread = [spt0, K], lanes and warps as the result's, so the
// lanes along N hold copies), and b [K, N] the full K extent of its columns. So result
// register (i, j) needs only this thread's registers a(i, k) and b(k, j): no data moves.
// The accumulation is the documented one: fma in increasing k, starting from acc, which
// is what the CPU executor does too. Where layout assignment chose tensor cores (f16 and
// bf16 on sm_80+), lowerMma issues mma.sync instead.
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

/// Two 16-bit elements as one mma.sync operand register: vector<2xf16>, or an i32 for bf16.
Value packPair(OpBuilder &b, Location loc, Value lo, Value hi) {
  auto pair = VectorType::get({2}, lo.getType());
  Value v = LLVM::UndefOp::create(b, loc, pair);
  v = LLVM::InsertElementOp::create(b, loc, v, lo, LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0));
  v = LLVM::InsertElementOp::create(b, loc, v, hi, LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1));
  if (lo.getType().isF16()) return v;
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

/// The tensor-core dot: operands in #tile.dot_operand, result in #tile.mma. Register
/// numbering (tile/Layout/MmaLayouts.h): a = 8 per 16x16 fragment, then K, then M
/// repetitions; b = 4 per 16x8 fragment, then K, then N; c = 4 per 16x8, then N, then M.
/// For each (m, n) tile, one mma.sync m16n8k16 per K step, in increasing k.
LogicalResult lowerMma(DotOp op, ValueRange aRegs, ValueRange bRegs, ValueRange accRegs,
                       ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto mma = cast<MmaLayoutAttr>(op.getType().getEncoding());
  const int64_t m = op.getType().getDimSize(0), n = op.getType().getDimSize(1), k = op.getA().getType().getDimSize(1);
  const int64_t mReps = m / (16 * mma.getWarpsPerCTA()[0]), nReps = n / (8 * mma.getWarpsPerCTA()[1]), kReps = k / 16;
  Type elem = op.getA().getType().getElementType();
  auto ptx = elem.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  Type f32 = rewriter.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), {f32, f32, f32, f32});
  // Operand registers packed once: a per (M, K) fragment, b per (K, N) fragment.
  auto pack = [&](ValueRange regs, int64_t first, int count) {
    SmallVector<Value> packed;
    for (int p = 0; p < count; ++p) packed.push_back(packPair(rewriter, loc, regs[first + 2 * p], regs[first + 2 * p + 1]));
    return packed;
  };
  SmallVector<SmallVector<Value>> a, b;
  for (int64_t f = 0; f < mReps * kReps; ++f) a.push_back(pack(aRegs, 8 * f, 4));
  for (int64_t f = 0; f < nReps * kReps; ++f) b.push_back(pack(bRegs, 4 * f, 2));
  SmallVector<Value> acc(accRegs.begin(), accRegs.end());
  // K steps outermost: consecutive mma.sync then write different accumulators, so each
  // need not wait for the previous one's result (the k order per accumulator is kept).
  for (int64_t ki = 0; ki < kReps; ++ki)
    for (int64_t mi = 0; mi < mReps; ++mi)
      for (int64_t ni = 0; ni < nReps; ++ni) {
        const int64_t c0 = 4 * (ni + nReps * mi);
        SmallVector<Value> c(acc.begin() + c0, acc.begin() + c0 + 4);
        auto d = NVVM::MmaOp::create(rewriter, loc, resultType, a[ki + kReps * mi], b[ki + kReps * ni], c, {16, 8, 16},
                                     std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
                                     std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
        for (int i = 0; i < 4; ++i) acc[c0 + i] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
      }
  rewriter.replaceOpWithMultiple(op, {acc});
  return success();
}

struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (isa<MmaLayoutAttr>(op.getType().getEncoding()))
      return lowerMma(op, adaptor.getA(), adaptor.getB(), adaptor.getAcc(), rewriter);
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
