//===- LowerToCPU.cpp - the tile-lower-to-cpu pass: planning and structure ===//
// Decides which tensors are fused, recomputed or materialised (Lowering.h), and rebuilds
// the kernel's body (scalars, shape ops, scf.for / scf.if with tensor values) as
// chunk loops. Memory ops live in Memory.cpp, reductions in Reduce.cpp, tile.dot in
// Dot.cpp, tile.trans and tile.reshape in Permute.cpp.
#include "Lowering.h"

#include "tile/PassFailure.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERTOCPU
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

KernelLowering::KernelLowering(func::FuncOp kernel, int chunk, bool check)
    : b(kernel.getContext()), loc(kernel.getLoc()), kernel(kernel), chunkMax(chunk), check(check),
      axis(kernel.getOperation()), allocB(kernel.getContext()) {}

//===----------------------------------------------------------------------===//
// Types, constants, buffers
//===----------------------------------------------------------------------===//

Type KernelLowering::valueElem(Type elem) {
  // Pointers, and descriptors (the address of their tile::TensorDescParam), are addresses.
  if (isa<PtrType, TensorDescType>(elem)) return b.getI64Type();
  return elem;
}

Type KernelLowering::memElem(Type elem) {
  elem = valueElem(elem);
  // A vector<Nxi1> in memory is bit-packed by LLVM; scalar i1s are bytes. Bytes everywhere.
  if (elem.isInteger(1)) return b.getI8Type();
  return elem;
}

VectorType KernelLowering::vecOf(Type tensorOrElem, int64_t w) {
  return VectorType::get({w}, valueElem(getElementTypeOrSelf(tensorOrElem)));
}

Value KernelLowering::cIndex(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value KernelLowering::cInt(Type t, int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v)); }

int64_t KernelLowering::pow2WidthFor(int64_t n) const {
  int64_t w = 1;
  while (w * 2 <= chunkMax && n % (w * 2) == 0) w *= 2;
  return w;
}

int64_t KernelLowering::widthFor(int64_t n) const { return n <= chunkMax ? n : pow2WidthFor(n); }

Value KernelLowering::allocBuffer(RankedTensorType t) {
  Type elem = memElem(t.getElementType());
  stackBytes += t.getNumElements() * std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  // 64-byte alignment: whole cache lines, and aligned vector loads of every chunk width.
  return memref::AllocaOp::create(allocB, loc, MemRefType::get(t.getShape(), elem), allocB.getI64IntegerAttr(64));
}

Value KernelLowering::loadChunk(Value buffer, Type elem, ArrayRef<Value> idx, int64_t w) {
  Type mem = memElem(elem);
  Value v = vector::LoadOp::create(b, loc, VectorType::get({w}, mem), buffer, idx);
  if (mem != valueElem(elem)) // bytes back to i1
    v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                              arith::ConstantOp::create(b, loc, DenseElementsAttr::get(cast<ShapedType>(v.getType()),
                                                                                       b.getIntegerAttr(mem, 0))));
  return v;
}

void KernelLowering::storeChunk(Value buffer, Type elem, Value chunkValue, ArrayRef<Value> idx) {
  Type mem = memElem(elem);
  if (mem != valueElem(elem))
    chunkValue = arith::ExtUIOp::create(
        b, loc, VectorType::get(cast<VectorType>(chunkValue.getType()).getShape(), mem), chunkValue);
  vector::StoreOp::create(b, loc, chunkValue, buffer, idx);
}

void KernelLowering::forEachChunk(ArrayRef<int64_t> shape, int64_t w, function_ref<void(ArrayRef<Value>)> body) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t step = d + 1 == shape.size() ? w : 1;
    if (shape[d] == step) {
      idx.push_back(cIndex(0));
      continue;
    }
    auto loop = scf::ForOp::create(b, loc, cIndex(0), cIndex(shape[d]), cIndex(step));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    idx.push_back(loop.getInductionVar());
  }
  body(idx);
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
  if (auto it = buffers.find(v); it != buffers.end()) return it->second;
  if (fresh) *fresh = true;
  Value buf = allocBuffer(tensorType(v));
  materializeInto(v, buf, /*fromDefinition=*/false);
  return buf;
}

Value KernelLowering::viewAs(Value buffer, ArrayRef<int64_t> shape) {
  if (auto view = buffer.getDefiningOp<memref::ReinterpretCastOp>()) buffer = view.getSource(); // views of views
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getShape() == shape) return buffer;
  // A reinterpret_cast, not collapse/expand_shape: those need expand-strided-metadata
  // before the LLVM conversion; this lowers directly and keeps the identity layout.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return memref::ReinterpretCastOp::create(b, loc, MemRefType::get(shape, type.getElementType()), buffer, 0, shape,
                                           strides);
}

Value KernelLowering::unsupported(Operation *op, Type type) {
  // A feature gap, not a bug: the user gets UnsupportedError at the op's line.
  ::tile::compiler::emitUnsupported(op, "'" + op->getName().getStringRef() + "' is not supported by the CPU executor");
  failed = true;
  return type ? Value(arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(type)))) : Value();
}

Value KernelLowering::scalar(Value v) {
  if (Value m = scalars.lookupOrNull(v)) return m;
  mlir::emitError(v.getLoc()) << "tile-lower-to-cpu: no lowered value for " << v;
  failed = true;
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(valueElem(v.getType())));
}

//===----------------------------------------------------------------------===//
// Planning: lazy or materialised
//===----------------------------------------------------------------------===//

bool KernelLowering::producesBuffer(Operation *op) const {
  if (isa<scf::ForOp, scf::IfOp, ReduceOp, AtomicAddOp, DotOp, TransOp, ReshapeOp>(op)) return true;
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
    if (isa<StoreOp, AtomicAddOp>(o)) writes = true;
  });
  return writes;
}

void KernelLowering::plan(Block &block) {
  // Users before definitions: a value's root is known when its definition is visited.
  for (Operation &op : llvm::reverse(block)) {
    if (op.getNumResults() != 1 || !tensorType(op.getResult(0)) || producesBuffer(&op)) continue;
    Value r = op.getResult(0);
    if (isCheap(r)) {
      lazy.insert(r);
      continue;
    }
    if (!r.hasOneUse()) continue;
    Operation *user = *r.getUsers().begin();
    if (user->getBlock() != &block) continue; // used in a loop/branch body: computed once, here
    Operation *root = user;
    if (auto it = rootOf.find(user); it != rootOf.end()) root = it->second;
    if (isa<LoadOp>(op))
      for (Operation *o = op.getNextNode(); o && o != root; o = o->getNextNode())
        if (mayWriteMemory(o)) goto materialise; // the load must see memory as it was
    lazy.insert(r);
    rootOf[&op] = root;
  materialise:;
  }
}

//===----------------------------------------------------------------------===//
// Chunks of lazy values
//===----------------------------------------------------------------------===//

Value KernelLowering::chunk(Value v, ArrayRef<Value> idx, int64_t w) {
  if (auto it = buffers.find(v); it != buffers.end())
    return loadChunk(it->second, tensorType(v).getElementType(), idx, w);
  return evalOp(v, idx, w);
}

Value KernelLowering::evalOp(Value v, ArrayRef<Value> idx, int64_t w) {
  Operation *op = v.getDefiningOp();
  RankedTensorType type = tensorType(v);
  VectorType vt = vecOf(type, w);
  Location saved = loc;
  loc = op->getLoc();
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
          .Case([&](LoadOp l) -> Value { return evalLoad(l, idx, w); })
          .Default([&](Operation *) -> Value {
            SmallVector<Value> operands;
            for (Value o : op->getOperands()) operands.push_back(tensorType(o) ? chunk(o, idx, w) : scalar(o));
            return emitElementwise(op, operands, vt);
          });
  loc = saved;
  return result;
}

//===----------------------------------------------------------------------===//
// Elementwise arith/math, with the fixes that make the CPU behave like the GPU
//===----------------------------------------------------------------------===//

/// Splat `attr` to the shape of `like` (a vector) or keep it scalar.
static Value constantLike(OpBuilder &b, Location loc, Type like, TypedAttr attr) {
  if (auto vt = dyn_cast<VectorType>(like)) return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

Value KernelLowering::emitElementwise(Operation *op, ArrayRef<Value> operands, Type resultType) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) return unsupported(op, resultType);
  // Integer division: x86 traps on a zero divisor and on INT_MIN / -1, which masked-off
  // lanes may well contain; the GPU does not trap. Divide by 1 there instead (a zero
  // divisor gives x / 1 and x % 1; INT_MIN / -1 wraps to INT_MIN as on the GPU).
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(op)) {
    Value x = operands[0], d = operands[1];
    Type elem = getElementTypeOrSelf(d.getType());
    bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
    Value zero = constantLike(b, loc, d.getType(), b.getIntegerAttr(elem, 0));
    Value one = constantLike(b, loc, d.getType(), b.getIntegerAttr(elem, 1));
    Value bad = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, zero);
    Value negOne;
    if (isSigned) {
      Value minusOne = constantLike(b, loc, d.getType(), b.getIntegerAttr(elem, -1));
      negOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, minusOne);
      bad = arith::OrIOp::create(b, loc, bad, negOne);
    }
    Value safe = arith::SelectOp::create(b, loc, bad, one, d);
    Operation *r = b.create(OperationState(loc, op->getName().getStringRef(), ValueRange{x, safe}, TypeRange{resultType}));
    Value res = r->getResult(0);
    if (isSigned && isa<arith::DivSIOp>(op)) // x / -1 == -x (wrapping)
      res = arith::SelectOp::create(b, loc, negOne, arith::SubIOp::create(b, loc, zero, x), res);
    return res;
  }
  // Float to int: LLVM's fptosi is poison out of range; the GPU's cvt.rzi saturates and
  // maps NaN to 0. Clamp in f32/f64 first.
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    Value x = operands[0];
    auto ft = cast<FloatType>(getElementTypeOrSelf(x.getType()));
    if (ft.getWidth() < 32) {
      Type f32 = b.getF32Type();
      Type wide = isa<VectorType>(x.getType()) ? Type(VectorType::get(cast<VectorType>(x.getType()).getShape(), f32)) : f32;
      x = arith::ExtFOp::create(b, loc, wide, x);
      ft = cast<FloatType>(f32);
    }
    unsigned bits = getElementTypeOrSelf(resultType).getIntOrFloatBitWidth();
    bool isSigned = isa<arith::FPToSIOp>(op);
    APInt lo = isSigned ? APInt::getSignedMinValue(bits) : APInt::getMinValue(bits);
    APInt hi = isSigned ? APInt::getSignedMaxValue(bits) : APInt::getMaxValue(bits);
    auto toFloat = [&](const APInt &v, llvm::RoundingMode rm) {
      APFloat f(ft.getFloatSemantics());
      (void)f.convertFromAPInt(v, isSigned, rm);
      return b.getFloatAttr(ft, f);
    };
    Value flo = constantLike(b, loc, x.getType(), toFloat(lo, llvm::RoundingMode::TowardPositive));
    Value fhi = constantLike(b, loc, x.getType(), toFloat(hi, llvm::RoundingMode::TowardZero));
    Value clamped = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, flo), fhi);
    Operation *r = b.create(OperationState(loc, op->getName().getStringRef(), ValueRange{clamped}, TypeRange{resultType}));
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value zero = constantLike(b, loc, resultType, b.getIntegerAttr(getElementTypeOrSelf(resultType), 0));
    return arith::SelectOp::create(b, loc, isNan, zero, r->getResult(0));
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(cast<ShapedType>(resultType), dense.getSplatValue<Attribute>()));
  }
  // Everything else converts by type: clone with the chunk (or scalar) types.
  IRMapping m;
  for (auto [from, to] : llvm::zip(op->getOperands(), operands)) m.map(from, to);
  Operation *clone = b.clone(*op, m);
  clone->getResult(0).setType(resultType);
  return clone->getResult(0);
}

//===----------------------------------------------------------------------===//
// Structure: blocks, ops, loops, branches
//===----------------------------------------------------------------------===//

void KernelLowering::emitBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (isa<func::ReturnOp>(op)) func::ReturnOp::create(b, op.getLoc());
      continue; // scf.yield: handled by the loop or branch that owns the block
    }
    emitOp(op);
  }
}

void KernelLowering::emitOp(Operation &op) {
  loc = op.getLoc();
  if (auto f = dyn_cast<scf::ForOp>(op)) return emitFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op)) return emitIf(i);
  if (auto s = dyn_cast<StoreOp>(op)) return emitStore(s);
  if (auto a = dyn_cast<AtomicAddOp>(op)) return emitAtomic(a);
  if (auto r = dyn_cast<ReduceOp>(op)) return emitReduce(r);
  if (auto d = dyn_cast<DotOp>(op)) return emitDot(d);
  if (auto t = dyn_cast<TransOp>(op)) return emitTrans(t);
  if (auto r = dyn_cast<ReshapeOp>(op)) return emitReshape(r);
  if (auto p = dyn_cast<ProgramIdOp>(op)) return scalars.map(p.getResult(), programId[p.getAxis()]);
  if (auto n = dyn_cast<NumProgramsOp>(op)) return scalars.map(n.getResult(), numPrograms[n.getAxis()]);
  if (op.getNumResults() != 1) {
    unsupported(&op, Type());
    return;
  }
  Value r = op.getResult(0);
  if (!tensorType(r)) {
    if (auto l = dyn_cast<LoadOp>(op)) return scalars.map(r, emitScalarLoad(l));
    if (isa<DescriptorBaseOp, DescriptorDimOp>(op)) return scalars.map(r, emitDescriptorField(&op));
    if (auto a = dyn_cast<AddPtrOp>(op)) {
      int64_t bytes = std::max<int64_t>(1, cast<PtrType>(a.getType()).getPointeeType().getIntOrFloatBitWidth() / 8);
      Value off = scalar(a.getOffset());
      if (!off.getType().isInteger(64)) off = arith::ExtSIOp::create(b, loc, b.getI64Type(), off);
      return scalars.map(r, arith::AddIOp::create(b, loc, scalar(a.getPtr()),
                                                  arith::MulIOp::create(b, loc, off, cInt(b.getI64Type(), bytes))));
    }
    SmallVector<Value> operands;
    for (Value o : op.getOperands()) operands.push_back(scalar(o));
    return scalars.map(r, emitElementwise(&op, operands, valueElem(r.getType())));
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op); c && producesBuffer(&op)) {
    // A non-splat constant lives in a read-only global.
    auto dense = cast<DenseElementsAttr>(c.getValue());
    Type mem = memElem(dense.getElementType());
    if (mem != dense.getElementType())
      dense = dense.mapValues(mem, [&](const APInt &v) { return v.zext(mem.getIntOrFloatBitWidth()); });
    auto mt = MemRefType::get(dense.getType().getShape(), mem);
    auto module = fn->getParentOfType<ModuleOp>();
    std::string name = "__tile_cst_" + std::to_string(buffers.size());
    {
      OpBuilder mb(module.getBodyRegion());
      memref::GlobalOp::create(mb, loc, name, mb.getStringAttr("private"), mt, dense, /*constant=*/true,
                               mb.getI64IntegerAttr(64));
    }
    buffers[r] = memref::GetGlobalOp::create(b, loc, mt, name);
    return;
  }
  if (lazy.contains(r)) return; // computed where it is used
  Value buf = allocBuffer(tensorType(r));
  materializeInto(r, buf, /*fromDefinition=*/true);
  buffers[r] = buf;
}

void KernelLowering::collectLeaves(Value v, llvm::DenseSet<Value> &leafBuffers, bool &remaps) {
  if (auto it = buffers.find(v); it != buffers.end()) {
    leafBuffers.insert(it->second);
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
    if (auto it = buffers.find(values[i]); it != buffers.end() && it->second == targets[i]) continue;
    llvm::DenseSet<Value> leaves;
    bool remaps = false;
    collectLeaves(values[i], leaves, remaps);
    for (size_t j = 0; j < targets.size(); ++j)
      if (leaves.contains(targets[j]) && (j != i || remaps)) inPlace[i] = false;
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (!inPlace[i]) {
      temps[i] = allocBuffer(tensorType(values[i]));
      materializeInto(values[i], temps[i], /*fromDefinition=*/false);
    }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!inPlace[i]) continue;
    if (auto it = buffers.find(values[i]); it != buffers.end() && it->second == targets[i]) continue;
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
    scalars.map(op.getInductionVar(), loop.getInductionVar());
    for (size_t i = 0, k = 0; i < n; ++i) {
      if (bufs[i]) buffers[op.getRegionIterArgs()[i]] = bufs[i];
      else scalars.map(op.getRegionIterArgs()[i], loop.getRegionIterArgs()[k++]);
    }
    emitBlock(*op.getBody());
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    loc = yield.getLoc();
    SmallVector<Value> tv, tb, sv;
    for (size_t i = 0; i < n; ++i) {
      if (bufs[i]) tv.push_back(yield.getOperand(i)), tb.push_back(bufs[i]);
      else sv.push_back(scalar(yield.getOperand(i)));
    }
    assignBuffers(tv, tb);
    scf::YieldOp::create(b, loc, sv);
  }
  for (size_t i = 0, k = 0; i < n; ++i) {
    if (bufs[i]) buffers[op.getResult(i)] = bufs[i];
    else scalars.map(op.getResult(i), loop.getResult(k++));
  }
}

void KernelLowering::emitIf(scf::IfOp op) {
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
      loc = yield.getLoc();
      for (auto [i, y] : llvm::enumerate(yield.getOperands())) {
        if (bufs[i]) tv.push_back(y), tb.push_back(bufs[i]);
        else sv.push_back(scalar(y));
      }
      assignBuffers(tv, tb);
    }
    scf::YieldOp::create(b, loc, sv);
  };
  emitBranch(op.getThenRegion(), lowered.thenBlock());
  emitBranch(op.getElseRegion(), lowered.elseBlock());
  for (size_t i = 0, k = 0; i < op.getNumResults(); ++i) {
    if (bufs[i]) buffers[op.getResult(i)] = bufs[i];
    else scalars.map(op.getResult(i), lowered.getResult(k++));
  }
}

bool KernelLowering::hasAxisContiguity(Value ptr, int64_t w) {
  if (w == 1) return true;
  const AxisInfo &info = axis.get(ptr);
  return info.contiguity.back() % w == 0;
}

LogicalResult KernelLowering::run() {
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
  allocB.setInsertionPoint(cIndex(0).getDefiningOp());
  for (unsigned i = 0; i < numArgs; ++i) scalars.map(kernel.getArgument(i), entry->getArgument(i));
  for (unsigned k = 0; k < 3; ++k) {
    programId[k] = entry->getArgument(numArgs + k);
    numPrograms[k] = entry->getArgument(numArgs + 3 + k);
  }

  kernel.walk([&](Block *block) { plan(*block); });
  emitBlock(kernel.getBody().front());

  ModuleOp module = kernel->getParentOfType<ModuleOp>();
  SmallVector<Attribute> siteAttrs;
  for (const std::string &s : sites) siteAttrs.push_back(StringAttr::get(ctx, s));
  module->setAttr(kSitesAttr, ArrayAttr::get(ctx, siteAttrs));
  module->setAttr(kStackBytesAttr, b.getI64IntegerAttr(stackBytes));
  kernel.erase();
  fn.setSymName(name);
  return failure(failed);
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
    for (func::FuncOp k : kernels)
      if (failed(KernelLowering(k, chunk, check).run())) return signalPassFailure();
  }
};
} // namespace
