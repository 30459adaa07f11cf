//===- Loader.h - dlopen a vendor library and resolve its entry points ----===//
// The anchors (cuBLAS, cuBLASLt, cuDNN, NVML) are loaded at run time, as cudnn_gpu_tests loads its
// oracles: bench_anchors links none of them, so it builds and runs (skipping) on the CPU CI, and a
// missing library is one line saying which soname and why.
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace tile::bench {

/// The first of `sonames` that loads (RTLD_LOCAL: its symbols stay out of ours), or nullptr with
/// *why naming each soname tried and dlerror()'s text.
inline void *openLibrary(std::initializer_list<const char *> sonames, std::string *why) {
  std::string errors;
  for (const char *name : sonames) {
    if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    const char *e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
  }
  if (why) *why = errors + " (LD_LIBRARY_PATH: the folder that holds it)";
  return nullptr;
}

/// Resolves `symbol` into `member` (typed from the real header) or returns its name from the
/// enclosing function (std::string fill(void *lib, Api &api) { TILE_BENCH_SYMBOLS(TILE_BENCH_RESOLVE) }).
#define TILE_BENCH_RESOLVE(member, symbol)                                                                             \
  api.member = reinterpret_cast<decltype(api.member)>(dlsym(lib, #symbol));                                            \
  if (!api.member) return #symbol;
#define TILE_BENCH_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;

} // namespace tile::bench
