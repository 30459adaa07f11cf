//===- ApproximateMath.cpp - math ops the user asked to approximate → NVVM ===//
// A math op carrying the `afn` fast-math flag (the DSL's fast_exp2) lowers to the GPU's
// approximate instruction instead of libdevice's IEEE function: f32 exp2 to
// llvm.nvvm.ex2.approx.ftz.f32, one MUFU.EX2 (libdevice's exp2f keeps subnormal results:
// ex2.approx.f32, which ptxas wraps in a fix-up for them). Runs on the scalar ops
// Elementwise.cpp leaves, before libdevice's patterns (a higher benefit).
#include "TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct ApproximateExp2 : ConvertOpToLLVMPattern<math::Exp2Op> {
  ApproximateExp2(const LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/20) {}

  LogicalResult matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn) || !op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not an approximate f32 exp2");
    rewriter.replaceOp(op, LLVM::CallIntrinsicOp::create(rewriter, op.getLoc(), rewriter.getF32Type(),
                                                         rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                                                         ValueRange{adaptor.getOperand()}));
    return success();
  }
};

} // namespace

void mlir::tile::populateApproximateMathPatterns(const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ApproximateExp2>(converter);
}
