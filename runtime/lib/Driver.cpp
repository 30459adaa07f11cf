// Loads libcuda.so.1 with dlopen and resolves the driver API through cuGetProcAddress.
//
// Why not link libcuda: the build machines have no driver, and one binary must run on any driver.
// Why cuGetProcAddress and not dlsym per name: CUDA exports several ABI versions of many entry
// points (CUDA 13's cuCtxSynchronize_v2 takes a context, the unsuffixed one does not); asking the
// driver for "name at CUDA version V" returns the variant whose signature cuda.h documents for V.
#include "DriverApi.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Error.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>

namespace tile::rt {

namespace {
std::string oneLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\n') out += " | ";
    else if (c != '\r') out += c;
  }
  return out;
}
} // namespace

Error::Error(const std::string &message, CUresult code) : RuntimeError(oneLine(message)), code_(code) {}

namespace detail {
namespace {

// The unversioned typedef names do not exist in CUDA 13's cudaTypedefs.h; check each versioned one
// against the declaration cuda.h maps the plain name to (e.g. cuMemAlloc -> cuMemAlloc_v2).
#define TILE_RT_CHECK_SIG(field, sym, ver)                                                                             \
  static_assert(std::is_same_v<PFN_##sym##_v##ver, decltype(&::sym)>,                                                  \
                #sym ": PFN_" #sym "_v" #ver " is not the signature cuda.h declares");
TILE_RT_DRIVER_ENTRY_POINTS(TILE_RT_CHECK_SIG)
#undef TILE_RT_CHECK_SIG
static_assert(std::is_same_v<PFN_cuEventElapsedTime_v2000, PFN_cuEventElapsedTime_v12080>);
// cuda.h 13.0 declares both cuCtxSynchronize(void) and cuCtxSynchronize_v2(CUcontext) without mapping one
// name to the other; cuGetProcAddress("cuCtxSynchronize", >= 13000) returns the latter.
static_assert(std::is_same_v<PFN_cuCtxSynchronize_v2000, decltype(&::cuCtxSynchronize)>);
#if CUDA_VERSION >= 13000
static_assert(std::is_same_v<PFN_cuCtxSynchronize_v13000, decltype(&::cuCtxSynchronize_v2)>);
#endif
// cuda.h maps cuGetProcAddress to cuGetProcAddress_v2 (the 12.0 signature with symbolStatus).
static_assert(std::is_same_v<PFN_cuGetProcAddress_v12000, decltype(&::cuGetProcAddress)>);

constexpr int kMinDriverVersion = 12000; // cuGetProcAddress_v2 exists from 12.0

struct Loaded {
  Api api;
  bool ok = false;
  std::string whyNot;
};

std::string nameOf(const Api &a, CUresult r) {
  const char *name = nullptr;
  if (a.getErrorName && a.getErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(r));
}

std::string textOf(const Api &a, CUresult r) {
  const char *str = nullptr;
  std::string s = nameOf(a, r);
  if (a.getErrorString && a.getErrorString(r, &str) == CUDA_SUCCESS && str) s += std::string(" (") + str + ")";
  return s;
}

Loaded load() {
  Loaded L;
  Api &a = L.api;
  // Never dlclose'd: function pointers must outlive static destructors that release resources.
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    L.whyNot =
        std::string("libcuda.so.1 not found (") + (err ? err : "dlopen failed") + "); no NVIDIA driver on this machine";
    return L;
  }
  auto getProc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!getProc) {
    L.whyNot = "libcuda.so.1 has no cuGetProcAddress_v2; the driver is older than CUDA 12.0";
    return L;
  }
  auto resolve = [&](auto &fn, const char *sym, int version) -> bool {
    void *p = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = getProc(sym, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !p) {
      L.whyNot = std::string("libcuda.so.1: cuGetProcAddress(\"") + sym + "\", " + std::to_string(version) +
                 ") failed (result " + std::to_string(static_cast<int>(r)) + ", status " +
                 std::to_string(static_cast<int>(status)) + ")";
      return false;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    return true;
  };

  PFN_cuDriverGetVersion_v2020 getVersion = nullptr;
  if (!resolve(getVersion, "cuDriverGetVersion", 2020)) return L;
  if (CUresult r = getVersion(&a.driverVersion); r != CUDA_SUCCESS) {
    L.whyNot = "libcuda.so.1: cuDriverGetVersion failed (result " + std::to_string(static_cast<int>(r)) + ")";
    return L;
  }
  if (a.driverVersion < kMinDriverVersion) {
    L.whyNot = "libcuda.so.1 is driver version " + std::to_string(a.driverVersion) + "; need at least " +
               std::to_string(kMinDriverVersion);
    return L;
  }
  // Never ask for a version newer than these headers: a newer variant could have another signature.
  a.abiVersion = std::min(a.driverVersion, CUDA_VERSION);
#define TILE_RT_RESOLVE(field, sym, ver)                                                                               \
  if (!resolve(a.field, #sym, a.abiVersion)) return L;
  TILE_RT_DRIVER_ENTRY_POINTS(TILE_RT_RESOLVE)
#undef TILE_RT_RESOLVE
  if (a.abiVersion >= 13000) {
    if (!resolve(a.ctxSynchronize13, "cuCtxSynchronize", a.abiVersion)) return L;
  } else {
    if (!resolve(a.ctxSynchronize2, "cuCtxSynchronize", a.abiVersion)) return L;
  }

  if (CUresult r = a.init(0); r != CUDA_SUCCESS) {
    L.whyNot = "driver init failed: cuInit: " + textOf(a, r);
    if (r == CUDA_ERROR_NO_DEVICE) L.whyNot += "; no CUDA device visible";
    return L;
  }
  int count = 0;
  if (CUresult r = a.deviceGetCount(&count); r != CUDA_SUCCESS) {
    L.whyNot = "driver init failed: cuDeviceGetCount: " + textOf(a, r);
    return L;
  }
  if (count == 0) {
    const char *vis = std::getenv("CUDA_VISIBLE_DEVICES");
    L.whyNot = std::string("no CUDA device visible") + (vis ? std::string(" (CUDA_VISIBLE_DEVICES=") + vis + ")" : "");
    return L;
  }
  L.ok = true;
  return L;
}

const Loaded &loaded() {
  static const Loaded L = load(); // thread-safe, once per process
  return L;
}

} // namespace

const Api &api() {
  const Loaded &L = loaded();
  if (!L.ok) throw Error("tile: no usable GPU: " + L.whyNot);
  return L.api;
}

std::string resultText(CUresult r) { return textOf(loaded().api, r); }

void check(CUresult r, const char *call, std::string_view context) {
  if (r == CUDA_SUCCESS) return;
  std::string msg = std::string("tile: ") + call + " failed: " + resultText(r);
  if (!context.empty()) msg += " [" + std::string(context) + "]";
  throw Error(msg, r);
}

void ensureContext() {
  CUcontext cur = nullptr;
  check(api().ctxGetCurrent(&cur), "cuCtxGetCurrent");
  if (!cur) Context::get(0); // makes it current on this thread
}

} // namespace detail

bool gpuAvailable(std::string *whyNot) {
  const auto &L = detail::loaded();
  if (whyNot) *whyNot = L.whyNot;
  return L.ok;
}

int driverVersion() { return detail::loaded().api.driverVersion; }

int deviceCount() {
  if (!gpuAvailable()) return 0;
  int n = 0;
  detail::check(detail::api().deviceGetCount(&n), "cuDeviceGetCount");
  return n;
}

} // namespace tile::rt
