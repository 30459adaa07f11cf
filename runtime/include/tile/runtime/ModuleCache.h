// In-memory cache: (context, kernel hash) -> loaded module and its entry function.
#pragma once

#include "tile/runtime/Module.h"

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace tile::rt {

class ModuleCache {
public:
  // Process-wide. Intentionally never destroyed: modules die with their context at exit, and unloading
  // them during static destruction could run after the context was released.
  static ModuleCache &global();

  // Returns the function `kernelName` of the module cached under (ctx, hash); on a miss calls
  // producePTX(), loads the PTX into ctx and caches it. Thread-safe: the lock is held while producing,
  // so each key is compiled once even under concurrent first launches. Failures are not cached.
  CUfunction getOrLoad(CUcontext ctx, uint64_t hash, const std::string &kernelName,
                       const std::function<std::string()> &producePTX, unsigned dynamicSharedBytes = 0);

  size_t size() const;

private:
  struct Entry {
    Module module;
    CUfunction fn = nullptr;
  };
  mutable std::mutex mu_;
  std::map<std::pair<CUcontext, uint64_t>, Entry> entries_;
};

} // namespace tile::rt
