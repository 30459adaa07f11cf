//===- TmaRecord.cpp - the TMA maps a kernel's launch must encode ---------===//
#include "TmaRecord.h"

#include "tile/Layout/SharedLayouts.h"

#include "llvm/Support/Debug.h"

// The passes that record maps (tile-pipeline, tile-tma-stores) explain them under their own
// -debug-only names; this file's decisions under its own.
#define DEBUG_TYPE "tile-tma-record"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The map's element type; f32 that the copy rounds to tf32 (to nearest, on its way) where the
/// buffer feeds a tf32 wgmma, whose tensor cores would otherwise truncate.
TmaElementType tmaElementType(Type elem, bool roundTf32) {
  if (elem.isF32()) return roundTf32 ? TmaElementType::TF32 : TmaElementType::F32;
  if (elem.isF16()) return TmaElementType::F16;
  if (elem.isBF16()) return TmaElementType::BF16;
  return elem.getIntOrFloatBitWidth() == 8 ? TmaElementType::U8 : TmaElementType::I32;
}
} // namespace

SmallVector<int32_t, 2> mlir::tile::tmaBox(MemDescType buffer) {
  auto nvmma = cast<NvmmaSharedLayoutAttr>(buffer.getEncoding());
  const int64_t elemBytes = buffer.getElementType().getIntOrFloatBitWidth() / 8;
  return {int32_t(std::min<int64_t>(buffer.getShape()[0], ::tile::layout::kMaxTmaBoxRows)),
          int32_t(nvmma.getSwizzle() / elemBytes)};
}

bool mlir::tile::recordTma(ModuleOp module, BlockArgument arg, MemDescType buffer, bool roundTf32) {
  auto map =
      TmaMapAttr::get(module.getContext(), arg.getArgNumber(), tmaElementType(buffer.getElementType(), roundTf32),
                      cast<NvmmaSharedLayoutAttr>(buffer.getEncoding()).getSwizzle(), tmaBox(buffer));
  SmallVector<TmaMapAttr> maps = tmaMaps(module);
  for (TmaMapAttr have : maps)
    if (have.getArg() == map.getArg()) {
      LLVM_DEBUG(llvm::dbgs() << "argument " << map.getArg() << " already has TMA map " << have
                              << (have == map ? "\n" : ", not the wanted one: the caller keeps its loads or stores\n"));
      return have == map;
    }
  if (maps.size() == kMaxTmaMaps) {
    LLVM_DEBUG(llvm::dbgs() << "TMA map " << map << ": the launch has " << kMaxTmaMaps << " already\n");
    return false;
  }
  LLVM_DEBUG(llvm::dbgs() << "recorded TMA map " << map << "\n");
  maps.push_back(map);
  setTmaMaps(module, maps);
  return true;
}
