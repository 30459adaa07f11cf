//===- DiscardableAttrs.cpp - the attributes passes hand each other -------===//
// The `tile.*` attributes set on ops, functions and the module (Tile.h names and documents
// each): their accessors, and the dialect's verifyOperationAttribute, which checks every one
// where it is parsed or set, so a reader may trust its value.
#include "tile/Dialect/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The value of an i32 attribute `name` on `op`, or nullopt when absent.
std::optional<unsigned> i32Attr(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name)) return unsigned(a.getInt());
  return std::nullopt;
}

void setI32Attr(Operation *op, StringRef name, unsigned value) {
  op->setAttr(name, IntegerAttr::get(IntegerType::get(op->getContext(), 32), value));
}

unsigned tmaElementBytes(TmaElementType type) {
  switch (type) {
  case TmaElementType::U8: return 1;
  case TmaElementType::F16:
  case TmaElementType::BF16: return 2;
  case TmaElementType::I32:
  case TmaElementType::F32:
  case TmaElementType::TF32: return 4;
  }
  llvm_unreachable("unknown TMA element type");
}

/// Checks a module's kTmaMapsAttr: an array of #tile.tma_map, one per argument.
LogicalResult verifyTmaMaps(Operation *op, NamedAttribute attr) {
  auto maps = dyn_cast<ArrayAttr>(attr.getValue());
  if (!isa<ModuleOp>(op) || !maps || !llvm::all_of(maps, [](Attribute a) { return isa<TmaMapAttr>(a); }))
    return op->emitError() << "'" << attr.getName().getValue() << "' is an array of #tile.tma_map on the module";
  if (maps.size() > kMaxTmaMaps)
    return op->emitError() << "'" << attr.getName().getValue() << "' holds at most " << kMaxTmaMaps << " maps, got "
                           << maps.size();
  llvm::SmallDenseSet<unsigned> args;
  for (auto map : maps.getAsRange<TmaMapAttr>())
    if (!args.insert(map.getArg()).second)
      return op->emitError() << "'" << attr.getName().getValue() << "' has two maps for argument " << map.getArg();
  return success();
}
} // namespace

std::optional<unsigned> mlir::tile::vectorWidth(Operation *op) { return i32Attr(op, kVecAttr); }
void mlir::tile::setVectorWidth(Operation *op, unsigned width) { setI32Attr(op, kVecAttr, width); }

std::optional<unsigned> mlir::tile::kernelNumWarps(Operation *func) { return i32Attr(func, kNumWarpsAttr); }
void mlir::tile::setKernelNumWarps(Operation *func, unsigned warps) { setI32Attr(func, kNumWarpsAttr, warps); }

std::optional<unsigned> mlir::tile::launchWarps(ModuleOp module) { return i32Attr(module, kLaunchWarpsAttr); }
void mlir::tile::setLaunchWarps(ModuleOp module, unsigned warps) { setI32Attr(module, kLaunchWarpsAttr, warps); }

SmallVector<TmaMapAttr> mlir::tile::tmaMaps(ModuleOp module) {
  SmallVector<TmaMapAttr> maps;
  if (auto a = module->getAttrOfType<ArrayAttr>(kTmaMapsAttr)) llvm::append_range(maps, a.getAsRange<TmaMapAttr>());
  return maps;
}

void mlir::tile::setTmaMaps(ModuleOp module, ArrayRef<TmaMapAttr> maps) {
  module->setAttr(kTmaMapsAttr, ArrayAttr::get(module.getContext(), SmallVector<Attribute>(maps.begin(), maps.end())));
}

unsigned TmaMapAttr::getElementBytes() const { return tmaElementBytes(getType()); }

LogicalResult TmaMapAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned /*arg*/, TmaElementType type,
                                 unsigned swizzle, ArrayRef<int32_t> box) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "a TMA map's swizzle is 0, 32, 64 or 128 bytes, got " << swizzle;
  // rt::TmaParam holds up to 4 box dimensions; the hardware moves at most 256 per dimension.
  if (box.empty() || box.size() > 4) return emitError() << "a TMA box has 1 to 4 dimensions, got " << box.size();
  for (int32_t extent : box)
    if (extent < 1 || extent > 256) return emitError() << "TMA box extents are 1 to 256, got " << extent;
  const unsigned bytes = tmaElementBytes(type);
  if (swizzle && unsigned(box.back()) * bytes > swizzle)
    return emitError() << "the innermost box extent (" << box.back() << " elements of " << bytes
                       << " bytes) spans more than the " << swizzle << "-byte swizzle";
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  // A function: func.func as traced, llvm.func after the lowering keeps the attributes.
  auto isFunc = [&] { return isa<FunctionOpInterface>(op); };
  // num_stages: on the kernel (tile-pipeline reads it there) or the module.
  auto isFuncOrModule = [&] { return isFunc() || isa<ModuleOp>(op); };
  auto intIn = [&](int64_t lo, int64_t hi, bool powerOfTwo) -> std::optional<int64_t> {
    auto v = dyn_cast<IntegerAttr>(attr.getValue());
    if (!v || v.getInt() < lo || v.getInt() > hi || (powerOfTwo && !llvm::isPowerOf2_64(uint64_t(v.getInt()))))
      return std::nullopt;
    return v.getInt();
  };
  StringRef name = attr.getName().getValue();
  if (name == kKernelAttr) {
    if (!isFunc()) return op->emitError() << "'" << name << "' marks a func.func";
    // Every pass walks a kernel's body; a declaration has none to compile.
    if (cast<FunctionOpInterface>(op).isExternal())
      return op->emitError() << "'" << name << "' marks a function with a body, not a declaration";
  } else if (name == kNumWarpsAttr) {
    if (!isFunc() || !intIn(1, 32, true))
      return op->emitError() << "'" << name << "' must be a power of two from 1 to 32 on a func.func, got "
                             << attr.getValue();
  } else if (name == kLaunchWarpsAttr) {
    // A warp-specialised kernel adds a producer warpgroup: not always a power of two.
    if (!isa<ModuleOp>(op) || !intIn(1, 32, false))
      return op->emitError() << "'" << name << "' must be 1 to 32 on the module, got " << attr.getValue();
  } else if (name == kVecAttr) {
    if (!isa<LoadOp, StoreOp, AtomicRMWOp, AsyncCopyOp>(op) || !intIn(1, kMaxVectorWidth, true))
      return op->emitError() << "'" << name << "' must be a power of two from 1 to " << kMaxVectorWidth
                             << " on a tile.load, tile.store, tile.atomic_rmw or tile.async_copy, got "
                             << attr.getValue();
  } else if (name == kTmaMapsAttr) {
    return verifyTmaMaps(op, attr);
  } else if (name == kWarpSpecializeAttr || name == kOverlapIterationsAttr || name == kNoTurnsAttr) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a unit attribute of an scf.for";
  } else if (name == kNumStagesAttr) {
    if (!isFuncOrModule() || !intIn(1, 8, false))
      return op->emitError() << "'" << name << "' must be 1..8 on a func.func, got " << attr.getValue();
  }
  return success();
}
