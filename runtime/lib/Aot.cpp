//===- Aot.cpp - launching kernels compiled ahead of time -----------------===//
#include "tile/runtime/Aot.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Hash.h"
#include "tile/runtime/ModuleCache.h"

#include <string>

namespace tile::rt {

const AotVariant *selectAotVariant(const AotKernel &kernel, const Specialization &actual) {
  const AotVariant *best = nullptr;
  for (size_t i = 0; i < kernel.numVariants; ++i) {
    const AotVariant &v = kernel.variants[i];
    if (!isSafeFor(v.spec, actual)) continue;
    if (!best || divisibilityFacts(v.spec) > divisibilityFacts(best->spec)) best = &v;
  }
  return best;
}

void launchAot(const AotKernel &kernel, const Specialization &actual, const AotLaunchConfig &config, void **params) {
  const AotVariant *v = selectAotVariant(kernel, actual);
  if (!v) {
    std::string available;
    for (size_t i = 0; i < kernel.numVariants; ++i) available += (i ? " " : "") + kernel.variants[i].spec.str();
    throw Error("tile: no ahead-of-time variant of kernel '" + std::string(kernel.name) + "' fits [" + actual.str() +
                "]; compiled: " + available + " (add it to kernels/aot or use the JIT)");
  }
  Context &ctx = Context::get();
  // The variant's address identifies it within this process.
  uint64_t hash = fnv1a64(kernel.name) ^ reinterpret_cast<uintptr_t>(v);
  const CompiledKernelView &k = v->kernel;
  CUfunction f = ModuleCache::global().getOrLoad(
      ctx.handle(), hash, std::string(k.name), [&k] { return std::string(k.ptx); }, k.meta.sharedBytes);
  launch(f, config.grid, k.meta, config.stream, params, kernel.name);
}

} // namespace tile::rt
