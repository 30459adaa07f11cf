//===- TileDialect.cpp - dialect registration, types and attributes -------===//
#include "tile/Dialect/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/TileDialect.cpp.inc"
#include "tile/Dialect/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.cpp.inc"

namespace {
/// Prints layouts as `#blocked`, `#blocked1`, `#slice`, ... aliases: tensor types stay readable.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceLayoutAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    if (isa<MmaLayoutAttr>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    if (isa<DotOperandLayoutAttr>(attr)) {
      os << "dot_op";
      return AliasResult::FinalAlias;
    }
    if (isa<LinearLayoutAttr>(attr)) {
      os << "linear";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/TileOps.cpp.inc"
      >();
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError, Type pointee) {
  if (!pointee.isIntOrFloat()) return emitError() << "pointee must be a scalar integer or float type, got " << pointee;
  return success();
}

LogicalResult TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError, Type elem, unsigned rank) {
  if (!elem.isIntOrFloat()) return emitError() << "descriptor elements must be integers or floats, got " << elem;
  if (rank < 1 || rank > 4) return emitError() << "a tensor descriptor has 1 to 4 dimensions, got " << rank;
  return success();
}

static bool isPowerOf2(unsigned v) { return v && !(v & (v - 1)); }

LogicalResult MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> warpsPerCTA) {
  if (warpsPerCTA.size() != 2) return emitError() << "mma layout needs two warp counts (M, N)";
  if (!isPowerOf2(warpsPerCTA[0]) || !isPowerOf2(warpsPerCTA[1]))
    return emitError() << "mma warp counts must be powers of two";
  if (uint64_t(warpsPerCTA[0]) * warpsPerCTA[1] > 32) return emitError() << "at most 32 warps";
  return success();
}

LogicalResult BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> sizePerThread,
                                        ArrayRef<unsigned> threadsPerWarp, ArrayRef<unsigned> warpsPerCTA,
                                        ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0 || threadsPerWarp.size() != rank || warpsPerCTA.size() != rank || order.size() != rank)
    return emitError() << "blocked layout needs equal, non-zero ranks for all fields";
  // Products that saturate: 32-bit ones wrap (65536 x 65536 warps would multiply to 0).
  constexpr uint64_t kCap = uint64_t(1) << 31;
  uint64_t lanes = 1, registers = 1, warps = 1;
  for (unsigned t : threadsPerWarp) lanes = std::min(lanes * t, kCap);
  if (lanes != 32) return emitError() << "threadsPerWarp must multiply to 32, got " << lanes;
  for (size_t d = 0; d < rank; ++d) {
    if (!isPowerOf2(sizePerThread[d]) || !isPowerOf2(warpsPerCTA[d]))
      return emitError() << "sizePerThread and warpsPerCTA must be powers of two";
    registers = std::min(registers * sizePerThread[d], kCap);
    warps = std::min(warps * warpsPerCTA[d], kCap);
  }
  // What a linear layout holds (as #tile.linear's bases), and the most warps a kernel has.
  if (registers > (uint64_t(1) << 30) || warps > 32) return emitError() << "at most 2^30 registers and 32 warps";
  SmallVector<bool> seen(rank, false);
  for (unsigned o : order) {
    if (o >= rank || seen[o]) return emitError() << "order must be a permutation of the dimensions";
    seen[o] = true;
  }
  return success();
}

LogicalResult SwizzledSharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned vec,
                                               unsigned perPhase, unsigned maxPhase, ArrayRef<unsigned> order) {
  if (!isPowerOf2(vec) || !isPowerOf2(perPhase) || !isPowerOf2(maxPhase))
    return emitError() << "vec, perPhase and maxPhase must be powers of two";
  if (order.size() != 2 || order[0] + order[1] != 1 || order[0] > 1)
    return emitError() << "only 2-D shared layouts, row-major (order = [1, 0]) or column-major (order = [0, 1]), "
                          "are supported";
  return success();
}

LogicalResult NvmmaSharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned swizzle,
                                            bool /*transposed*/) {
  if (swizzle != 32 && swizzle != 64 && swizzle != 128) return emitError() << "swizzle must be 32, 64 or 128 bytes";
  return success();
}

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elem;
  Attribute encoding;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elem) || parser.parseComma() || parser.parseAttribute(encoding) || parser.parseGreater())
    return {};
  return parser.getChecked<MemDescType>(parser.getContext(), shape, elem, encoding);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape()) printer << d << "x";
  printer << getElementType() << ", " << getEncoding() << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape, Type elem,
                                  Attribute encoding) {
  if (shape.size() < 2 || shape.size() > 3)
    return emitError() << "a shared-memory buffer is 2-D, or 3-D with a leading stage dimension";
  // The tile's dimensions are powers of two (its layout is linear); a ring may hold any
  // number of stages.
  if (shape.size() == 3 && shape[0] <= 0) return emitError() << "a ring needs at least one buffer";
  for (int64_t d : shape.take_back(2))
    if (d <= 0 || (d & (d - 1))) return emitError() << "buffer dimensions must be powers of two";
  if (!elem.isIntOrFloat()) return emitError() << "buffer elements must be integers or floats, got " << elem;
  if (auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(encoding)) {
    // Whole swizzle rows per column group, whole 8-row swizzle atoms, along the stored
    // order (a transposed tile's rows run along dimension 0).
    int64_t contiguous = shape.back(), strided = shape[shape.size() - 2];
    if (nvmma.getTransposed()) std::swap(contiguous, strided);
    const int64_t rowBytes = contiguous * int64_t(elem.getIntOrFloatBitWidth() / 8);
    if (rowBytes % nvmma.getSwizzle() || strided % 8)
      return emitError() << "an nvmma_shared tile needs rows of a multiple of " << nvmma.getSwizzle()
                         << " bytes and a multiple of 8 rows" << (nvmma.getTransposed() ? " (along dimension 0)" : "");
    return success();
  }
  auto swizzled = dyn_cast<SwizzledSharedLayoutAttr>(encoding);
  if (!swizzled) return emitError() << "expected a shared layout, got " << encoding;
  // The swizzle XORs whole vectors within a row: maxPhase of them must fit in it.
  const int64_t row = swizzled.getOrder()[0] == 1 ? shape.back() : shape[shape.size() - 2];
  const int64_t swizzleWidth = int64_t(swizzled.getVec()) * swizzled.getMaxPhase();
  if (swizzleWidth > row)
    return emitError() << "a swizzled_shared tile needs vec * maxPhase (" << swizzleWidth
                       << ") within its contiguous row of " << row << " elements";
  return success();
}

int64_t MemDescType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape()) n *= d;
  return n;
}
