//===- CpuLaunch.cpp - the CPU executor behind KernelBase::launchSpecialized ===//
// Each specialisation (and checking mode separately) is traced, lowered and JIT-compiled
// once per kernel object (tile::cpu::compile) and kept in the kernel's Impl. A launch
// calls the compiled program once per program id, x fastest, on this thread or, with
// TILE_CPU_THREADS=n, on n threads taking contiguous ranges of program ids.
#include "KernelImpl.h"

#include "tile/CPU/CheckRuntime.h"
#include "tile/CPU/CpuCompiler.h"
#include "tile/StageDump.h"
#include "tile/runtime/EnvRegistry.h"
#include "tile/runtime/Driver.h"

#include <pthread.h>

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>

#include <strings.h>

namespace tile {

struct CpuVariant {
  uint64_t hash = 0;
  Specialization spec;
  bool check = false;
  std::unique_ptr<cpu::CompiledKernel> code;
};

Executor resolveExecutor(Executor requested) {
  if (requested != Executor::Auto) return requested;
  if (const char *e = tile::rt::readEnv("TILE_EXECUTOR"); e && *e) {
    if (!strcasecmp(e, "cpu")) return Executor::CPU;
    if (!strcasecmp(e, "gpu")) return Executor::GPU;
    throw ArgumentError(std::string("tile: TILE_EXECUTOR must be 'cpu' or 'gpu', got '") + e + "'");
  }
  return rt::gpuAvailable() ? Executor::GPU : Executor::CPU;
}

namespace cpu {
void registerBuffer(const void *p, size_t bytes, bool initialized) { check::addRegion(p, bytes, initialized); }
void unregisterBuffer(const void *p) { check::removeRegion(p); }
void markInitialized(const void *p, size_t bytes) { check::markWritten(p, bytes); }
} // namespace cpu

namespace {

bool envFlag(const char *name) {
  const char *v = tile::rt::readEnv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

unsigned threadCount(uint64_t programs) {
  const char *v = tile::rt::readEnv("TILE_CPU_THREADS");
  long n = v && *v ? std::strtol(v, nullptr, 10) : 1;
  if (n <= 0) n = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<uint64_t>(static_cast<uint64_t>(n), programs));
}

/// Runs `fn` on a new thread with at least `stack` bytes of stack (tensor buffers are
/// allocas: a 16384-column softmax wants more than a default thread may have).
pthread_t startThread(size_t stack, std::function<void()> *fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack);
  pthread_t t;
  int rc = pthread_create(
      &t, &attr,
      [](void *f) -> void * {
        (*static_cast<std::function<void()> *>(f))();
        return nullptr;
      },
      fn);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw RuntimeError("tile: CPU executor: cannot start a thread (" + std::string(std::strerror(rc)) + ")");
  return t;
}

/// Calls the program for ids [begin, end) of `grid` (linearised, x fastest).
void runPrograms(const CpuVariant &v, Grid grid, void **params, size_t numParams, uint64_t begin, uint64_t end,
                 cpu::check::Context *checkCtx) {
  std::vector<void *> args(params, params + numParams);
  int32_t pid[3] = {0, 0, 0};
  int32_t counts[3] = {static_cast<int32_t>(grid.x), static_cast<int32_t>(grid.y), static_cast<int32_t>(grid.z)};
  for (int i = 0; i < 3; ++i) args.push_back(&pid[i]);
  for (int i = 0; i < 3; ++i) args.push_back(&counts[i]);
  std::optional<cpu::check::ContextScope> scope;
  if (checkCtx) scope.emplace(*checkCtx);
  cpu::CompiledKernel::Entry entry = v.code->entry();
  uint64_t gx = grid.x, gxy = uint64_t(grid.x) * grid.y;
  for (uint64_t i = begin; i < end; ++i) {
    pid[0] = static_cast<int32_t>(i % gx);
    pid[1] = static_cast<int32_t>((i / gx) % grid.y);
    pid[2] = static_cast<int32_t>(i / gxy);
    if (checkCtx) {
      for (int d = 0; d < 3; ++d) checkCtx->pid[d] = static_cast<unsigned>(pid[d]);
    }
    entry(args.data());
    if (checkCtx && checkCtx->failed) return; // stop at the first bad access
  }
}

} // namespace

void KernelBase::launchCpu(Grid grid, const LaunchOptions &opts, const Specialization &spec, void **params) const {
  Impl &k = *impl_;
  bool check = opts.check || envFlag("TILE_CPU_CHECK");
  uint64_t h = hashSpecialization(spec, k.nameHash) ^ (check ? 0x9e3779b97f4a7c15ull : 0);
  std::shared_ptr<const CpuVariant> variant;
  {
    std::lock_guard<std::mutex> lock(k.mu);
    for (const auto &v : k.cpuVariants)
      if (v->hash == h && v->check == check && v->spec == spec) {
        variant = v;
        break;
      }
  }
  if (!variant) {
    // Compile outside k.mu (tracing runs user code); the compiler's context is serialised.
    auto v = std::make_shared<CpuVariant>();
    v->hash = h;
    v->spec = spec;
    v->check = check;
    {
      std::lock_guard<std::recursive_mutex> lock(detail::compilerMutex()); // outlives `module`
      auto module = k.traceModule(spec);
      // TILE_DUMP_DIR: the GPU stages too (for TILE_DUMP_SM), from the IR before the CPU lowering.
      compiler::dumpGpuStages(*module);
      cpu::CompileOptions co;
      co.check = check;
      v->code = cpu::compile(*module, co);
    }
    std::lock_guard<std::mutex> lock(k.mu);
    k.cpuVariants.push_back(v);
    variant = v;
  }

  uint64_t total = uint64_t(grid.x) * grid.y * grid.z;
  if (total == 0) return;
  size_t numParams = 0;
  for (const ParamDesc &p : k.params) numParams += p.kind != ArgKind::Const;
  // A descriptor parameter is the address of its TensorDescParam on the CPU (an i64 the code
  // reads base, shape and strides through), where the GPU takes the struct by value.
  std::vector<void *> cpuParams(params, params + numParams);
  std::vector<uint64_t> descAddresses(numParams);
  for (size_t i = 0, a = 0; i < k.params.size(); ++i) {
    if (k.params[i].kind == ArgKind::Const) continue;
    if (k.params[i].kind == ArgKind::Desc) {
      descAddresses[a] = reinterpret_cast<uint64_t>(params[a]);
      cpuParams[a] = &descAddresses[a];
    }
    ++a;
  }
  params = cpuParams.data();

  // Threads other than the caller get the buffers' stack plus room for the runtime.
  size_t stack = std::max<size_t>(8u << 20, variant->code->stackBytes() + (4u << 20));
  if (check) {
    cpu::check::Context ctx;
    ctx.kernel = k.name;
    ctx.sites = &variant->code->sites();
    std::function<void()> run = [&] { runPrograms(*variant, grid, params, numParams, 0, total, &ctx); };
    if (variant->code->stackBytes() < (1u << 20)) run();
    else pthread_join(startThread(stack, &run), nullptr);
    if (ctx.failed) throw ProgramError(ctx.message);
    return;
  }
  unsigned threads = threadCount(total);
  if (threads == 1 && variant->code->stackBytes() < (1u << 20)) {
    runPrograms(*variant, grid, params, numParams, 0, total, nullptr);
    return;
  }
  std::vector<std::function<void()>> work(threads);
  std::vector<pthread_t> started;
  try {
    for (unsigned t = 0; t < threads; ++t) {
      uint64_t begin = total * t / threads, end = total * (t + 1) / threads;
      work[t] = [&, begin, end] { runPrograms(*variant, grid, params, numParams, begin, end, nullptr); };
      started.push_back(startThread(stack, &work[t]));
    }
  } catch (...) {
    for (pthread_t t : started) pthread_join(t, nullptr); // they use this frame's data
    throw;
  }
  for (pthread_t t : started) pthread_join(t, nullptr);
}

} // namespace tile
