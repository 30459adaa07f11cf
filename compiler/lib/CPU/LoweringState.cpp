//===- LoweringState.cpp - builder, buffers and chunk loops of one kernel -===//
#include "LoweringState.h"

#include "tile/PassFailure.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

LoweringState::LoweringState(func::FuncOp kernel, int64_t chunkMax, bool check)
    : b(kernel.getContext()), currentLoc(kernel.getLoc()), allocB(kernel.getContext()), chunkMax(chunkMax),
      check(check), axis(kernel.getOperation()) {}

Type LoweringState::valueElem(Type elem) {
  // Pointers, and descriptors (the address of their tile::TensorDescParam), are addresses.
  if (isa<PtrType, TensorDescType>(elem)) return b.getI64Type();
  return elem;
}

Type LoweringState::memElem(Type elem) {
  elem = valueElem(elem);
  // A vector<Nxi1> in memory is bit-packed by LLVM; scalar i1s are bytes. Bytes everywhere.
  if (elem.isInteger(1)) return b.getI8Type();
  return elem;
}

VectorType LoweringState::vecOf(Type tensorOrElem, int64_t w) {
  return VectorType::get({w}, valueElem(getElementTypeOrSelf(tensorOrElem)));
}

Value LoweringState::cIndex(int64_t v) { return arith::ConstantIndexOp::create(b, currentLoc, v); }

Value LoweringState::cInt(Type t, int64_t v) {
  return arith::ConstantOp::create(b, currentLoc, b.getIntegerAttr(t, v));
}

int64_t LoweringState::pow2WidthFor(int64_t n) const {
  int64_t w = 1;
  while (w * 2 <= chunkMax && n % (w * 2) == 0) w *= 2;
  return w;
}

int64_t LoweringState::widthFor(int64_t n) const { return n <= chunkMax ? n : pow2WidthFor(n); }

Value LoweringState::allocBuffer(RankedTensorType t) {
  Type elem = memElem(t.getElementType());
  stackBytesTotal += t.getNumElements() * std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  // 64-byte alignment: whole cache lines, and aligned vector loads of every chunk width.
  return memref::AllocaOp::create(allocB, currentLoc, MemRefType::get(t.getShape(), elem),
                                  allocB.getI64IntegerAttr(64));
}

Value LoweringState::loadChunk(Value buffer, Type elem, ArrayRef<Value> idx, int64_t w) {
  Type mem = memElem(elem);
  Value v = vector::LoadOp::create(b, currentLoc, VectorType::get({w}, mem), buffer, idx);
  if (mem != valueElem(elem)) // bytes back to i1
    v = arith::CmpIOp::create(
        b, currentLoc, arith::CmpIPredicate::ne, v,
        arith::ConstantOp::create(b, currentLoc,
                                  DenseElementsAttr::get(cast<ShapedType>(v.getType()), b.getIntegerAttr(mem, 0))));
  return v;
}

void LoweringState::storeChunk(Value buffer, Type elem, Value chunkValue, ArrayRef<Value> idx) {
  Type mem = memElem(elem);
  if (mem != valueElem(elem))
    chunkValue = arith::ExtUIOp::create(
        b, currentLoc, VectorType::get(cast<VectorType>(chunkValue.getType()).getShape(), mem), chunkValue);
  vector::StoreOp::create(b, currentLoc, chunkValue, buffer, idx);
}

void LoweringState::forEachChunk(ArrayRef<int64_t> shape, int64_t w, function_ref<void(ArrayRef<Value>)> body) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t step = d + 1 == shape.size() ? w : 1;
    if (shape[d] == step) {
      idx.push_back(cIndex(0));
      continue;
    }
    auto loop = scf::ForOp::create(b, currentLoc, cIndex(0), cIndex(shape[d]), cIndex(step));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    idx.push_back(loop.getInductionVar());
  }
  body(idx);
}

Value LoweringState::viewAs(Value buffer, ArrayRef<int64_t> shape) {
  if (auto view = buffer.getDefiningOp<memref::ReinterpretCastOp>()) buffer = view.getSource(); // views of views
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getShape() == shape) return buffer;
  // A reinterpret_cast, not collapse/expand_shape: those need expand-strided-metadata
  // before the LLVM conversion; this lowers directly and keeps the identity layout.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return memref::ReinterpretCastOp::create(b, currentLoc, MemRefType::get(shape, type.getElementType()), buffer, 0,
                                           shape, strides);
}

Value LoweringState::unsupported(Operation *op, Type type) {
  // A feature gap, not a bug: the user gets UnsupportedError at the op's line.
  ::tile::compiler::emitUnsupported(op, "'" + op->getName().getStringRef() + "' is not supported by the CPU executor");
  failed = true;
  return type ? Value(arith::ConstantOp::create(b, currentLoc, cast<TypedAttr>(b.getZeroAttr(type)))) : Value();
}

Value LoweringState::scalar(Value v) {
  if (Value m = scalars.lookupOrNull(v)) return m;
  mlir::emitError(v.getLoc()) << "tile-lower-to-cpu: no lowered value for " << v;
  failed = true;
  return arith::ConstantOp::create(b, currentLoc, b.getZeroAttr(valueElem(v.getType())));
}

bool LoweringState::hasAxisContiguity(Value ptr, int64_t w) {
  if (w == 1) return true;
  const AxisInfo &info = axis.get(ptr);
  return info.contiguity.back() % w == 0;
}

/// "file:line:col" of the first file location inside `loc`.
static std::string describe(Location loc) {
  if (auto flc = loc->findInstanceOf<FileLineColLoc>())
    return (flc.getFilename().getValue() + ":" + llvm::Twine(flc.getLine()) + ":" + llvm::Twine(flc.getColumn())).str();
  return "<unknown location>";
}

int32_t LoweringState::siteOf(Operation *op) {
  auto [it, inserted] = siteIds.try_emplace(op, static_cast<int32_t>(siteNames.size()));
  // "file:line:col\top": CheckRuntime.cpp puts the location first in its message.
  if (inserted) siteNames.push_back(describe(op->getLoc()) + "\t" + op->getName().getStringRef().str());
  return it->second;
}
