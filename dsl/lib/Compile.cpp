//===- Compile.cpp - KernelBase::compile: pipeline behind the disk cache ---===//
// The cache key covers everything that decides the PTX (docs/runtime.md): the canonical tile IR
// (printed without locations), the specialisation, the compiler build, the LLVM version,
// the target, the options and the record's format. The payload is the encoded
// rt::CompiledKernel.
#include "KernelImpl.h"
#include "State.h"

#include "tile/Compiler.h"
#include "tile/StageDump.h"
#include "tile/runtime/CompiledKernel.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/KernelCacheKey.h"

#include <cstdio>
#include <optional>

namespace tile {

using namespace detail;

namespace {

/// The record cached under `key`, if it is one for this kernel and target. An entry that
/// passed the disk cache's checksum but holds no usable record (written by a buggy or foreign
/// writer) is reported in one line and treated as a miss: the recompiled record overwrites it.
std::optional<rt::CompiledKernel> loadCached(const std::string &key, const std::string &name,
                                             const std::string &target) {
  rt::DiskCache &cache = rt::DiskCache::global();
  std::optional<std::string> payload = cache.load(key);
  if (!payload) return std::nullopt;
  std::string why;
  std::optional<rt::CompiledKernel> k = rt::decodeCompiledKernel(*payload, &why);
  // The key covers name and target; a mismatch means a key collision or a writer's bug.
  if (k && (k->name != name || k->target != target))
    why = "it holds kernel '" + k->name + "' for " + k->target + ", not '" + name + "' for " + target;
  if (!why.empty()) {
    std::fprintf(stderr, "tile: cache entry %s holds no usable kernel record (%s); recompiling\n",
                 cache.pathFor(key).c_str(), why.c_str());
    return std::nullopt;
  }
  return k;
}

} // namespace

CompileResult KernelBase::compile(const Specialization &spec, const CompileRequest &req) const {
  // sm 0 means "this machine's GPU"; without one chooseTarget falls back to sm_90.
  // Where a driver is present, the PTX version is capped by what it can JIT.
  int sm = req.sm, driver = 0;
  if (rt::gpuAvailable()) {
    driver = rt::driverVersion();
    if (sm == 0) {
      const rt::DeviceInfo &info = rt::Context::get().info();
      sm = info.ccMajor * 10 + info.ccMinor;
    }
  }
  compiler::Target target = compiler::chooseTarget(sm, req.ptxVersion, driver);

  std::lock_guard<std::recursive_mutex> lock(compilerMutex()); // outlives `module`
  auto module = impl_->traceModule(spec);
  std::string canonical = printModule(*module, /*debugInfo=*/false);

  CompileResult r;
  if (req.keepStages) r.tileIR = canonical;

  // num_warps and num_stages are part of the specialisation, the PTX version of the target; the
  // pipeline has no other option that changes the code.
  std::string key = rt::kernelCacheKey({.tileIR = canonical,
                                        .specialization = spec.str(),
                                        .compilerBuild = compiler::compilerBuildId(),
                                        .llvmVersion = compiler::llvmVersionString(),
                                        .target = target.str(),
                                        .options = ""});
  // keepStages and TILE_DUMP_DIR need the intermediate IRs, which only a real run produces.
  bool readCache =
      req.useDiskCache && !req.keepStages && !rt::DiskCache::forceRecompile() && compiler::stageDumpDirectory().empty();
  if (readCache) {
    if (auto k = loadCached(key, impl_->name, target.str())) {
      r.kernel = std::move(*k);
      r.fromDiskCache = true;
      return r;
    }
  }

  compiler::GpuCompileOptions popts;
  popts.target = target;
  popts.keepStages = req.keepStages;
  compiler::GpuCompileResult p = compiler::compileForGpu(*module, popts);
  r.kernel = std::move(p.kernel);
  if (req.keepStages) {
    r.optimizedIR = std::move(p.optimizedIR);
    r.llvmIR = std::move(p.llvmIR);
  }
  if (req.useDiskCache) rt::DiskCache::global().store(key, rt::encodeCompiledKernel(r.kernel));
  return r;
}

} // namespace tile
