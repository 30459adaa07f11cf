//===- ControlFlow.cpp - scf.for and scf.if with tensor values on the CPU -===//
// A tensor carried by a loop, or yielded by a branch, lives in one stack buffer; scalars
// stay SSA values (loop-carried, or results of the lowered scf.if). Yielding assigns all
// carried tensors at once, as a parallel copy.
#include "KernelLowering.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-to-cpu"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

void KernelLowering::collectLeaves(Value v, llvm::DenseSet<Value> &leafBuffers, bool &remaps) {
  if (Value buffer = existingBuffer(v)) {
    leafBuffers.insert(buffer);
    return;
  }
  Operation *op = v.getDefiningOp();
  if (!op) return;
  if (isa<BroadcastOp>(op)) remaps = true; // reads other elements than the one it writes
  for (Value o : op->getOperands())
    if (tensorType(o)) collectLeaves(o, leafBuffers, remaps);
}

void KernelLowering::assignBuffers(ArrayRef<Value> values, ArrayRef<Value> targets) {
  // Writing target i in place while computing it is safe when its value reads no other
  // target and reads its own only at the element being written; otherwise compute into a
  // temporary first, so that every value sees the targets as they were (a parallel copy).
  SmallVector<Value> temps(values.size());
  SmallVector<bool> inPlace(values.size(), true);
  for (size_t i = 0; i < values.size(); ++i) {
    if (existingBuffer(values[i]) == targets[i]) continue; // already there
    llvm::DenseSet<Value> leaves;
    bool remaps = false;
    collectLeaves(values[i], leaves, remaps);
    for (size_t j = 0; j < targets.size(); ++j)
      if (leaves.contains(targets[j]) && (j != i || remaps)) inPlace[i] = false;
  }
  LLVM_DEBUG({
    for (size_t i = 0; i < values.size(); ++i)
      llvm::dbgs() << "[tile-lower-to-cpu] parallel assignment " << i << " of " << values.size() << ": "
                   << (inPlace[i] ? "in place" : "through a temporary (reads another target, or its own elsewhere)")
                   << "\n";
  });
  for (size_t i = 0; i < values.size(); ++i)
    if (!inPlace[i]) {
      temps[i] = allocBuffer(tensorType(values[i]));
      materializeInto(values[i], temps[i], /*fromDefinition=*/false);
    }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!inPlace[i]) continue;
    if (existingBuffer(values[i]) == targets[i]) continue; // already there
    materializeInto(values[i], targets[i], /*fromDefinition=*/false);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (inPlace[i]) continue;
    RankedTensorType t = tensorType(values[i]);
    int64_t w = widthFor(t.getShape().back());
    forEachChunk(t.getShape(), w, [&](ArrayRef<Value> idx) {
      storeChunk(targets[i], t.getElementType(), loadChunk(temps[i], t.getElementType(), idx, w), idx);
    });
  }
}

/// Drops the terminator a builder may have added, and leaves `b` at the end of `block`.
static void enterFreshBlock(OpBuilder &b, Block *block) {
  if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>()) block->back().erase();
  b.setInsertionPointToEnd(block);
}

void KernelLowering::emitFor(scf::ForOp op) {
  OpBuilder &b = builder();
  // Tensors carried by the loop live in one buffer each; scalars stay loop-carried SSA.
  size_t n = op.getNumRegionIterArgs();
  SmallVector<Value> bufs(n), scalarInits, tensorInits, tensorBufs;
  for (size_t i = 0; i < n; ++i) {
    Value init = op.getInitArgs()[i];
    if (auto t = tensorType(init)) {
      bufs[i] = allocBuffer(t);
      tensorInits.push_back(init);
      tensorBufs.push_back(bufs[i]);
    } else {
      scalarInits.push_back(scalar(init));
    }
  }
  assignBuffers(tensorInits, tensorBufs);
  Location forLoc = op.getLoc();
  auto loop = scf::ForOp::create(b, forLoc, scalar(op.getLowerBound()), scalar(op.getUpperBound()),
                                 scalar(op.getStep()), scalarInits);
  {
    OpBuilder::InsertionGuard guard(b);
    enterFreshBlock(b, loop.getBody());
    mapScalar(op.getInductionVar(), loop.getInductionVar());
    for (size_t i = 0, k = 0; i < n; ++i) {
      if (bufs[i]) setBuffer(op.getRegionIterArgs()[i], bufs[i]);
      else mapScalar(op.getRegionIterArgs()[i], loop.getRegionIterArgs()[k++]);
    }
    emitBlock(*op.getBody());
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    setLoc(yield.getLoc());
    SmallVector<Value> tv, tb, sv;
    for (size_t i = 0; i < n; ++i) {
      if (bufs[i]) tv.push_back(yield.getOperand(i)), tb.push_back(bufs[i]);
      else sv.push_back(scalar(yield.getOperand(i)));
    }
    assignBuffers(tv, tb);
    scf::YieldOp::create(b, loc(), sv);
  }
  for (size_t i = 0, k = 0; i < n; ++i) {
    if (bufs[i]) setBuffer(op.getResult(i), bufs[i]);
    else mapScalar(op.getResult(i), loop.getResult(k++));
  }
}

void KernelLowering::emitIf(scf::IfOp op) {
  OpBuilder &b = builder();
  SmallVector<Value> bufs(op.getNumResults());
  SmallVector<Type> scalarTypes;
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    if (auto t = tensorType(r)) bufs[i] = allocBuffer(t);
    else scalarTypes.push_back(valueElem(r.getType()));
  }
  auto lowered = scf::IfOp::create(b, op.getLoc(), scalarTypes, scalar(op.getCondition()), /*withElseRegion=*/true);
  auto emitBranch = [&](Region &from, Block *to) {
    OpBuilder::InsertionGuard guard(b);
    enterFreshBlock(b, to);
    SmallVector<Value> tv, tb, sv;
    if (!from.empty()) {
      emitBlock(from.front());
      auto yield = cast<scf::YieldOp>(from.front().getTerminator());
      setLoc(yield.getLoc());
      for (auto [i, y] : llvm::enumerate(yield.getOperands())) {
        if (bufs[i]) tv.push_back(y), tb.push_back(bufs[i]);
        else sv.push_back(scalar(y));
      }
      assignBuffers(tv, tb);
    }
    scf::YieldOp::create(b, loc(), sv);
  };
  emitBranch(op.getThenRegion(), lowered.thenBlock());
  emitBranch(op.getElseRegion(), lowered.elseBlock());
  for (size_t i = 0, k = 0; i < op.getNumResults(); ++i) {
    if (bufs[i]) setBuffer(op.getResult(i), bufs[i]);
    else mapScalar(op.getResult(i), lowered.getResult(k++));
  }
}
