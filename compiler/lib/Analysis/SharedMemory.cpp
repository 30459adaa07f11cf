//===- SharedMemory.cpp - shared memory a value or an op occupies ---------===//
#include "tile/Analysis/SharedMemory.h"
#include "tile/Analysis/LayoutConversion.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::tile;

unsigned mlir::tile::sharedBytesOf(Type elemType) {
  if (isa<LLVM::LLVMPointerType>(elemType)) return 8;
  return std::max<unsigned>(1, elemType.getIntOrFloatBitWidth() / 8);
}

ReducePlan mlir::tile::planReduce(const ::tile::layout::LinearLayout &ll, unsigned axis) {
  ReducePlan plan;
  int32_t freeRegisterBits = 0, freeLaneBits = 0, freeWarpBits = 0;
  for (const auto &[name, mask] : ll.getFreeVariableMasks()) {
    if (name == "register") freeRegisterBits = mask;
    else if (name == "lane") freeLaneBits = mask;
    else if (name == "warp") freeWarpBits = mask;
  }
  for (const char *name : {"register", "lane", "warp"}) {
    int32_t free = name == StringRef("register") ? freeRegisterBits
                   : name == StringRef("lane")   ? freeLaneBits
                                                 : freeWarpBits;
    for (int bit = 0; bit < ll.getInDimSizeLog2(name); ++bit) {
      const auto &basis = ll.getBasis(name, bit);
      bool onAxis = basis[axis] != 0, offAxis = false;
      for (unsigned d = 0; d < basis.size(); ++d) offAxis |= d != axis && basis[d] != 0;
      if (onAxis && offAxis) {
        plan.unsupported = std::string(name) + " bit " + std::to_string(bit) +
                           " moves along the reduced axis and another dimension at once";
        return plan;
      }
      if ((free >> bit) & 1) {
        if (name != StringRef("register") && (onAxis || offAxis)) {
          plan.unsupported = std::string(name) + " bit " + std::to_string(bit) +
                             " repeats elements other bits already reach (only zero-basis copies are supported)";
          return plan;
        }
        continue;
      }
      if (onAxis && name == StringRef("lane")) plan.laneBits.push_back(bit);
      if (onAxis && name == StringRef("warp")) plan.warpBits.push_back(bit);
    }
  }
  return plan;
}

ReduceScratch mlir::tile::reduceScratch(ReduceOp op) {
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  if (!srcType.getEncoding()) return {};
  ReducePlan plan = planReduce(toLinearLayout(srcType), op.getAxis());
  if (!plan.unsupported.empty() || plan.warpBits.empty()) return {};
  auto resType = dyn_cast<RankedTensorType>(op.getType());
  unsigned slots = (resType ? resType.getNumElements() : 1) * plan.warpsAlongAxis();
  unsigned values = slots * sharedBytesOf(srcType.getElementType());
  const bool withIndex = op.getKind() == ReduceKind::ArgMax || op.getKind() == ReduceKind::ArgMin;
  if (!withIndex) return {values, values};
  unsigned indexOffset = (values + 3) / 4 * 4;
  return {indexOffset, indexOffset + slots * 4};
}

namespace {
/// Bytes of one element of a tensor of `t` exchanged through scratch (a pointer: 8).
unsigned scratchElementBytes(Type t) {
  Type elem = getElementTypeOrSelf(t);
  if (isa<PtrType>(elem)) return 8;
  return std::max<unsigned>(1, elem.getIntOrFloatBitWidth() / 8);
}
} // namespace

unsigned mlir::tile::scratchBytes(Operation *op) {
  // A conversion that stays in registers or within warps (LayoutConversion.h) touches no
  // shared memory: it gets no scratch and tile-insert-barriers sees no access.
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    if (classifyLayoutConversion(convert) != LayoutConversionKind::SharedMemory) return 0;
  if (isa<ConvertLayoutOp, ReshapeOp>(op)) {
    auto src = cast<RankedTensorType>(op->getOperand(0).getType());
    return src.getNumElements() * scratchElementBytes(src);
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) return reduceScratch(reduce).bytes;
  // A scalar atomic runs on one thread; where its old value is used, every thread reads it
  // back from here.
  if (isa<AtomicRMWOp, AtomicCASOp>(op) && !isa<RankedTensorType>(op->getResult(0).getType()) &&
      !op->getResult(0).use_empty())
    return scratchElementBytes(op->getResult(0).getType());
  return 0;
}
