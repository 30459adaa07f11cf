//===- GpuClocks.h - the GPU's SM clock, power and temperature through NVML ----===//
// A GPU at its power limit lowers its SM clock: the same kernel then runs slower, and two libraries timed
// minutes apart are not compared on the same chip. bench_anchors reads NVML (libnvidia-ml.so.1, the
// driver's, through dlopen) before and after each shape and samples it while the shape is timed, so a
// ratio comes with the clocks it was measured at.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace tile::bench {

/// One reading; `ok` false where NVML is missing or a query failed.
struct GpuSample {
  bool ok = false;
  unsigned smMHz = 0, memMHz = 0, powerMW = 0, tempC = 0;
  uint64_t reasons = 0; ///< clocks event ("throttle") reasons, NVML's bit mask
};

/// What a sampler saw between start() and stop(): the lowest SM clock, the highest power and
/// temperature, every reason seen.
struct GpuWindow {
  int samples = 0;
  unsigned minSmMHz = 0, maxSmMHz = 0, maxPowerMW = 0, maxTempC = 0;
  uint64_t reasons = 0;
};

/// NVML's device for the runtime's GPU (matched by PCI bus id, else NVML index 0).
class GpuClocks {
public:
  /// Loads NVML once; never throws (available() says whether it worked, why() why not).
  static GpuClocks &get();
  bool available() const { return device_ != nullptr; }
  const std::string &why() const { return why_; }
  GpuSample read() const;
  unsigned maxSmMHz() const { return maxSmMHz_; }
  unsigned powerLimitMW() const { return powerLimitMW_; }

  /// Samples every `periodMs` on a thread of its own until stop().
  class Sampler {
  public:
    explicit Sampler(int periodMs = 10);
    ~Sampler();
    GpuWindow stop();

  private:
    std::atomic<bool> stop_{false};
    GpuWindow window_;
    std::thread thread_;
  };

private:
  GpuClocks();
  void *device_ = nullptr;
  std::string why_;
  unsigned maxSmMHz_ = 0, powerLimitMW_ = 0;
};

/// "sw_power_cap,hw_slowdown" (idle left out; "none" for 0).
std::string reasonsText(uint64_t reasons);
/// "1980 MHz 118 W 36 C" or "n/a".
std::string sampleText(const GpuSample &s);

} // namespace tile::bench
