// tile-mnist: trains the MNIST CNN (docs/models.md) with the kernel library.
//   tile-mnist      (TILE_MNIST_DSL=1) kernels through the DSL's JIT path: the CPU executor
//                   (--executor cpu) or the GPU (--executor gpu); auto = the GPU when usable.
//   tile-mnist-aot  (TILE_MNIST_DSL=0) the ahead-of-time kernels only, for the GPU machine (no
//                   LLVM/MLIR): --executor gpu or auto.
// Every bad input ends in one line on stderr and a non-zero exit (2: the command line).
// The first Ctrl-C (SIGINT) or SIGTERM stops training at the next step, saves the checkpoint and
// exits 128 + the signal (130 for SIGINT); a second one ends the program at once.
// TILE_MNIST_PROFILE=1 prints the wall time per kernel at the end (CPU executor: exact; on the
// GPU only the enqueueing, and of the captured steps only: a replayed CUDA graph's kernels pass
// by no launcher, so use it with --no-graph). --profile times each kernel of one step with CUDA
// events instead. TILE_MNIST_EVAL_BATCH=N runs the test set in batches of N (default:
// the training batch; batchnorm uses batch statistics there too).
#include "tile/models/Checkpoint.h"
#include "tile/models/Cli.h"
#include "tile/models/Idx.h"
#include "tile/models/Interrupt.h"
#include "tile/models/Train.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/EnvRegistry.h"

#if TILE_MNIST_DSL
#include "tile/kernels/DslLauncher.h"
#else
#include "tile/kernels/AotLauncher.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

using namespace tile::models;

namespace {

std::string gpuName() {
  const auto &i = tile::rt::Context::get().info();
  return "the GPU (" + i.name + ", sm_" + std::to_string(i.ccMajor) + std::to_string(i.ccMinor) + ")";
}

#if TILE_MNIST_DSL
[[noreturn]] void noGpu(const std::string &why) {
  throw std::runtime_error("--executor gpu: no usable GPU (" + why + ")");
}
#endif

} // namespace

int main(int argc, char **argv) {
  const std::string prog = "tile-mnist";
  try {
    TrainOptions o = parseTrainOptions(argc, argv, std::string(TILE_SOURCE_DIR) + "/.data");
    if (o.help) {
      std::cout << trainUsage(argv[0]);
      return 0;
    }
    std::unique_ptr<tile::kernels::Launcher> launcher;
    std::string where;
    std::string why;
#if TILE_MNIST_DSL
    tile::Executor e = o.executor == ExecutorChoice::Cpu   ? tile::Executor::CPU
                       : o.executor == ExecutorChoice::Gpu ? tile::Executor::GPU
                                                           : tile::resolveExecutor(tile::Executor::Auto);
    if (e == tile::Executor::GPU && !tile::rt::gpuAvailable(&why)) noGpu(why);
    launcher = std::make_unique<tile::kernels::DslLauncher>(e);
    if (e == tile::Executor::CPU) {
      // The trainer runs on every core unless told otherwise (the DSL's own default is one thread).
      const char *t = tile::rt::readEnv("TILE_CPU_THREADS");
      if (!t || !*t)
        setenv("TILE_CPU_THREADS", std::to_string(std::max(1u, std::thread::hardware_concurrency())).c_str(), 1);
      where =
          std::string("the CPU executor (") + tile::rt::readEnv("TILE_CPU_THREADS") + " thread(s), TILE_CPU_THREADS)";
    } else {
      where = gpuName() + ", JIT";
    }
#else
    if (o.executor == ExecutorChoice::Cpu)
      throw std::runtime_error("--executor cpu: this binary holds only the ahead-of-time GPU kernels; use tile-mnist");
    if (!tile::rt::gpuAvailable(&why))
      throw std::runtime_error(std::string(o.executor == ExecutorChoice::Gpu ? "--executor gpu" : "--executor auto") +
                               ": no usable GPU (" + why +
                               "); this binary runs on the GPU only (tile-mnist runs the CPU executor)");
    launcher = std::make_unique<tile::kernels::AotLauncher>();
    where = gpuName() + ", ahead-of-time kernels";
#endif
    // Here and not in runTraining: the library leaves a host program's signals alone.
    InterruptHandlers interrupts;
    const char *profile = tile::rt::readEnv("TILE_MNIST_PROFILE");
    if (profile && *profile && std::strcmp(profile, "0") != 0) {
      TimingLauncher timing(*launcher);
      int rc = runTraining(o, timing, where, std::cout);
      std::cout << timing.report();
      return rc;
    }
    return runTraining(o, *launcher, where, std::cout);
  } catch (const UsageError &e) {
    std::cout << std::flush;
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception &e) {
    std::cout << std::flush;
    std::cerr << prog << ": " << e.what() << "\n";
    return 1;
  }
}
