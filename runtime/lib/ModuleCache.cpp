// In-memory module cache.
#include "DriverApi.h"

#include "tile/runtime/ModuleCache.h"

namespace tile::rt {

ModuleCache &ModuleCache::global() {
  static ModuleCache *cache = new ModuleCache; // leaked on purpose, see the header
  return *cache;
}

CUfunction ModuleCache::getOrLoad(CUcontext ctx, uint64_t hash, const std::string &kernelName,
                                  const std::function<std::string()> &producePTX, unsigned dynamicSharedBytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_pair(ctx, hash);
  if (auto it = entries_.find(key); it != entries_.end()) return it->second.fn;

  const auto &a = detail::api();
  std::string ptx = producePTX();
  // Load into ctx without disturbing the calling thread's current context.
  detail::check(a.ctxPushCurrent(ctx), "cuCtxPushCurrent", "loading kernel '" + kernelName + "'");
  struct Pop {
    const detail::Api &a;
    ~Pop() {
      CUcontext popped = nullptr;
      (void)a.ctxPopCurrent(&popped);
    }
  } pop{a};
  Entry e;
  e.module = Module::loadPTX(ptx, kernelName);
  // Kernels keep their shared memory dynamic (sized at launch); past 48 KB the driver
  // needs the function's limit raised first.
  e.fn = e.module.function(kernelName, dynamicSharedBytes > 48 * 1024 ? dynamicSharedBytes : 0);
  CUfunction fn = e.fn;
  entries_.emplace(key, std::move(e));
  return fn;
}

size_t ModuleCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

} // namespace tile::rt
