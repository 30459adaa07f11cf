// A step of work (kernel launches and host<->device copies) captured once and replayed as a whole.
//
// StepGraph is a kernels::Launcher in front of the real one: build the model on it and every launch
// goes to the step's stream (a stream of its own on the GPU). run(shape, body) captures `body`
// the first time and after a shape change, then replays it:
//   - on the GPU as one CUDA graph (rt::StreamCapture, rt::GraphExec; a re-capture updates the
//     instantiated graph in place when the driver accepts it, else instantiates it anew);
//   - on the CPU executor, whose launches are synchronous calls, as the recorded list of launches
//     and copies. Their arguments are copied at capture, exactly as a CUDA graph freezes them, so
//     a step that would replay stale values (a batch size read on the host) is just as wrong on
//     the CPU, where the tests run.
// Independent work may go on branches (fork/join, streams of the step's own): captured, they become
// parallel paths of the graph; run directly, they overlap on the GPU. The CPU executor, and a
// profiler timing launches one by one, run them in order on the one line.
// No LLVM/MLIR here (runtime-only executables link it).
#pragma once

#include "tile/kernels/Launcher.h"
#include "tile/models/Tensor.h"
#include "tile/runtime/Graph.h"
#include "tile/runtime/Stream.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tile::models {

class StepGraph : public kernels::Launcher {
public:
  /// On the GPU (inner.hostMemory() false) creates the step's stream: ordered with the legacy
  /// default stream (not CU_STREAM_NON_BLOCKING), so synchronous copies made elsewhere (loading
  /// parameters, reading results) stay ordered with the step without extra synchronisation.
  /// It has the highest priority, the branches (fork) the lowest: the line is the critical path.
  explicit StepGraph(kernels::Launcher &inner);

  /// Sends the launch to the inner launcher on stream() (a launch naming a stream of its own keeps
  /// it); while a step is captured on the CPU executor, records it instead.
  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
              CUstream stream) override;
  bool hostMemory() const override { return host_; }
  /// A branch stream of the step's own (reused: each fork takes one not in use), waiting for
  /// everything enqueued so far on stream(); nullptr (stream() itself) on the CPU executor and
  /// while the inner launcher serializes launches. join() makes stream() wait for the branch
  /// and frees it. Captured, a branch must be joined before the step ends.
  CUstream fork() override;
  void join(CUstream branch) override;
  bool serializesLaunches() const override { return inner_.serializesLaunches(); }
  std::string codeIdentity(const char *kernelName) const override { return inner_.codeIdentity(kernelName); }

  /// The step's stream (nullptr on the CPU executor).
  CUstream stream() const;

  /// Copies `bytes` from host memory to the start of `dst`, or from the start of `src` to host
  /// memory, on stream() (recorded while capturing). On the GPU the host memory must be pinned
  /// (rt::PinnedHostBuffer) and left alone until the step has run: the copy is asynchronous, and
  /// a graph replays it from the same address.
  /// `on`: a branch from fork() (nullptr: stream()).
  void copyIn(const Tensor &dst, const void *src, size_t bytes);
  void copyOut(void *dst, const Tensor &src, size_t bytes, CUstream on = nullptr);

  /// Runs the step for `shape` (any key that changes whenever what body enqueues changes: batch
  /// size, learning rate, ...). The first run for a shape runs body directly — every kernel is then
  /// compiled and loaded, which must not happen inside a capture — and captures it for the next
  /// runs, which replay it. Asynchronous on the GPU: synchronize() before reading results.
  /// Returns true when it captured.
  bool run(uint64_t shape, const std::function<void()> &body);

  /// Waits for everything enqueued on stream().
  void synchronize();

  /// How many times a step was captured (1 + shape changes).
  int captures() const { return captures_; }
  /// Nodes of the captured step: graph nodes on the GPU, recorded launches and copies on the CPU.
  size_t nodes() const { return nodes_; }
  /// How the last capture reached the GPU graph: "instantiated", "updated in place",
  /// "re-instantiated" ("recorded" on the CPU executor; "" before any).
  const std::string &lastCapture() const { return lastCapture_; }
  /// Forgets the captured step (the next run() captures again).
  void reset();

private:
  struct Recorded {     // one launch or host copy of a step captured on the CPU executor
    std::string kernel; // empty: a copy
    Specialization spec;
    rt::Dim3 grid;
    std::vector<std::byte> args; // the argument values, packed in parameter order
    void *dst = nullptr;
    const void *src = nullptr;
    size_t bytes = 0;
  };
  void capture(const std::function<void()> &body);
  void requireJoined(const char *when) const;
  void replay();
  void replayRecorded();

  kernels::Launcher &inner_;
  bool host_;
  std::optional<rt::Stream> stream_; // GPU only
  struct Branch {
    rt::Stream stream;
    bool open = false;
  };
  std::vector<Branch> branches_;      // GPU only, created on first use
  std::optional<rt::Event> forkJoin_; // recorded at each fork and join (a wait takes the last record)
  rt::GraphExec exec_;
  std::vector<Recorded> recorded_;
  bool recording_ = false;
  std::optional<uint64_t> shape_; // the shape of the captured step
  int captures_ = 0;
  size_t nodes_ = 0;
  std::string lastCapture_;
};

} // namespace tile::models
