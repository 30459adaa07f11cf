//===- KernelLowering.cpp - which tensors are lazy, and their chunks ------===//
// Planning decides which tensors are fused into their user, recomputed at each use or
// materialised (KernelLowering.h); evaluation computes one chunk of a lazy value: the
// shape ops (splat, make_range, expand_dims, broadcast, convert_layout, addptr) here,
// loads through Memory.h and arith/math through Elementwise.h.
#include "KernelLowering.h"

#include "Elementwise.h"
#include "Memory.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-to-cpu"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

KernelLowering::KernelLowering(func::FuncOp kernel, int chunk, bool check)
    : LoweringState(kernel, chunk, check), kernel(kernel) {}

//===----------------------------------------------------------------------===//
// Planning: lazy or materialised
//===----------------------------------------------------------------------===//

bool KernelLowering::producesBuffer(Operation *op) const {
  if (isa<scf::ForOp, scf::IfOp, ReduceOp, AtomicRMWOp, AtomicCASOp, DotOp, TransOp, ReshapeOp>(op)) return true;
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) return !dense.isSplat();
  return false;
}

/// Recomputing these per use costs a few vector instructions and saves a buffer (index
/// arithmetic, splats, masks from ranges). Math functions and loads are never cheap.
bool KernelLowering::isCheap(Value v) {
  if (!tensorType(v)) return true; // scalars are SSA values: free to use anywhere
  auto it = cheapMemo.find(v);
  if (it != cheapMemo.end()) return it->second;
  Operation *op = v.getDefiningOp();
  bool cheap = false;
  if (!op || producesBuffer(op)) cheap = false;
  else if (isa<arith::ConstantOp, SplatOp, MakeRangeOp>(op)) cheap = true;
  else if (isa<ExpandDimsOp, BroadcastOp, ConvertLayoutOp, AddPtrOp>(op) || op->getDialect()->getNamespace() == "arith")
    cheap = llvm::all_of(op->getOperands(), [&](Value o) { return isCheap(o); });
  cheapMemo[v] = cheap;
  return cheap;
}

static bool mayWriteMemory(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *o) {
    if (isa<StoreOp, AtomicRMWOp, AtomicCASOp>(o)) writes = true;
  });
  return writes;
}

/// One line of -debug-only=tile-lower-to-cpu: the plan for `op`'s result and why.
static void logPlan(Operation &op, StringRef decision) {
  LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] " << op.getName() << " at " << op.getLoc() << ": " << decision
                          << "\n");
  (void)op, (void)decision;
}

void KernelLowering::plan(Block &block) {
  // Users before definitions: a value's root is known when its definition is visited.
  for (Operation &op : llvm::reverse(block)) {
    if (op.getNumResults() != 1 || !tensorType(op.getResult(0)) || producesBuffer(&op)) continue;
    Value r = op.getResult(0);
    if (isCheap(r)) {
      logPlan(op, "lazy, recomputed at every use (cheap)");
      lazy.insert(r);
      continue;
    }
    if (!r.hasOneUse()) {
      logPlan(op, "materialised (several uses)");
      continue;
    }
    Operation *user = *r.getUsers().begin();
    if (user->getBlock() != &block) { // used in a loop/branch body: computed once, here
      logPlan(op, "materialised (used inside a loop or branch body)");
      continue;
    }
    Operation *root = user;
    if (auto it = rootOf.find(user); it != rootOf.end()) root = it->second;
    if (isa<LoadOp>(op))
      for (Operation *o = op.getNextNode(); o && o != root; o = o->getNextNode())
        if (mayWriteMemory(o)) {
          logPlan(op, "materialised (memory is written before its use; the load must see it as it was)");
          goto materialise;
        }
    LLVM_DEBUG(logPlan(op, ("lazy, fused into the loop of " + root->getName().getStringRef()).str()));
    lazy.insert(r);
    rootOf[&op] = root;
  materialise:;
  }
}

//===----------------------------------------------------------------------===//
// Chunks of lazy values
//===----------------------------------------------------------------------===//

Value KernelLowering::chunk(Value v, ArrayRef<Value> idx, int64_t w) {
  if (Value buffer = existingBuffer(v)) return loadChunk(buffer, tensorType(v).getElementType(), idx, w);
  return evalOp(v, idx, w);
}

Value KernelLowering::evalOp(Value v, ArrayRef<Value> idx, int64_t w) {
  Operation *op = v.getDefiningOp();
  RankedTensorType type = tensorType(v);
  VectorType vt = vecOf(type, w);
  OpBuilder &b = builder();
  Location saved = this->loc();
  Location loc = op->getLoc(); // ops built here, and by the helpers, carry the tensor op's location
  setLoc(loc);
  Value result =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case([&](arith::ConstantOp c) -> Value {
            auto dense = cast<DenseElementsAttr>(c.getValue());
            return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, dense.getSplatValue<Attribute>()));
          })
          .Case([&](SplatOp s) -> Value { return vector::BroadcastOp::create(b, loc, vt, scalar(s.getSrc())); })
          .Case([&](MakeRangeOp r) -> Value {
            SmallVector<int32_t> iota(w);
            for (int64_t i = 0; i < w; ++i) iota[i] = static_cast<int32_t>(i);
            Value steps = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, ArrayRef<int32_t>(iota)));
            Value first = arith::IndexCastOp::create(b, loc, b.getI32Type(), idx.back());
            first = arith::AddIOp::create(b, loc, first, cInt(b.getI32Type(), static_cast<int32_t>(r.getStart())));
            return arith::AddIOp::create(b, loc, vector::BroadcastOp::create(b, loc, vt, first), steps);
          })
          .Case([&](ExpandDimsOp e) -> Value {
            // The flat layout is unchanged: drop the new unit coordinate.
            SmallVector<Value> srcIdx(idx);
            srcIdx.erase(srcIdx.begin() + e.getAxis());
            return chunk(e.getSrc(), srcIdx, w);
          })
          .Case([&](BroadcastOp bc) -> Value {
            auto src = bc.getSrc().getType().getShape();
            SmallVector<Value> srcIdx(idx);
            for (size_t d = 0; d < src.size(); ++d)
              if (src[d] == 1) srcIdx[d] = cIndex(0);
            if (src.back() != 1 || type.getShape().back() == 1) return chunk(bc.getSrc(), srcIdx, w);
            // The last dimension repeats one element: read it and splat it across the chunk.
            Value one = chunk(bc.getSrc(), srcIdx, 1);
            Value e = vector::ExtractOp::create(b, loc, one, ArrayRef<int64_t>{0});
            return vector::BroadcastOp::create(b, loc, vt, e);
          })
          .Case([&](ConvertLayoutOp c) -> Value { return chunk(c.getSrc(), idx, w); })
          .Case([&](AddPtrOp a) -> Value {
            auto pointee = cast<PtrType>(type.getElementType()).getPointeeType();
            int64_t bytes = std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
            Value base = chunk(a.getPtr(), idx, w);
            Value off = chunk(a.getOffset(), idx, w);
            if (!cast<VectorType>(off.getType()).getElementType().isInteger(64))
              off = arith::ExtSIOp::create(b, loc, vt, off); // offsets are signed, as on the GPU
            Value scale = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getI64IntegerAttr(bytes)));
            return arith::AddIOp::create(b, loc, base, arith::MulIOp::create(b, loc, off, scale));
          })
          .Case([&](LoadOp l) -> Value { return lowerLoadChunk(*this, l, idx, w); })
          .Default([&](Operation *) -> Value {
            SmallVector<Value> operands;
            for (Value o : op->getOperands()) operands.push_back(tensorType(o) ? chunk(o, idx, w) : scalar(o));
            return lowerElementwise(*this, op, operands, vt);
          });
  setLoc(saved);
  return result;
}

void KernelLowering::materializeInto(Value v, Value buffer, bool fromDefinition) {
  RankedTensorType t = tensorType(v);
  int64_t w = widthFor(t.getShape().back());
  forEachChunk(t.getShape(), w, [&](ArrayRef<Value> idx) {
    Value c = fromDefinition ? evalOp(v, idx, w) : chunk(v, idx, w);
    storeChunk(buffer, t.getElementType(), c, idx);
  });
}

Value KernelLowering::bufferOf(Value v, bool *fresh) {
  if (fresh) *fresh = false;
  if (Value buffer = existingBuffer(v)) return buffer;
  if (fresh) *fresh = true;
  Value buf = allocBuffer(tensorType(v));
  materializeInto(v, buf, /*fromDefinition=*/false);
  return buf;
}
