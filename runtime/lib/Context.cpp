// Primary-context management (one retained primary context per device, for the process lifetime).
#include "DriverApi.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Error.h"

#include <map>
#include <memory>
#include <mutex>

namespace tile::rt {

using detail::api;
using detail::check;

Context &Context::get(int ordinal) {
  static std::mutex mu;
  // Destroyed at exit, releasing each primary context (lets tools such as compute-sanitizer see a clean teardown).
  static std::map<int, std::unique_ptr<Context>> contexts;
  Context *c;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto &slot = contexts[ordinal];
    if (!slot) {
      try {
        slot.reset(new Context(ordinal));
      } catch (...) {
        contexts.erase(ordinal);
        throw;
      }
    }
    c = slot.get();
  }
  CUcontext cur = nullptr;
  check(api().ctxGetCurrent(&cur), "cuCtxGetCurrent");
  if (!cur) c->makeCurrent();
  return *c;
}

Context::Context(int ordinal) {
  const auto &a = api(); // throws "tile: no usable GPU: <reason>"
  int count = 0;
  check(a.deviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count)
    throw Error("tile: device ordinal " + std::to_string(ordinal) + " out of range (" + std::to_string(count) +
                " device(s) visible)");
  std::string where = "device " + std::to_string(ordinal);
  check(a.deviceGet(&dev_, ordinal), "cuDeviceGet", where);

  info_.ordinal = ordinal;
  char name[256] = {};
  check(a.deviceGetName(name, sizeof(name), dev_), "cuDeviceGetName", where);
  info_.name = name;
  auto attr = [&](CUdevice_attribute which, const char *what) {
    int v = 0;
    check(a.deviceGetAttribute(&v, which, dev_), "cuDeviceGetAttribute", where + " " + what);
    return v;
  };
  info_.ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major");
  info_.ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor");
  info_.smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count");
  info_.maxSharedPerBlock =
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "max shared memory per block (opt-in)");
  check(a.deviceTotalMem(&info_.totalMem, dev_), "cuDeviceTotalMem", where);

  check(a.primaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain", where);
}

Context::~Context() {
  // No throwing from a destructor; at exit the driver may already report CUDA_ERROR_DEINITIALIZED.
  if (ctx_) (void)api().primaryCtxRelease(dev_);
}

void Context::makeCurrent() {
  check(api().ctxSetCurrent(ctx_), "cuCtxSetCurrent", "device " + std::to_string(info_.ordinal));
}

void Context::synchronize() {
  const auto &a = api();
  std::string where = "device " + std::to_string(info_.ordinal);
  if (a.ctxSynchronize13) {
    check(a.ctxSynchronize13(ctx_), "cuCtxSynchronize", where);
    return;
  }
  // Pre-13.0 ABI synchronises the current context: make ours current for the call.
  check(a.ctxPushCurrent(ctx_), "cuCtxPushCurrent", where);
  CUresult r = a.ctxSynchronize2();
  CUcontext popped = nullptr;
  (void)a.ctxPopCurrent(&popped);
  check(r, "cuCtxSynchronize", where);
}

} // namespace tile::rt
