//===- LowerToCPU.cpp - the tile-lower-to-cpu pass: kernels, ops in order -===//
// The pass builds one KernelLowering per kernel (KernelLowering.h); here are its driver
// (the new function's signature, the module attributes for the JIT) and the op
// dispatch. Planning and lazy chunks are in KernelLowering.cpp, loops and branches in
// ControlFlow.cpp, memory ops in Memory.cpp, arith/math in Elementwise.cpp, reductions
// in Reduce.cpp, tile.dot in Dot.cpp, tile.trans and tile.reshape in Permute.cpp.
// -debug-only=tile-lower-to-cpu prints each tensor's plan (lazy, fused or materialised,
// and why), each buffer, each parallel assignment and each memory access's form.
#include "Dot.h"
#include "Elementwise.h"
#include "KernelLowering.h"
#include "LoweringAbi.h"
#include "Memory.h"
#include "Permute.h"
#include "Reduce.h"

#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-to-cpu"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERTOCPU
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

void KernelLowering::emitBlock(Block &block) {
  OpBuilder &b = builder();
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (isa<func::ReturnOp>(op)) func::ReturnOp::create(b, op.getLoc());
      continue; // scf.yield: handled by the loop or branch that owns the block
    }
    emitOp(op);
  }
}

void KernelLowering::emitOp(Operation &op) {
  OpBuilder &b = builder();
  Location loc = op.getLoc();
  setLoc(loc);
  if (auto f = dyn_cast<scf::ForOp>(op)) return emitFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op)) return emitIf(i);
  if (auto s = dyn_cast<StoreOp>(op)) return lowerStore(*this, s);
  if (auto a = dyn_cast<AtomicRMWOp>(op)) return lowerAtomicRMW(*this, a);
  if (auto a = dyn_cast<AtomicCASOp>(op)) return lowerAtomicCAS(*this, a);
  if (auto r = dyn_cast<ReduceOp>(op)) return lowerReduce(*this, r);
  if (auto d = dyn_cast<DotOp>(op)) return lowerDot(*this, d);
  if (auto t = dyn_cast<TransOp>(op)) return lowerTrans(*this, t);
  if (auto r = dyn_cast<ReshapeOp>(op)) return lowerReshape(*this, r);
  if (auto p = dyn_cast<ProgramIdOp>(op)) return mapScalar(p.getResult(), programId[p.getAxis()]);
  if (auto n = dyn_cast<NumProgramsOp>(op)) return mapScalar(n.getResult(), numPrograms[n.getAxis()]);
  if (op.getNumResults() != 1) {
    unsupported(&op, Type());
    return;
  }
  Value r = op.getResult(0);
  if (!tensorType(r)) {
    if (auto l = dyn_cast<LoadOp>(op)) return mapScalar(r, lowerScalarLoad(*this, l));
    if (isa<DescriptorBaseOp, DescriptorDimOp>(op)) return mapScalar(r, lowerDescriptorField(*this, &op));
    if (auto a = dyn_cast<AddPtrOp>(op)) {
      int64_t bytes = std::max<int64_t>(1, cast<PtrType>(a.getType()).getPointeeType().getIntOrFloatBitWidth() / 8);
      Value off = scalar(a.getOffset());
      if (!off.getType().isInteger(64)) off = arith::ExtSIOp::create(b, loc, b.getI64Type(), off);
      return mapScalar(r, arith::AddIOp::create(b, loc, scalar(a.getPtr()),
                                                arith::MulIOp::create(b, loc, off, cInt(b.getI64Type(), bytes))));
    }
    SmallVector<Value> operands;
    for (Value o : op.getOperands()) operands.push_back(scalar(o));
    return mapScalar(r, lowerElementwise(*this, &op, operands, valueElem(r.getType())));
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op); c && producesBuffer(&op)) return emitConstantBuffer(c);
  if (lazy.contains(r)) return; // computed where it is used
  LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] " << op.getName() << " at " << loc
                          << ": computed once into a stack buffer\n");
  Value buf = allocBuffer(tensorType(r));
  materializeInto(r, buf, /*fromDefinition=*/true);
  setBuffer(r, buf);
}

void KernelLowering::emitConstantBuffer(arith::ConstantOp op) {
  OpBuilder &b = builder();
  Location loc = op.getLoc();
  // A non-splat constant lives in a read-only global.
  auto dense = cast<DenseElementsAttr>(op.getValue());
  Type mem = memElem(dense.getElementType());
  if (mem != dense.getElementType())
    dense = dense.mapValues(mem, [&](const APInt &v) { return v.zext(mem.getIntOrFloatBitWidth()); });
  auto mt = MemRefType::get(dense.getType().getShape(), mem);
  auto module = fn->getParentOfType<ModuleOp>();
  std::string name = "__tile_cst_" + std::to_string(numBuffers());
  {
    OpBuilder mb(module.getBodyRegion());
    memref::GlobalOp::create(mb, loc, name, mb.getStringAttr("private"), mt, dense, /*constant=*/true,
                             mb.getI64IntegerAttr(64));
  }
  setBuffer(op.getResult(), memref::GetGlobalOp::create(b, loc, mt, name));
  LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] non-splat constant at " << loc << ": read-only global " << name
                          << "\n");
}

LogicalResult KernelLowering::run() {
  OpBuilder &b = builder();
  MLIRContext *ctx = kernel.getContext();
  std::string name = kernel.getSymName().str();
  SmallVector<Type> argTypes;
  for (Type t : kernel.getArgumentTypes()) argTypes.push_back(valueElem(t));
  unsigned numArgs = argTypes.size();
  argTypes.append(6, b.getI32Type()); // program id x, y, z; program counts x, y, z

  b.setInsertionPoint(kernel);
  fn = func::FuncOp::create(b, kernel.getLoc(), name + "__cpu", FunctionType::get(ctx, argTypes, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  // Buffers go before this anchor, at the top of the function, whatever region asks.
  setAllocationPoint(cIndex(0).getDefiningOp());
  for (unsigned i = 0; i < numArgs; ++i) mapScalar(kernel.getArgument(i), entry->getArgument(i));
  for (unsigned k = 0; k < 3; ++k) {
    programId[k] = entry->getArgument(numArgs + k);
    numPrograms[k] = entry->getArgument(numArgs + 3 + k);
  }

  LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] kernel " << name << ": chunks of up to " << maxChunkWidth()
                          << " elements" << (checking() ? ", checking mode" : "") << "\n");
  kernel.walk([&](Block *block) { plan(*block); });
  emitBlock(kernel.getBody().front());

  ModuleOp module = kernel->getParentOfType<ModuleOp>();
  SmallVector<Attribute> siteAttrs;
  for (const std::string &s : sites()) siteAttrs.push_back(StringAttr::get(ctx, s));
  module->setAttr(kSitesAttr, ArrayAttr::get(ctx, siteAttrs));
  module->setAttr(kStackBytesAttr, b.getI64IntegerAttr(stackBytes()));
  kernel.erase();
  fn.setSymName(name);
  return failure(hasFailed());
}

namespace {
struct LowerToCPUPass : mlir::tile::impl::TileLowerToCPUBase<LowerToCPUPass> {
  using TileLowerToCPUBase::TileLowerToCPUBase;
  void runOnOperation() override {
    if (chunk < 1 || (chunk & (chunk - 1))) {
      getOperation().emitError("tile-lower-to-cpu: chunk must be a power of two");
      return signalPassFailure();
    }
    if (failed(requireLayoutFree(getOperation(), getArgument()))) return signalPassFailure();
    SmallVector<func::FuncOp> kernels;
    getOperation().walk([&](func::FuncOp f) {
      if (f->hasAttr(kKernelAttr)) kernels.push_back(f);
    });
    for (func::FuncOp k : kernels)
      if (failed(requireTracedSignature(k))) return signalPassFailure();
    LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] " << kernels.size() << " kernel(s) to lower\n");
    for (func::FuncOp k : kernels)
      if (failed(KernelLowering(k, chunk, check).run())) return signalPassFailure();
  }
};
} // namespace
