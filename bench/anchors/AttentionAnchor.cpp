//===- AttentionAnchor.cpp - ours and cuDNN's attention forward and backward, interleaved ----===//
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
#include <tuple>
#include <vector>

namespace tile::bench {

namespace {

using reference::CudnnAttention;
using reference::SdpaPass;
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
      std::printf("bench_attention: %s in process (its fused attention anchors the forward and backward rows)\n",
                  c.dnn->version().c_str());
    } catch (const std::exception &e) { c.why = e.what(); }
    return c;
  }();
  return once;
}

SdpaProblem problemOf(const AttentionAnchorCase &c) {
  return {c.bf16, c.batch, c.heads, c.kvHeads, c.seqlen, c.headDim, c.causal};
}

/// `skip cudnn_attn_<row>: <why>`; false, for the caller to return.
bool skip(const std::string &row, const std::string &why) {
  std::printf("skip cudnn_attn_%s: %s\n", row.c_str(), why.c_str());
  std::fflush(stdout);
  return false;
}

/// The f16/bf16 elements of `b` (its first `count`) as floats.
std::vector<float> floats(const rt::DeviceBuffer &b, size_t count, bool bf16) {
  const std::vector<uint16_t> bits = b.toHost<uint16_t>(count);
  std::vector<float> f(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) f[i] = bf16 ? bf16Float(bits[i]) : halfFloat(bits[i]);
  return f;
}

/// max|ours − ref| / max|ref| and ‖ours − ref‖₂ / ‖ref‖₂; NaN where either side has a non-finite element
/// (unwritten: poisoned).
struct RelErrors {
  double max = NAN, norm = NAN;
};
RelErrors relErrors(const std::vector<float> &ours, const std::vector<float> &ref) {
  double worst = 0, largest = 0, diff = 0, norm = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(ours[i]) || !std::isfinite(ref[i])) return {};
    const double d = double(ours[i]) - ref[i];
    worst = std::max(worst, std::fabs(d));
    largest = std::max(largest, double(std::fabs(ref[i])));
    diff += d * d, norm += double(ref[i]) * ref[i];
  }
  return {largest > 0 ? worst / largest : worst, norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff)};
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

/// `ours` and `theirs` (cuDNN) timed in turns, each sample after the same L2 flush, the GPU's clocks watched;
/// prints the two RESULT rows of `row` ("fwd_<name> <shape>") at `flops` per launch, the cudnn-attn line (with
/// `errors`, ours' against cuDNN, and cuDNN's `engine`) and the clocks line. False (after a skip line) where a
/// sample throws.
bool timeInTurns(const std::string &row, double flops, const std::function<void()> &ours,
                 const std::function<void()> &theirs, const std::string &errors, const std::string &engine) {
  std::vector<std::vector<double>> us;
  const GpuSample before = GpuClocks::get().read();
  GpuClocks::Sampler sampler(5);
  try {
    us = timeInterleaved({ours, theirs}, {.rounds = 20, .warmupRounds = 2});
  } catch (const std::exception &e) {
    sampler.stop();
    return skip(row, e.what());
  }
  const GpuWindow during = sampler.stop();
  const GpuSample after = GpuClocks::get().read();
  const double oursUs = median(us[0]), cudnnUs = median(us[1]);
  const std::vector<double> ratios = pairedRatios(us[0], us[1]); // cuDNN / ours: > 1 where ours was faster
  auto result = [&](const char *impl, double medianUs) {
    std::printf("RESULT %s_attn_%s %.1f %.3f\n", impl, row.c_str(), flops / (medianUs * 1e-6) / 1e12, medianUs);
  };
  result("tile", oursUs);
  result("cudnn", cudnnUs);
  std::printf("cudnn-attn %s: cuDNN's time / ours per round median %.3f [q1 %.3f, q3 %.3f] over %zu rounds; ours "
              "against cuDNN: %s; cuDNN %s\n",
              row.c_str(), median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75), ratios.size(),
              errors.c_str(), engine.c_str());
  std::printf("clocks cudnn_attn_%s: %s\n", row.c_str(), clocksText(before, during, after).c_str());
  std::fflush(stdout);
  return true;
}

} // namespace

bool timeForwardAgainstCudnn(const AttentionAnchorCase &c, const std::function<void()> &ours) {
  const std::string row = "fwd_" + c.name + " " + c.shape;
  Cudnn &lib = cudnn();
  if (!lib.dnn) return skip(row, lib.why);
  const SdpaProblem p = problemOf(c);
  if (std::string why = lib.dnn->prepare(p); !why.empty()) return skip(row, why);

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
  } catch (const std::exception &e) { return skip(row, e.what()); }
  ours();
  rt::Context::get().synchronize();
  const double oError = relErrors(floats(*c.o, elems, c.bf16), floats(refO, elems, c.bf16)).max;
  // Ours [heads, tokens], cuDNN's [batch, heads, seqlen].
  const std::vector<float> lse = c.lse->toHost<float>(rows), stats = refStats.toHost<float>(rows);
  std::vector<float> refLse(rows);
  const int64_t tokens = c.batch * c.seqlen;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.seqlen; ++i)
        refLse[size_t(h * tokens + b * c.seqlen + i)] = stats[size_t((b * c.heads + h) * c.seqlen + i)];
  char errors[96];
  std::snprintf(errors, sizeof errors, "o max rel err %.2e, lse %.2e", oError, relErrors(lse, refLse).max);
  return timeInTurns(row, c.flops, ours, theirs, errors, lib.dnn->describe(p));
}

bool timeBackwardAgainstCudnn(const AttentionAnchorCase &c, const std::function<void()> &ours,
                              const std::string &pass) {
  const std::string row = pass + "_" + c.name + " " + c.shape;
  Cudnn &lib = cudnn();
  if (!lib.dnn) return skip(row, lib.why);
  const SdpaProblem p = problemOf(c);
  // Its backward reads its forward's O and stats.
  for (SdpaPass pass : {SdpaPass::Forward, SdpaPass::Backward})
    if (std::string why = lib.dnn->prepare(p, pass); !why.empty()) return skip(row, why);

  // cuDNN's forward once, into buffers of its own, then each side's backward once on poisoned gradients.
  const size_t qElems = c.q->bytes() / 2, kvElems = c.k->bytes() / 2, rows = c.lse->bytes() / 4;
  rt::DeviceBuffer refO(qElems * 2), refStats(rows * 4), refDq(qElems * 2), refDk(kvElems * 2), refDv(kvElems * 2);
  auto theirs = [&] {
    lib.dnn->backward(p, c.q->ptr(), c.k->ptr(), c.v->ptr(), refO.ptr(), c.dO->ptr(), refStats.ptr(), refDq.ptr(),
                      refDk.ptr(), refDv.ptr(), c.scale);
  };
  for (rt::DeviceBuffer *b : {c.dq, c.dk, c.dv, &refO, &refStats, &refDq, &refDk, &refDv}) b->fillBytes(0xFF);
  try {
    lib.dnn->forward(p, c.q->ptr(), c.k->ptr(), c.v->ptr(), refO.ptr(), refStats.ptr(), c.scale);
    theirs();
    rt::Context::get().synchronize();
  } catch (const std::exception &e) { return skip(row, e.what()); }
  ours();
  rt::Context::get().synchronize();
  std::string errors;
  for (auto [what, got, ref, count] : {std::tuple{"dq", c.dq, &refDq, qElems}, std::tuple{"dk", c.dk, &refDk, kvElems},
                                       std::tuple{"dv", c.dv, &refDv, kvElems}}) {
    const RelErrors e = relErrors(floats(*got, count, c.bf16), floats(*ref, count, c.bf16));
    char text[96];
    std::snprintf(text, sizeof text, "%s%s max rel err %.2e (normwise %.2e)", errors.empty() ? "" : ", ", what, e.max,
                  e.norm);
    errors += text;
  }
  return timeInTurns(row, 2.5 * c.flops, ours, theirs, errors, lib.dnn->describe(p, SdpaPass::Backward));
}

} // namespace tile::bench
