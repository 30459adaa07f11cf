// The training loop of tile-mnist (see Train.h).
#include "tile/models/Train.h"

#include "tile/models/Checkpoint.h"
#include "tile/models/Init.h"
#include "tile/models/Interrupt.h"
#include "tile/models/KernelProfiler.h"
#include "tile/models/Progress.h"
#include "tile/models/StepGraph.h"
#include "tile/models/TrainStep.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/EnvRegistry.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstdio>
#include <iomanip>
#include <memory>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace tile::models {

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string profileClock(const kernels::Launcher &l) {
  return l.hostMemory() ? "wall time of each launch on the CPU executor"
                        : "CUDA events around each launch, not graphed";
}

/// --precision resolved: auto is TF32 where the kernels run on a GPU with TF32 tensor
/// cores (sm_80+), exact f32 on the CPU executor (which would only emulate the rounding).
bool wantTf32(PrecisionChoice choice, const kernels::Launcher &l) {
  if (choice != PrecisionChoice::Auto) return choice == PrecisionChoice::Tf32;
  return !l.hostMemory() && rt::Context::get().info().ccMajor >= 8;
}

/// A resume continues the run the checkpoint comes from: the same data in the same batches
/// (another dataset trains on, silently, from the wrong weights). A version-1 file recorded
/// neither; its step count is still checked against the batch size by the caller.
void checkSameRun(const TrainOptions &o, const TrainState &saved) {
  if (!saved.dataset.empty() && saved.dataset != datasetName(o.dataset))
    throw TrainError(o.resume + ": the checkpoint was trained on --dataset " + saved.dataset +
                     ", this run asks for --dataset " + datasetName(o.dataset));
  if (saved.batchSize != 0 && saved.batchSize != o.batchSize)
    throw TrainError(o.resume + ": the checkpoint was trained with --batch-size " + std::to_string(saved.batchSize) +
                     ", this run asks for --batch-size " + std::to_string(o.batchSize));
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * fraction);
  return buf;
}
} // namespace

double evaluate(MnistCnn &model, const Dataset &ds) {
  const int64_t b = model.maxBatch();
  std::vector<float> images(static_cast<size_t>(b * kImagePixels));
  std::vector<int32_t> labels(static_cast<size_t>(b));
  std::vector<int64_t> idx;
  int64_t correct = 0;
  for (int64_t i = 0; i < ds.size; i += b) {
    const int64_t n = std::min(b, ds.size - i);
    idx.resize(size_t(n));
    for (int64_t j = 0; j < n; ++j) idx[size_t(j)] = i + j;
    gatherBatch(ds, idx, std::span<float>(images.data(), size_t(n * kImagePixels)),
                std::span<int32_t>(labels.data(), size_t(n)));
    model.setBatch(images.data(), labels.data(), n);
    model.forward();
    std::vector<int32_t> pred = model.predictions();
    for (int64_t j = 0; j < n; ++j) correct += pred[size_t(j)] == labels[size_t(j)];
  }
  return ds.size ? double(correct) / double(ds.size) : 0.0;
}

int runTraining(const TrainOptions &o, kernels::Launcher &launcher, const std::string &where, std::ostream &out) {
  // Before anything takes time: a --checkpoint that would destroy a file or cannot be written
  // fails now, not after the first epoch.
  if (!o.checkpoint.empty()) checkCheckpointTarget(o.checkpoint);
  const Dataset train = loadDataset(o.dataDir, "train");
  const Dataset test = loadDataset(o.dataDir, "test");
  checkBatchSize(o.batchSize, train.size);

  // The model launches through the step's graph (its stream; the whole step captured once and
  // replayed), which launches through the profiler (idle unless --profile times one step).
  KernelProfiler profiler(launcher);
  StepGraph graph(profiler);
  MnistCnn model(graph, o.batchSize);
  const bool tf32 = wantTf32(o.precision, launcher);
  model.setTf32Products(tf32);
  TrainStep step(model, graph, o.graph);
  const int64_t stepsPerEpoch = (train.size + o.batchSize - 1) / o.batchSize; // the last batch ragged
  TrainState state;
  state.seed = o.seed;
  state.learningRate = o.lr;
  state.dataset = datasetName(o.dataset);
  state.batchSize = o.batchSize;
  if (!o.resume.empty()) {
    Checkpoint c = loadCheckpoint(o.resume, kMnistArchitecture, model.parameterSpecs());
    checkSameRun(o, c.state);
    if (c.state.epoch < 0 || c.state.step < c.state.epoch * stepsPerEpoch ||
        c.state.step >= (c.state.epoch + 1) * stepsPerEpoch)
      throw TrainError(o.resume + ": the checkpoint's progress (epoch " + std::to_string(c.state.epoch) + ", step " +
                       std::to_string(c.state.step) + ") does not fit " + std::to_string(stepsPerEpoch) +
                       " steps per epoch (another --batch-size?)");
    model.setParameters(c.tensors);
    state.epoch = c.state.epoch;
    state.step = c.state.step;
    state.seed = c.state.seed; // the shuffle order continues
    out << "resumed from " << o.resume << ": " << state.epoch << " epoch(s), " << state.step << " step(s) done"
        << (state.seed != o.seed ? " (seed " + std::to_string(state.seed) + " from the checkpoint)" : std::string())
        << (c.state.batchSize == 0 ? " (a version-1 checkpoint: its dataset and batch size were not recorded)" : "")
        << "\n";
  } else {
    model.init(o.seed);
  }
  out << "tile-mnist: " << datasetName(o.dataset) << " (" << train.size << " train, " << test.size
      << " test images), batch " << o.batchSize << ", lr " << o.lr << ", seed " << state.seed << ", on " << where
      << ", " << (tf32 ? "tf32" : "f32") << " products (" << model.arena().bytes() / (1 << 20) << " MiB planned)\n"
      << std::flush;

  auto save = [&]() {
    if (o.checkpoint.empty()) return;
    Checkpoint c;
    c.architecture = kMnistArchitecture;
    c.state = state;
    c.tensors = model.parameters();
    saveCheckpoint(o.checkpoint, c);
  };
  auto report = [&](std::optional<Progress> &progress, const std::string &line) {
    if (progress) progress->println(line);
    else out << line << "\n" << std::flush;
  };

  // The test set is run in batches of the training batch size (batch statistics, as in
  // training); TILE_MNIST_EVAL_BATCH=N runs it in batches of N instead (a second plan).
  int64_t evalBatch = o.batchSize;
  if (const char *e = tile::rt::readEnv("TILE_MNIST_EVAL_BATCH"); e && *e) {
    char *end = nullptr;
    long long v = std::strtoll(e, &end, 10);
    if (*end || v < 1 || v > test.size)
      throw TrainError(std::string("TILE_MNIST_EVAL_BATCH=") + e + " is not a batch size in 1.." +
                       std::to_string(test.size));
    evalBatch = v;
  }
  std::unique_ptr<MnistCnn> evalModel;
  if (evalBatch != o.batchSize) {
    evalModel = std::make_unique<MnistCnn>(launcher, evalBatch);
    evalModel->setTf32Products(tf32);
  }

  std::optional<Progress> progress;
  if (!o.quiet) progress.emplace(out, &out == &std::cout && isatty(STDOUT_FILENO));
  // The batch is gathered (and normalised) on the host into the step's staging memory, which
  // the step copies in: on the GPU page-locked memory (a direct DMA, replayable by the graph).
  std::span<float> images = step.images();
  std::span<int32_t> labels = step.labels();
  const float lr = float(o.lr);
  // --profile times the second step of this run (the first compiles and loads every kernel),
  // launched kernel by kernel.
  int64_t stepsRun = 0;
  std::string profileTable;
  bool stopped = false;
  int interrupted = 0; // the signal that stopped the run (InterruptHandlers), 0 if none
  if (state.epoch >= o.epochs) {
    out << "the checkpoint has " << state.epoch << " epoch(s) already; --epochs " << o.epochs << ": nothing to train\n";
    stopped = true;
  } else if (o.maxSteps > 0 && state.step >= o.maxSteps) {
    out << "the checkpoint has " << state.step << " step(s) already; --max-steps " << o.maxSteps
        << ": nothing to train\n";
    stopped = true;
  }
  while (state.epoch < o.epochs && !stopped) {
    const std::vector<int64_t> order = shuffledIndices(train.size, state.seed, state.epoch);
    int64_t first = state.step - state.epoch * stepsPerEpoch; // > 0 when resuming mid-epoch
    if (progress) progress->startEpoch(state.epoch + 1, o.epochs, stepsPerEpoch, o.batchSize);
    double lossSum = 0;
    int64_t lossCount = 0;
    const double t0 = now();
    for (int64_t s = first; s < stepsPerEpoch; ++s) {
      // The step boundary: the model is consistent (each step waited for its loss), so a
      // checkpoint of it resumes here exactly.
      if ((interrupted = interruptSignal())) break;
      if (o.maxSteps > 0 && state.step >= o.maxSteps) {
        stopped = true;
        break;
      }
      const int64_t begin = s * o.batchSize, n = std::min(o.batchSize, train.size - begin);
      gatherBatch(train, std::span<const int64_t>(order.data() + begin, size_t(n)),
                  std::span<float>(images.data(), size_t(n * kImagePixels)),
                  std::span<int32_t>(labels.data(), size_t(n)));
      float loss;
      if (o.profile && stepsRun == 1) {
        profiler.start();
        loss = step.runUngraphed(n, lr);
        profiler.stop();
        profileTable = kernelTimeTable(profiler.times(), "per-kernel times of one training step (step " +
                                                             std::to_string(state.step + 1) + ", batch " +
                                                             std::to_string(n) + ", " + profileClock(launcher) + ")");
      } else {
        loss = step.run(n, lr);
      }
      ++stepsRun;
      if (!std::isfinite(loss))
        throw TrainError("the loss became " + std::to_string(loss) + " at step " + std::to_string(state.step + 1) +
                         " (try a smaller --lr)");
      ++state.step;
      lossSum += loss;
      ++lossCount;
      if (progress) progress->update(s + 1, lossSum / double(lossCount));
    }
    if (progress) progress->finish();
    if (interrupted) break;
    const double trainSeconds = now() - t0;
    if (!stopped) ++state.epoch;
    double acc;
    if (evalBatch != o.batchSize) {
      evalModel->setParameters(model.parameters());
      acc = evaluate(*evalModel, test);
    } else {
      acc = evaluate(model, test);
    }
    std::ostringstream line;
    line << "test accuracy: " << percent(acc);
    report(progress, line.str());
    std::ostringstream info;
    info << "  epoch " << (stopped ? state.epoch + 1 : state.epoch) << (stopped ? " (stopped by --max-steps)" : "")
         << ": " << lossCount << " steps in " << std::fixed << std::setprecision(1) << trainSeconds << " s, mean loss "
         << std::setprecision(4) << (lossCount ? lossSum / double(lossCount) : 0.0);
    report(progress, info.str());
    save();
  }
  // A signal during the last evaluation or save stops the run as well (the state is saved again:
  // the same, or the resumed one where there was nothing to train).
  if (interrupted || (interrupted = interruptSignal())) {
    save();
    out << "interrupted by " << signalName(interrupted) << " after step " << state.step << ": "
        << (o.checkpoint.empty() ? std::string("no --checkpoint, nothing saved")
                                 : "checkpoint saved to " + o.checkpoint + " (--resume " + o.checkpoint + " continues)")
        << "\n"
        << std::flush;
    return 128 + interrupted;
  }
  if (o.profile)
    out << (profileTable.empty() ? std::string("--profile: no step profiled (the run made fewer than 2 steps)\n")
                                 : profileTable);
  return 0;
}

void TimingLauncher::launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
                            CUstream stream) {
  const double t0 = now();
  inner_.launch(kernelName, spec, grid, params, stream);
  std::string key = std::string(kernelName) + " grid " + std::to_string(grid.x) + "x" + std::to_string(grid.y);
  Entry &e = entries_[key];
  ++e.launches;
  e.seconds += now() - t0;
}

std::string TimingLauncher::report() const {
  std::vector<std::pair<std::string, Entry>> v(entries_.begin(), entries_.end());
  std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  for (auto &[k, e] : v) total += e.seconds;
  std::ostringstream s;
  s << "kernel time (wall, per kernel and grid):\n";
  for (auto &[k, e] : v)
    s << "  " << std::left << std::setw(40) << k << std::right << std::setw(8) << e.launches << " launches "
      << std::fixed << std::setprecision(2) << std::setw(9) << e.seconds << " s " << std::setw(6)
      << std::setprecision(1) << (total > 0 ? 100 * e.seconds / total : 0) << "%  " << std::setprecision(3)
      << (e.launches ? 1e3 * e.seconds / double(e.launches) : 0) << " ms each\n";
  s << "  total " << std::fixed << std::setprecision(2) << total << " s\n";
  return s.str();
}

} // namespace tile::models
