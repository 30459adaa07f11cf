// bench_conv: the MNIST CNN's 3x3 convolutions (forward with bias and batchnorm statistics,
// data gradient, weight gradient with its partial-sum reduction) at batch 64 and 1024, for
// every tile each kernel declares (ConvTile, Conv.h), exact f32 and TF32. Runtime-only, run on the
// GPU machine by scripts/gpu-check.sh next to bench/torch_conv_bench.py (the same layers through
// PyTorch's cuDNN), whose `conv` lines it matches:
//   conv <layer> <pass> batch <n> tile <fp32|tf32> <tile> <us> us <TFLOP/s> TFLOP/s [policy]
// "policy" marks the tile the library's launch() picks given the tap-major weights (as MnistCnn
// runs). Each time: the median of CUDA-event-timed launches, the tiles of one layer, pass and
// precision timed in interleaved rounds after warm-up (rt::timeInterleaved, the autotuner's
// measurement: a warming GPU does not favour the first).
//   bench_conv [FILTER]   only the lines containing FILTER (e.g. "conv2 fwd batch 1024 tile tf32"),
//                         for profilers: ncu --kernel-name conv3x3_fwd ... bench_conv "...".
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Conv.h"

#include "tile/runtime/Autotune.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;

namespace {

tk::AotLauncher gAot;
std::string gFilter; // run only the configurations whose line contains this

std::string tileName(tk::ConvTile t) { return tk::convTileName(t); }

bool sameTile(tk::ConvTile a, tk::ConvTile b) {
  return a.bm == b.bm && a.bn == b.bn && a.bk == b.bk && a.warps == b.warps && a.taps == b.taps;
}

struct Layer {
  const char *name;
  int64_t cin, hw, cout;
};

// One line per tile the kernel declares for each precision.
void sweep(const Layer &L, int64_t n, const char *pass, double flops,
           const std::function<std::vector<tk::ConvTile>(tk::ConvPrecision)> &tiles,
           const std::function<tk::ConvTile(tk::ConvPrecision)> &policy,
           const std::function<void(tk::ConvTile, tk::ConvPrecision)> &launch) {
  for (tk::ConvPrecision p : {tk::ConvPrecision::Exact, tk::ConvPrecision::Tf32}) {
    std::vector<std::string> lines;
    std::vector<tk::ConvTile> chosen;
    std::vector<std::function<void()>> runs;
    for (tk::ConvTile t : tiles(p)) {
      std::string what = std::string("conv ") + L.name + " " + pass + " batch " + std::to_string(n) + " tile " +
                         (p == tk::ConvPrecision::Tf32 ? "tf32 " : "fp32 ") + tileName(t);
      if (what.find(gFilter) == std::string::npos) continue;
      lines.push_back(std::move(what));
      chosen.push_back(t);
      runs.push_back([&launch, t, p] { launch(t, p); });
    }
    if (runs.empty()) continue;
    const std::vector<double> ms = timeInterleaved(runs, nullptr, AutotuneOptions{});
    for (size_t i = 0; i < runs.size(); ++i) {
      const double us = ms[i] * 1e3;
      std::printf("%s %.1f us %.1f TFLOP/s%s\n", lines[i].c_str(), us, flops / us * 1e-6,
                  sameTile(chosen[i], policy(p)) ? " policy" : "");
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1) gFilter = argv[1];
  std::string why;
  if (!gpuAvailable(&why)) {
    std::printf("bench_conv: skipped: %s\n", why.c_str());
    return 0;
  }
  try {
    const DeviceInfo &d = Context::get().info();
    std::printf("bench_conv: %s (sm_%d%d, %d SMs)\n", d.name.c_str(), d.ccMajor, d.ccMinor, d.smCount);
    for (int64_t n : {64, 1024})
      for (const Layer &L : {Layer{"conv1", 1, 28, 32}, Layer{"conv2", 32, 14, 64}}) {
        const int64_t hw = L.hw;
        DeviceBuffer x(size_t(n * L.cin * hw * hw) * 4), y(size_t(n * L.cout * hw * hw) * 4),
            wgt(size_t(L.cout * L.cin * 9) * 4), bias(size_t(L.cout) * 4),
            stats(size_t(tk::Conv2dForward::statsElements(n, hw, hw, L.cout)) * 4), taps(wgt.bytes()),
            work(size_t(tk::Conv2dBackwardWeight::workspaceElements(n, L.cin, hw, hw, L.cout)) * 4);
        for (DeviceBuffer *b : {&x, &y, &wgt, &bias, &taps}) b->fillBytes(0x3C);
        const double products = 2.0 * double(n * hw * hw) * double(L.cout) * double(L.cin * 9);
        tk::Address st = stats.ptr();
        sweep(
            L, n, "fwd", products, tk::Conv2dForward::tiles,
            [&](tk::ConvPrecision p) { return tk::Conv2dForward::tile(L.cin, p, /*tapMajor=*/true, n * hw * hw); },
            [&](tk::ConvTile t, tk::ConvPrecision p) {
              tk::Conv2dForward::launchTile(
                  gAot, t, x.ptr(), wgt.ptr(), bias.ptr(), y.ptr(), &st,
                  {.n = n, .cin = L.cin, .h = hw, .w = hw, .cout = L.cout, .precision = p, .weightTaps = taps.ptr()});
            });
        if (L.cin > 1) // the model needs no data gradient of its first layer
          sweep(
              L, n, "bwd_data", products, tk::Conv2dBackwardData::tiles,
              [&](tk::ConvPrecision p) {
                return tk::Conv2dBackwardData::tile(L.cout, p, /*tapMajor=*/true, n * hw * hw);
              },
              [&](tk::ConvTile t, tk::ConvPrecision p) {
                tk::Conv2dBackwardData::launchTile(
                    gAot, t, y.ptr(), wgt.ptr(), x.ptr(),
                    {.n = n, .cin = L.cin, .h = hw, .w = hw, .cout = L.cout, .precision = p, .weightTaps = taps.ptr()});
              });
        sweep(
            L, n, "bwd_weight", products, tk::Conv2dBackwardWeight::tiles,
            [&](tk::ConvPrecision p) { return tk::Conv2dBackwardWeight::tile(L.cin, p, n * hw * hw); },
            [&](tk::ConvTile t, tk::ConvPrecision p) {
              tk::Conv2dBackwardWeight::launchTile(
                  gAot, t, x.ptr(), y.ptr(), wgt.ptr(), work.ptr(), int64_t(work.bytes() / 4),
                  {.n = n, .cin = L.cin, .h = hw, .w = hw, .cout = L.cout, .precision = p});
            });
      }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_conv: %s\n", e.what());
    return 1;
  }
  return 0;
}
