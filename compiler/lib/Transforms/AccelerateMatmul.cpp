//===- AccelerateMatmul.cpp - move dots that fit onto tensor cores --------===//
// assign-layouts gives every dot the CUDA-core (FMA) layouts. Here a dot of f16/bf16
// operands (mma.sync m16n8k16), or of f32 operands with TF32 input precision (m16n8k8),
// on sm_80+ whose tile holds whole instruction tiles for every warp takes the #tile.mma accumulator layout and #tile.dot_operand operands
// (which optimize-dot-operands stages through swizzled shared memory). A K loop that
// carries the accumulator carries it in the mma layout, so no iteration converts.
// On sm_90a an f16/bf16 dot whose tile gives every warpgroup (four warps) whole 64-row
// slabs becomes tile.warpgroup_dot (wgmma) instead: both operands are written to
// #tile.nvmma_shared buffers (tile-pipeline turns those writes into cp.async rings in a
// K loop) and read by the tensor cores from there, never through registers. An operand that
// is a `trans` of a tile is written untransposed and read through a transposed view
// (tile.memdesc_trans): b = trans(bt [N, K]) reaches wgmma K-major straight from its load,
// a 16-bit a = trans(at [K, M]) MN-major; dots reading one source share its buffer.
// That is also what lets a TF32 dot (f32 inputs) use wgmma, which reads tf32 operands
// K-major only: its b must be such a transpose (and a not), else it stays on mma.sync. Its
// buffers round their f32 inputs to tf32 as they are written (`round_tf32`), since the
// tensor cores would truncate them.
// An f16/bf16 a computed in registers inside the dot's loop (attention's P = exp2(...),
// cast) is not written to shared memory each iteration: it takes wgmma's register form,
// converted to #tile.dot_operand<0, mma> (mma.sync's A fragments, which are wgmma's), b
// still a buffer. A loaded a (it is staged from global memory anyway, and tile-pipeline's
// rings need the buffer) and a loop-invariant one keep the buffer. An operand buffer whose
// source is defined outside the dot's loops (attention's Q block) is written once before the
// outermost of them, not every iteration.
#include "LayoutRewrite.h"
#include "tile/Layout/SharedLayouts.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/Debug.h"

#include <cassert>
#include <optional>

#define DEBUG_TYPE "tile-accelerate-matmul"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEACCELERATEMATMUL
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Warps for an mma.sync tile of M x N (each warp at least one 16 x 8 instruction tile,
/// warps split along the longer side first), or nullopt when M x N is too small for
/// `warps` warps.
std::optional<std::pair<unsigned, unsigned>> mmaWarps(int64_t m, int64_t n, unsigned warps) {
  unsigned wm = 1, wn = 1;
  while (wm * wn < warps) {
    bool canM = m % (16 * wm * 2) == 0, canN = n % (8 * wn * 2) == 0;
    if (canM && (!canN || m / (16 * wm) >= n / (8 * wn))) wm *= 2;
    else if (canN) wn *= 2;
    else return std::nullopt;
  }
  return std::make_pair(wm, wn);
}

/// Tensor cores for f16/bf16 (mma.sync m16n8k16) and for f32 with TF32 input precision
/// (m16n8k8) on sm_80+ when the tile holds whole instruction tiles for every warp; else
/// nullopt (the dot stays on CUDA cores: exact f32 always does).
std::optional<MmaLayoutAttr> mmaLayoutFor(DotOp dot, unsigned warps) {
  auto a = dot.getA().getType(), b = dot.getB().getType();
  Type elem = a.getElementType();
  const bool tf32 = elem.isF32() && dot.getInputPrecision() == InputPrecision::TF32;
  if (targetComputeCapability(dot) < 80 || !(isa<Float16Type, BFloat16Type>(elem) || tf32)) return std::nullopt;
  int64_t m = a.getDimSize(0), n = b.getDimSize(1), k = a.getDimSize(1);
  if (m % 16 || n % 8 || k % (tf32 ? 8 : 16)) return std::nullopt;
  auto split = mmaWarps(m, n, warps);
  if (!split) return std::nullopt;
  return MmaLayoutAttr::get(dot.getContext(), {split->first, split->second});
}

/// What a conversion converts, else `v` itself: the value before assign-layouts moved it
/// into the FMA operand layout.
Value unconverted(Value v) {
  if (auto cvt = v.getDefiningOp<ConvertLayoutOp>()) return cvt.getSrc();
  return v;
}

/// The 2-D `trans` that dot operand `v` is (under a conversion), else null.
TransOp transposeOf(Value v) {
  auto t = unconverted(v).getDefiningOp<TransOp>();
  return t && t.getOrder() == ArrayRef<int32_t>{1, 0} ? t : TransOp();
}

/// wgmma (m64nNk16 for f16/bf16, m64nNk8 for tf32; operands from shared memory) on sm_90a
/// when every warpgroup gets whole 64-row slabs (warpsPerCTA = [warps, 1]), one instruction
/// covers N (8..256), both operand tiles fill whole swizzle rows and, for tf32, both can be
/// read K-major (b a transpose, a not); else nullopt.
std::optional<MmaLayoutAttr> wgmmaLayoutFor(DotOp dot, unsigned warps) {
  auto a = dot.getA().getType(), b = dot.getB().getType();
  Type elem = a.getElementType();
  const bool tf32 = elem.isF32() && dot.getInputPrecision() == InputPrecision::TF32;
  if (!targetHasWgmma(dot) || !(isa<Float16Type, BFloat16Type>(elem) || tf32) || warps % 4) return std::nullopt;
  if (tf32 && (!transposeOf(dot.getB()) || transposeOf(dot.getA()))) return std::nullopt;
  const int64_t m = a.getDimSize(0), n = b.getDimSize(1), k = a.getDimSize(1);
  if (m % (16 * warps) || n % 16 || n > 256 || k % (tf32 ? 8 : 16)) return std::nullopt;
  return MmaLayoutAttr::get(dot.getContext(), {warps, 1});
}

/// A [rows, cols] operand as a #tile.nvmma_shared buffer with the widest swizzle its rows fill.
MemDescType nvmmaBuffer(RankedTensorType t) {
  const int swizzle = ::tile::layout::nvmmaSwizzleFor(t.getDimSize(1), int(t.getElementTypeBitWidth() / 8));
  return MemDescType::get(t.getContext(), t.getShape(), t.getElementType(),
                          NvmmaSharedLayoutAttr::get(t.getContext(), swizzle, /*transposed=*/false));
}

/// A K loop's accumulator: the dot's accumulator is a loop-carried value used only by the
/// dot, and the dot's result is what the loop carries on.
bool isCarriedAccumulator(DotOp dot) {
  auto arg = dyn_cast<BlockArgument>(dot.getAcc());
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || arg.getArgNumber() == 0 || !arg.hasOneUse() || !dot->hasOneUse()) return false;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  return yield.getOperand(arg.getArgNumber() - 1) == dot.getResult();
}

/// The loop carries the accumulator in `layout`: its initial value converts once before
/// the loop, its result converts back once after it.
void carryInLayout(DotOp dot, Attribute layout) {
  auto arg = cast<BlockArgument>(dot.getAcc());
  auto loop = cast<scf::ForOp>(arg.getOwner()->getParentOp());
  assert(arg.getArgNumber() > 0 && "the induction variable is no accumulator (isCarriedAccumulator)");
  unsigned index = arg.getArgNumber() - 1;
  Value result = loop.getResult(index);
  Type before = result.getType();
  OpBuilder b(loop);
  loop.getInitArgsMutable()[index].assign(convertTo(b, loop.getInitArgs()[index], layout));
  arg.setType(withLayout(arg.getType(), layout));
  result.setType(withLayout(before, layout));
  b.setInsertionPointAfter(loop);
  auto back = ConvertLayoutOp::create(b, loop.getLoc(), before, result);
  result.replaceAllUsesExcept(back, back);
}

/// A tensor-core operand goes to shared memory, so the load producing it may use any
/// layout: give it one sized for its own shape instead of the rank's default, which a
/// smaller tile would wrap around (several threads loading the same elements), where its
/// addresses and mask can be recomputed in that layout (moving them through shared
/// memory would cost more than the redundant loads it saves).
void fitLoadToShape(Value operand, unsigned warps, const DenseMap<unsigned, unsigned> &widths) {
  auto load = operand.getDefiningOp<LoadOp>();
  if (!load || !load->hasOneUse()) return;
  auto type = cast<RankedTensorType>(load.getType());
  auto current = dyn_cast<BlockedLayoutAttr>(type.getEncoding());
  if (!current) return;
  BlockedLayoutAttr fitted =
      defaultBlockedLayout(load.getContext(), type.getShape(), warps, std::max(1u, widths.lookup(type.getRank())));
  if (fitted == current) return;
  for (Value o : load->getOperands())
    if (isa<RankedTensorType>(o.getType()) && !rebuildableIn(o, fitted)) return;
  OpBuilder b(load);
  for (OpOperand &o : load->getOpOperands())
    if (isa<RankedTensorType>(o.get().getType())) o.set(convertTo(b, o.get(), fitted));
  load.getResult().setType(withLayout(type, fitted));
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] operand load refitted to its shape: " << fitted << "\n");
}

/// The accumulator of `dot` in `mma`: a carried one for the whole loop, else converted
/// here. Returns whether it is carried.
bool accumulateIn(DotOp dot, MmaLayoutAttr mma, OpBuilder &b) {
  if (isCarriedAccumulator(dot)) {
    carryInLayout(dot, mma);
    return true;
  }
  Value acc = dot.getAcc();
  dot.getAccMutable().assign(convertTo(b, unconverted(acc), mma));
  eraseIfDead(acc.getDefiningOp());
  return false;
}

/// `result` (now in the mma layout) back in `before` for its users, unless only a loop
/// carrying the accumulator uses it.
void convertResultBack(Value result, Type before, bool carried, OpBuilder &b) {
  if (carried) return;
  b.setInsertionPointAfterValue(result);
  auto back = ConvertLayoutOp::create(b, result.getLoc(), before, result);
  result.replaceAllUsesExcept(back, back);
}

/// The outermost loop around `user` that `v` is defined outside of (a loop-invariant
/// operand), else null.
Operation *outermostInvariantLoop(Value v, Operation *user) {
  Operation *outermost = nullptr;
  for (Operation *p = user->getParentOp(); p && !isa<func::FuncOp>(p); p = p->getParentOp()) {
    auto loop = dyn_cast<LoopLikeOpInterface>(p);
    if (!loop) continue;
    if (!loop.isDefinedOutsideOfLoop(v)) break;
    outermost = p;
  }
  return outermost;
}

/// Whether wgmma reads a from registers: f16/bf16 computed in registers (not a load,
/// which is staged from global memory anyway, nor a `trans`, whose conversion would move
/// through shared memory too) and recomputed by the dot's loop (a loop-invariant a is
/// better written once to a buffer before the loop than held in registers through it).
bool registerA(DotOp dot) {
  Value source = unconverted(dot.getA());
  if (!isa<Float16Type, BFloat16Type>(dot.getA().getType().getElementType())) return false;
  if (Operation *def = source.getDefiningOp(); def && isa<LoadOp, TransOp>(def)) return false;
  // Another dot reads it as b, which wgmma takes from a buffer only: this one reads that buffer
  // too (attention backward's dSᵀ, a of dK and b of dQᵀ), its registers free once written.
  for (Operation *user : source.getUsers()) {
    if (auto other = dyn_cast<DotOp>(user); other && other != dot && other.getB() == source) return false;
    if (auto cvt = dyn_cast<ConvertLayoutOp>(user))
      for (Operation *reader : cvt->getUsers())
        if (auto other = dyn_cast<DotOp>(reader); other && other != dot && unconverted(other.getB()) == source)
          return false;
  }
  return !outermostInvariantLoop(source, dot);
}

/// The #tile.nvmma_shared buffer of wgmma operand `source`, written at `at`: one that an
/// earlier dot wrote there already (attention's K block feeds S = K Qᵀ and, transposed,
/// dQᵀ = Kᵀ dSᵀ: one buffer and one copy, not two), else a new one.
Value operandBuffer(OpBuilder &at, DotOp dot, Value source) {
  auto type = cast<RankedTensorType>(source.getType());
  const MemDescType wanted = nvmmaBuffer(type);
  for (Operation *user : source.getUsers())
    if (auto alloc = dyn_cast<LocalAllocOp>(user); alloc && alloc.getType() == wanted &&
                                                   alloc->getBlock() == at.getBlock() &&
                                                   alloc->isBeforeInBlock(&*at.getInsertionPoint()))
      return alloc;
  auto alloc = LocalAllocOp::create(at, dot.getLoc(), wanted, source);
  // The tensor cores would truncate f32 to tf32: the write rounds, as tile.dot's TF32 does.
  if (type.getElementType().isF32()) alloc.setRoundTf32(true);
  return alloc;
}

/// tile.dot -> tile.warpgroup_dot over #tile.nvmma_shared buffers written from the
/// operands' own (coalesced) layouts, each before the outermost loop its source is invariant
/// in; a transposed operand's source written as it is and viewed transposed. With
/// `registerA`, a is converted to #tile.dot_operand<0, mma> instead.
void accelerateWithWgmma(DotOp dot, MmaLayoutAttr mma, unsigned warps, const DenseMap<unsigned, unsigned> &widths) {
  OpBuilder b(dot);
  Type blockedResult = dot.getType();
  const bool aInRegisters = registerA(dot);
  const bool carried = accumulateIn(dot, mma, b);
  SmallVector<Value> operands;
  if (aInRegisters)
    operands.push_back(convertTo(b, unconverted(dot.getA()), DotOperandLayoutAttr::get(dot.getContext(), 0, mma)));
  for (unsigned idx = aInRegisters ? 1 : 0; idx < 2; ++idx) {
    Value fma = idx == 0 ? dot.getA() : dot.getB();
    // A transposed operand is read through a transposed view of its source's buffer: b
    // K-major (bᵀ [N, K] loads, and TF32), a MN-major (attention's dQᵀ = Kᵀ dSᵀ reads the K
    // block's buffer). wgmma reads MN-major operands of 16-bit types only: a TF32 a stays
    // on mma.sync (wgmmaLayoutFor).
    TransOp trans = transposeOf(fma);
    Value source = trans ? unconverted(trans.getSrc()) : unconverted(fma);
    fitLoadToShape(source, warps, widths);
    OpBuilder at(dot);
    if (Operation *loop = outermostInvariantLoop(source, dot)) {
      at.setInsertionPoint(loop);
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << dot.getLoc() << ": operand " << source.getType()
                              << " is loop-invariant: its buffer is written before the loop at " << loop->getLoc()
                              << "\n");
    }
    Value buffer = operandBuffer(at, dot, source);
    if (trans)
      buffer = MemDescTransOp::create(at, dot.getLoc(),
                                      MemDescTransOp::transposedType(cast<MemDescType>(buffer.getType())), buffer);
    operands.push_back(buffer);
  }
  auto wgmma =
      WarpGroupDotOp::create(b, dot.getLoc(), withLayout(blockedResult, mma), operands[0], operands[1], dot.getAcc());
  // All at once: A and B may be one value, or A's producers may feed B's.
  Operation *feeders[] = {dot.getA().getDefiningOp(), dot.getB().getDefiningOp(), transposeOf(dot.getA()),
                          transposeOf(dot.getB())};
  dot.getResult().replaceAllUsesWith(wgmma.getResult());
  dot.erase();
  eraseIfDead(feeders);
  convertResultBack(wgmma.getResult(), blockedResult, carried, b);
}

void accelerate(DotOp dot, unsigned warps, const DenseMap<unsigned, unsigned> &widths) {
  if (std::optional<MmaLayoutAttr> v3 = wgmmaLayoutFor(dot, warps)) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << dot.getLoc() << ": wgmma (tile.warpgroup_dot), " << *v3
                            << (registerA(dot) ? ", a in registers" : "")
                            << (isCarriedAccumulator(dot) ? ", accumulator carried by its loop" : "") << "\n");
    return accelerateWithWgmma(dot, *v3, warps, widths);
  }
  std::optional<MmaLayoutAttr> mma = mmaLayoutFor(dot, warps);
  if (!mma) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << dot.getLoc() << ": stays on CUDA cores (sm_"
                            << targetComputeCapability(dot) << ", " << dot.getA().getType() << " x "
                            << dot.getB().getType() << ", " << warps << " warps: no whole mma tiles per warp)\n");
    return;
  }
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << dot.getLoc() << ": mma.sync, " << *mma
                          << (isCarriedAccumulator(dot) ? ", accumulator carried by its loop" : "") << "\n");
  MLIRContext *ctx = dot.getContext();
  OpBuilder b(dot);
  Type blockedResult = dot.getType();
  const bool carried = accumulateIn(dot, *mma, b);
  for (unsigned idx : {0u, 1u}) {
    OpOperand &operand = idx == 0 ? dot.getAMutable() : dot.getBMutable();
    Value fma = operand.get(), source = unconverted(fma);
    fitLoadToShape(source, warps, widths);
    operand.assign(convertTo(b, source, DotOperandLayoutAttr::get(ctx, idx, *mma)));
    eraseIfDead(fma.getDefiningOp());
  }
  dot.getResult().setType(withLayout(blockedResult, *mma));
  // A carried accumulator's only user is the yield, which carries the mma layout now.
  convertResultBack(dot.getResult(), blockedResult, carried, b);
}

struct AccelerateMatmul : mlir::tile::impl::TileAccelerateMatmulBase<AccelerateMatmul> {
  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(kKernelAttr)) return;
      SmallVector<DotOp> dots;
      func.walk([&](DotOp d) { dots.push_back(d); });
      if (dots.empty()) return;
      const unsigned warps = kernelWarps(func);
      assert(warps > 0 && "the verifier bounds tile.num_warps to 1..32");
      const DenseMap<unsigned, unsigned> widths = accessVectorWidths(func);
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] @" << func.getSymName() << ": " << dots.size() << " dot(s), "
                              << warps << " warps\n");
      for (DotOp d : dots) accelerate(d, warps, widths);
    });
  }
};

} // namespace
