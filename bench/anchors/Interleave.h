//===- Interleave.h - ours and an anchor timed in turns on one GPU ----===//
// Two libraries timed one after the other see different GPUs: the second runs on a hotter chip, nearer its
// power limit, at a lower SM clock (seen on an H200: cuBLAS f16 4096^3 at 695 TFLOP/s right after our rows, 760 alone).
// Here every round times each candidate once, in an order that rotates from round to round, each sample
// preceded by the same L2 flush; the ratio of two candidates is taken round by round (paired), so a
// clock that drifts during the run moves both sides of each ratio alike.
#pragma once

#include <functional>
#include <vector>

namespace tile::bench {

struct InterleaveOptions {
  int rounds = 30;      ///< samples per candidate
  int warmupRounds = 3; ///< untimed rounds first (module load, handles, heuristics' caches, clocks)
  int batch = 1;        ///< launches per sample (a sample's time is divided by it)
  /// 128 MiB device-to-device copies before each sample: they evict L2 and keep the GPU busy while the
  /// host queues the sample's launches, so events time the GPU, not the host's launch latency (one
  /// copy is ~65 us on an H100/H200; a batch of library calls may need more).
  int flushCopies = 1;
};

/// us[candidate][round]: microseconds per launch of each sample, by CUDA events on the legacy default
/// stream (the one our launches, cuBLAS and cuDNN use here).
std::vector<std::vector<double>> timeInterleaved(const std::vector<std::function<void()>> &runs,
                                                 const InterleaveOptions &o);

double median(std::vector<double> v);
/// The q-quantile (0..1) by linear interpolation.
double quantile(std::vector<double> v, double q);
/// anchor[r] / ours[r] for each round r: > 1 where ours was faster in that round.
std::vector<double> pairedRatios(const std::vector<double> &ours, const std::vector<double> &anchor);

} // namespace tile::bench
