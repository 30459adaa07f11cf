//===- WarpGroupDot.cpp - tile.warpgroup_dot: Hopper's wgmma.mma_async ----===//
// Each warpgroup (four consecutive warps) owns 64-row slabs of the #tile.mma accumulator
// (warpsPerCTA = [4 G, 1]: warp w holds rows 16 w + 16 * 4G * r for repetition r, so
// warpgroup g holds rows 64 (g + G r) .. +63). Per slab and K step of 16 it issues one
// wgmma.mma_async m64nNk16 reading both operands from shared memory through matrix
// descriptors, in increasing k; then commits the group and waits until at most
// `pendings` groups are in flight (tile.warpgroup_dot_wait waits for the rest).
//
// Descriptors (PTX ISA, "Matrix Descriptor Format"): start address >> 4 (bits 0-13),
// leading byte offset >> 4 (16-29), stride byte offset >> 4 (32-45), swizzle mode
// (62-63: 1 = 128 B, 2 = 64 B, 3 = 32 B). An operand is K-major when its buffer stores
// rows of K (a untransposed, b transposed: OperandTiles): 8-row atoms one stride
// (8 x swizzle bytes) apart, the leading offset unused. Otherwise it is MN-major (wgmma's
// "transposed" operand, 16-bit types only): rows of K store M or N, 8-row atoms along K one
// stride apart, column groups (swizzle bytes of M or N) one leading offset (K x swizzle
// bytes) apart. A step along K inside a swizzle row adds its byte offset to the start
// address: the hardware swizzles absolute address bits, and buffers start 1024-byte aligned.
#include "SharedAccess.h"
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

#include <cassert>

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

int swizzleMode(unsigned swizzleBytes) { return swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3; }

/// The descriptor of the tile at `base` (a shared pointer) plus `byteOffset` bytes.
Value descriptor(OpBuilder &b, Location loc, Value base, Value byteOffset, int64_t leadingBytes, int64_t strideBytes,
                 unsigned swizzleBytes) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value addr = LLVM::PtrToIntOp::create(b, loc, i32, base);
  addr = LLVM::AddOp::create(b, loc, addr, byteOffset);
  Value field =
      LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, addr, LLVM::ConstantOp::create(b, loc, i32, 4)),
                          LLVM::ConstantOp::create(b, loc, i32, 0x3FFF));
  const uint64_t fixed = (uint64_t(leadingBytes >> 4) & 0x3FFF) << 16 | (uint64_t(strideBytes >> 4) & 0x3FFF) << 32 |
                         uint64_t(swizzleMode(swizzleBytes)) << 62;
  return LLVM::OrOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i64, field),
                            LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(int64_t(fixed))));
}

/// Where one operand's instruction tiles lie in its #tile.nvmma_shared buffer (see above).
struct OperandTiles {
  bool kMajor;
  int64_t k, swizzle, elemBytes;

  /// Operand a ([M, K], isB false) or b ([K, N]) of type `t`.
  static OperandTiles of(MemDescType t, bool isB) {
    auto nvmma = cast<NvmmaSharedLayoutAttr>(t.getEncoding());
    return {nvmma.getTransposed() == isB, t.getShape()[isB ? 0 : 1], int64_t(nvmma.getSwizzle()),
            sharedBytesOf(t.getElementType())};
  }
  /// Byte offset of the tile at M or N row `mn0` (a multiple of 64 for a, 0 for b) and
  /// column k0 (a multiple of the instruction's K). `extent` is the buffer's M or N.
  /// K-major: rows of `swizzle` bytes, column groups of W = swizzle / elemBytes K elements
  /// extent x swizzle bytes apart. MN-major: row k0 of the first column group holding mn0
  /// (W divides 64, so mn0 starts a group; groups are K x swizzle bytes apart).
  Value offset(IntBuilder &ib, Value mn0, int64_t k0, int64_t extent) const {
    const int64_t groupCols = swizzle / elemBytes;
    if (kMajor)
      return ib.add(ib.mul(mn0, ib.c(swizzle)),
                    ib.c((k0 / groupCols) * extent * swizzle + (k0 % groupCols) * elemBytes));
    return ib.add(ib.mul(mn0, ib.c(k * elemBytes)), ib.c(k0 * swizzle));
  }
  int64_t leadingBytes() const { return kMajor ? 16 /* unused */ : k * swizzle; }
  int64_t strideBytes() const { return 8 * swizzle; }
  NVVM::MMALayout layout(bool isB) const {
    return kMajor == isB ? NVVM::MMALayout::col : NVVM::MMALayout::row; // a row / b col: K-major
  }
};

/// `regs` passed through an empty side-effecting inline asm placed after the wait: LLVM
/// keeps side effects in order, so every later use reads the registers after the wait.
/// (The wait intrinsic itself names no registers; arithmetic on the accumulators could
/// otherwise be scheduled above it and read them while wgmma still writes them.)
SmallVector<Value> tieAfterWait(OpBuilder &b, Location loc, ValueRange regs) {
  SmallVector<Type> types;
  std::string constraints;
  for (size_t i = 0; i < regs.size(); ++i) {
    types.push_back(regs[i].getType());
    constraints += (i ? ",=f" : "=f");
  }
  for (size_t i = 0; i < regs.size(); ++i) constraints += "," + std::to_string(i);
  auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto tied = LLVM::InlineAsmOp::create(b, loc, structType, regs, b.getStringAttr(""), b.getStringAttr(constraints),
                                        b.getUnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
                                        ArrayAttr());
  SmallVector<Value> out;
  for (size_t i = 0; i < regs.size(); ++i) out.push_back(LLVM::ExtractValueOp::create(b, loc, tied.getRes(), i));
  return out;
}

struct WarpGroupDotLowering : OpConversionPattern<WarpGroupDotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(WarpGroupDotOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType aType = op.getA().getType(), bType = op.getB().getType();
    auto mma = cast<MmaLayoutAttr>(op.getType().getEncoding());
    const int64_t m = op.getType().getDimSize(0), n = op.getType().getDimSize(1), k = aType.getShape()[1];
    const bool tf32 = aType.getElementType().isF32();
    const int64_t kStep = tf32 ? 8 : 16; // 32 bytes of K per instruction
    const int64_t groups = mma.getWarpsPerCTA()[0] / 4, mReps = m / (64 * groups), kSteps = k / kStep;
    assert(groups > 0 && m % (64 * groups) == 0 && k % kStep == 0 &&
           "WarpGroupDotOp::verify: whole warpgroups, 64-row slabs per group, whole K steps");
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.warpgroup_dot at " << loc << ": " << groups << " warpgroup(s), "
                            << mReps << " x m64n" << n << "k" << kStep << " per group, " << kSteps << " K step(s)"
                            << (tf32 ? " (tf32)" : "") << "\n");
    const OperandTiles tilesA = OperandTiles::of(aType, false), tilesB = OperandTiles::of(bType, true);
    IntBuilder ib{rewriter, loc};

    ThreadPosition pos = emitThreadPosition(rewriter, loc, ThreadLayout::get(op.getType()));
    Value group = ib.udiv(pos.warp, 4);
    Value aBase = adaptor.getA()[0], bBase = adaptor.getB()[0];

    Type f32 = rewriter.getF32Type();
    const int64_t perSlab = n / 2; // f32 accumulators per thread of one m64nN instruction
    SmallVector<Type> fields(perSlab, f32);
    auto accType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), fields);
    SmallVector<Value> acc(adaptor.getAcc().begin(), adaptor.getAcc().end());
    if (int64_t(acc.size()) != perSlab * mReps)
      return op.emitOpError("lowering: ") << acc.size() << " accumulator registers, expected " << perSlab * mReps;

    auto ptx = tf32                             ? NVVM::WGMMATypes::tf32
               : aType.getElementType().isF16() ? NVVM::WGMMATypes::f16
                                                : NVVM::WGMMATypes::bf16;
    auto shape = NVVM::MMAShapeAttr::get(rewriter.getContext(), 64, int(n), int(kStep));
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t r = 0; r < mReps; ++r) {
      // Registers of slab r: the accumulator layout numbers them (fragment, N, M), and one
      // slab's fragments along N are exactly the instruction's result registers in order.
      Value d = LLVM::UndefOp::create(rewriter, loc, accType);
      for (int64_t i = 0; i < perSlab; ++i) d = LLVM::InsertValueOp::create(rewriter, loc, d, acc[r * perSlab + i], i);
      Value slabRow = ib.mul(ib.add(group, ib.c(groups * r)), ib.c(64));
      for (int64_t s = 0; s < kSteps; ++s) {
        // Tile starts are multiples of 8 rows and 32 bytes of K: no swizzle XOR applies to them.
        Value descA = descriptor(rewriter, loc, aBase, tilesA.offset(ib, slabRow, kStep * s, m), tilesA.leadingBytes(),
                                 tilesA.strideBytes(), tilesA.swizzle);
        Value descB = descriptor(rewriter, loc, bBase, tilesB.offset(ib, ib.c(0), kStep * s, n), tilesB.leadingBytes(),
                                 tilesB.strideBytes(), tilesB.swizzle);
        d = NVVM::WgmmaMmaAsyncOp::create(rewriter, loc, accType, d, descA, descB, shape, ptx, ptx,
                                          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
                                          NVVM::WGMMAScaleIn::one, tilesA.layout(false), tilesB.layout(true),
                                          /*satfinite=*/nullptr);
      }
      for (int64_t i = 0; i < perSlab; ++i) acc[r * perSlab + i] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, rewriter.getI64IntegerAttr(op.getPendings()));
    rewriter.replaceOpWithMultiple(op, {op.getPendings() ? acc : tieAfterWait(rewriter, loc, acc)});
    return success();
  }
};

struct WarpGroupDotWaitLowering : OpConversionPattern<WarpGroupDotWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(WarpGroupDotWaitOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, op.getLoc(), rewriter.getI64IntegerAttr(op.getPendings()));
    SmallVector<SmallVector<Value>> results;
    for (ValueRange regs : adaptor.getInputs()) results.push_back(tieAfterWait(rewriter, op.getLoc(), regs));
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

struct FenceAsyncSharedLowering : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FenceAsyncSharedOp op, OneToNOpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::FenceProxyOp::create(rewriter, op.getLoc(),
                               NVVM::ProxyKindAttr::get(rewriter.getContext(), NVVM::ProxyKind::async_shared),
                               NVVM::SharedSpaceAttr::get(rewriter.getContext(), NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateWarpGroupDotPatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WarpGroupDotLowering, WarpGroupDotWaitLowering, FenceAsyncSharedLowering>(converter,
                                                                                         patterns.getContext());
}
