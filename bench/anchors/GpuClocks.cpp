//===- GpuClocks.cpp - NVML through dlopen (no nvml.h needed) ----===//
#include "GpuClocks.h"

#include "Loader.h"

#include "tile/runtime/Context.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>

namespace tile::bench {

namespace {

// NVML's C ABI, declared here (the build machine has no nvml.h): enums are ints, a device an opaque pointer.
using NvmlReturn = int;
using NvmlDevice = void *;
constexpr int kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;

struct NvmlApi {
  NvmlReturn (*init)() = nullptr;
  const char *(*errorString)(NvmlReturn) = nullptr;
  NvmlReturn (*byPciBusId)(const char *, NvmlDevice *) = nullptr;
  NvmlReturn (*byIndex)(unsigned, NvmlDevice *) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned *) = nullptr;
  NvmlReturn (*maxClock)(NvmlDevice, int, unsigned *) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned *) = nullptr;
  NvmlReturn (*powerLimit)(NvmlDevice, unsigned *) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned *) = nullptr;
  NvmlReturn (*reasons)(NvmlDevice, unsigned long long *) = nullptr;
};
NvmlApi gNvml;

template <class F> bool resolve(void *lib, F &fn, std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (void *p = dlsym(lib, n)) {
      fn = reinterpret_cast<F>(p);
      return true;
    }
  return false;
}

// The runtime's device as "0000:3b:00.0", from the libcuda the runtime already loaded; "" if unknown.
std::string pciBusId() {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!cuda) return "";
  auto get = reinterpret_cast<decltype(&::cuDeviceGet)>(dlsym(cuda, "cuDeviceGet"));
  auto bus = reinterpret_cast<decltype(&::cuDeviceGetPCIBusId)>(dlsym(cuda, "cuDeviceGetPCIBusId"));
  CUdevice dev = 0;
  char id[64] = {};
  if (!get || !bus || get(&dev, rt::Context::get().info().ordinal) != CUDA_SUCCESS ||
      bus(id, int(sizeof id), dev) != CUDA_SUCCESS)
    return "";
  return id;
}

} // namespace

GpuClocks &GpuClocks::get() {
  static GpuClocks once;
  return once;
}

GpuClocks::GpuClocks() {
  void *lib = openLibrary({"libnvidia-ml.so.1"}, &why_);
  if (!lib) return;
  NvmlApi &a = gNvml;
  // The clocks-event query was called "throttle reasons" before NVML 12.2; either does.
  if (!resolve(lib, a.init, {"nvmlInit_v2", "nvmlInit"}) || !resolve(lib, a.errorString, {"nvmlErrorString"}) ||
      !resolve(lib, a.byPciBusId, {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"}) ||
      !resolve(lib, a.byIndex, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}) ||
      !resolve(lib, a.clock, {"nvmlDeviceGetClockInfo"}) || !resolve(lib, a.maxClock, {"nvmlDeviceGetMaxClockInfo"}) ||
      !resolve(lib, a.power, {"nvmlDeviceGetPowerUsage"}) ||
      !resolve(lib, a.powerLimit, {"nvmlDeviceGetEnforcedPowerLimit"}) ||
      !resolve(lib, a.temperature, {"nvmlDeviceGetTemperature"}) ||
      !resolve(lib, a.reasons,
               {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"})) {
    why_ = "libnvidia-ml.so.1 lacks an entry point bench_anchors uses";
    return;
  }
  if (NvmlReturn r = a.init(); r != 0) {
    why_ = std::string("nvmlInit: ") + a.errorString(r);
    return;
  }
  NvmlDevice dev = nullptr;
  const std::string bus = pciBusId();
  if ((bus.empty() || a.byPciBusId(bus.c_str(), &dev) != 0) && a.byIndex(0, &dev) != 0) {
    why_ = "NVML finds neither the device at PCI " + (bus.empty() ? std::string("?") : bus) + " nor index 0";
    return;
  }
  device_ = dev;
  a.maxClock(dev, kClockSm, &maxSmMHz_);
  a.powerLimit(dev, &powerLimitMW_);
}

GpuSample GpuClocks::read() const {
  GpuSample s;
  if (!device_) return s;
  const NvmlApi &a = gNvml;
  unsigned long long reasons = 0;
  s.ok = a.clock(device_, kClockSm, &s.smMHz) == 0 && a.clock(device_, kClockMem, &s.memMHz) == 0 &&
         a.power(device_, &s.powerMW) == 0 && a.temperature(device_, kTemperatureGpu, &s.tempC) == 0 &&
         a.reasons(device_, &reasons) == 0;
  s.reasons = reasons;
  return s;
}

GpuClocks::Sampler::Sampler(int periodMs) {
  if (!GpuClocks::get().available()) return;
  thread_ = std::thread([this, periodMs] {
    while (!stop_.load(std::memory_order_relaxed)) {
      GpuSample s = GpuClocks::get().read();
      if (s.ok) {
        GpuWindow &w = window_;
        w.minSmMHz = w.samples ? std::min(w.minSmMHz, s.smMHz) : s.smMHz;
        w.maxSmMHz = std::max(w.maxSmMHz, s.smMHz);
        w.maxPowerMW = std::max(w.maxPowerMW, s.powerMW);
        w.maxTempC = std::max(w.maxTempC, s.tempC);
        w.reasons |= s.reasons;
        ++w.samples;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(periodMs));
    }
  });
}

GpuClocks::Sampler::~Sampler() { stop(); }

GpuWindow GpuClocks::Sampler::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join(); // join orders the thread's writes of window_ before this read
  return window_;
}

std::string reasonsText(uint64_t reasons) {
  // NVML's nvmlClocksEventReason* bits (nvml.h); 0x1 (GPU idle) is left out: every gap between launches sets it.
  static const std::pair<uint64_t, const char *> kNames[] = {
      {0x2, "app_clocks"},  {0x4, "sw_power_cap"}, {0x8, "hw_slowdown"},  {0x10, "sync_boost"},
      {0x20, "sw_thermal"}, {0x40, "hw_thermal"},  {0x80, "power_brake"}, {0x100, "display_clocks"}};
  std::string out;
  for (auto [bit, name] : kNames)
    if (reasons & bit) out += (out.empty() ? "" : ",") + std::string(name);
  return out.empty() ? "none" : out;
}

std::string sampleText(const GpuSample &s) {
  if (!s.ok) return "n/a";
  return std::to_string(s.smMHz) + " MHz " + std::to_string(s.powerMW / 1000) + " W " + std::to_string(s.tempC) + " C";
}

} // namespace tile::bench
