//===- EnvRegistry.cpp - the TILE_* table, its reader and its warning -----===//
// The registry of TILE_* environment variables (EnvRegistry.h): the table, the accessor and the
// warning about unknown names.
#include "tile/runtime/EnvRegistry.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <mutex>

extern char **environ;

namespace tile::rt {

namespace {

using enum EnvAudience;
using enum EnvCacheEffect;

// Adding a getenv("TILE_...") anywhere? Add its line here and regenerate docs/environment.md
// (tile-env-doc); runtime_tests' EnvRegistry.CoversEverySourceRead fails otherwise.
constexpr EnvVar kEnvVars[] = {
    // A program using the library.
    {"TILE_CACHE_DIR", User, ChoosesCache,
     "Directory of the on-disk compile and autotune cache (default $XDG_CACHE_HOME/tile, else ~/.cache/tile).",
     "runtime/lib/DiskCache.cpp"},
    {"TILE_FORCE_RECOMPILE", User, BypassesCache,
     "1: every compile misses the disk cache (its entries are still written).", "runtime/lib/DiskCache.cpp"},
    {"TILE_AUTOTUNE_TABLE", User, None,
     "A tuning-table file (tile-autotune-table's format) consulted before tuning on this GPU.",
     "runtime/lib/TuneTable.cpp"},
    {"TILE_AUTOTUNE_VERBOSE", User, None, "Not 0: the autotuner prints each candidate's time to stderr.",
     "runtime/lib/Autotune.cpp"},
    {"TILE_EXECUTOR", User, None,
     "cpu or gpu: where a launch with Executor::Auto runs (default: the GPU when there is one).",
     "dsl/lib/CpuLaunch.cpp"},
    {"TILE_CPU_THREADS", User, None,
     "Threads of the CPU executor (default 1; 0 or less: one per hardware thread; tile-mnist: all of them).",
     "dsl/lib/CpuLaunch.cpp, models/tools/tile-mnist.cpp"},
    {"TILE_CPU_CHECK", User, None,
     "Not 0: the CPU executor checks every access against the registered buffers (as LaunchOptions::check).",
     "dsl/lib/CpuLaunch.cpp"},
    {"TILE_CPU_TARGET", User, None,
     "The CPU the CPU executor generates code for: host (default), x86-64, x86-64-v2, x86-64-v3 or x86-64-v4.",
     "compiler/lib/CPU/HostJit.cpp"},
    {"TILE_LIBDEVICE", User, NotInKey, "Path of libdevice.10.bc (default: the CUDA toolkit's, under $CUDA_HOME).",
     "compiler/lib/Target/PTXEmitter.cpp"},
    {"TILE_MNIST_EVAL_BATCH", User, None,
     "The MNIST trainer evaluates the test set in batches of this size (default: the training batch size).",
     "models/lib/Train.cpp"},
    {"TILE_MNIST_PROFILE", User, None, "Not 0: tile-mnist prints the time spent in each kernel after training.",
     "models/tools/tile-mnist.cpp"},
    // Debugging the compiler.
    {"TILE_DUMP_DIR", Developer, BypassesCache,
     "Directory where every compile writes its stages (tile IR, optimised IR, LLVM IR, PTX) and where bug "
     "reports and their crash reproducers go (default for reports: <temp>/tile-bug-reports).",
     "compiler/lib/StageDump.cpp, compiler/lib/PassFailure.cpp"},
    {"TILE_DUMP_SM", Developer, None,
     "The GPU whose stages TILE_DUMP_DIR gets for kernels the CPU executor runs (default sm_90a).",
     "compiler/lib/StageDump.cpp"},
    {"TILE_PRINT_IR_AFTER_ALL", Developer, None, "1: every pass manager prints the IR after each pass to stderr.",
     "compiler/lib/StageDump.cpp, tools/tilec/tilec.cpp"},
    {"TILE_TRACE_DEBUGINFO", Developer, None,
     "Not 0: KernelBase::trace() prints the traced IR with the user's file:line:col locations.", "dsl/lib/Kernel.cpp"},
    // The tests and the CI scripts.
    {"TILE_TEST_SEED", Test, None, "Replays the randomised tests with this seed (they print it when they fail).",
     "test/unit/cpu_test_util.h, test/gpu/kernels_gpu_tests.cpp, test/gpu/kernels_gpu_autotune_tests.cpp, "
     "test/gpu/test_kernels_gpu_tests.cpp, scripts/seed-sweep.sh"},
    {"TILE_RANDOM_SEED", Test, None, "First seed of CpuRandomKernels' random programs.",
     "test/unit/cpu_random_kernels_tests.cpp"},
    {"TILE_RANDOM_COUNT", Test, None, "How many random programs CpuRandomKernels runs (default 200).",
     "test/unit/cpu_random_kernels_tests.cpp, scripts/seed-sweep.sh"},
    {"TILE_TEST_EXPECT_CPU", Test, None, "cpu_tests check that the CPU JIT targets this CPU (the baseline job).",
     "test/unit/cpu_jit_tests.cpp"},
    {"TILE_TEST_PRINT_ERRORS", Test, None, "Set: the library-model test prints its error statistics.",
     "test/unit/cpu_library_model_tests.cpp"},
    {"TILE_CACHE_FAULTS_GO", Test, None, "Set by dsl_cache_faults_test for the child processes it spawns.",
     "test/unit/dsl_cache_faults_tests.cpp"},
    {"TILE_DIFF_BUNDLE", Test, None, "The differential-test bundle diff_gpu_tests reads (scripts/gpu-check.sh).",
     "test/gpu/diff_gpu_tests.cpp, scripts/gpu-check.sh"},
    {"TILE_DIFF_FILTER", Test, None, "diff_gpu_tests runs only the cases whose name contains this text.",
     "test/gpu/diff_gpu_tests.cpp"},
    {"TILE_FUZZ_SECONDS", Test, None, "How long each fuzz target mutates its corpus (0: replay it only).",
     "scripts/sanitize.sh, test/fuzz/run_fuzz.sh"},
    {"TILE_FUZZ_VERBOSE", Test, None, "1: fuzz_ir_pipeline prints each pass pipeline it runs.",
     "test/fuzz/fuzz_ir_pipeline.cpp"},
    {"TILE_SANITIZE_JOB", Test, None, "0 skips, 1 forces scripts/test.sh's sanitizer job.", "scripts/test.sh"},
    {"TILE_BUILD_DIR", Test, None, "The build directory the lit tests use (default build/).", "test/lit/lit.cfg.py"},
};

// Levenshtein distance, for "did you mean".
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view audienceText(EnvAudience a) {
  switch (a) {
  case User: return "a program using tile";
  case Developer: return "debugging the compiler";
  case Test: return "the tests and CI scripts";
  }
  return "";
}

std::string_view cacheText(EnvCacheEffect c) {
  switch (c) {
  case None: return "no";
  case ChoosesCache: return "no: chooses the cache directory";
  case BypassesCache: return "no: compiles bypass the cache while set";
  case NotInKey: return "no, though it changes the code: clear the cache after changing it";
  }
  return "";
}

} // namespace

std::span<const EnvVar> envRegistry() { return kEnvVars; }

const EnvVar *findEnvVar(std::string_view name) {
  for (const EnvVar &v : kEnvVars)
    if (v.name == name) return &v;
  return nullptr;
}

std::string_view closestEnvVar(std::string_view name) {
  std::string_view best;
  size_t bestDistance = SIZE_MAX;
  for (const EnvVar &v : kEnvVars)
    if (size_t d = editDistance(name, v.name); d < bestDistance) best = v.name, bestDistance = d;
  return best;
}

const char *readEnv(const char *name) {
  assert(findEnvVar(name) && "readEnv of a TILE_* variable missing from EnvRegistry.cpp's table");
  warnUnknownEnvVarsOnce();
  return std::getenv(name);
}

std::vector<std::string> unknownEnvVarWarnings(const char *const *environment) {
  std::vector<std::string> lines;
  for (const char *const *e = environment; e && *e; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("TILE_")) continue;
    std::string_view name = entry.substr(0, entry.find('='));
    if (findEnvVar(name)) continue;
    lines.push_back("tile: warning: unknown environment variable " + std::string(name) + " is ignored; did you mean " +
                    std::string(closestEnvVar(name)) + "? (docs/environment.md lists them)");
  }
  return lines;
}

void warnUnknownEnvVarsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const std::string &line : unknownEnvVarWarnings(environ)) std::fprintf(stderr, "%s\n", line.c_str());
  });
}

std::string envRegistryMarkdown() {
  std::string md =
      "# Environment variables\n\n"
      "<!-- Generated by tile-env-doc from runtime/lib/EnvRegistry.cpp; do not edit (ctest env_doc_up_to_date). -->\n\n"
      "Every `TILE_*` variable tile reads. None is part of the compile-cache key (the key covers what decides the "
      "code: the tile IR, the specialisation, the compiler build, LLVM, the target); the cache column says what "
      "else a variable does to the cache. A `TILE_*` variable not listed here makes the library warn once, naming "
      "the closest listed one.\n";
  EnvAudience section = Test;
  bool first = true;
  for (const EnvVar &v : kEnvVars) {
    if (first || v.audience != section) {
      section = v.audience;
      first = false;
      md += "\n## For " + std::string(audienceText(section)) + "\n\n";
      md += "| Variable | Meaning | Cache key | Read in |\n|---|---|---|---|\n";
    }
    md += "| `" + std::string(v.name) + "` | " + std::string(v.meaning) + " | " + std::string(cacheText(v.cache)) +
          " | " + std::string(v.readBy) + " |\n";
  }
  return md;
}

} // namespace tile::rt
