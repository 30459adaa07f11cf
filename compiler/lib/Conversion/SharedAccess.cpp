//===- SharedAccess.cpp - where registers live in shared memory ------------===//
#include "SharedAccess.h"

#include "tile/Layout/SharedLayouts.h"

using namespace mlir;
using namespace mlir::tile;
namespace ll = ::tile::layout;

ll::LinearLayout mlir::tile::sharedTileLayout(MemDescType type) {
  ArrayRef<int64_t> tile = type.getTileShape();
  if (auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(type.getEncoding()))
    return ll::nvmmaShared(tile[0], tile[1], int(sharedBytesOf(type.getElementType())), int(nvmma.getSwizzle()),
                           nvmma.getTransposed());
  auto enc = cast<SwizzledSharedLayoutAttr>(type.getEncoding());
  return ll::swizzledShared(tile[0], tile[1], enc.getVec(), enc.getPerPhase(), enc.getMaxPhase(),
                            int(enc.getOrder()[0]));
}

ll::LinearLayout mlir::tile::widenToBuffer(const ll::LinearLayout &l, MemDescType type) {
  ArrayRef<int64_t> tile = type.getTileShape();
  return ll::LinearLayout(l.getBases(), {{"dim0", int32_t(tile[0])}, {"dim1", int32_t(tile[1])}});
}

ll::LinearLayout mlir::tile::registerOffsets(const ThreadLayout &regs, MemDescType type) {
  return ll::registersToOffsets(widenToBuffer(regs.linear, type), sharedTileLayout(type));
}

int32_t mlir::tile::windowOffset(MemDescType type, ArrayRef<int64_t> offsets) {
  if (offsets.empty()) return 0;
  ll::LinearLayout inverse = sharedTileLayout(type).invert();
  return inverse.apply({{"dim0", int32_t(offsets[0])}, {"dim1", int32_t(offsets[1])}})[0].second;
}

ll::LinearLayout mlir::tile::rowMajorOffsets(const ThreadLayout &regs) { return regs.linear.flattenOuts(); }

OffsetIndexer::OffsetIndexer(OpBuilder &b, Location loc, ll::LinearLayout offsets, const ThreadPosition &pos,
                             int32_t xorConstant)
    : offsets(std::move(offsets)), xorConstant(xorConstant),
      base(emitThreadPart(b, loc, this->offsets, pos.lane, pos.warp, 0, &threadBits)) {}

Value OffsetIndexer::index(OpBuilder &b, Location loc, unsigned r) const {
  IntBuilder ib{b, loc};
  int32_t own = registerPart(offsets, r, 0) ^ xorConstant;
  if (!own) return base;
  // Where the bits cannot overlap the constant is added, so it folds into the
  // instruction's immediate offset; under a swizzle they may, so those bits are XORed and
  // the rest added: registers whose constants differ only outside the thread's bits share
  // one XOR (a swizzled accumulator tile's 16 stores need 4 addresses, not 16, and LLVM
  // hoists each out of the loop into a register of its own).
  const int32_t overlap = own & threadBits, rest = own & ~threadBits;
  Value index = overlap ? Value(arith::XOrIOp::create(b, loc, base, ib.c(overlap))) : base;
  return rest ? ib.add(index, ib.c(rest)) : index;
}

unsigned mlir::tile::offsetVectorWidth(const ll::LinearLayout &offsets, Type elem) {
  if (!elem.isIntOrFloat()) return 1;
  const int regBits = offsets.getInDimSizeLog2("register");
  const unsigned maxWidth = std::max(1u, 16 / sharedBytesOf(elem));
  unsigned bits = 0;
  while ((2u << bits) <= maxWidth && int(bits) < regBits && offsets.getBasis("register", bits)[0] == (1 << bits))
    ++bits;
  const int32_t lowMask = (1 << bits) - 1;
  for (const auto &[name, list] : offsets.getBases())
    for (size_t i = 0; i < list.size(); ++i)
      if (!(name == "register" && i < bits) && (list[i][0] & lowMask)) return 1;
  return 1u << bits;
}

void mlir::tile::storeRegisters(OpBuilder &b, Location loc, Value base, const ThreadLayout &layout,
                                const ll::LinearLayout &offsets, ValueRange regs, Type elem) {
  Type storage = sharedStorageType(elem);
  const unsigned bytes = sharedBytesOf(elem);
  auto c32 = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v); };
  const ThreadPosition pos = emitThreadPosition(b, loc, layout);
  OffsetIndexer index(b, loc, offsets, pos);
  const unsigned vs = offsetVectorWidth(offsets, elem);
  // Copies of an element (replica registers; lanes or warps whose bits are free variables
  // of the layout) are not stored: only the owner writes, so no two threads write one
  // address unordered -- harmless to the hardware with equal values, but a data race to
  // the memory model and to compute-sanitizer's racecheck.
  OpBuilder::InsertionGuard guard(b);
  enterOwnerThreads(b, loc, layout, pos);
  for (unsigned r = 0; r < layout.numRegs(); r += vs) {
    // A vector's registers differ only in bits that address memory: all copies or none.
    if (layout.isRegisterReplica(r)) continue;
    Value ptr = sharedElementPtr(b, loc, base, elem, index.index(b, loc, r));
    if (vs == 1) {
      LLVM::StoreOp::create(b, loc, toShared(b, loc, regs[r]), ptr);
      continue;
    }
    Value v = LLVM::UndefOp::create(b, loc, VectorType::get({vs}, storage));
    for (unsigned i = 0; i < vs; ++i)
      v = LLVM::InsertElementOp::create(b, loc, v, toShared(b, loc, regs[r + i]), c32(i));
    LLVM::StoreOp::create(b, loc, v, ptr, vs * bytes);
  }
}

SmallVector<Value> mlir::tile::loadRegisters(OpBuilder &b, Location loc, Value base, const ThreadLayout &layout,
                                             const ll::LinearLayout &offsets, Type elem, int32_t xorConstant) {
  Type storage = sharedStorageType(elem);
  const unsigned bytes = sharedBytesOf(elem);
  auto c32 = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v); };
  OffsetIndexer index(b, loc, offsets, emitThreadPosition(b, loc, layout), xorConstant);
  const unsigned vd = offsetVectorWidth(offsets, elem);
  SmallVector<Value> regs;
  for (unsigned r = 0; r < layout.numRegs(); r += vd) {
    Value ptr = sharedElementPtr(b, loc, base, elem, index.index(b, loc, r));
    if (vd == 1) {
      regs.push_back(fromShared(b, loc, LLVM::LoadOp::create(b, loc, storage, ptr), elem));
      continue;
    }
    Value v = LLVM::LoadOp::create(b, loc, VectorType::get({vd}, storage), ptr, vd * bytes);
    for (unsigned i = 0; i < vd; ++i)
      regs.push_back(fromShared(b, loc, LLVM::ExtractElementOp::create(b, loc, v, c32(i)), elem));
  }
  return regs;
}
