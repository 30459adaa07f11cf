//===- SharedMemoryOps.cpp - buffers, ldmatrix, cp.async, barriers ---------===//
// A tile.memdesc lowers to its base address (addrspace 3). Registers move between
// tensors and buffers at the offsets SharedAccess.h derives from the two layouts; reads
// into mma.sync operand fragments use ldmatrix, whose addresses are one more linear
// layout (see LdmatrixLowering).
#include "SharedAccess.h"

#include "tile/Layout/SharedLayouts.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;
namespace ll = ::tile::layout;

namespace {

unsigned bufferBytes(MemDescType t) { return t.getNumElements() * sharedBytesOf(t.getElementType()); }

struct LocalAllocLowering : OpConversionPattern<LocalAllocOp> {
  LocalAllocLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem)
      : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;

  LogicalResult matchAndRewrite(LocalAllocOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kSharedOffsetAttr);
    if (!offset) return op.emitOpError("has no shared-memory offset (tile-allocate-shared must run first)");
    Location loc = op.getLoc();
    Value base = smem.at(rewriter, loc, offset.getInt(), bufferBytes(op.getType()));
    if (op.getSrc()) {
      ThreadLayout regs = ThreadLayout::get(op.getSrc().getType());
      SmallVector<Value> values(adaptor.getSrc().begin(), adaptor.getSrc().end());
      if (op.getRoundTf32())
        for (Value &v : values) v = roundToTf32(rewriter, loc, v);
      storeRegisters(rewriter, loc, base, regs, registerOffsets(regs, op.getType()), values,
                     op.getType().getElementType());
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LocalStoreLowering : OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ThreadLayout regs = ThreadLayout::get(op.getSrc().getType());
    storeRegisters(rewriter, op.getLoc(), adaptor.getDst()[0], regs, registerOffsets(regs, op.getDst().getType()),
                   adaptor.getSrc(), op.getDst().getType().getElementType());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MemDescIndexLowering : OpConversionPattern<MemDescIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MemDescIndexOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IntBuilder ib{rewriter, loc};
    Value byteOffset = ib.mul(adaptor.getIndex()[0], ib.c(bufferBytes(op.getType())));
    Value base = adaptor.getSrc()[0];
    rewriter.replaceOp(
        op, LLVM::GEPOp::create(rewriter, loc, base.getType(), rewriter.getI8Type(), base, ValueRange{byteOffset}));
    return success();
  }
};

/// A transposed view is the same bytes: its users read the layout off its type.
struct MemDescTransLowering : OpConversionPattern<MemDescTransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MemDescTransOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc()[0]);
    return success();
  }
};

/// ldmatrix reads 8x8 blocks of 16-bit elements: lane i gives the address of row i % 8
/// of block i / 8, and receives per block one 32-bit register holding two elements. For an
/// mma.sync operand fragment a block is one register word: pair p of the fragment comes
/// from block p % num of instruction p / num. So the addresses are a linear layout over
/// (lane, warp, instruction): lane bits 0-2 step through the block's rows, lane bits 3-4
/// and the instruction's bits through the register words, warp bits as the operand's. For
/// operand a the word is along K (the contiguous dimension of the buffer): a block's row
/// is a row of the tile. For b the pair is along K = dim0 while N is contiguous: .trans
/// hands each lane the column pair. tf32 (32-bit elements): a block row is four elements
/// along the buffer's contiguous dimension and each word one element, which lane i % 4 of
/// the row gets: no pair bit and no .trans form, so it serves operand a from a row-major
/// buffer and operand b from a column-major one (K contiguous; b from a row-major buffer
/// reads element by element).
struct LdmatrixPlan {
  int num = 0; ///< matrices per instruction (1, 2 or 4)
  bool trans = false;
  int elemsPerWord = 2;     ///< 2 for 16-bit elements, 1 for 32-bit
  ll::LinearLayout address; ///< (lane, warp, instr) -> element offset
};

std::optional<LdmatrixPlan> planLdmatrix(const ThreadLayout &regs, MemDescType buffer) {
  const unsigned elemBytes = sharedBytesOf(buffer.getElementType());
  if ((elemBytes != 2 && elemBytes != 4) || buffer.getRank() != 2) return std::nullopt;
  const int rowElems = int(16 / elemBytes); // one 16-byte block row
  auto enc = dyn_cast<SwizzledSharedLayoutAttr>(buffer.getEncoding());
  if (!enc) return std::nullopt; // nvmma_shared tiles are read by wgmma; element-wise here
  const int contiguous = int(enc.getOrder()[0]);
  if (elemBytes == 2 && contiguous != 1) return std::nullopt; // 16-bit pairs: row-major buffers only
  // A block row (16 bytes) must be contiguous and aligned.
  if (buffer.getShape()[contiguous] % rowElems || (enc.getMaxPhase() > 1 && int(enc.getVec()) < rowElems))
    return std::nullopt;
  const ll::LinearLayout &l = regs.linear;
  const int regBits = l.getInDimSizeLog2("register");
  auto basis = [&](const char *dim, int bit) { return l.getBasis(dim, bit); };
  LdmatrixPlan plan;
  plan.elemsPerWord = elemBytes == 2 ? 2 : 1;
  const int pairBits = elemBytes == 2 ? 1 : 0;
  if (regBits < pairBits) return std::nullopt;
  if (elemBytes == 2) {
    plan.trans = basis("register", 0)[0] != 0; // the pair runs along dim0
  } else {
    // A lane's word must be the row's element lane % 4: lane bits 0-1 step the contiguous dimension.
    auto along = [&](int32_t step) {
      return contiguous == 1 ? ll::LinearLayout::Basis{0, step} : ll::LinearLayout::Basis{step, 0};
    };
    if (l.getInDimSizeLog2("lane") != 5 || basis("lane", 0) != along(1) || basis("lane", 1) != along(2))
      return std::nullopt;
  }
  const int wordBits = regBits - pairBits;
  const int numBits = std::min(2, wordBits);
  plan.num = 1 << numBits;
  // Rows of a block: non-trans, the lanes' group bits (lane bits 2-4 step dim0); trans,
  // the pair's element bit then lane bits 0-1 (k = 2 * (lane % 4) + element).
  std::vector<ll::LinearLayout::Basis> lane, warp, instr;
  if (!plan.trans) {
    for (int b = 2; b < 5; ++b) lane.push_back(basis("lane", b));
  } else {
    lane.push_back(basis("register", 0));
    lane.push_back(basis("lane", 0));
    lane.push_back(basis("lane", 1));
  }
  for (int b = 0; b < 2; ++b)
    lane.push_back(b < numBits ? basis("register", pairBits + b) : ll::LinearLayout::Basis{0, 0});
  for (int b = pairBits + numBits; b < regBits; ++b) instr.push_back(basis("register", b));
  for (int b = 0; b < l.getInDimSizeLog2("warp"); ++b) warp.push_back(basis("warp", b));
  ll::LinearLayout coords =
      widenToBuffer(ll::LinearLayout({{"lane", lane}, {"warp", warp}, {"register", instr}}, l.getOutDims()), buffer);
  plan.address = ll::registersToOffsets(coords, sharedTileLayout(buffer));
  // Every address must start a block row (16 aligned bytes): each basis moves by whole
  // rows or 16-byte chunks.
  for (const auto &[name, list] : plan.address.getBases())
    for (const auto &b : list)
      if (b[0] % rowElems) return std::nullopt;
  return plan;
}

struct LocalLoadLowering : OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout regs = ThreadLayout::get(op.getType());
    MemDescType buffer = op.getSrc().getType();
    Type elem = buffer.getElementType();
    Value base = adaptor.getSrc()[0];
    // A window (a K slice of a dot operand) XORs its origin's offset into every address.
    const int32_t window = windowOffset(buffer, op.getOffsets() ? *op.getOffsets() : ArrayRef<int64_t>());
    std::optional<LdmatrixPlan> plan;
    if (isa<DotOperandLayoutAttr>(op.getType().getEncoding()) && window % 8 == 0) plan = planLdmatrix(regs, buffer);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.local_load at " << loc << ": "
                            << (plan ? "ldmatrix" : "one shared load per register group") << " from " << buffer
                            << "\n");
    if (!plan) {
      rewriter.replaceOpWithMultiple(
          op, {loadRegisters(rewriter, loc, base, regs, registerOffsets(regs, buffer), elem, window)});
      return success();
    }
    ThreadPosition pos = emitThreadPosition(rewriter, loc, regs);
    OffsetIndexer address(rewriter, loc, plan->address, pos, window);
    Type i32 = rewriter.getI32Type();
    SmallVector<Type> fields(plan->num, i32);
    Type resultType = plan->num == 1 ? i32 : Type(LLVM::LLVMStructType::getLiteral(rewriter.getContext(), fields));
    auto pairType = VectorType::get({2}, elem);
    SmallVector<Value> out;
    const unsigned instructions = regs.numRegs() / (plan->elemsPerWord * plan->num);
    for (unsigned i = 0; i < instructions; ++i) {
      Value ptr = sharedElementPtr(rewriter, loc, base, elem, address.index(rewriter, loc, i));
      Value res = NVVM::LdMatrixOp::create(
          rewriter, loc, resultType, ptr, plan->num, plan->trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
      for (int j = 0; j < plan->num; ++j) {
        Value word = plan->num == 1 ? res : Value(LLVM::ExtractValueOp::create(rewriter, loc, res, j));
        if (plan->elemsPerWord == 1) { // tf32: the word is the element
          out.push_back(LLVM::BitcastOp::create(rewriter, loc, elem, word));
          continue;
        }
        Value pair = LLVM::BitcastOp::create(rewriter, loc, pairType, word);
        for (int e = 0; e < 2; ++e)
          out.push_back(
              LLVM::ExtractElementOp::create(rewriter, loc, pair, LLVM::ConstantOp::create(rewriter, loc, i32, e)));
      }
    }
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

/// cp.async: `tile.vec` consecutive elements per instruction (4, 8 or 16 bytes); a
/// masked-off group copies 0 bytes and zero-fills its destination.
struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout regs = ThreadLayout::get(op.getPtrs().getType());
    MemDescType buffer = op.getDst().getType();
    Type elem = buffer.getElementType();
    ll::LinearLayout offsets = registerOffsets(regs, buffer);
    const unsigned vec = std::min(vecOf(op), offsetVectorWidth(offsets, elem));
    const unsigned bytes = vec * sharedBytesOf(elem);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.async_copy at " << loc << ": cp.async of " << bytes
                            << " bytes (tile.vec " << vecOf(op)
                            << ", contiguous in the buffer: " << offsetVectorWidth(offsets, elem) << ")\n");
    if (bytes != 4 && bytes != 8 && bytes != 16)
      return op.emitOpError("copies ") << bytes << " contiguous bytes per thread; cp.async needs 4, 8 or 16";
    IntBuilder ib{rewriter, loc};
    const ThreadPosition pos = emitThreadPosition(rewriter, loc, regs);
    OffsetIndexer index(rewriter, loc, offsets, pos);
    ValueRange ptrs = adaptor.getPtrs(), masks = adaptor.getMask();
    Value base = adaptor.getDst()[0];
    auto modifier = bytes == 16 ? NVVM::LoadCacheModifierKind::CG : NVVM::LoadCacheModifierKind::CA;
    // Only the owner of each element copies it (as storeRegisters stores): copies from
    // replicas would be unordered writes of one address. Threads that copy nothing still
    // commit and wait on (empty) groups.
    OpBuilder::InsertionGuard guard(rewriter);
    enterOwnerThreads(rewriter, loc, regs, pos);
    for (unsigned r = 0; r < regs.numRegs(); r += vec) {
      if (regs.isRegisterReplica(r)) continue;
      Value dst = sharedElementPtr(rewriter, loc, base, elem, index.index(rewriter, loc, r));
      Value srcSize =
          masks.empty() ? Value() : Value(arith::SelectOp::create(rewriter, loc, masks[r], ib.c(bytes), ib.c(0)));
      NVVM::CpAsyncOp::create(rewriter, loc, dst, ptrs[r], rewriter.getI32IntegerAttr(bytes),
                              NVVM::LoadCacheModifierKindAttr::get(rewriter.getContext(), modifier), srcSize);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

template <class Op> struct Replace : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if constexpr (std::is_same_v<Op, AsyncCommitGroupOp>) NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    else if constexpr (std::is_same_v<Op, AsyncWaitOp>)
      NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, op.getPending());
    else emitProgramBarrier(rewriter, loc, op);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateSharedMemoryPatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                                              SharedMemory &smem) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LocalAllocLowering>(converter, ctx, smem);
  patterns.add<LocalStoreLowering, MemDescIndexLowering, MemDescTransLowering, LocalLoadLowering, AsyncCopyLowering,
               Replace<AsyncCommitGroupOp>, Replace<AsyncWaitOp>, Replace<BarrierOp>>(converter, ctx);
}
