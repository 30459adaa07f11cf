//===- Elementwise.cpp - arith/math on tensors → the same op per register -===//
// Every tensor operand and the result share one layout (layout assignment saw to
// it), so register i of the result depends only on register i of the operands.
// Scalar arith ops on tile types (a select of two !tile.ptr) keep their op with the
// converted types; arith-to-LLVM lowers them later.
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// `op` again (name, properties, attributes) on other operands, with one result of `type`.
Operation *recreate(ConversionPatternRewriter &rewriter, Operation *op, ValueRange operands, Type type) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(type);
  state.propertiesAttr = op->getPropertiesAsAttribute();
  state.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
  return rewriter.create(state);
}

/// f32 -> f16 / bf16 two registers at a time (cvt.rn.f16x2.f32, sm_80+): one instruction per
/// pair, and opaque to LLVM, which folds a loop-carried scalar truncation into its phi (the
/// f32 values carried and converted at the loop's top: attention's P took 64 registers
/// instead of 32 and its conversion waited there for the wgmma reading the previous P).
LogicalResult truncatePairs(ConversionPatternRewriter &rewriter, Operation *op, ArrayRef<ValueRange> operands,
                            unsigned n, SmallVector<Value> &results) {
  auto trunc = dyn_cast<arith::TruncFOp>(op);
  if (!trunc || trunc.getRoundingmodeAttr() || n % 2 || targetComputeCapability(op) < 80) return failure();
  Type from = getElementTypeOrSelf(trunc.getIn().getType()), to = getElementTypeOrSelf(trunc.getType());
  if (!from.isF32() || !(to.isF16() || to.isBF16())) return failure();
  Location loc = op->getLoc();
  auto pair = VectorType::get({2}, to);
  for (unsigned i = 0; i < n; i += 2) {
    Value lo = regOf(operands[0], i), hi = regOf(operands[0], i + 1);
    Value packed =
        to.isF16() ? NVVM::ConvertF32x2ToF16x2Op::create(rewriter, loc, pair, hi, lo, Value(), NVVM::FPRoundingMode::RN,
                                                         NVVM::SaturationMode::NONE, false)
                         .getResult()
                   : NVVM::ConvertF32x2ToBF16x2Op::create(rewriter, loc, pair, hi, lo, Value(),
                                                          NVVM::FPRoundingMode::RN, NVVM::SaturationMode::NONE, false)
                         .getResult();
    for (int64_t half : {0, 1})
      results.push_back(LLVM::ExtractElementOp::create(
          rewriter, loc, packed, LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), half)));
  }
  return success();
}

struct ElementwiseOnTensors : ConversionPattern {
  ElementwiseOnTensors(TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.getEncoding()) return failure();
    unsigned n = ThreadLayout::get(type).numRegs();
    Type elem = getTypeConverter()->convertType(type.getElementType());

    SmallVector<Value> results;
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto splat = dyn_cast<SplatElementsAttr>(cst.getValue());
      if (!splat) return rewriter.notifyMatchFailure(op, "only splat tensor constants are supported");
      Value scalar =
          arith::ConstantOp::create(rewriter, op->getLoc(), cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      results.assign(n, scalar);
    } else if (failed(truncatePairs(rewriter, op, operands, n, results))) {
      for (unsigned i = 0; i < n; ++i) {
        SmallVector<Value> regs;
        for (ValueRange v : operands) regs.push_back(regOf(v, i));
        results.push_back(recreate(rewriter, op, regs, elem)->getResult(0));
      }
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct ScalarWithConvertedTypes : ConversionPattern {
  ScalarWithConvertedTypes(TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect>(op->getDialect()) || op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        isa<ShapedType>(op->getResult(0).getType()))
      return failure();
    Type converted = getTypeConverter()->convertType(op->getResult(0).getType());
    if (!converted) return failure();
    SmallVector<Value> scalars;
    for (ValueRange v : operands) {
      if (v.size() != 1) return failure();
      scalars.push_back(v.front());
    }
    rewriter.replaceOp(op, recreate(rewriter, op, scalars, converted)->getResults());
    return success();
  }
};
} // namespace

void mlir::tile::populateElementwisePatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseOnTensors, ScalarWithConvertedTypes>(converter, patterns.getContext());
}
