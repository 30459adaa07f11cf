//===- LayoutAttrs.cpp - distributed layouts as linear layouts -------------===//
// Every distributed layout attribute answers toLinearLayout (TileInterfaces.td): the
// one map from (register, lane, warp) to tensor coordinates that the lowering uses.
// Here each attribute's parameters become that map, and tensor types check that they
// fit their layout (verifyEncoding).
#include "tile/Dialect/Tile.h"
#include "tile/Layout/MmaLayouts.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tile;
namespace ll = ::tile::layout;

#include "tile/Dialect/TileAttrInterfaces.cpp.inc"

namespace {

bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::vector<int64_t> toVector(ArrayRef<int64_t> a) { return {a.begin(), a.end()}; }
std::vector<unsigned> toVector(ArrayRef<unsigned> a) { return {a.begin(), a.end()}; }

/// What every distributed layout needs of a tensor: its rank, and power-of-two extents
/// (a linear layout's coordinates are bit vectors).
LogicalResult verifyFits(DistributedLayoutInterface layout, ArrayRef<int64_t> shape,
                         function_ref<InFlightDiagnostic()> emitError) {
  if (shape.size() != layout.getRank())
    return emitError() << "layout " << Attribute(layout) << " is for tensors of rank " << layout.getRank() << ", not "
                       << shape.size();
  for (int64_t d : shape)
    if (!isPowerOf2(d) || d > (int64_t(1) << 30))
      return emitError() << "a tensor with a distributed layout needs power-of-two dimensions, got " << d;
  return success();
}

/// An mma.sync fragment layout built for `shape` grown to the warps' coverage `cover`,
/// then wrapped back into `shape`: as a blocked layout larger than its tensor, the
/// threads past a dimension hold replicas. (tile-accelerate-matmul only chooses the mma
/// layouts for covered shapes; smaller ones arise as slice parents, extent 1.)
template <typename Build>
ll::LinearLayout coverThenWrap(ArrayRef<int64_t> shape, std::array<int64_t, 2> cover, Build build) {
  int64_t rows = std::max(shape[0], cover[0]), cols = std::max(shape[1], cover[1]);
  ll::LinearLayout full = build(rows, cols);
  if (rows == shape[0] && cols == shape[1]) return full;
  return ll::wrapOuts(full, {int32_t(shape[0]), int32_t(shape[1])});
}

} // namespace

ll::LinearLayout mlir::tile::toLinearLayout(RankedTensorType type) {
  return cast<DistributedLayoutInterface>(type.getEncoding()).toLinearLayout(type.getShape(), type.getElementType());
}

// --- #tile.blocked ------------------------------------------------------------------

ll::LinearLayout BlockedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape, Type) const {
  return ll::LinearLayout::blocked(toVector(getSizePerThread()), toVector(getThreadsPerWarp()),
                                   toVector(getWarpsPerCTA()), toVector(getOrder()), toVector(shape));
}

unsigned BlockedLayoutAttr::getRank() const { return getSizePerThread().size(); }

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA()) n *= w;
  return n;
}

LogicalResult BlockedLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                function_ref<InFlightDiagnostic()> emitError) const {
  return verifyFits(*this, shape, emitError);
}

// --- #tile.slice --------------------------------------------------------------------

LogicalResult SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned dim,
                                      DistributedLayoutInterface parent) {
  if (!parent) return emitError() << "a slice's parent must be a distributed layout";
  if (dim >= parent.getRank())
    return emitError() << "slice dimension " << dim << " is out of the parent's rank " << parent.getRank();
  return success();
}

ll::LinearLayout SliceLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape, Type elementType) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  return ll::sliceLayout(getParent().toLinearLayout(parentShape, elementType), getDim());
}

unsigned SliceLayoutAttr::getRank() const { return getParent().getRank() - 1; }

unsigned SliceLayoutAttr::getNumWarps() const { return getParent().getNumWarps(); }

LogicalResult SliceLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                                              function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyFits(*this, shape, emitError))) return failure();
  // The parent sees the tensor with extent 1 along the sliced dimension. A #tile.linear
  // parent's bases along it wrap away; what matters is that the slice holds every element.
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  if (!isa<LinearLayoutAttr>(getParent())) {
    if (auto parent = dyn_cast<VerifiableTensorEncoding>(Attribute(getParent())))
      if (failed(parent.verifyEncoding(parentShape, elementType, emitError))) return failure();
  } else {
    auto linear = cast<LinearLayoutAttr>(getParent());
    for (StringRef inDim : {"register", "lane", "warp"})
      for (const auto &basis : linear.getBasesOf(inDim))
        for (unsigned d = 0; d < shape.size(); ++d)
          if (basis[d < getDim() ? d : d + 1] >= shape[d])
            return emitError() << "the parent's " << inDim << " bases reach outside the slice's extent " << shape[d]
                               << " in dimension " << d;
  }
  ll::LinearLayout layout = toLinearLayout(shape, elementType);
  if (!layout.isSurjective())
    return emitError() << "the slice holds " << (int64_t(1) << layout.getMatrixRank()) << " of the tensor's "
                       << layout.getTotalOutDimSize() << " elements; every element needs a holder";
  return success();
}

// --- #tile.mma ----------------------------------------------------------------------

ll::LinearLayout MmaLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape, Type) const {
  int wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  return coverThenWrap(shape, {16 * wm, 8 * wn},
                       [&](int64_t m, int64_t n) { return ll::mmaV2Accumulator(wm, wn, m, n); });
}

unsigned MmaLayoutAttr::getRank() const { return 2; }

unsigned MmaLayoutAttr::getNumWarps() const { return getWarpsPerCTA()[0] * getWarpsPerCTA()[1]; }

LogicalResult MmaLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                            function_ref<InFlightDiagnostic()> emitError) const {
  return verifyFits(*this, shape, emitError);
}

// --- #tile.dot_operand --------------------------------------------------------------

ll::LinearLayout DotOperandLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape, Type elementType) const {
  int wm = getParent().getWarpsPerCTA()[0], wn = getParent().getWarpsPerCTA()[1];
  int bits = int(elementType.getIntOrFloatBitWidth());
  int64_t instrK = bits == 16 ? 16 : 8; // m16n8k16 for 16-bit elements, m16n8k8 for tf32
  std::array<int64_t, 2> cover =
      getOpIdx() == 0 ? std::array<int64_t, 2>{16 * wm, instrK} : std::array<int64_t, 2>{instrK, 8 * wn};
  return coverThenWrap(shape, cover, [&](int64_t rows, int64_t cols) {
    return ll::mmaV2Operand(int(getOpIdx()), wm, wn, rows, cols, bits);
  });
}

unsigned DotOperandLayoutAttr::getRank() const { return 2; }

unsigned DotOperandLayoutAttr::getNumWarps() const { return getParent().getNumWarps(); }

LogicalResult DotOperandLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                                                   function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyFits(*this, shape, emitError))) return failure();
  if (getOpIdx() > 1) return emitError() << "dot operand index must be 0 (a) or 1 (b), got " << getOpIdx();
  // A null element type: the parser is recovering from a malformed one (`tensor<16x8x, ...>`, found
  // by fuzz_ir_pipeline) and still asks; it has reported that error already.
  if (!elementType) return failure();
  if (!elementType.isIntOrFloat() ||
      (elementType.getIntOrFloatBitWidth() != 16 && elementType.getIntOrFloatBitWidth() != 32))
    return emitError() << "mma.sync operands are 16-bit or 32-bit (tf32) elements, got " << elementType;
  return success();
}

// --- #tile.linear -------------------------------------------------------------------

LogicalResult LinearLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned rank,
                                       ArrayRef<int32_t> registerBases, ArrayRef<int32_t> laneBases,
                                       ArrayRef<int32_t> warpBases) {
  if (rank == 0) return emitError() << "a linear layout's bases need at least one coordinate";
  for (ArrayRef<int32_t> list : {registerBases, laneBases, warpBases})
    if (list.size() % rank) return emitError() << "every basis needs " << rank << " coordinates";
  if (laneBases.size() != 5 * rank)
    return emitError() << "a linear layout needs 5 lane bases (32 lanes), got " << laneBases.size() / rank;
  if (registerBases.size() / rank > 30 || warpBases.size() / rank > 5)
    return emitError() << "at most 2^30 registers and 32 warps";
  for (ArrayRef<int32_t> list : {registerBases, laneBases, warpBases})
    for (int32_t c : list)
      if (c < 0 || c >= (int32_t(1) << 30)) return emitError() << "basis coordinates must lie in [0, 2^30), got " << c;
  return success();
}

std::vector<std::vector<int32_t>> LinearLayoutAttr::getBasesOf(StringRef inDim) const {
  ArrayRef<int32_t> flat = inDim == "register" ? getRegisterBases() : inDim == "lane" ? getLaneBases() : getWarpBases();
  std::vector<std::vector<int32_t>> bases;
  for (size_t i = 0; i < flat.size(); i += getRank())
    bases.emplace_back(flat.begin() + i, flat.begin() + i + getRank());
  return bases;
}

ll::LinearLayout LinearLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape, Type) const {
  // A tensor of this layout has every basis inside its shape (verifyEncoding); as the
  // parent of a slice, the sliced dimension has extent 1 and its coordinates wrap away.
  ll::LinearLayout::NamedValues outDims;
  for (size_t d = 0; d < shape.size(); ++d) outDims.emplace_back("dim" + std::to_string(d), int32_t(shape[d]));
  ll::LinearLayout::BasesT bases;
  for (StringRef inDim : {"register", "lane", "warp"}) {
    auto list = getBasesOf(inDim);
    for (auto &basis : list)
      for (size_t d = 0; d < shape.size(); ++d) basis[d] &= int32_t(shape[d] - 1);
    bases.emplace_back(inDim.str(), std::move(list));
  }
  return ll::LinearLayout(std::move(bases), std::move(outDims));
}

unsigned LinearLayoutAttr::getRank() const { return getNumDims(); }

unsigned LinearLayoutAttr::getNumWarps() const { return 1u << (getWarpBases().size() / getRank()); }

LogicalResult LinearLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                               function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyFits(*this, shape, emitError))) return failure();
  for (StringRef inDim : {"register", "lane", "warp"}) {
    auto bases = getBasesOf(inDim);
    for (size_t i = 0; i < bases.size(); ++i)
      for (size_t d = 0; d < shape.size(); ++d)
        if (bases[i][d] >= shape[d])
          return emitError() << inDim << " basis " << i << " moves dimension " << d << " to " << bases[i][d]
                             << ", outside the tensor's extent " << shape[d];
  }
  ll::LinearLayout layout = toLinearLayout(shape, Type());
  if (!layout.isSurjective())
    return emitError() << "the layout holds " << (int64_t(1) << layout.getMatrixRank()) << " of the tensor's "
                       << layout.getTotalOutDimSize() << " elements; every element needs a holder";
  return success();
}

Attribute LinearLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<int32_t> lists[3];
  const char *names[3] = {"register", "lane", "warp"};
  int64_t rank = -1;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess()) return {};
  for (int i = 0; i < 3; ++i) {
    if ((i && parser.parseComma()) || parser.parseKeyword(names[i]) || parser.parseEqual()) return {};
    auto parseBasis = [&]() -> ParseResult {
      SMLoc at = parser.getCurrentLocation();
      SmallVector<int32_t> basis;
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
            int32_t c;
            if (parser.parseInteger(c)) return failure();
            basis.push_back(c);
            return success();
          }))
        return failure();
      if (rank < 0) rank = int64_t(basis.size());
      if (rank != int64_t(basis.size()))
        return parser.emitError(at) << "every basis needs " << rank << " coordinates, got " << basis.size();
      lists[i].append(basis);
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseBasis)) return {};
  }
  if (parser.parseGreater()) return {};
  return parser.getChecked<LinearLayoutAttr>(loc, parser.getContext(), unsigned(std::max<int64_t>(rank, 0)),
                                             ArrayRef<int32_t>(lists[0]), ArrayRef<int32_t>(lists[1]),
                                             ArrayRef<int32_t>(lists[2]));
}

void LinearLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  const char *names[3] = {"register", "lane", "warp"};
  for (int i = 0; i < 3; ++i) {
    printer << (i ? ", " : "") << names[i] << " = [";
    auto bases = getBasesOf(names[i]);
    for (size_t b = 0; b < bases.size(); ++b) {
      printer << (b ? ", " : "") << "[";
      llvm::interleaveComma(bases[b], printer);
      printer << "]";
    }
    printer << "]";
  }
  printer << ">";
}
