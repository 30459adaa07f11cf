//===- AttentionAnchor.cpp - ours and cuDNN's attention forward, interleaved ----===//
#include "AttentionAnchor.h"

#include "GpuClocks.h"
#include "Interleave.h"

#include "cudnn_attention.h"

#include "tile/HalfBits.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace tile::bench {

namespace {

using reference::CudnnAttention;
using reference::SdpaProblem;

/// The process's cuDNN (loaded once; its plans are kept for the rows that repeat a problem), or why not.
struct Cudnn {
  std::unique_ptr<CudnnAttention> dnn;
  std::string why;
};
Cudnn &cudnn() {
  static Cudnn once = [] {
    Cudnn c;
    try {
      c.dnn = std::make_unique<CudnnAttention>();
      std::printf("bench_attention: %s in process (its fused attention anchors the forward rows)\n",
                  c.dnn->version().c_str());
    } catch (const std::exception &e) { c.why = e.what(); }
    return c;
  }();
  return once;
}

/// The stored f16/bf16 bits as floats.
std::vector<float> floats(const std::vector<uint16_t> &bits, bool bf16) {
  std::vector<float> f(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) f[i] = bf16 ? bf16Float(bits[i]) : halfFloat(bits[i]);
  return f;
}

/// max|ours − ref| / max|ref|; NaN where either side has a non-finite element (unwritten: poisoned).
double maxRelError(const std::vector<float> &ours, const std::vector<float> &ref) {
  double worst = 0, largest = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(ours[i]) || !std::isfinite(ref[i])) return NAN;
    worst = std::max(worst, double(std::fabs(ours[i] - ref[i])));
    largest = std::max(largest, double(std::fabs(ref[i])));
  }
  return largest > 0 ? worst / largest : worst;
}

std::string clocksText(const GpuSample &before, const GpuWindow &during, const GpuSample &after) {
  GpuClocks &gpu = GpuClocks::get();
  if (!gpu.available()) return "n/a (" + gpu.why() + ")";
  char buf[256];
  std::snprintf(buf, sizeof buf, "during SM %u-%u MHz, max %u W, max %u C (%d samples, reasons %s)", during.minSmMHz,
                during.maxSmMHz, during.maxPowerMW / 1000, during.maxTempC, during.samples,
                reasonsText(during.reasons).c_str());
  return "before " + sampleText(before) + ", " + buf + ", after " + sampleText(after) + " (max SM " +
         std::to_string(gpu.maxSmMHz()) + " MHz)";
}

} // namespace

bool timeForwardAgainstCudnn(const AttentionAnchorCase &c, const std::function<void()> &ours) {
  const std::string row = "fwd_" + c.name + " " + c.shape;
  auto skip = [&](const std::string &why) {
    std::printf("skip cudnn_attn_%s: %s\n", row.c_str(), why.c_str());
    std::fflush(stdout);
    return false;
  };
  Cudnn &lib = cudnn();
  if (!lib.dnn) return skip(lib.why);
  const SdpaProblem p{c.bf16, c.batch, c.heads, c.kvHeads, c.seqlen, c.headDim, c.causal};
  if (std::string why = lib.dnn->prepare(p); !why.empty()) return skip(why);

  // cuDNN writes outputs of its own (ours keeps its buffers), stats [B, H, S]. Both sides' outputs are
  // poisoned (NaN bits), each side runs once, and ours is compared with cuDNN's: every element
  // written, and how far apart they are on the bench's inputs (the GPU tests hold them to bounds).
  const size_t elems = c.o->bytes() / 2, rows = c.lse->bytes() / 4;
  rt::DeviceBuffer refO(elems * 2), refStats(rows * 4);
  auto theirs = [&] { lib.dnn->forward(p, c.q->ptr(), c.k->ptr(), c.v->ptr(), refO.ptr(), refStats.ptr(), c.scale); };
  for (rt::DeviceBuffer *b : {c.o, c.lse, &refO, &refStats}) b->fillBytes(0xFF);
  try {
    theirs();
    rt::Context::get().synchronize();
  } catch (const std::exception &e) { return skip(e.what()); }
  ours();
  rt::Context::get().synchronize();
  const double oError =
      maxRelError(floats(c.o->toHost<uint16_t>(elems), c.bf16), floats(refO.toHost<uint16_t>(elems), c.bf16));
  // Ours [heads, tokens], cuDNN's [batch, heads, seqlen].
  const std::vector<float> lse = c.lse->toHost<float>(rows), stats = refStats.toHost<float>(rows);
  std::vector<float> refLse(rows);
  const int64_t tokens = c.batch * c.seqlen;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.seqlen; ++i)
        refLse[size_t(h * tokens + b * c.seqlen + i)] = stats[size_t((b * c.heads + h) * c.seqlen + i)];
  const double lseError = maxRelError(lse, refLse);

  // In turns, each sample after the same L2 flush, the GPU's clocks watched: ours is runs[0].
  std::vector<std::vector<double>> us;
  const GpuSample before = GpuClocks::get().read();
  GpuClocks::Sampler sampler(5);
  try {
    us = timeInterleaved({ours, theirs}, {.rounds = 20, .warmupRounds = 2});
  } catch (const std::exception &e) {
    sampler.stop();
    return skip(e.what());
  }
  const GpuWindow during = sampler.stop();
  const GpuSample after = GpuClocks::get().read();
  const double oursUs = median(us[0]), cudnnUs = median(us[1]);
  const std::vector<double> ratios = pairedRatios(us[0], us[1]); // cuDNN / ours: > 1 where ours was faster
  auto result = [&](const char *impl, double medianUs) {
    std::printf("RESULT %s_attn_%s %.1f %.3f\n", impl, row.c_str(), c.flops / (medianUs * 1e-6) / 1e12, medianUs);
  };
  result("tile", oursUs);
  result("cudnn", cudnnUs);
  std::printf(
      "cudnn-attn %s: cuDNN's time / ours per round median %.3f [q1 %.3f, q3 %.3f] over %zu rounds; ours against "
      "cuDNN: o max rel err %.2e, lse %.2e; cuDNN %s\n",
      row.c_str(), median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75), ratios.size(), oError, lseError,
      lib.dnn->describe(p).c_str());
  std::printf("clocks cudnn_attn_%s: %s\n", row.c_str(), clocksText(before, during, after).c_str());
  std::fflush(stdout);
  return true;
}

} // namespace tile::bench
