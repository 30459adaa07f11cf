//===- Loader.h - dlopen a vendor library and resolve its entry points ----===//
// The anchors (cuBLAS, cuBLASLt, cuDNN, NVML) are loaded at run time; cuBLAS and cuDNN through the tables
// cudnn_gpu_tests loads its oracles with (tile_reference_apis), cuBLASLt and NVML here: bench_anchors links none of them, so it builds and runs (skipping) on the CPU CI, and a
// missing library is one line saying which soname and why.
#pragma once

#include "cudnn_api.h"

#include <dlfcn.h>

namespace tile::bench {

/// dlopen of the first soname that loads, or nullptr with *why (test/common/cudnn_api.h).
using reference::openLibrary;

/// Resolves `symbol` into `member` (typed from the real header) or returns its name from the
/// enclosing function (std::string fill(void *lib, Api &api) { TILE_BENCH_SYMBOLS(TILE_BENCH_RESOLVE) }).
#define TILE_BENCH_RESOLVE(member, symbol)                                                                             \
  api.member = reinterpret_cast<decltype(api.member)>(dlsym(lib, #symbol));                                            \
  if (!api.member) return #symbol;
#define TILE_BENCH_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;

} // namespace tile::bench
