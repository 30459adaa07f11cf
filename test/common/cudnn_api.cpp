// Loading cuDNN and cuBLAS (see cudnn_api.h).
#include "cudnn_api.h"

#include <dlfcn.h>

#include <stdexcept>

namespace tile::reference {

void *openLibrary(std::initializer_list<const char *> sonames, std::string *why) {
  std::string errors;
  for (const char *name : sonames) {
    if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    const char *e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
  }
  if (why) *why = errors + " (set LD_LIBRARY_PATH to the folder that holds it)";
  return nullptr;
}

namespace {

template <class Api, class Fill>
const Api *load(std::initializer_list<const char *> sonames, Fill fill, std::string *why) {
  void *lib = openLibrary(sonames, why);
  if (!lib) return nullptr;
  static Api api; // one per Api type: filled once, under the callers' static initialisation
  std::string missing = fill(lib, api);
  if (!missing.empty()) {
    if (why) *why = std::string(*sonames.begin()) + " lacks " + missing;
    return nullptr;
  }
  return &api;
}

// Resolves each entry point; returns the first missing symbol's name, or "".
#define TILE_RESOLVE(member, symbol)                                                                                   \
  api.member = reinterpret_cast<decltype(api.member)>(dlsym(lib, #symbol));                                            \
  if (!api.member) return #symbol;

std::string fillCudnn(void *lib, CudnnApi &api) {
  TILE_CUDNN_FUNCTIONS(TILE_RESOLVE)
  return "";
}
std::string fillCublas(void *lib, CublasApi &api) {
  TILE_CUBLAS_FUNCTIONS(TILE_RESOLVE)
  api.gemmEx = reinterpret_cast<CublasApi::GemmEx>(dlsym(lib, "cublasGemmEx"));
  if (!api.gemmEx) return "cublasGemmEx";
  return "";
}
#undef TILE_RESOLVE

struct Loaded {
  const void *api;
  std::string why;
};

} // namespace

const CudnnApi *cudnnApi(std::string *why) {
  static const Loaded once = [] {
    Loaded l;
    l.api = load<CudnnApi>({"libcudnn.so.9"}, fillCudnn, &l.why);
    return l;
  }();
  if (!once.api && why) *why = once.why;
  return static_cast<const CudnnApi *>(once.api);
}

const CublasApi *cublasApi(std::string *why) {
  static const Loaded once = [] {
    Loaded l;
    l.api = load<CublasApi>({"libcublas.so.13", "libcublas.so.12"}, fillCublas, &l.why);
    return l;
  }();
  if (!once.api && why) *why = once.why;
  return static_cast<const CublasApi *>(once.api);
}

void check(cudnnStatus_t s, const char *call) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  const CudnnApi *api = cudnnApi(nullptr);
  throw std::runtime_error(std::string(call) + ": " + (api ? api->getErrorString(s) : "cuDNN error") + " (" +
                           std::to_string(int(s)) + ")");
}

void check(cublasStatus_t s, const char *call) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(call) + ": cuBLAS status " + std::to_string(int(s)));
}

} // namespace tile::reference
