// The MNIST training step replayed as one captured step on the CPU executor (StepGraph records
// the launches and copies with their arguments frozen, as a CUDA graph does) against the same
// step launched kernel by kernel: loss and every parameter within 1e-5 after each step, and a
// batch-size change captures anew instead of replaying the stale step. The same check on the
// GPU, with real CUDA graphs: models_gpu_mnist_tests.cpp.
#include "models_train_step_check.h"

#include "tile/kernels/DslLauncher.h"

using namespace tile::models;
using namespace tile::models::testing;

TEST(CpuMnistGraph, ReplayedStepMatchesUngraphedAndRecapturesWhenTheBatchSizeChanges) {
  tile::kernels::DslLauncher cpu{tile::Executor::CPU};
  checkGraphedStepMatchesUngraphed(cpu, 8, {8, 8, 8, 4, 4, 8, 8});
}
