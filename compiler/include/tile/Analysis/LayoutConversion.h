//===- LayoutConversion.h - how a convert_layout moves its data -----------===//
// A tile.convert_layout between two distributed layouts is classified from their linear
// layouts (register, lane, warp) -> coordinate, in one place that the passes
// (tile-allocate-shared, tile-insert-barriers, through scratchBytes) and the lowering
// (convert-tile-to-llvm) all ask, so they cannot disagree on which conversions touch shared
// memory:
//  - Registers: both layouts place every coordinate on the same lanes and warps; each
//    destination register is a source register of the same thread (a no-op when the map is
//    the identity, e.g. the same linear layout under another attribute);
//  - WarpShuffle: every element a warp needs is held in that warp (the warp bases agree, or
//    differ only by what the warp's own lanes and registers hold, as when the source's warps
//    are copies of each other); destination register r of lane l reads
//    source register srcRegister[r] of lane laneConst[r] ^ (XOR of laneOfLaneBit[i] over the
//    set bits i of l) ^ (XOR of laneOfWarpBit[k] over the set bits k of the warp): one
//    shfl.sync.idx per destination register (all lanes read the same register index);
//  - SharedMemory: anything else (data crosses warps, or the register a lane must read
//    depends on the lane): the whole tensor goes through the op's scratch.
// Pure: no IR is built or changed.
#ifndef TILE_ANALYSIS_LAYOUTCONVERSION_H
#define TILE_ANALYSIS_LAYOUTCONVERSION_H

#include "tile/Dialect/Tile.h"
#include "tile/Layout/LinearLayout.h"

#include <string>
#include <vector>

namespace mlir::tile {

enum class LayoutConversionKind { Registers, WarpShuffle, SharedMemory };

/// "registers", "warp shuffle" or "shared memory" (debug output, test names).
const char *stringifyLayoutConversionKind(LayoutConversionKind kind);

struct LayoutConversionPlan {
  LayoutConversionKind kind = LayoutConversionKind::SharedMemory;
  /// Registers, WarpShuffle: per destination register, the source register holding its
  /// element (in the same thread, or in the source lane of a shuffle).
  std::vector<unsigned> srcRegister;
  /// WarpShuffle: per destination register, the constant part of the source lane.
  std::vector<int32_t> laneConst;
  /// WarpShuffle: the source lane's part contributed by each bit of the destination lane
  /// (5 entries) and of the warp index (one per warp bit).
  std::vector<int32_t> laneOfLaneBit, laneOfWarpBit;
  /// SharedMemory: why neither register path applies (for -debug-only output).
  std::string reason;

  /// WarpShuffle: true when lane l reads register r from lane l itself for every lane (the
  /// lane map is the identity and laneConst[r] is 0): no shuffle is needed for r.
  bool isLocal(unsigned r) const;
};

/// How data moves from `src` to `dst`: (register, lane, warp) -> the same output dimensions
/// (the tensor's, same shape). Layouts with different lane or warp counts, or other output
/// dimensions, go through shared memory.
LayoutConversionPlan planLayoutConversion(const ::tile::layout::LinearLayout &src,
                                          const ::tile::layout::LinearLayout &dst);
/// The same for two tensor types (their encodings' linear layouts); shared memory when either
/// lacks a distributed layout or the shapes differ.
LayoutConversionPlan planLayoutConversion(RankedTensorType src, RankedTensorType dst);
/// Only the kind.
LayoutConversionKind classifyLayoutConversion(ConvertLayoutOp op);

} // namespace mlir::tile

#endif
