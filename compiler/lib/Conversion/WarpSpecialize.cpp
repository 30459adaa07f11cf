//===- WarpSpecialize.cpp - producer and consumer warps of one program -----===//
// tile.warp_specialize becomes a branch on the thread id: warps 0 .. N - 1 (the consumers,
// whose thread ids the layouts use unchanged) run the consumers region, the producer
// warpgroup's first warp the producer region; each side first resizes its registers
// (setmaxnreg) where the op says. Before the conversion, markWarpPartitions tells the ops of
// each region which threads they run on: a consumers' barrier is named barrier 1 over the
// 32 N consumer threads (bar.sync 0 would wait for the producer warps too, which have left),
// and the producer's "thread 0" work (expect_tx, TMA copies) falls to its first thread.
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr llvm::StringLiteral kPartitionThreadsAttr = "tile.partition_threads";
constexpr llvm::StringLiteral kPartitionLeaderAttr = "tile.partition_leader";

Value threadId(OpBuilder &b, Location loc) { return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type()); }
Value i32(OpBuilder &b, Location loc, int64_t v) { return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v); }

/// The thread's warp, as ptxas sees it is the same in every lane: the branches between the
/// regions do not diverge. (The regions' wgmma descriptors still reach the instructions through
/// R2UR: 178 of them in the d64 forward.)
Value uniformWarp(OpBuilder &b, Location loc) {
  return warpUniform(b, loc, LLVM::UDivOp::create(b, loc, threadId(b, loc), i32(b, loc, 32)));
}

struct WarpSpecializeLowering : OpConversionPattern<WarpSpecializeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(WarpSpecializeOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Block *before = op->getBlock();
    Block *after = rewriter.splitBlock(before, std::next(Block::iterator(op)));
    Block *producer = &op.getProducer().front(), *consumers = &op.getConsumers().front();
    rewriter.inlineRegionBefore(op.getProducer(), after);
    rewriter.inlineRegionBefore(op.getConsumers(), after);

    // The producer warpgroup gives its registers back together; then only its first warp stays.
    Block *producerWarps = rewriter.createBlock(producer);
    if (op.getProducerRegisters())
      NVVM::SetMaxRegisterOp::create(rewriter, loc, op.getProducerRegisters(), NVVM::SetMaxRegisterAction::decrease);
    Value firstWarp = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, uniformWarp(rewriter, loc),
                                           i32(rewriter, loc, op.getConsumerWarps() + 1));
    LLVM::CondBrOp::create(rewriter, loc, firstWarp, producer, after);
    rewriter.setInsertionPointToEnd(producer);
    LLVM::BrOp::create(rewriter, loc, after);

    rewriter.setInsertionPointToStart(consumers);
    if (op.getConsumerRegisters())
      NVVM::SetMaxRegisterOp::create(rewriter, loc, op.getConsumerRegisters(), NVVM::SetMaxRegisterAction::increase);
    rewriter.setInsertionPointToEnd(consumers);
    LLVM::BrOp::create(rewriter, loc, after);

    rewriter.setInsertionPointToEnd(before);
    Value isProducer = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::uge, uniformWarp(rewriter, loc),
                                            i32(rewriter, loc, op.getConsumerWarps()));
    LLVM::CondBrOp::create(rewriter, loc, isProducer, producerWarps, consumers);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lane 0 of each warp arrives (release) where the predicate holds.
struct BarrierArriveLowering : OpConversionPattern<BarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BarrierArriveOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto laneZero = [&] {
      Value lane = LLVM::AndOp::create(rewriter, loc, threadId(rewriter, loc), i32(rewriter, loc, 31));
      Value first = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, lane, i32(rewriter, loc, 0));
      return LLVM::AndOp::create(rewriter, loc, adaptor.getPred()[0], first).getResult();
    };
    emitIf(rewriter, loc, laneZero,
           [&] { NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), adaptor.getBar()[0], Value()); });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Named barriers of the consumer warpgroups' turns: 2 + warpgroup (0 is the program's
/// barrier, 1 the consumers', emitProgramBarrier); two warpgroups' threads meet on each.
constexpr int64_t kFirstTurnBarrier = 2, kTurnThreads = 256;

/// The turn ops: warpgroup w = tid / 128 waits on barrier 2 + w or arrives on 2 + (w + 1) mod
/// groups, all warpgroups or only `only` (a pass: not the last warpgroup where `skip` holds).
template <class TurnOp> struct TurnLowering : OpConversionPattern<TurnOp> {
  using OpConversionPattern<TurnOp>::OpConversionPattern;
  LogicalResult matchAndRewrite(TurnOp op, typename TurnOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    (void)adaptor; // a pass's skip
    const int64_t groups = op.getGroups();
    Value group = LLVM::UDivOp::create(rewriter, loc, threadId(rewriter, loc), i32(rewriter, loc, 128));
    auto emit = [&] {
      Value threads = i32(rewriter, loc, kTurnThreads);
      if constexpr (std::is_same_v<TurnOp, TurnWaitOp>) {
        Value id = LLVM::AddOp::create(rewriter, loc, group, i32(rewriter, loc, kFirstTurnBarrier));
        NVVM::BarrierOp::create(rewriter, loc, Type(), id, threads, nullptr, Value());
      } else {
        Value next =
            LLVM::URemOp::create(rewriter, loc, LLVM::AddOp::create(rewriter, loc, group, i32(rewriter, loc, 1)),
                                 i32(rewriter, loc, groups));
        Value id = LLVM::AddOp::create(rewriter, loc, next, i32(rewriter, loc, kFirstTurnBarrier));
        NVVM::BarrierArriveOp::create(rewriter, loc, id, threads);
      }
    };
    // Which warpgroups take part: all, or only `only`; where `skip` holds, not the last.
    auto is = [&](LLVM::ICmpPredicate p, int64_t g) {
      return LLVM::ICmpOp::create(rewriter, loc, p, group, i32(rewriter, loc, g)).getResult();
    };
    Value takesPart;
    if (std::optional<int32_t> only = op.getOnly()) takesPart = is(LLVM::ICmpPredicate::eq, *only);
    if constexpr (std::is_same_v<TurnOp, TurnPassOp>)
      if (Value skip = adaptor.getSkip()) {
        Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), 1);
        Value notLast = LLVM::OrOp::create(rewriter, loc, is(LLVM::ICmpPredicate::ne, groups - 1),
                                           LLVM::XOrOp::create(rewriter, loc, skip, one));
        takesPart = takesPart ? LLVM::AndOp::create(rewriter, loc, takesPart, notLast).getResult() : notLast;
      }
    if (takesPart) emitIf(rewriter, loc, [&] { return takesPart; }, emit);
    else emit();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

std::map<std::string, int64_t> mlir::tile::markWarpPartitions(ModuleOp module) {
  std::map<std::string, int64_t> launchWarps;
  module.walk([&](WarpSpecializeOp op) {
    const int64_t consumerThreads = 32 * int64_t(op.getConsumerWarps());
    auto threads = IntegerAttr::get(IntegerType::get(op.getContext(), 32), consumerThreads);
    // Only tile ops lower through emitIsLeader and emitProgramBarrier.
    auto mark = [&](Region &region, StringRef attr) {
      region.walk([&](Operation *inner) {
        if (isa<TileDialect>(inner->getDialect())) inner->setAttr(attr, threads);
      });
    };
    mark(op.getConsumers(), kPartitionThreadsAttr);
    mark(op.getProducer(), kPartitionLeaderAttr);
    if (auto func = op->getParentOfType<func::FuncOp>())
      launchWarps[func.getSymName().str()] =
          std::max<int64_t>(launchWarps[func.getSymName().str()], op.getConsumerWarps() + 4);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.warp_specialize at " << op.getLoc() << ": "
                            << op.getConsumerWarps() << " consumer warp(s) + a producer warpgroup\n");
  });
  return launchWarps;
}

Value mlir::tile::emitIsLeader(OpBuilder &b, Location loc, Operation *op) {
  auto leader = op->getAttrOfType<IntegerAttr>(kPartitionLeaderAttr);
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, threadId(b, loc),
                              i32(b, loc, leader ? leader.getInt() : 0));
}

void mlir::tile::emitProgramBarrier(OpBuilder &b, Location loc, Operation *op) {
  if (auto threads = op->getAttrOfType<IntegerAttr>(kPartitionThreadsAttr))
    NVVM::BarrierOp::create(b, loc, Type(), i32(b, loc, 1), i32(b, loc, threads.getInt()), nullptr, Value());
  else NVVM::Barrier0Op::create(b, loc);
}

void mlir::tile::emitIf(ConversionPatternRewriter &rewriter, Location loc, llvm::function_ref<Value()> condition,
                        llvm::function_ref<void()> body) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(after);
  body();
  LLVM::BrOp::create(rewriter, loc, after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, condition(), then, after);
  rewriter.setInsertionPointToStart(after);
}

void mlir::tile::populateWarpSpecializePatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeLowering, BarrierArriveLowering, TurnLowering<TurnWaitOp>, TurnLowering<TurnPassOp>>(
      converter, patterns.getContext());
}
