//===- TmaRecord.cpp - the TMA maps a kernel's launch must encode ---------===//
#include "TmaRecord.h"

#include "tile/Layout/SharedLayouts.h"
#include "tile/runtime/CompiledKernel.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The map's element type; f32 that the copy rounds to tf32 (to nearest, on its way) where the
/// buffer feeds a tf32 wgmma, whose tensor cores would otherwise truncate.
::tile::rt::TensorMapType tensorMapType(Type elem, bool roundTf32) {
  using ::tile::rt::TensorMapType;
  if (elem.isF32()) return roundTf32 ? TensorMapType::TF32 : TensorMapType::F32;
  if (elem.isF16()) return TensorMapType::F16;
  if (elem.isBF16()) return TensorMapType::BF16;
  return elem.getIntOrFloatBitWidth() == 8 ? TensorMapType::U8 : TensorMapType::I32;
}
} // namespace

SmallVector<int32_t, 2> mlir::tile::tmaBox(MemDescType buffer) {
  auto nvmma = cast<NvmmaSharedLayoutAttr>(buffer.getEncoding());
  const int64_t elemBytes = buffer.getElementType().getIntOrFloatBitWidth() / 8;
  return {int32_t(std::min<int64_t>(buffer.getShape()[0], ::tile::layout::kMaxTmaBoxRows)),
          int32_t(nvmma.getSwizzle() / elemBytes)};
}

bool mlir::tile::recordTma(ModuleOp module, BlockArgument arg, MemDescType buffer, bool roundTf32) {
  SmallVector<int32_t, 2> box = tmaBox(buffer);
  SmallVector<int32_t> entry{int32_t(arg.getArgNumber()), int32_t(tensorMapType(buffer.getElementType(), roundTf32)),
                             int32_t(cast<NvmmaSharedLayoutAttr>(buffer.getEncoding()).getSwizzle()), 2, box[0],
                             box[1]};
  SmallVector<Attribute> params;
  if (auto old = module->getAttrOfType<ArrayAttr>(kTmaParamsAttr)) params.assign(old.begin(), old.end());
  for (Attribute a : params) {
    auto have = cast<DenseI32ArrayAttr>(a).asArrayRef();
    if (have[0] == entry[0]) return have == ArrayRef<int32_t>(entry);
  }
  if (params.size() == size_t(::tile::rt::kMaxTmaParams)) return false;
  params.push_back(DenseI32ArrayAttr::get(module.getContext(), entry));
  module->setAttr(kTmaParamsAttr, ArrayAttr::get(module.getContext(), params));
  return true;
}
