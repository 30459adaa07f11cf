//===- Lowering.h - tile IR to chunked vector code for the CPU executor ---===//
// Private to compiler/lib/CPU. One KernelLowering rewrites one kernel function into a
// function that runs a single program instance on the host.
//
// Representation of a tensor value of the kernel while lowering:
//  - lazy: recomputed chunk by chunk where it is used. Two kinds: "cheap" values (splats,
//    ranges, constants and arith on them: index arithmetic) may be recomputed at every
//    use; other lazy values have exactly one user in the same block and are fused into
//    the loop of that user ("root": a store, a reduction, a materialisation, a yield).
//  - materialised: computed once into a stack buffer (memref.alloca, row-major) by its
//    own chunk loop; uses read chunks back with vector.load.
// A chunk is a 1-D vector of `w` consecutive elements along the last dimension, starting
// at the n-D index `idx` (idx.back() is a multiple of w). So every tensor op lowers to an
// op on vector<w x T>, and arith/math ops convert by type only.
#ifndef TILE_CPU_LOWERING_H
#define TILE_CPU_LOWERING_H

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace mlir::tile::cpu {

/// Module attributes the lowering leaves for the JIT driver.
inline constexpr llvm::StringLiteral kSitesAttr = "tile.cpu.sites";          ///< ["file:line:col\top", ...]
inline constexpr llvm::StringLiteral kStackBytesAttr = "tile.cpu.stack_bytes"; ///< buffer bytes per call
/// The runtime function checking mode calls: (addr, bytes, kind, site, element, active) -> ok.
inline constexpr llvm::StringLiteral kCheckFn = "tile_cpu_check";
/// Kinds passed to tile_cpu_check.
enum class AccessKind : int32_t { Load = 0, Store = 1, Atomic = 2 };

class KernelLowering {
public:
  KernelLowering(func::FuncOp kernel, int chunk, bool check);
  /// Builds the per-program function next to the kernel and erases the kernel.
  LogicalResult run();

  // ---- shared by the .cpp files of this folder ----
  OpBuilder b;
  Location loc;

  // Types.
  /// Element type of values in vectors/scalars: pointers become i64 addresses.
  Type valueElem(Type elem);
  /// Element type in buffers and in memory: i1 is stored as a byte.
  Type memElem(Type elem);
  VectorType vecOf(Type tensorOrElem, int64_t w);
  static RankedTensorType tensorType(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

  // Constants.
  Value cIndex(int64_t v);
  Value cInt(Type t, int64_t v);

  /// The chunk [idx, idx + w) of tensor `v` along its last dimension.
  Value chunk(Value v, ArrayRef<Value> idx, int64_t w);
  /// The same for the op defining `v`, ignoring any buffer of `v` (materialisation).
  Value evalOp(Value v, ArrayRef<Value> idx, int64_t w);
  /// The lowered scalar for scalar `v` of the kernel.
  Value scalar(Value v);

  /// Loops over `shape` in chunks of `w` along the last dimension; `body` gets the index.
  void forEachChunk(ArrayRef<int64_t> shape, int64_t w, function_ref<void(ArrayRef<Value>)> body);
  /// Chunk width for a last dimension of `n` elements (a divisor of n, at most `chunkMax`).
  int64_t widthFor(int64_t n) const;
  /// Largest power of two <= chunkMax dividing n (reductions need a power of two).
  int64_t pow2WidthFor(int64_t n) const;

  Value allocBuffer(RankedTensorType t);
  Value loadChunk(Value buffer, Type elem, ArrayRef<Value> idx, int64_t w);
  void storeChunk(Value buffer, Type elem, Value chunkValue, ArrayRef<Value> idx);
  /// Evaluates `v` into `buffer` (same shape), chunk by chunk; `fromDefinition`: from
  /// v's defining op even where v already has a buffer (that is being filled).
  void materializeInto(Value v, Value buffer, bool fromDefinition);

  // Memory (Memory.cpp).
  Value evalLoad(LoadOp op, ArrayRef<Value> idx, int64_t w);
  void emitStore(StoreOp op);
  void emitAtomic(AtomicAddOp op);
  Value emitScalarLoad(LoadOp op);
  /// tile.descriptor_base / tile.descriptor_dim: a field of the descriptor's TensorDescParam.
  Value emitDescriptorField(Operation *op);
  /// In checking mode: the mask with every lane the runtime refuses switched off.
  Value checkedMask(Operation *op, AccessKind kind, Value addrs, Value mask, ArrayRef<Value> idx, int64_t w,
                    unsigned bytes);
  /// The checking-mode site id of a memory op (index into kSitesAttr).
  int32_t siteOf(Operation *op);

  // Reductions (Reduce.cpp).
  void emitReduce(ReduceOp op);

  // Matrix product (Dot.cpp); permutation and reshape (Permute.cpp).
  void emitDot(DotOp op);
  void emitTrans(TransOp op);
  void emitReshape(ReshapeOp op);
  /// A row-major buffer holding `v`: its own, or a fresh one `v` is materialised into
  /// (`*fresh` says which; a fresh one nothing else reads or writes).
  Value bufferOf(Value v, bool *fresh = nullptr);
  /// The same row-major buffer seen with another shape of as many elements (a view, no copy).
  Value viewAs(Value buffer, ArrayRef<int64_t> shape);

  // Elementwise arith/math on chunks or scalars, with the CPU's fixes (LowerToCPU.cpp).
  Value emitElementwise(Operation *op, ArrayRef<Value> operands, Type resultType);

private:
  func::FuncOp kernel;
  func::FuncOp fn; ///< the function being built
  int64_t chunkMax;
  bool check;
  AxisInfoAnalysis axis;
  OpBuilder allocB; ///< at the top of the new function: buffers are allocated once per call

  IRMapping scalars;
  llvm::DenseMap<Value, Value> buffers;
  llvm::DenseSet<Value> lazy;
  llvm::DenseMap<Value, bool> cheapMemo;
  llvm::DenseMap<Operation *, Operation *> rootOf; ///< lazy op -> the op that evaluates it
  Value programId[3], numPrograms[3];
  std::vector<std::string> sites;
  llvm::DenseMap<Operation *, int32_t> siteIds;
  int64_t stackBytes = 0;

  void plan(Block &block);
  bool isCheap(Value v);
  bool producesBuffer(Operation *op) const;

  void emitBlock(Block &block);
  void emitOp(Operation &op);
  void emitFor(scf::ForOp op);
  void emitIf(scf::IfOp op);
  /// Writes tensor `values[i]` into `targets[i]` as one parallel assignment.
  void assignBuffers(ArrayRef<Value> values, ArrayRef<Value> targets);
  /// The buffers a lazy value reads; `remaps`: some read another element than written.
  void collectLeaves(Value v, llvm::DenseSet<Value> &leafBuffers, bool &remaps);

public:
  /// The axis analysis proves the w addresses of every chunk of `ptr` consecutive.
  bool hasAxisContiguity(Value ptr, int64_t w);
  /// Reports an op the CPU executor cannot lower; returns a zero of `type` to go on with.
  Value unsupported(Operation *op, Type type);
  bool failed = false;
};

} // namespace mlir::tile::cpu

#endif
