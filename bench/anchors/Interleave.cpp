//===- Interleave.cpp - interleaved event timing of several candidates ----===//
#include "Interleave.h"

#include "tile/runtime/Memory.h"
#include "tile/runtime/Stream.h"

#include <algorithm>
#include <cmath>

namespace tile::bench {

std::vector<std::vector<double>> timeInterleaved(const std::vector<std::function<void()>> &runs,
                                                 const InterleaveOptions &o) {
  const size_t k = runs.size();
  constexpr size_t kFlushBytes = size_t(128) << 20;
  static rt::DeviceBuffer flushFrom(kFlushBytes), flushTo(kFlushBytes); // kept: allocation is not free
  auto flush = [&] {
    for (int i = 0; i < o.flushCopies; ++i) rt::copyDeviceToDevice(flushTo.ptr(), flushFrom.ptr(), kFlushBytes);
  };
  for (int r = 0; r < o.warmupRounds; ++r)
    for (const auto &run : runs) run();
  std::vector<std::vector<rt::Event>> start(k), stop(k);
  for (size_t c = 0; c < k; ++c) {
    start[c].resize(size_t(o.rounds));
    stop[c].resize(size_t(o.rounds));
  }
  for (int r = 0; r < o.rounds; ++r)
    for (size_t j = 0; j < k; ++j) {
      const size_t c = (j + size_t(r)) % k; // rotate: no candidate always runs first after the flush
      flush();
      start[c][size_t(r)].record();
      for (int b = 0; b < o.batch; ++b) runs[c]();
      stop[c][size_t(r)].record();
    }
  std::vector<std::vector<double>> us(k, std::vector<double>(size_t(o.rounds)));
  for (size_t c = 0; c < k; ++c)
    for (int r = 0; r < o.rounds; ++r) {
      stop[c][size_t(r)].synchronize();
      us[c][size_t(r)] = 1e3 * stop[c][size_t(r)].elapsedMs(start[c][size_t(r)]) / o.batch;
    }
  return us;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double at = q * double(v.size() - 1);
  const size_t lo = size_t(std::floor(at)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - double(lo)) * (v[hi] - v[lo]);
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

std::vector<double> pairedRatios(const std::vector<double> &ours, const std::vector<double> &anchor) {
  std::vector<double> r(std::min(ours.size(), anchor.size()));
  for (size_t i = 0; i < r.size(); ++i) r[i] = anchor[i] / ours[i];
  return r;
}

} // namespace tile::bench
