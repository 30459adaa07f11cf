// Per-kernel times of one step: a kernels::Launcher in front of the real one that, between
// start() and stop(), brackets every launch with CUDA events on the launch's stream (the GPU) or
// reads the clock around it (the CPU executor, whose launches are synchronous calls). Otherwise
// it only passes launches on. Profile an ungraphed step, never one being captured: the events
// would become nodes of the graph, and a replayed graph's kernels pass by no launcher.
#pragma once

#include "tile/kernels/Launcher.h"
#include "tile/models/ProfileTable.h"
#include "tile/runtime/Stream.h"

#include <memory>
#include <string>
#include <vector>

namespace tile::models {

class KernelProfiler : public kernels::Launcher {
public:
  explicit KernelProfiler(kernels::Launcher &inner) : inner_(inner) {}

  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
              CUstream stream) override;
  bool hostMemory() const override { return inner_.hostMemory(); }
  std::string codeIdentity(const char *kernelName) const override { return inner_.codeIdentity(kernelName); }
  /// While timing, launches run one after another: each one's events bracket it alone.
  bool serializesLaunches() const override { return recording_ || inner_.serializesLaunches(); }

  /// Forgets what was recorded and times the launches from now on.
  void start();
  /// Stops timing (the launches recorded stay until the next start()).
  void stop() { recording_ = false; }
  bool recording() const { return recording_; }

  /// The launches timed between start() and stop(), in order (waits for their end events).
  std::vector<KernelTime> times();

private:
  struct Timed {
    KernelTime time;
    std::unique_ptr<rt::Event> begin, end; // GPU only
  };
  kernels::Launcher &inner_;
  bool recording_ = false;
  std::vector<Timed> timed_;
};

} // namespace tile::models
