//===- Tile.h - the tile dialect (MLIR-facing header) ---------------------===//
// Internal to the compiler: includes MLIR. The DSL's public headers never include this.
#ifndef TILE_DIALECT_TILE_H
#define TILE_DIALECT_TILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tile/Layout/LinearLayout.h"

#include "tile/Dialect/TileDialect.h.inc"
#include "tile/Dialect/TileEnums.h.inc"

namespace mlir::tile {
/// The side-effect resource of shared-memory ops (tile.local_*, async copies, barriers),
/// so that global-memory ops and shared-memory ops do not order each other needlessly.
struct SharedMemoryResource : public SideEffects::Resource::Base<SharedMemoryResource> {
  StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace mlir::tile

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.h.inc"

#include "tile/Dialect/TileAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.h.inc"

namespace mlir::tile {
/// Attribute names shared by the front end, passes and lowering.
inline constexpr llvm::StringLiteral kKernelAttr = "tile.kernel";
/// On a kernel: the warps its tensors' layouts spread over (a power of two, 1 to 32; set by
/// the front end or tile-assign-layouts). Not what the launch runs: see kLaunchWarpsAttr.
inline constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";
/// On the module once lowered (convert-tile-to-llvm): the warps a launch runs, 1 to 32. The
/// kernel's tile.num_warps, plus a warp-specialised loop's producer warpgroup (4 warps); the
/// compiler driver copies it to rt::LaunchMetadata::numWarps.
inline constexpr llvm::StringLiteral kLaunchWarpsAttr = "tile.launch_warps";
/// On an scf.for (unit): run the loop warp-specialised where tile-warp-specialize can (a TMA-fed
/// wgmma K loop on sm_90a: a producer warp issues the copies); elsewhere a hint it ignores.
inline constexpr llvm::StringLiteral kWarpSpecializeAttr = "tile.warp_specialize";
/// On a warp-specialised loop: its next iteration's first dot is issued with this one's second
/// (LoopOptions::overlapIterations).
inline constexpr llvm::StringLiteral kOverlapIterationsAttr = "tile.overlap_iterations";
/// On a warp-specialised loop: its consumer warpgroups do not take turns at their dots
/// (LoopOptions::pingPong = false).
inline constexpr llvm::StringLiteral kNoTurnsAttr = "tile.no_turns";
/// On a kernel: buffers per software-pipelined load (tile-pipeline); absent: 3.
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
/// On the module: the GPU the code is for, "sm_80", "sm_90", "sm_90a", ... (absent: no tensor
/// cores are assumed). Set by the pipeline; passes that choose instructions read it.
inline constexpr llvm::StringLiteral kTargetAttr = "tile.target";
/// The compute capability of kTargetAttr (80 for "sm_80"), or 0 when absent.
inline int targetComputeCapability(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module) module = dyn_cast<ModuleOp>(op);
  auto attr = module ? module->getAttrOfType<StringAttr>(kTargetAttr) : StringAttr();
  int sm = 0;
  if (attr && attr.getValue().starts_with("sm_"))
    (void)attr.getValue().drop_front(3).take_while(llvm::isDigit).getAsInteger(10, sm);
  return sm;
}
/// Whether kTargetAttr is Hopper's arch-specific target (sm_90a): wgmma may be emitted.
inline bool targetHasWgmma(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module) module = dyn_cast<ModuleOp>(op);
  auto attr = module ? module->getAttrOfType<StringAttr>(kTargetAttr) : StringAttr();
  return attr && attr.getValue() == "sm_90a";
}
/// On the module: the TMA maps the launch must encode, an array of #tile.tma_map (one per
/// descriptor argument, distinct arguments, at most kMaxTmaMaps), recorded by tile-pipeline and
/// tile-tma-stores (Transforms/TmaRecord.cpp); the compiler driver turns them into
/// rt::LaunchMetadata::tma. Read and written through tmaMaps / setTmaMaps.
inline constexpr llvm::StringLiteral kTmaMapsAttr = "tile.tma_maps";
/// The most TMA maps one launch encodes (rt::kMaxTmaParams; lib/Compiler.cpp checks they agree).
inline constexpr unsigned kMaxTmaMaps = 8;
/// On a tile.load, tile.store, tile.atomic_rmw or tile.async_copy (i32, set by tile-coalesce and
/// copied by tile-pipeline): how many consecutive elements a thread moves per instruction along
/// its layout's fastest dimension, a power of two from 1 to 16 (at most 16 bytes per access,
/// 16 i8s); absent: 1. The lowering also checks it divides the thread's registers and spans at
/// most 16 bytes of the element type. Read and written through vectorWidth / setVectorWidth.
inline constexpr llvm::StringLiteral kVecAttr = "tile.vec";
/// The largest kVecAttr (16 one-byte elements: a 16-byte access).
inline constexpr unsigned kMaxVectorWidth = 16;
/// On a kernel argument: the value (pointer address or integer) is a multiple of this.
inline constexpr llvm::StringLiteral kDivisibilityAttr = "tile.divisibility";
/// On the op defining a pointer tensor (the DSL's `lanes_along`): the dimension consecutive
/// lanes step along in every load and store through it (tile-coalesce), where the addresses
/// run along it but the axis analysis cannot prove it. A performance directive: no result
/// depends on it.
inline constexpr llvm::StringLiteral kLanesAlongAttr = "tile.lanes_along";
/// On the module after lowering: dynamic shared memory the kernel needs at launch, in bytes.
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";

/// On a tile.local_alloc after tile-allocate-shared: its byte offset in shared memory.
inline constexpr llvm::StringLiteral kSharedOffsetAttr = "tile.offset";
/// On ops that need scratch shared memory while they run (layout conversions, reshapes,
/// reductions across warps) after tile-allocate-shared: the scratch's byte offset.
inline constexpr llvm::StringLiteral kScratchOffsetAttr = "tile.scratch_offset";

/// The linear layout of a tensor whose encoding is a distributed layout (any of them:
/// DistributedLayoutInterface::toLinearLayout for its shape and element type).
::tile::layout::LinearLayout toLinearLayout(RankedTensorType type);

/// The element type of a scalar or tensor type.
inline Type elementTypeOf(Type t) { return getElementTypeOrSelf(t); }

// Accessors of the attributes passes hand each other (DiscardableAttrs.cpp; the dialect's
// verifyOperationAttribute checks their values where they are parsed or set).
/// `op`'s kVecAttr, or nullopt when absent (the lowering then moves one element at a time).
std::optional<unsigned> vectorWidth(Operation *op);
void setVectorWidth(Operation *op, unsigned width);
/// A kernel function's kNumWarpsAttr, or nullopt when absent.
std::optional<unsigned> kernelNumWarps(Operation *func);
void setKernelNumWarps(Operation *func, unsigned warps);
/// The lowered module's kLaunchWarpsAttr, or nullopt when absent.
std::optional<unsigned> launchWarps(ModuleOp module);
void setLaunchWarps(ModuleOp module, unsigned warps);
/// The module's kTmaMapsAttr, in the order recorded (empty when absent).
SmallVector<TmaMapAttr> tmaMaps(ModuleOp module);
void setTmaMaps(ModuleOp module, ArrayRef<TmaMapAttr> maps);
} // namespace mlir::tile

#endif
