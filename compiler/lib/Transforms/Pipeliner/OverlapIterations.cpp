//===- OverlapIterations.cpp - the next iteration's first dot beside this one's last ===//
// FlashAttention-3's intra-warpgroup overlap. A warp-specialised consumer loop whose iteration
// issues a dot (attention: S = Q Kᵀ), computes on its result in registers (the softmax) and
// feeds that to a second dot (O += P V) waits for each product before the work after it, so
// the softmax runs while the tensor cores have nothing of this warpgroup's to do. Software-
// pipelined over two stages by MLIR's scf::pipelineForLoop, iteration j issues S_j and then
// PV_{j-1}, waits for S_j only, and computes softmax_j while PV_{j-1} runs:
//   prologue   S_0, free K_0, softmax_0
//   kernel j   S_j, PV_{j-1} issued | wait S_j, free K_j, softmax_j | wait PV_{j-1}, free V_{j-1}
//   epilogue   PV_{n-1}, free V_{n-1}
// (with K and V on one pipeline, as a ring without them apart, slot j - 1 is freed where V's is).
// Stage 1 is the second dot with the wait for its pipeline's data just before it (V's), what
// follows it, and what only stage 1 reads that either views data (V's slot, a broadcast) or
// derives from a value the second dot carries (acc · alpha); the rest is stage 0. Values
// crossing the stages (P, alpha, the slot, V's phase) become carried values of the kernel loop. An
// iteration holds K_j's slot and V_{j-1}'s: with K and V in pipelines of their own two slots
// each suffice, with one slot for both the ring needs three (the caller's rule).
//
// With turns (WarpGroupTurns.cpp) the kernel issues both dots in one turn: its copies of the
// first dot's turn_pass and the second's turn_wait go, as FA3 issues both GEMMs between one
// barrier sync and arrive. Each warpgroup still takes as many turns as the other (n + 1 per
// loop), and the last pass of the loops is the epilogue's, whose skip the peeled iteration
// evaluates. The loop runs under scf.if (lb < ub): its prologue and epilogue each peel an
// iteration that then exists, so the pipeliner's predicates (for a trip count it cannot see)
// are all true there.
#include "Pipeliner.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-warp-specialize"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// Marks, for the kernel loop's copies, the ops whose copies there change (annotateFn).
constexpr StringLiteral kRoleAttr = "tile.overlap_role";
constexpr StringLiteral kFirstPass = "first_pass", kSecondTurn = "second_turn", kFirstWait = "first_wait",
                        kSecondDot = "second_dot";

/// The two dots of an overlapped iteration, their waits and the turns between them.
struct TwoDots {
  WarpGroupDotOp first, second;
  WarpGroupDotWaitOp firstWait, secondWait;
  TurnPassOp firstPass;  // null without turns
  TurnWaitOp secondTurn; // null without turns
};

/// `dot`'s wait: the one op reading its result (WarpGroupTurns.cpp makes one); a dot that waits
/// as it is issued gets one after it.
WarpGroupDotWaitOp explicitWait(WarpGroupDotOp dot) {
  if (dot.getPendings() == 0 && dot->use_empty()) return {};
  if (dot.getPendings() == 0) {
    OpBuilder b(dot->getContext());
    b.setInsertionPointAfter(dot);
    auto done = WarpGroupDotWaitOp::create(b, dot.getLoc(), TypeRange{dot.getType()}, ValueRange{dot.getResult()},
                                           b.getI32IntegerAttr(0));
    dot.getResult().replaceAllUsesExcept(done.getResult(0), done);
    dot.setPendings(1);
    return done;
  }
  if (!dot->hasOneUse()) return {};
  auto wait = dyn_cast<WarpGroupDotWaitOp>(*dot->user_begin());
  return wait && wait.getInputs().size() == 1 && wait.getPendings() == 0 && wait->getBlock() == dot->getBlock()
             ? wait
             : WarpGroupDotWaitOp();
}

/// Whether the iteration may run reordered: apart from the ring's and the turns' barriers and
/// the dots, it writes no memory and has no regions.
bool onlyRegisterWork(Block &body) {
  return llvm::all_of(body.without_terminator(), [](Operation &op) {
    return isa<BarrierWaitOp, BarrierArriveOp, TurnWaitOp, TurnPassOp, WarpGroupDotOp, WarpGroupDotWaitOp>(op) ||
           leavesBuffersAlone(&op);
  });
}

/// The loop's two dots, or why it is not overlapped.
FailureOr<TwoDots> findTwoDots(scf::ForOp loop, const char *&whyNot) {
  Block &body = *loop.getBody();
  SmallVector<WarpGroupDotOp> dots;
  loop.getBody()->walk([&](WarpGroupDotOp d) { dots.push_back(d); });
  if (dots.size() != 2 || dots[0]->getBlock() != &body || dots[1]->getBlock() != &body)
    return whyNot = "its body does not issue exactly two warpgroup dots", failure();
  if (!onlyRegisterWork(body)) return whyNot = "its body writes memory or branches", failure();
  TwoDots t{dots[0], dots[1], {}, {}, {}, {}};
  BackwardSliceOptions within;
  within.filter = [&](Operation *op) { return op->getBlock() == &body; };
  SetVector<Operation *> feeding;
  (void)getBackwardSlice(t.second.getOperation(), &feeding, within);
  bool secondReadsFirst = llvm::any_of(t.first->getUsers(), [&](Operation *u) { return feeding.contains(u); });
  if (!secondReadsFirst) return whyNot = "its second dot does not read the first's result", failure();
  t.firstWait = explicitWait(t.first);
  t.secondWait = explicitWait(t.second);
  if (!t.firstWait || !t.secondWait) return whyNot = "its dots are not each waited for once", failure();
  t.firstPass = dyn_cast_or_null<TurnPassOp>(t.first->getNextNode());
  t.secondTurn = dyn_cast_or_null<TurnWaitOp>(t.second->getPrevNode());
  if (bool(t.firstPass) != bool(t.secondTurn)) return whyNot = "only one of its dots takes turns", failure();
  return t;
}

/// Ops that only name data another op computes: free to repeat in the later stage.
bool viewsData(Operation *op) {
  return isa<MemDescIndexOp, MemDescTransOp, BroadcastOp, ExpandDimsOp, SplatOp, arith::ConstantOp>(op);
}

/// Each body op's stage (the file comment), or why there is none.
FailureOr<DenseMap<Operation *, unsigned>> assignStages(scf::ForOp loop, TwoDots t, const char *&whyNot) {
  Block &body = *loop.getBody();
  Operation *tail = t.secondTurn ? t.secondTurn.getOperation() : t.second.getOperation();
  DenseMap<Operation *, unsigned> stage;
  for (Operation *op = tail; op != body.getTerminator(); op = op->getNextNode()) stage[op] = 1;
  // Values the second stage carries (the second dot's result: attention's acc), and what the
  // first stage's ops derive from them.
  DenseSet<Value> fromLate;
  for (auto [arg, yielded] : llvm::zip(loop.getRegionIterArgs(), body.getTerminator()->getOperands()))
    if (Operation *def = yielded.getDefiningOp(); def && stage.lookup(def) == 1) fromLate.insert(arg);
  for (Operation *op = &body.front(); op != tail; op = op->getNextNode())
    if (llvm::any_of(op->getOperands(), [&](Value v) { return fromLate.contains(v); }))
      fromLate.insert(op->result_begin(), op->result_end());
  for (Operation *op = tail->getPrevNode(); op; op = op->getPrevNode()) {
    // The consumers' waits for the second dot's data (WarpSpecialize.cpp puts them just before it).
    Operation *next = op->getNextNode();
    if (isa<BarrierWaitOp>(op) && (next == tail || (isa<BarrierWaitOp>(next) && stage.lookup(next) == 1))) {
      stage[op] = 1;
      continue;
    }
    bool onlyLateUsers = !op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation *u) {
      Operation *at = body.findAncestorOpInBlock(*u);
      return at && stage.lookup(at) == 1;
    });
    bool derivesFromLate = op->getNumResults() && fromLate.contains(op->getResult(0));
    stage[op] = onlyLateUsers && (viewsData(op) || derivesFromLate) ? 1 : 0;
    if (stage[op] == 0 && derivesFromLate) return whyNot = "the first dot's side reads the second's result", failure();
  }
  if (stage.lookup(t.first) != 0) return whyNot = "its first dot feeds only the second", failure();
  return stage;
}

/// The kernel loop's order: the first stage up to its dot's issue (and pass), the second stage
/// up to its dot's wait, the rest of the first stage, the rest of the second.
std::vector<std::pair<Operation *, unsigned>> kernelOrder(Block &body, TwoDots t,
                                                          const DenseMap<Operation *, unsigned> &stage) {
  Operation *firstIssued = t.firstPass ? t.firstPass.getOperation() : t.first.getOperation();
  std::vector<std::pair<Operation *, unsigned>> parts[4];
  bool afterFirst = false, atSecondWait = false;
  for (Operation &op : body.without_terminator()) {
    atSecondWait |= &op == t.secondWait.getOperation();
    unsigned s = stage.lookup(&op);
    parts[s == 0 ? (afterFirst ? 2 : 0) : (atSecondWait ? 3 : 1)].push_back({&op, s});
    afterFirst |= &op == firstIssued;
  }
  std::vector<std::pair<Operation *, unsigned>> order;
  for (auto &part : parts) llvm::append_range(order, part);
  return order;
}

/// `loop` moved into scf.if (lb < ub), whose else branch yields its initial values.
scf::IfOp guardByTrips(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value anyTrip = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), anyTrip, /*addThenBlock=*/true,
                                 /*addElseBlock=*/true);
  loop->replaceAllUsesWith(guard.getResults());
  for (auto [block, values] : {std::pair{guard.thenBlock(), ValueRange(loop.getResults())},
                               std::pair{guard.elseBlock(), ValueRange(loop.getInitArgs())}}) {
    if (block->mightHaveTerminator()) block->getTerminator()->erase();
    b.setInsertionPointToEnd(block);
    scf::YieldOp::create(b, loc, values);
  }
  loop->moveBefore(guard.thenYield());
  return guard;
}

} // namespace

FailureOr<bool> mlir::tile::pipeliner::overlapIterations(scf::ForOp loop) {
  const char *whyNot = nullptr;
  FailureOr<TwoDots> dots = findTwoDots(loop, whyNot);
  FailureOr<DenseMap<Operation *, unsigned>> stage =
      succeeded(dots) ? assignStages(loop, *dots, whyNot) : FailureOr<DenseMap<Operation *, unsigned>>(failure());
  if (failed(stage)) {
    LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: iterations of the loop at " << loop.getLoc()
                            << " not overlapped: " << whyNot << "\n");
    return false;
  }
  TwoDots t = *dots;
  MLIRContext *ctx = loop.getContext();
  for (auto [op, role] : {std::pair<Operation *, StringLiteral>{t.firstPass, kFirstPass},
                          {t.secondTurn, kSecondTurn},
                          {t.firstWait, kFirstWait},
                          {t.second, kSecondDot}})
    if (op) op->setAttr(kRoleAttr, StringAttr::get(ctx, role));

  std::vector<std::pair<Operation *, unsigned>> order = kernelOrder(*loop.getBody(), t, *stage);
  scf::IfOp guard = guardByTrips(loop);
  SmallVector<Value> alwaysTrue; // under the guard, the pipeliner's trip predicates
  SmallVector<Operation *> dropped;
  scf::PipeliningOption options;
  options.getScheduleFn = [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) { s = order; };
  options.supportDynamicLoops = true;
  options.predicateFn = [&](RewriterBase &, Operation *op, Value predicate) {
    alwaysTrue.push_back(predicate);
    return op;
  };
  // In the kernel loop both dots are in flight together (the second's issue leaves two
  // groups, the first's wait one) and issued in one turn.
  options.annotateFn = [&](Operation *op, scf::PipeliningOption::PipelinerPart part, unsigned) {
    auto role = op->getAttrOfType<StringAttr>(kRoleAttr);
    if (!role) return;
    op->removeAttr(kRoleAttr);
    if (part != scf::PipeliningOption::PipelinerPart::Kernel) return;
    if (role == kFirstPass || role == kSecondTurn) dropped.push_back(op);
    else if (role == kFirstWait) cast<WarpGroupDotWaitOp>(op).setPendings(1);
    else if (role == kSecondDot) cast<WarpGroupDotOp>(op).setPendings(2);
  };
  DictionaryAttr attrs = loop->getDiscardableAttrDictionary();
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(loop);
  FailureOr<scf::ForOp> kernel = scf::pipelineForLoop(rewriter, loop, options);
  if (failed(kernel)) // the checks above meet the pipeliner's preconditions: a compiler bug
    return loop.emitError("tile-warp-specialize: MLIR's loop pipeliner refused the overlapped schedule");
  (*kernel)->setDiscardableAttrs(attrs);
  for (Operation *op : dropped) op->erase();
  for (Value predicate : alwaysTrue)
    for (OpOperand &use : llvm::make_early_inc_range(predicate.getUses()))
      if (auto select = dyn_cast<arith::SelectOp>(use.getOwner()); select && select.getCondition() == predicate) {
        select.replaceAllUsesWith(select.getTrueValue());
        select.erase();
      }
  guard->walk([](Operation *op) { op->removeAttr(kRoleAttr); });
  LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: iterations of the loop at " << guard.getLoc()
                          << " overlapped: the next first dot is issued with this second one\n");
  return true;
}
