//===- bench_anchors.cpp - ours against cuBLAS and cuDNN, interleaved in one process ----===//
// Benchmarks that cannot flatter us: the library's matmul and the MNIST convolutions timed
// in the same process as cuBLAS/cuBLASLt and cuDNN, on the same device buffers (the same random
// inputs), launch by launch in turns (anchors/Interleave.h), with the GPU's SM clock, power and
// temperature read before, during and after each shape (anchors/GpuClocks.h). Each shape first
// compares our output with the anchor's (relative error, printed). The python anchors
// (bench/torch_triton_bench.py, torch_conv_bench.py) stay as they are: they time the libraries in
// another process, minutes apart.
// Runtime-only: built here, run on the GPU machine by scripts/gpu-check.sh. Skips with one line where
// there is no GPU; a missing cuBLAS, cuDNN or NVML is one line and the rest runs.
//   bench_anchors [--rounds N] [FILTER]   FILTER: only shapes whose name contains it ("matmul f16")
#include "anchors/Cublas.h"
#include "anchors/CudnnConv.h"
#include "anchors/GpuClocks.h"
#include "anchors/Interleave.h"
#include "anchors/Report.h"

#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Conv.h"
#include "tile/kernels/MatmulTma.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"
#include "tile/HalfBits.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tile::bench;
using tile::rt::DeviceBuffer;
namespace tk = tile::kernels;

namespace {

tk::AotLauncher gAot;
std::string gFilter;
int gRounds = 50;
std::vector<AnchorRow> gRows;

// Uniform in [-1, 1): bench_kernels' randomMatrix draw (xorshift), so both benchmarks time the same values.
std::vector<float> uniform(size_t n, uint64_t seed, float scale = 1.0f) {
  std::vector<float> v(n);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (float &f : v) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    f = scale * float(int64_t(x >> 40) - (int64_t(1) << 23)) / float(1 << 23);
  }
  return v;
}

float fromBits(uint16_t h, bool bf16) {
  uint32_t bits;
  if (bf16) {
    bits = uint32_t(h) << 16;
  } else { // IEEE half: exponent 5 bits, bias 15
    const uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);
    else if (exp != 0) bits = sign | ((exp + 112) << 23) | (man << 13);
    else return (h & 0x8000 ? -1.0f : 1.0f) * std::ldexp(float(man), -24); // zero and subnormals
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The `count` outputs in float; `elementBytes` 2 (f16, or bf16 when `bf16`) or 4.
std::vector<float> download(const DeviceBuffer &b, size_t count, int elementBytes, bool bf16) {
  if (elementBytes == 4) return b.toHost<float>(count);
  std::vector<uint16_t> h = b.toHost<uint16_t>(count);
  std::vector<float> f(count);
  for (size_t i = 0; i < count; ++i) f[i] = fromBits(h[i], bf16);
  return f;
}

double relError(const std::vector<float> &ours, const std::vector<float> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(ours[i]) || !std::isfinite(ref[i])) return INFINITY; // unwritten (poisoned) or overflowed
    const double d = double(ours[i]) - ref[i];
    num += d * d, den += double(ref[i]) * ref[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

// Poisons `out` (all bits set: NaN in f16, bf16 and f32), runs `launch`, returns the result in float.
std::vector<float> resultOf(const std::function<void()> &launch, DeviceBuffer &out, size_t count, int bytes,
                            bool bf16) {
  out.fillBytes(0xFF);
  launch();
  tile::rt::Context::get().synchronize();
  return download(out, count, bytes, bf16);
}

bool selected(const std::string &what) { return what.find(gFilter) != std::string::npos; }

// Times `runs` (ours first, then the anchor, then optional others) in turns, with the GPU watched;
// fills the row's times, ratios and GPU state. The ratio's anchor is runs[1]; ratioBest's the faster of
// runs[1..] by median.
void timeRow(AnchorRow &row, const std::vector<std::function<void()>> &runs, const InterleaveOptions &o) {
  row.before = GpuClocks::get().read();
  GpuClocks::Sampler sampler(5);
  const std::vector<std::vector<double>> us = timeInterleaved(runs, o);
  row.during = sampler.stop();
  row.after = GpuClocks::get().read();
  row.oursUs = median(us[0]);
  row.anchorUs = median(us[1]);
  const std::vector<double> r = pairedRatios(us[0], us[1]);
  row.ratio = median(r), row.ratioLo = quantile(r, 0.25), row.ratioHi = quantile(r, 0.75);
  size_t best = 1;
  for (size_t i = 2; i < us.size(); ++i)
    if (median(us[i]) < median(us[best])) best = i;
  if (us.size() > 2) row.altUs = median(us[2]);
  row.ratioBest = median(pairedRatios(us[0], us[best]));
  printDetail(row);
  std::fflush(stdout);
  gRows.push_back(row);
}

// ---- matmul ------------------------------------------------------------------------------------------

// The library kernel bench_kernels times as tile_matmul_<kind> (MatmulTma, A [m, k] row-major, C in the
// inputs' type for f16/bf16, f32 for TF32) and its cuBLAS problem: the same layouts.
// kinds: "f16", "bf16" (B [k, n] row-major), "tf32" (B [k, n]: ours transposes it into a workspace first,
// the transpose timed with it), "tf32_bt" (bᵀ [n, k] given, as x·Wᵀ).
void matmulShape(Cublas &blas, const std::string &kind, int64_t n) {
  const std::string what = "matmul " + kind + " " + std::to_string(n) + "^3";
  if (!selected(what)) return;
  const bool tf32 = kind.rfind("tf32", 0) == 0, bf16 = kind == "bf16", bt = kind == "tf32_bt";
  const size_t count = size_t(n * n);
  const int bytes = tf32 ? 4 : 2;
  DeviceBuffer a(count * bytes), b(count * bytes), c(count * bytes), bias(size_t(n) * 4), work(tf32 ? count * 4 : 0);
  for (auto [buf, seed] : {std::pair{&a, 1}, std::pair{&b, 2}}) {
    std::vector<float> v = uniform(count, uint64_t(seed));
    if (tf32) {
      buf->copyFromHost(v.data(), count * 4);
      continue;
    }
    std::vector<uint16_t> h(count);
    for (size_t i = 0; i < count; ++i) h[i] = bf16 ? tile::bf16Bits(v[i]) : tile::halfBits(v[i]);
    buf->copyFromHost(h.data(), count * 2);
  }
  bias.fillBytes(0);
  const tk::MatmulTmaProblem problem{
      .a = a, .b = b, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n};
  std::function<void()> ours = [&] {
    if (kind == "f16") tk::MatmulTmaF16OutF16::launch(gAot, problem);
    else if (kind == "bf16") tk::MatmulTmaBF16OutBF16::launch(gAot, problem);
    else if (bt) tk::MatmulTmaTf32Bt::launch(gAot, problem);
    else tk::MatmulTmaTf32Bt::launchTransposingB(gAot, problem, work, int64_t(count));
  };
  const GemmProblem p{
      tf32 ? GemmType::Tf32 : bf16 ? GemmType::BF16 : GemmType::F16, n, n, n, bt, a.ptr(), b.ptr(), c.ptr()};
  std::function<void()> cublas = [&] { blas.gemm(p); };

  AnchorRow row;
  row.what = what, row.anchor = "cuBLAS", row.flops = 2.0 * double(n) * n * n;
  row.peakTflops = peakTflops(tile::rt::Context::get().info(), tf32, nullptr);
  // Correctness on the same inputs, before any timing: ours against cuBLAS (below, the chosen cuBLASLt
  // algorithm against cuBLAS too: a wrong anchor layout shows as an error, not as a fast anchor).
  const std::vector<float> ref = resultOf(cublas, c, count, bytes, bf16);
  row.relError = relError(resultOf(ours, c, count, bytes, bf16), ref);

  // cuBLASLt's heuristic algorithms, timed briefly in turns; the fastest joins the comparison. A failure
  // here drops cuBLASLt from this shape (one line), not the shape.
  std::shared_ptr<Cublas::LtPlan> plan;
  std::vector<std::function<void()>> runs{ours, cublas};
  try {
    plan = blas.ltPlan(p, 8);
    const std::vector<LtAlgorithm> algos = blas.ltAlgorithms(*plan);
    if (algos.empty()) throw std::runtime_error("the heuristic returned no algorithm");
    std::vector<std::function<void()>> ltRuns;
    for (const LtAlgorithm &al : algos) ltRuns.push_back([&, rank = al.rank] { blas.lt(*plan, rank); });
    const std::vector<std::vector<double>> us = timeInterleaved(ltRuns, {.rounds = 5, .warmupRounds = 1});
    size_t best = 0;
    for (size_t i = 1; i < us.size(); ++i)
      if (median(us[i]) < median(us[best])) best = i;
    const int rank = algos[best].rank;
    const double ltErr = relError(resultOf([&] { blas.lt(*plan, rank); }, c, count, bytes, bf16), ref);
    std::printf("anchor-lt %s: cuBLASLt algorithm %d of %zu fastest (%.2f us; heuristic's first %.2f us), rel err "
                "against cuBLAS %.2e\n",
                what.c_str(), rank, algos.size(), median(us[best]), median(us[0]), ltErr);
    runs.push_back([&, rank] { blas.lt(*plan, rank); });
  } catch (const std::exception &e) { std::printf("anchor-lt %s: cuBLASLt left out: %s\n", what.c_str(), e.what()); }
  timeRow(row, runs, {.rounds = gRounds});
}

// ---- convolutions ------------------------------------------------------------------------------------

struct Layer {
  const char *name;
  int cin, hw, cout;
};

void convShapes(CudnnConv &dnn, const Layer &L, int n) {
  const size_t xs = size_t(n) * L.cin * L.hw * L.hw, ys = size_t(n) * L.cout * L.hw * L.hw,
               ws = size_t(L.cout) * L.cin * 9;
  DeviceBuffer x = DeviceBuffer::fromHost(uniform(xs, 11)), dy = DeviceBuffer::fromHost(uniform(ys, 12)),
               w = DeviceBuffer::fromHost(uniform(ws, 13, 0.3f)), bias = DeviceBuffer::fromHost(uniform(L.cout, 14));
  DeviceBuffer taps(ws * 4), y(ys * 4), dx(xs * 4), dw(ws * 4),
      stats(size_t(tk::Conv2dForward::statsElements(n, L.hw, L.hw, L.cout)) * 4),
      work(size_t(tk::Conv2dBackwardWeight::workspaceElements(n, L.cin, L.hw, L.hw, L.cout)) * 4);
  tk::ConvWeightTaps::launch(gAot, w, taps, L.cin, L.cout); // the tap-major copy MnistCnn keeps beside the weights
  for (ConvPass pass : {ConvPass::Forward, ConvPass::BackwardData, ConvPass::BackwardWeight}) {
    if (pass == ConvPass::BackwardData && L.cin == 1) continue; // the model needs no data gradient of its input
    for (bool tf32 : {false, true}) {
      const char *passName = pass == ConvPass::Forward        ? "fwd"
                             : pass == ConvPass::BackwardData ? "bwd_data"
                                                              : "bwd_weight";
      const std::string what =
          std::string("conv ") + L.name + " " + passName + " b" + std::to_string(n) + (tf32 ? " tf32" : " fp32");
      if (!selected(what)) continue;
      const tk::ConvPrecision prec = tf32 ? tk::ConvPrecision::Tf32 : tk::ConvPrecision::Exact;
      DeviceBuffer &out = pass == ConvPass::Forward ? y : pass == ConvPass::BackwardData ? dx : dw;
      const size_t outCount = out.bytes() / 4;
      // Ours as the model runs it: the library's tile policy, tap-major weights; the forward also writes
      // the batchnorm's partial statistics (cuDNN's forward does not), the weight gradient reduces its
      // partial sums (included).
      std::function<void()> ours = [&] {
        if (pass == ConvPass::Forward)
          tk::Conv2dForward::launchWithStats(
              gAot, x, w, bias, out, stats,
              {.n = n, .cin = L.cin, .h = L.hw, .w = L.hw, .cout = L.cout, .precision = prec, .weightTaps = taps});
        else if (pass == ConvPass::BackwardData)
          tk::Conv2dBackwardData::launch(
              gAot, dy, w, out,
              {.n = n, .cin = L.cin, .h = L.hw, .w = L.hw, .cout = L.cout, .precision = prec, .weightTaps = taps});
        else
          tk::Conv2dBackwardWeight::launch(
              gAot, x, dy, out, work, int64_t(work.bytes() / 4),
              {.n = n, .cin = L.cin, .h = L.hw, .w = L.hw, .cout = L.cout, .precision = prec});
      };
      const ConvBuffers buffers{x.ptr(), w.ptr(), bias.ptr(), dy.ptr(), out.ptr()};
      std::shared_ptr<CudnnConv::Plan> plan;
      try {
        plan = dnn.plan({pass, n, L.cin, L.hw, L.cout, tf32}, buffers);
      } catch (const std::exception &e) { // one shape cuDNN refuses does not end the others
        std::printf("anchor-cudnn %s: skipped: %s\n", what.c_str(), e.what());
        continue;
      }
      std::function<void()> cudnn = [&] { dnn.run(*plan); };
      AnchorRow row;
      row.what = what, row.anchor = "cuDNN", row.flops = 2.0 * double(n) * L.hw * L.hw * L.cout * L.cin * 9;
      row.peakTflops = tf32 ? peakTflops(tile::rt::Context::get().info(), true, nullptr) : 0; // fp32: CUDA cores
      const std::vector<float> ref = resultOf(cudnn, out, outCount, 4, false);
      row.relError = relError(resultOf(ours, out, outCount, 4, false), ref);
      std::printf("anchor-cudnn %s: %s\n", what.c_str(), CudnnConv::describe(*plan).c_str());
      // Tens of microseconds a launch: batches of 10 launches per sample, after two flush copies (~130 us
      // of GPU work, longer than the host takes to queue ten cuDNN calls).
      timeRow(row, {ours, cudnn}, {.rounds = gRounds, .batch = 10, .flushCopies = 2});
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) gRounds = std::max(5, std::atoi(argv[++i]));
    else if (argv[i][0] != '-' && gFilter.empty()) gFilter = argv[i];
    else {
      std::fprintf(stderr, "usage: %s [--rounds N (>= 5)] [FILTER]\n", argv[0]);
      return 2;
    }
  }
  std::string why;
  if (!tile::rt::gpuAvailable(&why)) {
    std::printf("bench_anchors: skipped: %s\n", why.c_str());
    return 0;
  }
  try {
    const tile::rt::DeviceInfo &d = tile::rt::Context::get().info();
    GpuClocks &gpu = GpuClocks::get();
    std::string peakSource;
    const double peak = peakTflops(d, false, &peakSource);
    std::printf("bench_anchors: %s (sm_%d%d, %d SMs), %d rounds; NVML: %s; dense peak f16/bf16 %.1f, tf32 %.1f TFLOP/s "
                "(%s)\n",
                d.name.c_str(), d.ccMajor, d.ccMinor, d.smCount, gRounds,
                gpu.available() ? ("max SM " + std::to_string(gpu.maxSmMHz()) + " MHz, power limit " +
                                   std::to_string(gpu.powerLimitMW() / 1000) + " W, now " + sampleText(gpu.read()))
                                      .c_str()
                                : ("unavailable: " + gpu.why()).c_str(),
                peak, peak / 2, peakSource.c_str());
    if (Cublas *blas = Cublas::get(&why)) {
      std::printf("bench_anchors: %s\n", blas->versions().c_str());
      for (int64_t n : {4096, 8192})
        for (const char *kind : {"f16", "bf16", "tf32", "tf32_bt"}) matmulShape(*blas, kind, n);
    } else {
      std::printf("bench_anchors: matmul skipped: cuBLAS: %s\n", why.c_str());
    }
    if (CudnnConv *dnn = CudnnConv::get(&why)) {
      std::printf("bench_anchors: %s\n", dnn->version().c_str());
      for (int n : {64, 1024})
        for (const Layer &L : {Layer{"conv1", 1, 28, 32}, Layer{"conv2", 32, 14, 64}}) convShapes(*dnn, L, n);
    } else {
      std::printf("bench_anchors: conv skipped: cuDNN: %s\n", why.c_str());
    }
    printTable(gRows);
  } catch (const std::exception &e) {
    printTable(gRows); // what was measured before the failure
    std::fprintf(stderr, "bench_anchors: %s\n", e.what());
    return 1;
  }
  return 0;
}
