//===- Dot.cpp - tile.dot: mma.sync on tensor cores, or one FMA per product ===//
// Layout assignment gives the operands blocked layouts derived from the result's: a
// [M, K] holds, in each thread, the full K extent of the rows the thread's result
// registers cover (sizePerThread = [spt0, K], lanes and warps as the result's, so the
// lanes along N hold copies), and b [K, N] the full K extent of its columns. So result
// register (i, j) needs only this thread's registers a(i, k) and b(k, j): no data moves.
// The accumulation is the documented one: fma in increasing k, starting from acc, which
// is what the CPU executor does too. Where tile-accelerate-matmul chose tensor cores
// (f16 and bf16, or f32 with TF32 input precision, on sm_80+), lowerMma issues mma.sync.
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

#include <map>

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `v` rounded to tf32 (10 mantissa bits) to nearest, ties away from zero, as
/// cvt.rna.tf32.f32 does, for targets without it (before sm_80): add half of the last kept
/// bit to the magnitude and clear the 13 dropped bits; infinities and NaNs stay as they are.
Value roundToTf32InSoftware(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  auto c = [&](uint32_t x) { return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(int32_t(x))); };
  Value bits = LLVM::BitcastOp::create(b, loc, i32, v);
  Value rounded = LLVM::AndOp::create(b, loc, LLVM::AddOp::create(b, loc, bits, c(0x1000)), c(0xFFFFE000u));
  Value exponent = LLVM::AndOp::create(b, loc, bits, c(0x7F800000u));
  Value finite = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, exponent, c(0x7F800000u));
  return LLVM::BitcastOp::create(b, loc, b.getF32Type(), LLVM::SelectOp::create(b, loc, finite, rounded, bits));
}

/// An input element as the f32 factor the documented arithmetic uses.
Value factor(OpBuilder &b, Location loc, Value v, InputPrecision precision, bool hasTf32Convert) {
  Type f32 = b.getF32Type();
  if (v.getType() != f32) return arith::ExtFOp::create(b, loc, f32, v); // f16/bf16: exact
  if (precision != InputPrecision::TF32) return v;
  if (!hasTf32Convert) return roundToTf32InSoftware(b, loc, v);
  return roundToTf32(b, loc, v);
}

} // namespace

Value mlir::tile::roundToTf32(OpBuilder &b, Location loc, Value v) {
  // cvt.rna.tf32.f32 (sm_80+): nearest, ties away from zero; the result's bits are an f32.
  Value bits = NVVM::ConvertFloatToTF32Op::create(b, loc, b.getI32Type(), v, NVVM::FPRoundingMode::RNA,
                                                  NVVM::SaturationMode::NONE, /*relu=*/false);
  return LLVM::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

namespace {

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
/// numbering (tile/Layout/MmaLayouts.h): a = 8 per 16x16 fragment (4 per 16x8 for tf32),
/// then K, then M repetitions; b = 4 per 16x8 fragment (2 per 8x8 for tf32), then K, then
/// N; c = 4 per 16x8, then N, then M. For each (m, n) tile, one mma.sync per K step
/// (m16n8k16 for f16/bf16, m16n8k8 for f32 inputs rounded to tf32), in increasing k.
LogicalResult lowerMma(DotOp op, ValueRange aRegs, ValueRange bRegs, ValueRange accRegs,
                       ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto mma = cast<MmaLayoutAttr>(op.getType().getEncoding());
  Type elem = op.getA().getType().getElementType();
  const bool tf32 = elem.isF32();
  const int64_t instrK = tf32 ? 8 : 16;
  const int64_t m = op.getType().getDimSize(0), n = op.getType().getDimSize(1), k = op.getA().getType().getDimSize(1);
  const int64_t mReps = m / (16 * mma.getWarpsPerCTA()[0]), nReps = n / (8 * mma.getWarpsPerCTA()[1]),
                kReps = k / instrK;
  if (!mReps || !nReps || !kReps)
    return op.emitOpError("lowering: the mma layout's warps do not cover the ")
           << m << "x" << n << "x" << k << " dot (tile-accelerate-matmul only chooses it for covered tiles)";
  auto ptx = tf32 ? NVVM::MMATypes::tf32 : elem.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  Type f32 = rewriter.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), {f32, f32, f32, f32});
  // Operand registers packed once: a per (M, K) fragment, b per (K, N) fragment. 16-bit:
  // two elements per 32-bit register; tf32: each element rounded (cvt.rna.tf32.f32, as
  // the FMA path and the CPU executor round) into a register of its own.
  auto pack = [&](ValueRange regs, int64_t first, int count) {
    SmallVector<Value> packed;
    for (int p = 0; p < count; ++p)
      packed.push_back(tf32 ? NVVM::ConvertFloatToTF32Op::create(rewriter, loc, rewriter.getI32Type(), regs[first + p],
                                                                 NVVM::FPRoundingMode::RNA, NVVM::SaturationMode::NONE,
                                                                 /*relu=*/false)
                            : packPair(rewriter, loc, regs[first + 2 * p], regs[first + 2 * p + 1]));
    return packed;
  };
  const int aPerFragment = tf32 ? 4 : 8, bPerFragment = tf32 ? 2 : 4;
  SmallVector<SmallVector<Value>> a, b;
  for (int64_t f = 0; f < mReps * kReps; ++f) a.push_back(pack(aRegs, aPerFragment * f, 4));
  for (int64_t f = 0; f < nReps * kReps; ++f) b.push_back(pack(bRegs, bPerFragment * f, 2));
  SmallVector<Value> acc(accRegs.begin(), accRegs.end());
  // K steps outermost: consecutive mma.sync then write different accumulators, so each
  // need not wait for the previous one's result (the k order per accumulator is kept).
  for (int64_t ki = 0; ki < kReps; ++ki)
    for (int64_t mi = 0; mi < mReps; ++mi)
      for (int64_t ni = 0; ni < nReps; ++ni) {
        const int64_t c0 = 4 * (ni + nReps * mi);
        SmallVector<Value> c(acc.begin() + c0, acc.begin() + c0 + 4);
        auto d = NVVM::MmaOp::create(rewriter, loc, resultType, a[ki + kReps * mi], b[ki + kReps * ni], c,
                                     {16, 8, int(instrK)}, std::nullopt, std::nullopt,
                                     std::array<NVVM::MMATypes, 2>{ptx, ptx},
                                     std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
        for (int i = 0; i < 4; ++i) acc[c0 + i] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
      }
  rewriter.replaceOpWithMultiple(op, {acc});
  return success();
}

/// For the FMA dot: for each result register r of `c` and each k, the register of operand
/// `x` (a: sharedDim 0, the rows; b: sharedDim 1, the columns) that holds (row of r, k)
/// (a) or (k, column of r) (b) in the same thread, at [r * K + k]; none unless x's lanes
/// and warps place the shared dimension as c's do and all of K lies in registers.
std::optional<SmallVector<unsigned>> fmaOperandRegisters(const ThreadLayout &x, const ThreadLayout &c,
                                                         unsigned sharedDim, int64_t k) {
  const unsigned kDim = 1 - sharedDim;
  for (const char *name : {"lane", "warp"}) {
    if (x.linear.getInDimSizeLog2(name) != c.linear.getInDimSizeLog2(name)) return std::nullopt;
    for (int bit = 0; bit < c.linear.getInDimSizeLog2(name); ++bit)
      if (x.linear.getBasis(name, bit)[sharedDim] != c.linear.getBasis(name, bit)[sharedDim] ||
          x.linear.getBasis(name, bit)[kDim] != 0)
        return std::nullopt;
  }
  std::map<std::pair<int32_t, int32_t>, unsigned> byCoord; // (shared, k) -> first register holding it
  for (unsigned r = 0; r < x.numRegs(); ++r)
    byCoord.emplace(std::pair{x.regCoord(r, sharedDim), x.regCoord(r, kDim)}, r);
  SmallVector<unsigned> regs;
  for (unsigned r = 0; r < c.numRegs(); ++r)
    for (int64_t kk = 0; kk < k; ++kk) {
      auto it = byCoord.find({c.regCoord(r, sharedDim), int32_t(kk)});
      if (it == byCoord.end()) return std::nullopt;
      regs.push_back(it->second);
    }
  return regs;
}

struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (isa<MmaLayoutAttr>(op.getType().getEncoding())) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.dot at " << op.getLoc() << ": mma.sync, "
                              << op.getType().getEncoding() << "\n");
      return lowerMma(op, adaptor.getA(), adaptor.getB(), adaptor.getAcc(), rewriter);
    }
    Location loc = op.getLoc();
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.dot at " << loc << ": FMA on CUDA cores, "
                            << op.getType().getEncoding() << "\n");
    ThreadLayout a = ThreadLayout::get(op.getA().getType()), b = ThreadLayout::get(op.getB().getType());
    ThreadLayout c = ThreadLayout::get(op.getType());
    const int64_t k = op.getA().getType().getDimSize(1);
    std::optional<SmallVector<unsigned>> aRegs = fmaOperandRegisters(a, c, 0, k),
                                         bRegs = fmaOperandRegisters(b, c, 1, k);
    if (!aRegs || !bRegs)
      return op.emitOpError("lowering: operand layouts do not hold each result register's row of a and column of b "
                            "in the same thread (tile-assign-layouts chooses such layouts for the FMA dot)");
    InputPrecision precision = op.getInputPrecision();

    // Each operand register converted once, not once per use.
    auto factors = [&](ValueRange regs) {
      SmallVector<Value> out;
      for (Value v : regs) out.push_back(factor(rewriter, loc, v, precision, targetComputeCapability(op) >= 80));
      return out;
    };
    SmallVector<Value> av = factors(adaptor.getA()), bv = factors(adaptor.getB());
    SmallVector<Value> results;
    for (unsigned r = 0; r < c.numRegs(); ++r) {
      Value acc = adaptor.getAcc()[r];
      for (int64_t kk = 0; kk < k; ++kk)
        acc = LLVM::FMAOp::create(rewriter, loc, av[(*aRegs)[r * k + kk]], bv[(*bRegs)[r * k + kk]], acc);
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
  LogicalResult matchAndRewrite(TransOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
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
