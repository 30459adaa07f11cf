//===- PipelinePass.cpp - tile-pipeline: a schedule per loop --------------===//
// Plans every scf.for (Candidates.cpp) and expands the plan: within the loop
// (InLoopSchedule.cpp), or across the tiles of a persistent tile loop
// (CrossTileSchedule.cpp). Loops tile-warp-specialize split before are left without
// candidates and so untouched. Then, on sm_90a, blocks the kernel copies once outside its
// loops for warpgroup dots move by TMA too (OneShotTma.cpp), and independent dots issued
// back to back go in flight together (OverlapDots.cpp).
#include "Pipeliner.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

struct Pipeline : mlir::tile::impl::TilePipelineBase<Pipeline> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    if (targetComputeCapability(getOperation()) < 80) {
      LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: nothing to do below sm_80 (no cp.async)\n");
      return;
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::optional<LoopPlan> plan = planLoop(loop, numStages);
      if (!plan) continue;
      if (plan->tileSlice) pipelineAcrossTiles(*plan);
      else pipelineInLoop(*plan);
    }
    if (targetHasWgmma(getOperation()))
      getOperation().walk([&](func::FuncOp f) {
        if (!f->hasAttr(kKernelAttr)) return;
        copyTopLevelBlocksByTma(f);
        overlapIndependentDots(f);
      });
  }
};

} // namespace
