//===- Memory.cpp - loads, stores and atomics for the CPU executor --------===//
// A chunk of a pointer tensor is a vector of i64 host addresses. Where the axis analysis
// proves the chunk's addresses consecutive, the access is one (masked) vector load or
// store from the first address; otherwise a masked gather/scatter. Masked-off lanes are
// never touched (llvm.masked.* semantics), so ragged edges may point anywhere.
// Atomics are one llvm.atomicrmw per active element (monotonic = the GPU's relaxed).
// Checking mode asks the runtime about every active element first and switches off any
// lane it refuses, so a bad access is reported and never performed.
#include "Lowering.h"

#include "tile/TensorDescAbi.h"

#include <cstddef>

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// "file:line:col" of the first file location inside `loc`.
std::string describe(Location loc) {
  if (auto flc = loc->findInstanceOf<FileLineColLoc>())
    return (flc.getFilename().getValue() + ":" + llvm::Twine(flc.getLine()) + ":" + llvm::Twine(flc.getColumn())).str();
  return "<unknown location>";
}
} // namespace

int32_t KernelLowering::siteOf(Operation *op) {
  auto [it, inserted] = siteIds.try_emplace(op, static_cast<int32_t>(sites.size()));
  // "file:line:col\top": CheckRuntime.cpp puts the location first in its message.
  if (inserted) sites.push_back(describe(op->getLoc()) + "\t" + op->getName().getStringRef().str());
  return it->second;
}

/// The declaration of the checking runtime's entry point, created on first use.
static func::FuncOp checkFunction(OpBuilder &b, ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(kCheckFn)) return f;
  OpBuilder mb(module.getBodyRegion());
  Type i64 = mb.getI64Type(), i32 = mb.getI32Type();
  auto f = func::FuncOp::create(mb, module.getLoc(), kCheckFn,
                                mb.getFunctionType({i64, i64, i32, i32, i64, i32}, {i32}));
  f.setPrivate();
  return f;
}

Value KernelLowering::checkedMask(Operation *op, AccessKind kind, Value addrs, Value mask, ArrayRef<Value> idx,
                                  int64_t w, unsigned bytes) {
  func::FuncOp fnDecl = checkFunction(b, op->getParentOfType<ModuleOp>());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  // Row-major element index of the chunk's first element in the op's tensor.
  Value linear = cIndex(0);
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (t && idx.size() == static_cast<size_t>(t.getRank())) {
    int64_t stride = 1;
    for (int d = t.getRank() - 1; d >= 0; --d) {
      linear = arith::AddIOp::create(b, loc, linear, arith::MulIOp::create(b, loc, idx[d], cIndex(stride)));
      stride *= t.getShape()[d];
    }
  }
  Value first = arith::IndexCastOp::create(b, loc, i64, linear);
  Value site = cInt(i32, siteOf(op)), kindV = cInt(i32, static_cast<int32_t>(kind)), size = cInt(i64, bytes);
  auto vt = VectorType::get({w}, b.getI1Type());
  Value result = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, false));
  for (int64_t l = 0; l < w; ++l) {
    Value addr = vector::ExtractOp::create(b, loc, addrs, ArrayRef<int64_t>{l});
    Value active = mask ? Value(vector::ExtractOp::create(b, loc, mask, ArrayRef<int64_t>{l})) : cInt(b.getI1Type(), 1);
    Value elem = arith::AddIOp::create(b, loc, first, cInt(i64, l));
    Value ok = func::CallOp::create(b, loc, fnDecl, ValueRange{addr, size, kindV, site, elem,
                                                               arith::ExtUIOp::create(b, loc, i32, active)})
                   .getResult(0);
    Value okBit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, ok, cInt(i32, 0));
    result = vector::InsertOp::create(b, loc, okBit, result, ArrayRef<int64_t>{l});
  }
  return result;
}

Value KernelLowering::evalLoad(LoadOp op, ArrayRef<Value> idx, int64_t w) {
  Type elem = tensorType(op.getResult()).getElementType();
  Type mem = memElem(elem);
  auto vt = VectorType::get({w}, mem);
  unsigned bytes = bytesOf(mem);
  Value addrs = chunk(op.getPtr(), idx, w);
  Value mask = op.getMask() ? chunk(op.getMask(), idx, w) : Value();
  Value other = op.getOther() ? chunk(op.getOther(), idx, w)
                              : Value(arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getZeroAttr(mem))));
  if (other.getType() != vt) other = arith::ExtUIOp::create(b, loc, vt, other); // i1 -> byte
  if (check) mask = checkedMask(op, AccessKind::Load, addrs, mask, idx, w, bytes);
  Value v;
  if (hasAxisContiguity(op.getPtr(), w)) {
    Value base = toPtr(b, loc, vector::ExtractOp::create(b, loc, addrs, ArrayRef<int64_t>{0}));
    if (!mask) v = LLVM::LoadOp::create(b, loc, vt, base, bytes);
    else v = LLVM::MaskedLoadOp::create(b, loc, vt, base, mask, other, bytes);
  } else {
    v = LLVM::masked_gather::create(b, loc, vt, toPtr(b, loc, addrs), mask ? mask : allTrue(b, loc, w),
                                    ValueRange{other}, b.getI32IntegerAttr(bytes));
  }
  if (mem != valueElem(elem)) // a byte in memory is a bool when non-zero
    v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                              arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getZeroAttr(mem))));
  return v;
}

/// Checking mode for one scalar access: true where the access may go ahead.
/// `idx`: the element's index in the op's tensor (empty for a scalar op).
static Value checkScalar(KernelLowering &k, Operation *op, AccessKind kind, Value addr, Value active, unsigned bytes,
                         ArrayRef<Value> idx = {}) {
  OpBuilder &b = k.b;
  Value addrs = vector::BroadcastOp::create(b, k.loc, VectorType::get({1}, b.getI64Type()), addr);
  Value mask = active ? Value(vector::BroadcastOp::create(b, k.loc, VectorType::get({1}, b.getI1Type()), active)) : Value();
  Value ok = k.checkedMask(op, kind, addrs, mask, idx, 1, bytes);
  return vector::ExtractOp::create(b, k.loc, ok, ArrayRef<int64_t>{0});
}

Value KernelLowering::emitDescriptorField(Operation *op) {
  int64_t offset = offsetof(::tile::TensorDescParam, base);
  Type type = b.getI64Type();
  if (auto dim = dyn_cast<DescriptorDimOp>(op)) {
    offset = (dim.getStride() ? offsetof(::tile::TensorDescParam, strides) : offsetof(::tile::TensorDescParam, shape)) +
             4 * int64_t(dim.getDim());
    type = b.getI32Type();
  }
  Value addr = arith::AddIOp::create(b, loc, scalar(op->getOperand(0)), cInt(b.getI64Type(), offset));
  return LLVM::LoadOp::create(b, loc, type, toPtr(b, loc, addr), /*alignment=*/4);
}

Value KernelLowering::emitScalarLoad(LoadOp op) {
  Type elem = op.getType(), mem = memElem(elem);
  unsigned bytes = bytesOf(mem);
  Value addr = scalar(op.getPtr());
  Value active = op.getMask() ? scalar(op.getMask()) : Value();
  if (check) active = checkScalar(*this, op, AccessKind::Load, addr, active, bytes);
  auto load = [&]() -> Value {
    Value v = LLVM::LoadOp::create(b, loc, mem, toPtr(b, loc, addr), bytes);
    if (mem != valueElem(elem)) v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, cInt(mem, 0));
    return v;
  };
  if (!active) return load();
  Value other = op.getOther() ? scalar(op.getOther())
                              : Value(arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(valueElem(elem)))));
  auto branch = scf::IfOp::create(b, loc, TypeRange{valueElem(elem)}, active, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, load());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, other);
  }
  return branch.getResult(0);
}

void KernelLowering::emitStore(StoreOp op) {
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  Type mem = memElem(elem);
  unsigned bytes = bytesOf(mem);
  auto toMem = [&](Value v) -> Value {
    if (mem == valueElem(elem)) return v;
    if (auto vt = dyn_cast<VectorType>(v.getType())) return arith::ExtUIOp::create(b, loc, VectorType::get(vt.getShape(), mem), v);
    return arith::ExtUIOp::create(b, loc, mem, v);
  };
  auto ptrType = tensorType(op.getPtr());
  if (!ptrType) {
    Value addr = scalar(op.getPtr());
    Value active = op.getMask() ? scalar(op.getMask()) : Value();
    if (check) active = checkScalar(*this, op, AccessKind::Store, addr, active, bytes);
    OpBuilder::InsertionGuard guard(b);
    if (active) {
      auto branch = scf::IfOp::create(b, loc, TypeRange{}, active, /*withElseRegion=*/false);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
    }
    LLVM::StoreOp::create(b, loc, toMem(scalar(op.getValue())), toPtr(b, loc, addr), bytes);
    return;
  }
  int64_t w = widthFor(ptrType.getShape().back());
  bool contiguous = hasAxisContiguity(op.getPtr(), w);
  forEachChunk(ptrType.getShape(), w, [&](ArrayRef<Value> idx) {
    Value addrs = chunk(op.getPtr(), idx, w);
    Value value = toMem(chunk(op.getValue(), idx, w));
    Value mask = op.getMask() ? chunk(op.getMask(), idx, w) : Value();
    if (check) mask = checkedMask(op, AccessKind::Store, addrs, mask, idx, w, bytes);
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

void KernelLowering::emitAtomic(AtomicAddOp op) {
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  Type mem = memElem(elem);
  unsigned bytes = bytesOf(mem);
  auto binOp = isa<FloatType>(elem) ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  // One element: returns the old value, or zero where the mask is off.
  auto one = [&](Value addr, Value value, Value active, ArrayRef<Value> idx) -> Value {
    if (check) active = checkScalar(*this, op, AccessKind::Atomic, addr, active, bytes, idx);
    auto rmw = [&]() -> Value {
      return LLVM::AtomicRMWOp::create(b, loc, binOp, toPtr(b, loc, addr), value, LLVM::AtomicOrdering::monotonic);
    };
    if (!active) return rmw();
    auto branch = scf::IfOp::create(b, loc, TypeRange{mem}, active, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, rmw());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, Value(arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(mem)))));
    b.setInsertionPointAfter(branch);
    return branch.getResult(0);
  };
  auto ptrType = tensorType(op.getPtr());
  if (!ptrType) {
    Value old = one(scalar(op.getPtr()), scalar(op.getValue()), op.getMask() ? scalar(op.getMask()) : Value(), {});
    scalars.map(op.getResult(), old);
    return;
  }
  bool keep = !op.getResult().use_empty();
  Value result = keep ? allocBuffer(tensorType(op.getResult())) : Value();
  // Element by element, in row-major order (the order atomics on one address happen in).
  forEachChunk(ptrType.getShape(), 1, [&](ArrayRef<Value> idx) {
    auto lane0 = [&](Value v) { return Value(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0})); };
    Value addr = lane0(chunk(op.getPtr(), idx, 1));
    Value value = lane0(chunk(op.getValue(), idx, 1));
    Value active = op.getMask() ? lane0(chunk(op.getMask(), idx, 1)) : Value();
    Value old = one(addr, value, active, idx);
    if (keep)
      storeChunk(result, elem, vector::BroadcastOp::create(b, loc, VectorType::get({1}, mem), old), idx);
  });
  if (keep) buffers[op.getResult()] = result;
}
