//===- Launch.cpp - KernelBase::launchSpecialized ---------------------------===//
// The hit path (a specialisation already loaded into the current context) takes one
// mutex, hashes the specialisation and scans a short vector: no strings, no allocation.
#include "KernelImpl.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Hash.h"
#include "tile/runtime/Launch.h"
#include "tile/runtime/ModuleCache.h"

namespace tile {

void KernelBase::launchSpecialized(Grid grid, const LaunchOptions &opts, const Specialization &spec,
                                   void **params) const {
  if (resolveExecutor(opts.executor) == Executor::CPU) return launchCpu(grid, opts, spec, params);
  Impl &k = *impl_;
  CUcontext ctx = rt::Context::get().handle(); // throws a one-line error when there is no GPU
  uint64_t h = hashSpecialization(spec, k.nameHash);
  CUfunction fn = nullptr;
  rt::LaunchMetadata meta;
  {
    std::lock_guard<std::mutex> lock(k.mu);
    for (const LoadedVariant &v : k.variants)
      if (v.ctx == ctx && v.hash == h && v.spec == spec) {
        fn = v.fn;
        meta = v.meta;
        break;
      }
  }
  if (!fn) {
    // Miss: compile outside the lock (tracing runs user code and may take a while). Two
    // threads racing here compile twice but load once: the module cache is keyed by the PTX.
    const rt::DeviceInfo &info = rt::Context::get().info();
    CompileRequest req;
    req.sm = info.ccMajor * 10 + info.ccMinor;
    CompileResult r = compile(spec, req);
    const rt::CompiledKernel &compiled = r.kernel;
    fn = rt::ModuleCache::global().getOrLoad(
        ctx, rt::fnv1a64(compiled.ptx, k.nameHash), compiled.name, [&compiled] { return compiled.ptx; },
        compiled.meta.sharedBytes);
    meta = compiled.meta;
    std::lock_guard<std::mutex> lock(k.mu);
    bool present = false;
    for (const LoadedVariant &v : k.variants) present |= v.ctx == ctx && v.hash == h && v.spec == spec;
    if (!present) k.variants.push_back(LoadedVariant{ctx, h, spec, fn, meta});
  }
  rt::launch(fn, rt::Dim3{grid.x, grid.y, grid.z}, meta, static_cast<CUstream>(opts.stream), params, k.name.c_str());
}

} // namespace tile
