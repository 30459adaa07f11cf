// bench_attention: TFLOP/s of the library's attention forward and backward (kernels/Attention*.h, AOT PTX)
// at FlashAttention's benchmark shapes: batch·seqlen = 16k tokens, heads·headDim = 2048, seqlen 512..16k,
// head dims 64/128/256, causal counted as half the FLOPs. Prints `RESULT tile_attn_fwd_<dtype>_d<D>_<full|
// causal> <B>x<H>x<S> <TFLOP/s> <us>`, the names bench/attention_torch_bench.py prints for PyTorch's SDPA
// (cuDNN and flash) and Triton in the same run (scripts/gpu-check.sh puts them side by side).
// The backward (kernels/AttentionBackward.h, head dims 64 and 128) as `tile_attn_bwd_...` rows, FLOPs 2.5x the
// forward's. Then the other declared tiles (AttentionForward::kSweep, kAttentionBackwardSweep) at seqlen 4096 and
// 16384, as `tile-<tile>_attn_...` rows.
// The library's forward rows and deterministic backward (`bwd`) rows at seqlen 4096 and 16384 (every seqlen with
// ATTN_CUDNN=all, none with ATTN_CUDNN=0) are timed in turns with cuDNN's fused attention on the same buffers, in
// this process (anchors/AttentionAnchor.h): `RESULT cudnn_attn_fwd_...` / `cudnn_attn_bwd_...` rows beside ours
// (then both from the interleaved samples), a `cudnn-attn` line (paired ratio, ours' error against cuDNN, its
// engine) and a `clocks` line; `skip cudnn_attn_...: <why>` where cuDNN cannot (ours then timed alone). The
// one-pass backward (`bwd_1pass`) likewise, as rows of its own (cuDNN timed again beside it).
//   bench_attention [--quick]      (--quick or ATTN_QUICK=1: seqlen 4096 and 16384 only)
// ATTN_ROWS="f16_d128_full bf16_d128_causal" keeps only those rows (library and sweep tiles), ATTN_SWEEP=0 leaves
// the sweep tiles out: a short run for a profiler (gpu-check.sh's PROFILE mode); ATTN_SWEEP=backward keeps the
// backward's only.
#include "tile/HalfBits.h"
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/AttentionBackward.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Stream.h"

#if TILE_BENCH_CUDNN_ATTENTION
#include "anchors/AttentionAnchor.h"
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;

namespace {

tk::AotLauncher gAot;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median event-timed microseconds of `launch` over `reps` after a warm-up.
template <class F> double medianUs(F launch, int reps) {
  for (int i = 0; i < 3; ++i) launch();
  std::vector<Event> start(reps), stop(reps);
  for (int i = 0; i < reps; ++i) {
    start[i].record();
    launch();
    stop[i].record();
  }
  stop.back().synchronize();
  std::vector<double> us(reps);
  for (int i = 0; i < reps; ++i) us[i] = 1e3 * stop[i].elapsedMs(start[i]);
  return median(us);
}

/// Whether ATTN_ROWS (space-separated "f16_d128_full"-style names) keeps the row `name`; unset keeps all.
bool rowSelected(const std::string &name) {
  const char *env = std::getenv("ATTN_ROWS");
  return !env || (" " + std::string(env) + " ").find(" " + name + " ") != std::string::npos;
}

/// Whether the library's forward and deterministic backward rows at `seqlen` run against cuDNN (see the top of
/// this file).
bool againstCudnn(int seqlen) {
  const char *env = std::getenv("ATTN_CUDNN");
  if (env && std::strcmp(env, "0") == 0) return false;
  return (env && std::strcmp(env, "all") == 0) || seqlen == 4096 || seqlen == 16384;
}

std::string tileName(const tk::AttentionConfig &c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "w" + std::to_string(c.numWarps) + "s" +
         std::to_string(c.numStages) +
         (!c.warpSpecialize     ? "-noWS"
          : c.overlapIterations ? ""
                                : "-noOverlap") +
         (c.warpSpecialize && !c.pingPong ? "-noTurns" : "");
}

/// Rows per seqlen, forward and (head dims 64 and 128) backward, of the library's tiles (name
/// `tile_attn_...`); or of a forward sweep tile `config` (`tile-<BM>x<BN>w<warps>s<stages>_attn_fwd_...`)
/// or a backward one `backwardConfig` (`tile-kv<tile>-q<tile>_attn_bwd_...`), which gpu-check's table leaves out.
template <class T>
void run(const char *dtype, int headDim, bool causal, const std::vector<int> &seqlens,
         const tk::AttentionConfig *config = nullptr, const tk::AttentionBackwardConfig *backwardConfig = nullptr) {
  if (!rowSelected(std::string(dtype) + "_d" + std::to_string(headDim) + (causal ? "_causal" : "_full"))) return;
  const int heads = 2048 / headDim;
  const int64_t tokens = 16384;
  const size_t elems = size_t(tokens) * heads * headDim;
  std::vector<uint16_t> host(elems);
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.f, 1.f);
  for (uint16_t &h : host) h = std::is_same_v<T, tile::f16> ? tile::halfBits(normal(gen)) : tile::bf16Bits(normal(gen));
  DeviceBuffer q = DeviceBuffer::fromHost(host), k = DeviceBuffer::fromHost(host), v = DeviceBuffer::fromHost(host);
  DeviceBuffer o(elems * 2), lse(size_t(tokens) * heads * 4);
  // The backward's (head dims 64 and 128): dO like q, the gradients, delta, the one-pass
  // mode's dQ accumulator.
  const bool forward = !backwardConfig, backward = !config && headDim <= 128;
  DeviceBuffer dO = DeviceBuffer::fromHost(host), dq(elems * 2), dk(elems * 2), dv(elems * 2), delta(lse.bytes());
  DeviceBuffer dqAccum(size_t(heads) * headDim * tk::AttentionBackward<T>::accumulatorColumns(tokens) * 4);
  const std::string impl = config ? "tile-" + tileName(*config)
                           : backwardConfig
                               ? "tile-kv" + tileName(backwardConfig->keyValue) + "-q" + tileName(backwardConfig->query)
                               : std::string("tile");
  // The one-pass mode's rows: "tile" for the library's tiles, else the sweep tile's.
  const std::string onePassImpl = backwardConfig ? "tile-1p" + tileName(backwardConfig->onePass) : impl;
  for (int seqlen : seqlens) {
    const int64_t batch = tokens / seqlen;
    tk::AttentionProblem p{q, k, v, o, lse, batch, heads, heads, headDim, seqlen};
    p.causal = causal;
    // FlashAttention's FLOP counts: 4·B·H·S²·D forward (two products), 2.5 times that backward
    // (five products), causal half.
    const double flops = 4.0 * double(batch) * heads * double(seqlen) * seqlen * headDim / (causal ? 2 : 1);
    auto report = [&](const char *pass, double passFlops, auto launch, const std::string &who) {
      try {
        const double us = medianUs(launch, 20);
        std::printf("RESULT %s_attn_%s_%s_d%d_%s %lldx%dx%d %.1f %.3f\n", who.c_str(), pass, dtype, headDim,
                    causal ? "causal" : "full", static_cast<long long>(batch), heads, seqlen,
                    passFlops / (us * 1e-6) / 1e12, us);
      } catch (const std::exception &e) {
        std::printf("skip tile_attn_%s_%s_d%d_%s seqlen %d: %s\n", pass, dtype, headDim, causal ? "causal" : "full",
                    seqlen, e.what());
      }
      std::fflush(stdout);
    };
    auto forwardLaunch = [&] { tk::AttentionForward<T>::launch(gAot, p, nullptr, config); };
    auto backwardLaunch = [&] {
      tk::AttentionBackward<T>::launch(gAot, {p, dO, dq, dk, dv, delta}, nullptr, backwardConfig);
    };
    // The library's rows timed in turns with cuDNN's (printed beside them: then not again alone).
    const bool anchored = !config && !backwardConfig && againstCudnn(seqlen);
    const std::string name = std::string(dtype) + "_d" + std::to_string(headDim) + (causal ? "_causal" : "_full"),
                      shape = std::to_string(batch) + "x" + std::to_string(heads) + "x" + std::to_string(seqlen);
#if TILE_BENCH_CUDNN_ATTENTION
    const tile::bench::AttentionAnchorCase c{.bf16 = std::is_same_v<T, tile::bf16>,
                                             .batch = batch,
                                             .heads = heads,
                                             .kvHeads = heads,
                                             .seqlen = seqlen,
                                             .headDim = headDim,
                                             .causal = causal,
                                             .scale = tk::detail::softmaxScale(p),
                                             .q = &q,
                                             .k = &k,
                                             .v = &v,
                                             .o = &o,
                                             .lse = &lse,
                                             .dO = &dO,
                                             .dq = &dq,
                                             .dk = &dk,
                                             .dv = &dv,
                                             .name = name,
                                             .shape = shape,
                                             .flops = flops};
#endif
    // Ours' forward or backward (either mode) timed in turns with cuDNN's: whether its rows were printed.
    auto anchor = [&](const char *pass, const std::function<void()> &ours) {
      if (!anchored) return false;
#if TILE_BENCH_CUDNN_ATTENTION
      try {
        return std::strcmp(pass, "fwd") == 0 ? tile::bench::timeForwardAgainstCudnn(c, ours)
                                             : tile::bench::timeBackwardAgainstCudnn(c, ours, pass);
      } catch (const std::exception &e) { // ours failed: its skip line, as report's
        std::printf("skip tile_attn_%s_%s seqlen %d: %s\n", pass, name.c_str(), seqlen, e.what());
        return true;
      }
#else
      (void)ours;
      std::printf("skip cudnn_attn_%s_%s %s: bench_attention was built without cudnn.h\n", pass, name.c_str(),
                  shape.c_str());
      return false;
#endif
    };
    if (!forward) tk::AttentionForward<T>::launch(gAot, p); // the backward reads its O and row log-sum-exp
    else if (!anchor("fwd", forwardLaunch)) report("fwd", flops, forwardLaunch, impl);
    if (backward) {
      // "bwd": the deterministic mode (two passes), "bwd_1pass": dQ by atomics in one pass
      // (FlashAttention-3's; the faster at head dim 128).
      if (!anchor("bwd", backwardLaunch)) report("bwd", 2.5 * flops, backwardLaunch, impl);
      auto onePassLaunch = [&] {
        tk::AttentionBackward<T>::launch(gAot, {p, dO, dq, dk, dv, delta, dqAccum}, nullptr, backwardConfig);
      };
      if (!anchor("bwd_1pass", onePassLaunch)) report("bwd_1pass", 2.5 * flops, onePassLaunch, onePassImpl);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string why;
  if (!gpuAvailable(&why)) {
    std::printf("bench_attention: skipped: %s\n", why.c_str());
    return 0;
  }
  const char *quickEnv = std::getenv("ATTN_QUICK");
  const bool quick =
      (argc > 1 && std::strcmp(argv[1], "--quick") == 0) || (quickEnv && std::strcmp(quickEnv, "1") == 0);
  const std::vector<int> seqlens =
      quick ? std::vector<int>{4096, 16384} : std::vector<int>{512, 1024, 2048, 4096, 8192, 16384};
  for (int d : {64, 128, 256})
    for (bool causal : {false, true}) run<tile::f16>("f16", d, causal, seqlens);
  for (bool causal : {false, true}) run<tile::bf16>("bf16", 128, causal, seqlens);
  const char *sweep = std::getenv("ATTN_SWEEP");
  if (sweep && std::strcmp(sweep, "0") == 0) return 0;
  // The other declared tiles (AttentionForward::kSweep) at two lengths: what configFor's choice is measured against.
  // ATTN_SWEEP=backward: the backward's only.
  if (!(sweep && std::strcmp(sweep, "backward") == 0))
    for (const auto &t : tk::AttentionForward<tile::f16>::kSweep)
      for (bool causal : {false, true}) run<tile::f16>("f16", t.headDim, causal, {4096, 16384}, &t.config);
  for (const auto &t : tk::kAttentionBackwardSweep)
    for (bool causal : {false, true}) run<tile::f16>("f16", t.headDim, causal, {4096, 16384}, nullptr, &t.config);
  return 0;
}
