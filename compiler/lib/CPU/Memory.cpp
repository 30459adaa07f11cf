//===- Memory.cpp - loads, stores and atomics for the CPU executor --------===//
// A chunk of a pointer tensor is a vector of i64 host addresses. Where the axis analysis
// proves the chunk's addresses consecutive, the access is one (masked) vector load or
// store from the first address; otherwise a masked gather/scatter. Masked-off lanes are
// never touched (llvm.masked.* semantics), so ragged edges may point anywhere.
// Atomics are one llvm.atomicrmw or cmpxchg per active element, in the op's memory order.
// Checking mode asks the runtime about every active element first and switches off any
// lane it refuses, so a bad access is reported and never performed.
#include "Memory.h"

#include "LoweringAbi.h"

#include "tile/AtomicSemantics.h"
#include "tile/TensorDescAbi.h"

#include <cstddef>

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-to-cpu"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

namespace {
unsigned bytesOf(Type memElem) { return std::max<unsigned>(1, memElem.getIntOrFloatBitWidth() / 8); }

Type llvmPtr(OpBuilder &b) { return LLVM::LLVMPointerType::get(b.getContext()); }

Value toPtr(OpBuilder &b, Location loc, Value addr) {
  if (auto vt = dyn_cast<VectorType>(addr.getType()))
    return LLVM::IntToPtrOp::create(b, loc, VectorType::get(vt.getShape(), llvmPtr(b)), addr);
  return LLVM::IntToPtrOp::create(b, loc, llvmPtr(b), addr);
}

Value allTrue(OpBuilder &b, Location loc, int64_t w) {
  auto vt = VectorType::get({w}, b.getI1Type());
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, true));
}
} // namespace

/// The declaration of the checking runtime's entry point, created on first use.
static func::FuncOp checkFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(kCheckFn)) return f;
  OpBuilder mb(module.getBodyRegion());
  Type i64 = mb.getI64Type(), i32 = mb.getI32Type();
  auto f =
      func::FuncOp::create(mb, module.getLoc(), kCheckFn, mb.getFunctionType({i64, i64, i32, i32, i64, i32}, {i32}));
  f.setPrivate();
  return f;
}

/// In checking mode: the mask with every lane the runtime refuses switched off.
static Value checkedMask(LoweringState &lowering, Operation *op, AccessKind kind, Value addrs, Value mask,
                         ArrayRef<Value> idx, int64_t w, unsigned bytes) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  func::FuncOp fnDecl = checkFunction(op->getParentOfType<ModuleOp>());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  // Row-major element index of the chunk's first element in the op's tensor.
  Value linear = lowering.cIndex(0);
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (t && idx.size() == static_cast<size_t>(t.getRank())) {
    int64_t stride = 1;
    for (int d = t.getRank() - 1; d >= 0; --d) {
      linear = arith::AddIOp::create(b, loc, linear, arith::MulIOp::create(b, loc, idx[d], lowering.cIndex(stride)));
      stride *= t.getShape()[d];
    }
  }
  Value first = arith::IndexCastOp::create(b, loc, i64, linear);
  Value site = lowering.cInt(i32, lowering.siteOf(op)), kindV = lowering.cInt(i32, static_cast<int32_t>(kind)),
        size = lowering.cInt(i64, bytes);
  auto vt = VectorType::get({w}, b.getI1Type());
  Value result = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, false));
  for (int64_t l = 0; l < w; ++l) {
    Value addr = vector::ExtractOp::create(b, loc, addrs, ArrayRef<int64_t>{l});
    Value active =
        mask ? Value(vector::ExtractOp::create(b, loc, mask, ArrayRef<int64_t>{l})) : lowering.cInt(b.getI1Type(), 1);
    Value elem = arith::AddIOp::create(b, loc, first, lowering.cInt(i64, l));
    Value ok =
        func::CallOp::create(b, loc, fnDecl,
                             ValueRange{addr, size, kindV, site, elem, arith::ExtUIOp::create(b, loc, i32, active)})
            .getResult(0);
    Value okBit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, ok, lowering.cInt(i32, 0));
    result = vector::InsertOp::create(b, loc, okBit, result, ArrayRef<int64_t>{l});
  }
  return result;
}

Value mlir::tile::cpu::lowerLoadChunk(KernelLowering &lowering, LoadOp op, ArrayRef<Value> idx, int64_t w) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  Type elem = lowering.tensorType(op.getResult()).getElementType();
  Type mem = lowering.memElem(elem);
  auto vt = VectorType::get({w}, mem);
  unsigned bytes = bytesOf(mem);
  Value addrs = lowering.chunk(op.getPtr(), idx, w);
  Value mask = op.getMask() ? lowering.chunk(op.getMask(), idx, w) : Value();
  Value other = op.getOther()
                    ? lowering.chunk(op.getOther(), idx, w)
                    : Value(arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getZeroAttr(mem))));
  if (other.getType() != vt) other = arith::ExtUIOp::create(b, loc, vt, other); // i1 -> byte
  if (lowering.checking()) mask = checkedMask(lowering, op, AccessKind::Load, addrs, mask, idx, w, bytes);
  Value v;
  bool contiguous = lowering.hasAxisContiguity(op.getPtr(), w);
  LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] tile.load at " << loc << ", chunk of " << w << ": "
                          << (contiguous ? "one vector load (addresses proven consecutive)" : "gather") << "\n");
  if (contiguous) {
    Value base = toPtr(b, loc, vector::ExtractOp::create(b, loc, addrs, ArrayRef<int64_t>{0}));
    if (!mask) v = LLVM::LoadOp::create(b, loc, vt, base, bytes);
    else v = LLVM::MaskedLoadOp::create(b, loc, vt, base, mask, other, bytes);
  } else {
    v = LLVM::masked_gather::create(b, loc, vt, toPtr(b, loc, addrs), mask ? mask : allTrue(b, loc, w),
                                    ValueRange{other}, b.getI32IntegerAttr(bytes));
  }
  if (mem != lowering.valueElem(elem)) // a byte in memory is a bool when non-zero
    v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                              arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getZeroAttr(mem))));
  return v;
}

/// Checking mode for one scalar access: true where the access may go ahead.
/// `idx`: the element's index in the op's tensor (empty for a scalar op).
static Value checkScalar(LoweringState &lowering, Operation *op, AccessKind kind, Value addr, Value active,
                         unsigned bytes, ArrayRef<Value> idx = {}) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  Value addrs = vector::BroadcastOp::create(b, loc, VectorType::get({1}, b.getI64Type()), addr);
  Value mask =
      active ? Value(vector::BroadcastOp::create(b, loc, VectorType::get({1}, b.getI1Type()), active)) : Value();
  Value ok = checkedMask(lowering, op, kind, addrs, mask, idx, 1, bytes);
  return vector::ExtractOp::create(b, loc, ok, ArrayRef<int64_t>{0});
}

Value mlir::tile::cpu::lowerDescriptorField(LoweringState &lowering, Operation *op) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  int64_t offset = offsetof(::tile::TensorDescParam, base);
  Type type = b.getI64Type();
  if (auto dim = dyn_cast<DescriptorDimOp>(op)) {
    offset = (dim.getStride() ? offsetof(::tile::TensorDescParam, strides) : offsetof(::tile::TensorDescParam, shape)) +
             4 * int64_t(dim.getDim());
    type = b.getI32Type();
  }
  Value addr = arith::AddIOp::create(b, loc, lowering.scalar(op->getOperand(0)), lowering.cInt(b.getI64Type(), offset));
  return LLVM::LoadOp::create(b, loc, type, toPtr(b, loc, addr), /*alignment=*/4);
}

Value mlir::tile::cpu::lowerScalarLoad(LoweringState &lowering, LoadOp op) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  Type elem = op.getType(), mem = lowering.memElem(elem);
  unsigned bytes = bytesOf(mem);
  Value addr = lowering.scalar(op.getPtr());
  Value active = op.getMask() ? lowering.scalar(op.getMask()) : Value();
  if (lowering.checking()) active = checkScalar(lowering, op, AccessKind::Load, addr, active, bytes);
  auto load = [&]() -> Value {
    Value v = LLVM::LoadOp::create(b, loc, mem, toPtr(b, loc, addr), bytes);
    if (mem != lowering.valueElem(elem))
      v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, lowering.cInt(mem, 0));
    return v;
  };
  if (!active) return load();
  Value other =
      op.getOther()
          ? lowering.scalar(op.getOther())
          : Value(arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(lowering.valueElem(elem)))));
  auto branch = scf::IfOp::create(b, loc, TypeRange{lowering.valueElem(elem)}, active, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, load());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, other);
  }
  return branch.getResult(0);
}

void mlir::tile::cpu::lowerStore(KernelLowering &lowering, StoreOp op) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  Type mem = lowering.memElem(elem);
  unsigned bytes = bytesOf(mem);
  auto toMem = [&](Value v) -> Value {
    if (mem == lowering.valueElem(elem)) return v;
    if (auto vt = dyn_cast<VectorType>(v.getType()))
      return arith::ExtUIOp::create(b, loc, VectorType::get(vt.getShape(), mem), v);
    return arith::ExtUIOp::create(b, loc, mem, v);
  };
  auto ptrType = lowering.tensorType(op.getPtr());
  if (!ptrType) {
    Value addr = lowering.scalar(op.getPtr());
    Value active = op.getMask() ? lowering.scalar(op.getMask()) : Value();
    if (lowering.checking()) active = checkScalar(lowering, op, AccessKind::Store, addr, active, bytes);
    OpBuilder::InsertionGuard guard(b);
    if (active) {
      auto branch = scf::IfOp::create(b, loc, TypeRange{}, active, /*withElseRegion=*/false);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
    }
    LLVM::StoreOp::create(b, loc, toMem(lowering.scalar(op.getValue())), toPtr(b, loc, addr), bytes);
    return;
  }
  int64_t w = lowering.widthFor(ptrType.getShape().back());
  bool contiguous = lowering.hasAxisContiguity(op.getPtr(), w);
  LLVM_DEBUG(llvm::dbgs() << "[tile-lower-to-cpu] tile.store at " << loc << ", chunks of " << w << ": "
                          << (contiguous ? "vector stores (addresses proven consecutive)" : "scatters") << "\n");
  lowering.forEachChunk(ptrType.getShape(), w, [&](ArrayRef<Value> idx) {
    Value addrs = lowering.chunk(op.getPtr(), idx, w);
    Value value = toMem(lowering.chunk(op.getValue(), idx, w));
    Value mask = op.getMask() ? lowering.chunk(op.getMask(), idx, w) : Value();
    if (lowering.checking()) mask = checkedMask(lowering, op, AccessKind::Store, addrs, mask, idx, w, bytes);
    if (contiguous) {
      Value base = toPtr(b, loc, vector::ExtractOp::create(b, loc, addrs, ArrayRef<int64_t>{0}));
      if (!mask) LLVM::StoreOp::create(b, loc, value, base, bytes);
      else LLVM::MaskedStoreOp::create(b, loc, value, base, mask, b.getI32IntegerAttr(bytes));
    } else {
      LLVM::masked_scatter::create(b, loc, value, toPtr(b, loc, addrs), mask ? mask : allTrue(b, loc, w),
                                   b.getI32IntegerAttr(bytes));
    }
  });
}

/// An atomic on a tensor or a scalar: `apply(addr, operands..., b)` at each active element
/// (its operands: the op's value operands, `values`, element by element), 0 where the mask
/// is off; the old values get a buffer where they are used.
template <class AtomicOp>
static void lowerAtomic(KernelLowering &lowering, AtomicOp op, ArrayRef<Value> values,
                        function_ref<Value(Value addr, ArrayRef<Value> operands)> apply) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  Type mem = lowering.memElem(elem);
  unsigned bytes = bytesOf(mem);
  auto one = [&](Value addr, ArrayRef<Value> operands, Value active, ArrayRef<Value> idx) -> Value {
    if (lowering.checking()) active = checkScalar(lowering, op, AccessKind::Atomic, addr, active, bytes, idx);
    if (!active) return apply(addr, operands);
    auto branch = scf::IfOp::create(b, loc, TypeRange{mem}, active, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, apply(addr, operands));
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, Value(arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(mem)))));
    b.setInsertionPointAfter(branch);
    return branch.getResult(0);
  };
  auto ptrType = lowering.tensorType(op.getPtr());
  if (!ptrType) {
    SmallVector<Value> operands;
    for (Value v : values) operands.push_back(lowering.scalar(v));
    lowering.mapScalar(op.getResult(), one(lowering.scalar(op.getPtr()), operands,
                                           op.getMask() ? lowering.scalar(op.getMask()) : Value(), {}));
    return;
  }
  bool keep = !op.getResult().use_empty();
  Value result = keep ? lowering.allocBuffer(lowering.tensorType(op.getResult())) : Value();
  // Element by element, in row-major order (the order atomics on one address happen in).
  lowering.forEachChunk(ptrType.getShape(), 1, [&](ArrayRef<Value> idx) {
    auto lane0 = [&](Value v) { return Value(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0})); };
    SmallVector<Value> operands;
    for (Value v : values) operands.push_back(lane0(lowering.chunk(v, idx, 1)));
    Value active = op.getMask() ? lane0(lowering.chunk(op.getMask(), idx, 1)) : Value();
    Value old = one(lane0(lowering.chunk(op.getPtr(), idx, 1)), operands, active, idx);
    if (keep)
      lowering.storeChunk(result, elem, vector::BroadcastOp::create(b, loc, VectorType::get({1}, mem), old), idx);
  });
  if (keep) lowering.setBuffer(op.getResult(), result);
}

void mlir::tile::cpu::lowerAtomicRMW(KernelLowering &lowering, AtomicRMWOp op) {
  const LLVM::AtomicBinOp kind = llvmAtomicBinOp(op.getKind(), getElementTypeOrSelf(op.getValue().getType()));
  OpBuilder &b = lowering.builder();
  lowerAtomic(lowering, op, {op.getValue()}, [&](Value addr, ArrayRef<Value> operands) -> Value {
    return LLVM::AtomicRMWOp::create(b, lowering.loc(), kind, toPtr(b, lowering.loc(), addr), operands[0],
                                     llvmOrdering(op.getSem()));
  });
}

void mlir::tile::cpu::lowerAtomicCAS(KernelLowering &lowering, AtomicCASOp op) {
  OpBuilder &b = lowering.builder();
  lowerAtomic(lowering, op, {op.getCmp(), op.getValue()}, [&](Value addr, ArrayRef<Value> operands) -> Value {
    return compareAndSwap(b, lowering.loc(), toPtr(b, lowering.loc(), addr), operands[0], operands[1], op.getSem(),
                          /*syncscope=*/"");
  });
}
