//===- Preconditions.cpp - what a pass needs of its input ------------------===//
#include "tile/Transforms/Preconditions.h"

#include "tile/Dialect/Tile.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

Operation *mlir::tile::firstDefining(ModuleOp module, function_ref<bool(Type)> bad) {
  Operation *found = nullptr;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    bool hit = llvm::any_of(op->getResultTypes(), bad);
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      hit |= llvm::any_of(fn.getArgumentTypes(), bad) || llvm::any_of(fn.getResultTypes(), bad);
    for (Region &region : op->getRegions())
      for (Block &block : region) hit |= llvm::any_of(block.getArgumentTypes(), bad);
    if (!hit) return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

LogicalResult mlir::tile::requireLayouts(ModuleOp module, StringRef pass) {
  // Any other encoding would reach the layout algebra (toLinearLayout) as a null layout.
  Operation *unlaid = firstDefining(module, [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && !isa_and_present<DistributedLayoutInterface>(rt.getEncoding());
  });
  if (!unlaid) return success();
  return unlaid->emitError() << pass << " needs layouts: run --tile-assign-layouts first";
}

LogicalResult mlir::tile::requireLayoutFree(ModuleOp module, StringRef pass) {
  Operation *laidOut = firstDefining(module, [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return (rt && rt.getEncoding()) || isa<MemDescType>(t);
  });
  if (!laidOut) return success();
  return laidOut->emitError() << pass << " takes traced IR without layouts, not the GPU passes' output";
}

LogicalResult mlir::tile::requireTracedSignature(func::FuncOp kernel) {
  // Layouts start at the ops that make tensors; a tensor argument has no producer.
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
    if (isa<RankedTensorType>(type))
      return kernel.emitError("kernel arguments must be scalars or pointers, argument ") << i << " is " << type;
  // What a program computes leaves it through tile.store; a returned value has nowhere to go
  // (and laid-out values would not match the function type).
  if (kernel.getFunctionType().getNumResults())
    return kernel.emitError("a kernel returns nothing: results go through pointers (tile.store)");
  return success();
}
