//===- LinearLayout.h - layouts as linear maps over GF(2) -----------------===//
// A layout says which tensor element each (register, lane, warp) of a thread block
// holds. For every layout we use, that map is linear over GF(2) once the hardware
// indices and the tensor coordinates are read as bit vectors: the coordinate of an
// input is the XOR of one fixed vector ("basis") per set input bit. Storing only the
// bases makes layouts cheap to compare, compose and invert, which is what converting
// between layouts (shared-memory shuffles, reshapes) needs.
//
// Input and output dimensions are named and ordered; every size is a power of two.
// An input dimension of size 2^n has n bases, lowest bit first; a basis holds one
// coordinate per output dimension. A zero basis means that input bit does not move
// the output: the element is replicated (held by several threads or registers).
//
// Pure C++20 on purpose: the compiler, its tests and host tools can all use it
// without MLIR. Matrix operations (rank, inversion, free variables) pack a basis into
// one 64-bit word, so they need at most 64 input bits and 64 output bits in total.
#ifndef TILE_LAYOUT_LINEARLAYOUT_H
#define TILE_LAYOUT_LINEARLAYOUT_H

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace tile::layout {

class LinearLayout {
public:
  /// One coordinate per output dimension, in output-dimension order.
  using Basis = std::vector<int32_t>;
  /// Input dimension name -> its bases, lowest input bit first.
  using BasesT = std::vector<std::pair<std::string, std::vector<Basis>>>;
  /// (dimension name, value): a size, a coordinate or a bit mask depending on use.
  using NamedValues = std::vector<std::pair<std::string, int32_t>>;

  /// The empty layout (no dimensions); the unit of operator*.
  LinearLayout() = default;
  /// Throws std::invalid_argument unless names are unique, `outDims` sizes are powers
  /// of two, and every basis has one entry per output dimension, each in [0, size).
  LinearLayout(BasesT bases, NamedValues outDims);

  static LinearLayout empty() { return {}; }
  /// inDim x -> outDim x, both of `size` (a power of two).
  static LinearLayout identity1D(int32_t size, std::string inDim, std::string outDim);
  /// inDim of `size` -> outDim of size 1: every input bit is a replica.
  static LinearLayout zeros1D(int32_t size, std::string inDim, std::string outDim);

  /// The #tile.blocked layout of a tensor of `shape`. In dims: "register", "lane" (32),
  /// "warp" (prod warpsPerCTA); out dims "dim0".."dim{rank-1}" of `shape`. Along
  /// dimension d, register r_d of thread (lane_d, warp_d) holds coordinate
  ///   (r_d / spt[d]) * tile[d] + (warp_d * tpw[d] + lane_d) * spt[d] + r_d % spt[d]
  /// mod shape[d] (tile = spt * tpw * wpc; past the shape threads hold replicas), where
  /// r, lane and warp split into per-dimension indices in mixed radix over `order`
  /// (fastest first; r_d counts spt[d] * max(1, shape[d] / tile[d])). All sizes must be
  /// powers of two and threadsPerWarp must multiply to 32.
  static LinearLayout blocked(const std::vector<unsigned> &sizePerThread, const std::vector<unsigned> &threadsPerWarp,
                              const std::vector<unsigned> &warpsPerCTA, const std::vector<unsigned> &order,
                              const std::vector<int64_t> &shape);
  /// The #tile.slice layout that removes parent dimension `dim` from the blocked parent;
  /// `shape` is the sliced tensor's (parent rank - 1): sliceLayout of the blocked layout
  /// for `shape` with extent 1 inserted at `dim`.
  static LinearLayout slice(unsigned dim, const std::vector<unsigned> &sizePerThread,
                            const std::vector<unsigned> &threadsPerWarp, const std::vector<unsigned> &warpsPerCTA,
                            const std::vector<unsigned> &order, const std::vector<int64_t> &shape);

  // --- Shape queries ------------------------------------------------------------
  int32_t getNumInDims() const { return int32_t(bases.size()); }
  int32_t getNumOutDims() const { return int32_t(outDims.size()); }
  std::vector<std::string> getInDimNames() const;
  std::vector<std::string> getOutDimNames() const;
  bool hasInDim(const std::string &name) const { return inDimIndex(name) >= 0; }
  bool hasOutDim(const std::string &name) const { return outDimIndex(name) >= 0; }
  int32_t getInDimSizeLog2(const std::string &name) const;
  int32_t getInDimSize(const std::string &name) const { return int32_t(1) << getInDimSizeLog2(name); }
  int32_t getOutDimSizeLog2(const std::string &name) const;
  int32_t getOutDimSize(const std::string &name) const;
  int32_t getTotalInDimSizeLog2() const;
  int32_t getTotalOutDimSizeLog2() const;
  int64_t getTotalInDimSize() const { return int64_t(1) << getTotalInDimSizeLog2(); }
  int64_t getTotalOutDimSize() const { return int64_t(1) << getTotalOutDimSizeLog2(); }
  const Basis &getBasis(const std::string &inDim, int32_t bit) const;
  int32_t getBasis(const std::string &inDim, int32_t bit, const std::string &outDim) const;
  const BasesT &getBases() const { return bases; }
  /// (name, size) of each output dimension, in order.
  const NamedValues &getOutDims() const { return outDims; }

  // --- Evaluation ---------------------------------------------------------------
  /// One value per input dimension, any order, each in [0, size); returns every
  /// output dimension in order.
  NamedValues apply(const NamedValues &ins) const;
  /// The same with values in input-dimension order and results in output order: the
  /// form hot loops and tests want.
  std::vector<int32_t> applyFlat(const std::vector<int32_t> &ins) const;

  // --- Algebra ------------------------------------------------------------------
  /// Direct product. Dimensions present in both are concatenated with `lhs` as the
  /// low bits: a shared input dimension gets lhs's bits then rhs's, and a shared
  /// output dimension multiplies its size, rhs coordinates shifted above lhs's.
  /// Shared names must appear in the same relative order in both operands.
  friend LinearLayout operator*(const LinearLayout &lhs, const LinearLayout &rhs);
  /// this: A -> B, outer: B -> C; returns A -> C. Outer's input dimensions must be
  /// this layout's output dimensions (same names, each at least as large).
  LinearLayout compose(const LinearLayout &outer) const;
  /// The inverse of a bijective layout (as many input as output bits, full rank).
  LinearLayout invert() const;
  /// A right inverse of a surjective layout: maps each output to the one input whose
  /// free variables (getFreeVariableMasks) are zero. Answers "which register, lane and
  /// warp hold coordinate c" with the canonical, non-replica holder.
  LinearLayout pseudoinvert() const;
  /// this: A -> C, other: B -> C (surjective); returns A -> B with other(r(a)) == this(a).
  LinearLayout invertAndCompose(const LinearLayout &other) const;

  /// Per input dimension, the bits that can be cleared without shrinking the image:
  /// bit i is free when its basis lies in the span of the bases before it (input
  /// dimensions in order, low bits first), which includes every zero basis.
  NamedValues getFreeVariableMasks() const;
  /// Rank of the bit matrix: log2 of the number of distinct outputs.
  int32_t getMatrixRank() const;
  bool isSurjective() const { return getMatrixRank() == getTotalOutDimSizeLog2(); }
  bool isInjective() const { return getMatrixRank() == getTotalInDimSizeLog2(); }

  // --- Restructuring ------------------------------------------------------------
  /// Keeps only the named dimensions (in this layout's order); dropped input bits are
  /// treated as zero, dropped output coordinates are ignored.
  LinearLayout sublayout(const std::vector<std::string> &inDimNames, const std::vector<std::string> &outDimNames) const;
  /// Reorders the output dimensions; `newOrder` must be a permutation of their names.
  LinearLayout transposeOuts(const std::vector<std::string> &newOrder) const;
  /// Reinterprets the outputs as a row-major tensor of `newOutDims` (last dimension
  /// fastest, like the tensor's own linearization) with the same total size.
  LinearLayout reshapeOuts(const NamedValues &newOutDims) const;
  /// reshapeOuts to a single dimension named after the first output dimension.
  LinearLayout flattenOuts() const;

  /// One line per input bit, e.g. " - register=1 -> (0, 1)", then the output sizes.
  std::string toString() const;
  friend bool operator==(const LinearLayout &, const LinearLayout &) = default;

private:
  int32_t inDimIndex(const std::string &name) const;
  int32_t outDimIndex(const std::string &name) const;
  const std::vector<Basis> &basesOf(const std::string &inDim) const;
  int32_t requireOutDim(const std::string &name) const;

  BasesT bases;
  NamedValues outDims;
};

LinearLayout operator*(const LinearLayout &lhs, const LinearLayout &rhs);

/// The layout of a slice of `parent` (out dims dim0..): output `dim` removed, the others
/// renamed dim0.. in order. Lanes and warps that moved only along `dim` become replicas
/// (zero bases); register bases that become zero are dropped, since such a register holds
/// nothing another one does not (it moved only along `dim`, or was a replica already).
LinearLayout sliceLayout(const LinearLayout &parent, unsigned dim);
/// `layout` with its coordinates reduced modulo `sizes` (powers of two, each at most its
/// output dimension's size): the high bits dropped, so inputs that reached past a
/// dimension now hold replicas. How a layout built for a larger tile covers a smaller tensor.
LinearLayout wrapOuts(const LinearLayout &layout, const std::vector<int32_t> &sizes);

std::ostream &operator<<(std::ostream &os, const LinearLayout &layout);

} // namespace tile::layout

#endif
