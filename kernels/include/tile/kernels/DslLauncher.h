//===- DslLauncher.h - library kernels through the DSL's JIT path ---------===//
// Each declaration's kernel is traced from its body and compiled on first use (disk
// cache), then launched on the executor chosen here: the GPU, or the CPU executor where
// pointer arguments are host addresses. Links the DSL (tile_kernels).
#pragma once

#include "tile/Error.h"
#include "tile/kernels/Registry.h"
#include "tile/Autotune.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile::kernels {

class DslLauncher : public Launcher {
public:
  /// executor: Auto (the GPU when usable, TILE_EXECUTOR overrides), GPU or CPU; check:
  /// the CPU executor's checking mode (LaunchOptions::check).
  explicit DslLauncher(Executor executor = Executor::Auto, bool check = false) : executor_(executor), check_(check) {}

  /// Makes a declaration outside AllKernels (a test's, say) launchable by name.
  template <class D> void add() { extra_.emplace_back(D::name, &dslKernel<D>()); }

  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
              CUstream stream) override {
    const KernelBase *k = nullptr;
    for (const auto &[n, kernel] : extra_)
      if (n == kernelName) k = kernel;
    if (!k) k = findKernel(kernelName);
    if (!k)
      throw tile::ArgumentError(std::string("DslLauncher: no library kernel '") + kernelName +
                                "' (declared with TILE_LIBRARY_KERNEL, or added with add<Decl>()?)");
    LaunchOptions o;
    o.numWarps = spec.numWarps;
    o.numStages = spec.numStages;
    o.stream = stream;
    o.executor = executor_;
    o.check = check_;
    k->launchSpecialized(Grid(grid.x, grid.y, grid.z), o, spec, params);
  }

  bool hostMemory() const override { return resolveExecutor(executor_) == Executor::CPU; }
  /// Kernels are compiled on first use by this compiler: its build id.
  std::string codeIdentity(const char *) const override { return "jit-" + compilerBuildId(); }
  Executor executor() const { return executor_; }

private:
  Executor executor_;
  bool check_;
  std::vector<std::pair<std::string_view, const KernelBase *>> extra_;
};

} // namespace tile::kernels
