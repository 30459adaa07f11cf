//===- ApproximateMath.cpp - f32 math the DSL pins to one NVVM intrinsic ===//
// A math op carrying the `afn` fast-math flag (the DSL's fast_* functions) lowers to the
// GPU's approximate instruction instead of libdevice's function: one MUFU each, subnormal
// inputs and results flushed (`.ftz`) where the instruction has the form. libdevice's
// exp2f, for one, keeps subnormal results: ex2.approx.f32, which ptxas wraps in a fix-up.
// And f32 sqrt without `afn` is sqrt.rn: libdevice's sqrtf asks __nvvm_reflect for
// __CUDA_PREC_SQRT, which LLVM answers 0 (sqrt.approx) unless told otherwise.
// Runs on the scalar ops Elementwise.cpp leaves, before libdevice's patterns (a higher
// benefit).
#include "TileToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// OpTy on f32 -> `intrinsic` on its operands, when the op's `afn` flag is `approximate`.
template <class OpTy> struct F32Intrinsic : ConvertOpToLLVMPattern<OpTy> {
  F32Intrinsic(const LLVMTypeConverter &converter, StringRef intrinsic, bool approximate)
      : ConvertOpToLLVMPattern<OpTy>(converter, /*benefit=*/20), intrinsic(intrinsic), approximate(approximate) {}

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    bool afn = bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn);
    if (afn != approximate || !op.getType().isF32()) return rewriter.notifyMatchFailure(op, "another form");
    rewriter.replaceOp(op, LLVM::CallIntrinsicOp::create(rewriter, op.getLoc(), rewriter.getF32Type(),
                                                         rewriter.getStringAttr(intrinsic), adaptor.getOperands()));
    return success();
  }

  std::string intrinsic;
  bool approximate;
};

/// f32 tanh with `afn` -> llvm.tanh with `afn`, which NVPTX selects as tanh.approx.f32 (there
/// is no NVVM intrinsic for it).
struct ApproximateTanh : ConvertOpToLLVMPattern<math::TanhOp> {
  ApproximateTanh(const LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/20) {}

  LogicalResult matchAndRewrite(math::TanhOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn) || !op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not an approximate f32 tanh");
    rewriter.replaceOp(op, LLVM::TanhOp::create(rewriter, op.getLoc(), rewriter.getF32Type(), adaptor.getOperand(),
                                                LLVM::FastmathFlags::afn));
    return success();
  }
};

} // namespace

void mlir::tile::populateApproximateMathPatterns(const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<F32Intrinsic<math::Exp2Op>>(converter, "llvm.nvvm.ex2.approx.ftz.f32", true);
  patterns.add<F32Intrinsic<math::Log2Op>>(converter, "llvm.nvvm.lg2.approx.ftz.f", true);
  patterns.add<F32Intrinsic<math::SqrtOp>>(converter, "llvm.nvvm.sqrt.approx.ftz.f", true);
  patterns.add<ApproximateTanh>(converter);
  patterns.add<F32Intrinsic<math::SinOp>>(converter, "llvm.nvvm.sin.approx.ftz.f", true);
  patterns.add<F32Intrinsic<math::CosOp>>(converter, "llvm.nvvm.cos.approx.ftz.f", true);
  // div.full.f32: 2 ulp over the full range (div.approx's is only for divisors below 2^126).
  patterns.add<F32Intrinsic<arith::DivFOp>>(converter, "llvm.nvvm.div.full", true);
  patterns.add<F32Intrinsic<math::SqrtOp>>(converter, "llvm.nvvm.sqrt.rn.f", false);
}
