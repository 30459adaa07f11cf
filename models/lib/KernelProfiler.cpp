// Per-kernel times of one step (see KernelProfiler.h).
#include "tile/models/KernelProfiler.h"

#include <chrono>

namespace tile::models {

void KernelProfiler::start() {
  timed_.clear();
  recording_ = true;
}

void KernelProfiler::launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
                            CUstream stream) {
  if (!recording_) {
    inner_.launch(kernelName, spec, grid, params, stream);
    return;
  }
  Timed t;
  t.time.kernel = kernelName;
  t.time.grid[0] = grid.x;
  t.time.grid[1] = grid.y;
  t.time.grid[2] = grid.z;
  if (inner_.hostMemory()) {
    const auto t0 = std::chrono::steady_clock::now();
    inner_.launch(kernelName, spec, grid, params, stream);
    t.time.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  } else {
    // Events created before the launch, so their creation is not timed with it.
    t.begin = std::make_unique<rt::Event>();
    t.end = std::make_unique<rt::Event>();
    t.begin->record(stream);
    inner_.launch(kernelName, spec, grid, params, stream);
    t.end->record(stream);
  }
  timed_.push_back(std::move(t));
}

std::vector<KernelTime> KernelProfiler::times() {
  std::vector<KernelTime> out;
  for (Timed &t : timed_) {
    if (t.end) {
      t.end->synchronize();
      t.time.ms = t.end->elapsedMs(*t.begin);
    }
    out.push_back(t.time);
  }
  return out;
}

} // namespace tile::models
