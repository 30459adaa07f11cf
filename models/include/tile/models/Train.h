// The training program of tile-mnist, independent of where the kernels run: the executable
// picks the launcher (DslLauncher: CPU executor / GPU JIT; AotLauncher: GPU, runtime-only).
#pragma once

#include "tile/kernels/Launcher.h"
#include "tile/models/Cli.h"
#include "tile/models/Idx.h"
#include "tile/models/MnistCnn.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace tile::models {

/// A bad run that is not a usage error (non-finite loss, inconsistent resume). One line.
class TrainError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Trains as `o` says: checks that --checkpoint can be written and would replace no file that is
/// not a checkpoint (CheckpointError), loads the data (DataError), checks the batch size
/// (UsageError), initialises or resumes (CheckpointError; TrainError when the checkpoint was
/// trained on another dataset or batch size), trains with the progress display, prints
/// "test accuracy: NN.NN%" after each epoch (and after --max-steps stops training), saves the
/// checkpoint after each epoch. `where` names the executor in the opening line. Returns 0, or
/// 128 + the signal when a SIGINT/SIGTERM was recorded (InterruptHandlers, Interrupt.h): the
/// run then stops at the next step boundary, saves the checkpoint and says so in one line.
int runTraining(const TrainOptions &o, kernels::Launcher &launcher, const std::string &where, std::ostream &out);

/// Accuracy (0..1) of the model on the whole dataset, in batches of model.maxBatch() images
/// (batch statistics, as in training).
double evaluate(MnistCnn &model, const Dataset &ds);

/// Wraps a launcher and adds up the wall time of each kernel's launches. Meaningful where
/// launches are synchronous (the CPU executor); on the GPU it measures enqueueing only.
class TimingLauncher : public kernels::Launcher {
public:
  explicit TimingLauncher(kernels::Launcher &inner) : inner_(inner) {}
  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
              CUstream stream) override;
  bool hostMemory() const override { return inner_.hostMemory(); }
  /// A table, slowest kernel first: name, launches, seconds, share.
  std::string report() const;

private:
  kernels::Launcher &inner_;
  struct Entry {
    int64_t launches = 0;
    double seconds = 0;
  };
  std::map<std::string, Entry> entries_;
};

} // namespace tile::models
