//===- WarpGroupDot.cpp - tile.warpgroup_dot: Hopper's wgmma.mma_async ----===//
// Each warpgroup (four consecutive warps) owns 64-row slabs of the #tile.mma accumulator
// (warpsPerCTA = [4 G, 1]: warp w holds rows 16 w + 16 * 4G * r for repetition r, so
// warpgroup g holds rows 64 (g + G r) .. +63). Per slab and K step of 16 it issues one
// wgmma.mma_async m64nNk16 reading both operands from shared memory through matrix
// descriptors, in increasing k; then commits the group and waits until at most
// `pendings` groups are in flight (tile.warpgroup_dot_wait waits for the rest).
//
// A register a (wgmma's "RS" form, f16/bf16, #tile.dot_operand<0, mma>): each thread passes
// four b32 registers of two halves per slab and K step, the fragment mma.sync m16n8k16 reads
// (rows lane/4 and +8 of its warp's 16-row part, columns 2 (lane % 4) + {0, 1} and +8). The
// layout's linear layout says which of the tensor's registers holds which of those elements
// (RegisterA). MLIR's NVVM dialect has no wgmma op with a register a (NVVM::WgmmaMmaAsyncOp
// takes descriptors only), so that instruction is inline PTX, accumulators tied in and out.
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
#include <map>
#include <optional>
#include <string>

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

int swizzleMode(unsigned swizzleBytes) { return swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3; }

/// The matrix descriptor of the tile at `base` (a shared pointer) plus `byteOffset` bytes, as
/// its start address field (address >> 4, an i32) and its fixed fields: descriptorAt joins
/// them. Shared addresses are below 2^18 (the window is 228 KiB), so address >> 4 fills the
/// 14-bit field without a mask, and a tile `bytes` further in the same buffer (a multiple of
/// 16) is the field plus bytes >> 4: one 32-bit add per instruction instead of rebuilding each
/// descriptor from its address, as CUTLASS's descriptor iterator does. (The add stays on the
/// low half: an i64 add would hide from ptxas that the high half is a constant, two registers
/// for each descriptor LLVM hoists out of a loop.)
struct Descriptor {
  Value startField;
  uint64_t fixed;
};
Descriptor descriptor(OpBuilder &b, Location loc, Value base, Value byteOffset, int64_t leadingBytes,
                      int64_t strideBytes, unsigned swizzleBytes) {
  Type i32 = b.getI32Type();
  Value addr = LLVM::AddOp::create(b, loc, LLVM::PtrToIntOp::create(b, loc, i32, base), byteOffset);
  const uint64_t fixed = (uint64_t(leadingBytes >> 4) & 0x3FFF) << 16 | (uint64_t(strideBytes >> 4) & 0x3FFF) << 32 |
                         uint64_t(swizzleMode(swizzleBytes)) << 62;
  return {LLVM::LShrOp::create(b, loc, addr, LLVM::ConstantOp::create(b, loc, i32, 4)), fixed};
}

/// The 64-bit descriptor of the tile `bytes` past `d`'s.
Value descriptorAt(OpBuilder &b, Location loc, const Descriptor &d, int64_t bytes) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value field = bytes ? LLVM::AddOp::create(b, loc, d.startField, LLVM::ConstantOp::create(b, loc, i32, bytes >> 4))
                      : d.startField;
  return LLVM::OrOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i64, field),
                            LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(int64_t(d.fixed))));
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
  /// column k0 (a multiple of the instruction's K): the part mn0 moves (`rowOffset`) plus the
  /// constant part k0 moves (`columnBytes`). `extent` is the buffer's M or N.
  /// K-major: rows of `swizzle` bytes, column groups of W = swizzle / elemBytes K elements
  /// extent x swizzle bytes apart. MN-major: row k0 of the first column group holding mn0
  /// (W divides 64, so mn0 starts a group; groups are K x swizzle bytes apart).
  Value rowOffset(IntBuilder &ib, Value mn0) const { return ib.mul(mn0, ib.c(kMajor ? swizzle : k * elemBytes)); }
  int64_t columnBytes(int64_t k0, int64_t extent) const {
    const int64_t groupCols = swizzle / elemBytes;
    if (kMajor) return (k0 / groupCols) * extent * swizzle + (k0 % groupCols) * elemBytes;
    return k0 * swizzle;
  }
  int64_t leadingBytes() const { return kMajor ? 16 /* unused */ : k * swizzle; }
  int64_t strideBytes() const { return 8 * swizzle; }
  NVVM::MMALayout layout(bool isB) const {
    return kMajor == isB ? NVVM::MMALayout::col : NVVM::MMALayout::row; // a row / b col: K-major
  }
};

/// `regs` (all of the type `letter` constrains: f for f32, r for i32) passed through an
/// empty side-effecting inline asm: LLVM keeps side effects in order, so every later use reads
/// the registers after this point and every computation of them stays before it.
SmallVector<Value> tieRegisters(OpBuilder &b, Location loc, ValueRange regs, char letter) {
  SmallVector<Type> types;
  std::string constraints;
  for (size_t i = 0; i < regs.size(); ++i) {
    types.push_back(regs[i].getType());
    constraints += (i ? ",=" : "=") + std::string(1, letter);
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

/// The accumulators tied after the wait. (The wait intrinsic itself names no registers;
/// arithmetic on the accumulators could otherwise be scheduled above it and read them while
/// wgmma still writes them.)
SmallVector<Value> tieAfterWait(OpBuilder &b, Location loc, ValueRange regs) { return tieRegisters(b, loc, regs, 'f'); }

/// Which registers of a register a (#tile.dot_operand<0, #tile.mma<[W, 1]>>, 16-bit) hold
/// wgmma's A fragment of each 64-row slab repetition and K step of 16. The instruction wants,
/// in warp w of the warpgroup and lane l, halves h = 0..7 at row 16 w + l / 4 + 8 ((h >> 1) & 1)
/// and column 2 (l % 4) + 8 (h >> 2) + (h & 1) of the slab's K step. The layout's lanes and
/// warps must place (l, w) there (its lane and warp bases are checked); then each half is the
/// register whose own coordinate part is the rest, since the parts occupy disjoint bits.
struct RegisterA {
  /// [(rep * kSteps + s) * 8 + h] -> register index.
  SmallVector<unsigned> regs;

  static FailureOr<RegisterA> find(RankedTensorType type, int64_t warps, int64_t mReps, int64_t kSteps,
                                   std::string &why) {
    ThreadLayout layout = ThreadLayout::get(type);
    const ::tile::layout::LinearLayout &ll = layout.linear;
    using Basis = ::tile::layout::LinearLayout::Basis;
    const Basis laneBases[5] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
    if (ll.getInDimSizeLog2("lane") != 5 || ll.getInDimSize("warp") != warps) {
      why = "its layout does not spread over 32 lanes and the accumulator's warps";
      return failure();
    }
    for (int bit = 0; bit < 5; ++bit)
      if (ll.getBasis("lane", bit) != laneBases[bit]) {
        why = "its lanes do not hold wgmma's A fragment (lane / 4 along M, 2 (lane % 4) along K)";
        return failure();
      }
    for (int bit = 0; bit < ll.getInDimSizeLog2("warp"); ++bit)
      if (ll.getBasis("warp", bit) != Basis{int32_t(16) << bit, 0}) {
        why = "its warps do not hold consecutive 16-row parts";
        return failure();
      }
    std::map<std::pair<int32_t, int32_t>, unsigned> byCoord; // a register's own part -> the register
    for (unsigned r = 0; r < layout.numRegs(); ++r)
      if (!layout.isRegisterReplica(r)) byCoord.emplace(std::pair{layout.regCoord(r, 0), layout.regCoord(r, 1)}, r);
    RegisterA a;
    for (int64_t rep = 0; rep < mReps; ++rep)
      for (int64_t s = 0; s < kSteps; ++s)
        for (int h = 0; h < 8; ++h) {
          auto it =
              byCoord.find({int32_t(16 * warps * rep + 8 * ((h >> 1) & 1)), int32_t(16 * s + 8 * (h >> 2) + (h & 1))});
          if (it == byCoord.end()) {
            why = "no register holds an element of the fragment";
            return failure();
          }
          a.regs.push_back(it->second);
        }
    return a;
  }
};

/// Two 16-bit elements as one b32 register, `lo` in the low half (as wgmma reads a pair).
Value packHalves(OpBuilder &b, Location loc, Value lo, Value hi) {
  auto pair = VectorType::get({2}, lo.getType());
  Value v = LLVM::UndefOp::create(b, loc, pair);
  v = LLVM::InsertElementOp::create(b, loc, v, lo, LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0));
  v = LLVM::InsertElementOp::create(b, loc, v, hi, LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1));
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

/// wgmma.mma_async m64n{N}k16 with a from four b32 registers and b through `descB`, adding
/// into `acc` (scale-d 1; imm-scale-a/b 1; imm-trans-b 1 for an MN-major b: the register form
/// has no imm-trans-a). The accumulators are tied in and out (LLVM has no "+f").
SmallVector<Value> registerWgmma(OpBuilder &b, Location loc, int64_t n, bool f16, bool transB, ValueRange acc,
                                 ArrayRef<Value> a, Value descB) {
  const size_t count = acc.size();
  const std::string type = f16 ? "f16" : "bf16";
  std::string ptx = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." + type + "." + type + " {";
  std::string constraints;
  for (size_t i = 0; i < count; ++i) {
    ptx += (i ? ", $" : "$") + std::to_string(i);
    constraints += i ? ",=f" : "=f";
  }
  const size_t aFirst = 2 * count; // then the tied accumulators' inputs, a's registers, descB
  ptx += "}, {$" + std::to_string(aFirst) + ", $" + std::to_string(aFirst + 1) + ", $" + std::to_string(aFirst + 2) +
         ", $" + std::to_string(aFirst + 3) + "}, $" + std::to_string(aFirst + 4) + ", 1, 1, 1, " +
         (transB ? "1" : "0") + ";";
  for (size_t i = 0; i < count; ++i) constraints += "," + std::to_string(i);
  constraints += ",r,r,r,r,l";
  SmallVector<Value> operands(acc.begin(), acc.end());
  operands.append(a.begin(), a.end());
  operands.push_back(descB);
  SmallVector<Type> fields(count, b.getF32Type());
  auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  auto wgmma = LLVM::InlineAsmOp::create(b, loc, structType, operands, b.getStringAttr(ptx),
                                         b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
                                         LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> out;
  for (size_t i = 0; i < count; ++i) out.push_back(LLVM::ExtractValueOp::create(b, loc, wgmma.getRes(), i));
  return out;
}

struct WarpGroupDotLowering : OpConversionPattern<WarpGroupDotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(WarpGroupDotOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType bType = op.getB().getType();
    auto aBuffer = dyn_cast<MemDescType>(op.getA().getType());
    auto aTensor = dyn_cast<RankedTensorType>(op.getA().getType());
    auto mma = cast<MmaLayoutAttr>(op.getType().getEncoding());
    Type elem = bType.getElementType();
    const int64_t m = op.getType().getDimSize(0), n = op.getType().getDimSize(1), k = bType.getShape()[0];
    const bool tf32 = elem.isF32();
    const int64_t kStep = tf32 ? 8 : 16; // 32 bytes of K per instruction
    const int64_t warps = mma.getWarpsPerCTA()[0], groups = warps / 4, mReps = m / (64 * groups), kSteps = k / kStep;
    assert(groups > 0 && m % (64 * groups) == 0 && k % kStep == 0 &&
           "WarpGroupDotOp::verify: whole warpgroups, 64-row slabs per group, whole K steps");
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.warpgroup_dot at " << loc << ": " << groups << " warpgroup(s), "
                            << mReps << " x m64n" << n << "k" << kStep << " per group, " << kSteps << " K step(s)"
                            << (tf32 ? " (tf32)" : "") << (aTensor ? ", a in registers" : "") << "\n");
    const OperandTiles tilesB = OperandTiles::of(bType, true);
    IntBuilder ib{rewriter, loc};

    // A register a: its fragments packed (two halves per b32) before the fence, and kept
    // there: wgmma.fence must separate the writes of a's registers from the wgmmas reading them.
    SmallVector<Value> aPacked;
    if (aTensor) {
      std::string why;
      FailureOr<RegisterA> fragments = RegisterA::find(aTensor, warps, mReps, kSteps, why);
      if (failed(fragments)) return op.emitOpError("lowering: register a ") << aTensor << ": " << why;
      ValueRange aRegs = adaptor.getA();
      for (size_t i = 0; i < fragments->regs.size(); i += 2)
        aPacked.push_back(packHalves(rewriter, loc, aRegs[fragments->regs[i]], aRegs[fragments->regs[i + 1]]));
      aPacked = tieRegisters(rewriter, loc, aPacked, 'r');
    }

    // A buffer a: each warpgroup's slabs start at its own rows. The group index is warp-uniform
    // to ptxas (warpUniform, as CUTLASS's canonical_warp_group_idx), which then keeps a's
    // descriptors in uniform registers. Derived from %tid.x alone, each descriptor took two of
    // every thread's registers, and LLVM hoists the loop-invariant ones (a K block's 8 per dot)
    // out of the loop, 16 registers each.
    Value group;
    if (aBuffer)
      group = warpUniform(rewriter, loc,
                          ib.udiv(emitThreadPosition(rewriter, loc, ThreadLayout::get(op.getType())).warp, 4));
    Value bBase = adaptor.getB()[0];

    Type f32 = rewriter.getF32Type();
    const int64_t perSlab = n / 2; // f32 accumulators per thread of one m64nN instruction
    SmallVector<Type> fields(perSlab, f32);
    auto accType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), fields);
    SmallVector<Value> acc(adaptor.getAcc().begin(), adaptor.getAcc().end());
    if (int64_t(acc.size()) != perSlab * mReps)
      return op.emitOpError("lowering: ") << acc.size() << " accumulator registers, expected " << perSlab * mReps;

    auto ptx = tf32 ? NVVM::WGMMATypes::tf32 : elem.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
    auto shape = NVVM::MMAShapeAttr::get(rewriter.getContext(), 64, int(n), int(kStep));
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    // Tile starts are multiples of 8 rows and 32 bytes of K: no swizzle XOR applies to them.
    // With a register a, each K step's b descriptor is b's first plus the step (descriptorAt):
    // those wgmmas issue back to back after the softmax. Shared-memory dots build each one
    // from its address: stepping those (and a's) from one base spilled 12-20 bytes in the
    // backward's one-pass tiles (ptxas kept more of the descriptors LLVM hoists out of loops).
    auto descriptorOfB = [&](int64_t bytes) {
      return descriptor(rewriter, loc, bBase, ib.c(bytes), tilesB.leadingBytes(), tilesB.strideBytes(), tilesB.swizzle);
    };
    std::optional<Descriptor> descB0;
    if (aTensor) descB0 = descriptorOfB(0);
    auto descB = [&](int64_t s) {
      const int64_t bytes = tilesB.columnBytes(kStep * s, n);
      return descB0 ? descriptorAt(rewriter, loc, *descB0, bytes)
                    : descriptorAt(rewriter, loc, descriptorOfB(bytes), 0);
    };
    for (int64_t r = 0; r < mReps; ++r) {
      // Registers of slab r: the accumulator layout numbers them (fragment, N, M), and one
      // slab's fragments along N are exactly the instruction's result registers in order.
      auto slab = MutableArrayRef<Value>(acc).slice(r * perSlab, perSlab);
      if (aTensor) {
        for (int64_t s = 0; s < kSteps; ++s)
          llvm::copy(registerWgmma(rewriter, loc, n, elem.isF16(), !tilesB.kMajor, slab,
                                   ArrayRef<Value>(aPacked).slice((r * kSteps + s) * 4, 4), descB(s)),
                     slab.begin());
        continue;
      }
      const OperandTiles tilesA = OperandTiles::of(aBuffer, false);
      Value d = LLVM::UndefOp::create(rewriter, loc, accType);
      for (int64_t i = 0; i < perSlab; ++i) d = LLVM::InsertValueOp::create(rewriter, loc, d, slab[i], i);
      Value slabRow = ib.mul(ib.add(group, ib.c(groups * r)), ib.c(64));
      for (int64_t s = 0; s < kSteps; ++s) {
        Value descA =
            descriptorAt(rewriter, loc,
                         descriptor(rewriter, loc, adaptor.getA()[0],
                                    ib.add(tilesA.rowOffset(ib, slabRow), ib.c(tilesA.columnBytes(kStep * s, m))),
                                    tilesA.leadingBytes(), tilesA.strideBytes(), tilesA.swizzle),
                         0);
        d = NVVM::WgmmaMmaAsyncOp::create(rewriter, loc, accType, d, descA, descB(s), shape, ptx, ptx,
                                          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
                                          NVVM::WGMMAScaleIn::one, tilesA.layout(false), tilesB.layout(true),
                                          /*satfinite=*/nullptr);
      }
      for (int64_t i = 0; i < perSlab; ++i) slab[i] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
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
