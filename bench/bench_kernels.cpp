// bench_kernels: throughput of the ahead-of-time library kernels against the device's own copy bandwidth,
// plus cold (driver JIT) and cached launch costs. Runtime-only (no LLVM/MLIR): built here, run on the GPU
// machine (scripts/gpu-check.sh). Prints a table and `RESULT <name> <shape> <gbps> <us>` lines, whose names
// match bench/torch_triton_bench.py so the two can be put side by side.
//   bench_kernels [--reps N]
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/MatmulAutotune.h"
#include "tile/kernels/Softmax.h"
#include "tile/kernels/Transpose.h"

#include "tile/runtime/Autotune.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Stream.h"
#include "tile/HalfBits.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;
using Clock = std::chrono::steady_clock;

namespace {

tk::AotLauncher gAot; // the precompiled variants, found by kernel name

constexpr size_t kMiB = size_t(1) << 20;
// Inputs are rotated until the data touched between two uses of a buffer exceeds this, several times
// the L2 (50 MB on H100/H200), so small shapes are timed from HBM, not from cache.
constexpr size_t kRotateBytes = 256 * kMiB;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double microsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// A 256 MiB copy run before each chunk of timed launches: evicts L2, and keeps the GPU busy while the host
// queues the chunk, so per-launch events time the kernels back to back rather than host launch latency.
class Flusher {
public:
  Flusher() : a_(128 * kMiB), b_(128 * kMiB) { a_.fillBytes(0); }
  void flush() { copyDeviceToDevice(b_.ptr(), a_.ptr(), a_.bytes()); }

private:
  DeviceBuffer a_, b_;
};

struct Row {
  std::string name, shape;
  double us, gbps; ///< gbps holds TFLOP/s for matmul rows (flops)
  bool flops = false;
};

class Bench {
public:
  explicit Bench(int reps) : reps_(reps) {}

  // Median over reps (default: --reps) of the event-timed duration of launch(i); i picks the rotating buffer
  // set.
  /// `flushEach`: an L2 flush before every repeat, as the Python side (and triton.testing.do_bench)
  /// does for every kernel; else before every 25th (memory-bound kernels whose data exceeds L2 anyway).
  template <class F> double medianUs(F launch, int reps = 0, bool flushEach = false) {
    const int chunk = flushEach ? 1 : 25;
    if (reps <= 0) reps = reps_;
    for (int i = 0; i < 5; ++i) launch(i); // warm-up (module load happened earlier, this settles clocks)
    std::vector<Event> start(reps), stop(reps);
    for (int i = 0; i < reps; ++i) {
      if (i % chunk == 0) flusher_.flush();
      start[i].record();
      launch(i);
      stop[i].record();
    }
    stop.back().synchronize();
    std::vector<double> us(reps);
    for (int i = 0; i < reps; ++i) us[i] = 1e3 * stop[i].elapsedMs(start[i]);
    return median(us);
  }

  void add(const std::string &name, const std::string &shape, double bytes, double us) {
    rows_.push_back({name, shape, us, bytes / (us * 1e-6) / 1e9});
  }
  void note(const std::string &name, const std::string &shape, double us) { rows_.push_back({name, shape, us, 0}); }
  void addFlops(const std::string &name, const std::string &shape, double flops, double us) {
    rows_.push_back({name, shape, us, flops / (us * 1e-6) / 1e12, true});
  }

  void print() const {
    double copy = 0;
    for (const Row &r : rows_)
      if (r.name == "tile_copy") copy = r.gbps;
    std::printf("\n%-22s %-12s %12s %10s %8s\n", "kernel", "shape", "time (us)", "GB/s", "% copy");
    for (const Row &r : rows_) {
      if (r.flops) std::printf("%-22s %-12s %12.2f %10.1f TFLOP/s\n", r.name.c_str(), r.shape.c_str(), r.us, r.gbps);
      else if (r.gbps > 0)
        std::printf("%-22s %-12s %12.2f %10.1f %7.1f%%\n", r.name.c_str(), r.shape.c_str(), r.us, r.gbps,
                    copy > 0 ? 100.0 * r.gbps / copy : 0.0);
      else std::printf("%-22s %-12s %12.2f %10s %8s\n", r.name.c_str(), r.shape.c_str(), r.us, "-", "-");
    }
    std::printf("\n");
    for (const Row &r : rows_) std::printf("RESULT %s %s %.1f %.3f\n", r.name.c_str(), r.shape.c_str(), r.gbps, r.us);
  }

private:
  int reps_;
  Flusher flusher_;
  std::vector<Row> rows_;
};

// Enough copies of a working set to exceed kRotateBytes (at most 16).
int rotation(size_t workingSetBytes) {
  return static_cast<int>(std::clamp<size_t>((kRotateBytes + workingSetBytes - 1) / workingSetBytes, 1, 16));
}

// Device buffers filled with 0x3C bytes (floats ~0.0115): contents do not change memory-bound timing, and
// filling on the device avoids gigabytes of host transfers.
std::vector<DeviceBuffer> buffers(int count, size_t bytes) {
  std::vector<DeviceBuffer> v;
  for (int i = 0; i < count; ++i) {
    v.emplace_back(bytes);
    v.back().fillBytes(0x3C);
  }
  return v;
}

// Wall time of the first launch in the process: the driver JIT-compiles the variant's PTX and loads it.
template <class F> double coldUs(F launch) {
  auto t0 = Clock::now();
  launch();
  Context::get().synchronize();
  return microsSince(t0);
}

void benchCopy(Bench &b) {
  const size_t bytes = 1024 * kMiB;
  DeviceBuffer src(bytes), dst(bytes);
  src.fillBytes(0x3C);
  double us = b.medianUs([&](int) { copyDeviceToDevice(dst.ptr(), src.ptr(), bytes); });
  b.add("tile_copy", std::to_string(bytes / 4), 2.0 * bytes, us);
}

void benchVectorAdd(Bench &b) {
  const int64_t n = int64_t(1) << 28;
  const size_t bytes = size_t(n) * 4;
  int sets = rotation(3 * bytes);
  auto x = buffers(sets, bytes), y = buffers(sets, bytes), z = buffers(sets, bytes);
  double us = b.medianUs(
      [&](int i) { tk::VectorAdd::launch(gAot, x[i % sets].ptr(), y[i % sets].ptr(), z[i % sets].ptr(), n); });
  b.add("tile_add", std::to_string(n), 3.0 * bytes, us);
}

// out = inᵀ of a 16384 x 16384 float32 matrix (1 GiB moved): the target is copy's bandwidth.
void benchTranspose(Bench &b) {
  const int64_t n = 16384;
  const size_t bytes = size_t(n * n) * 4;
  int sets = rotation(2 * bytes);
  auto in = buffers(sets, bytes), out = buffers(sets, bytes);
  double us = b.medianUs([&](int i) { tk::Transpose::launch(gAot, in[i % sets].ptr(), out[i % sets].ptr(), n, n); });
  b.add("tile_transpose", std::to_string(n) + "x" + std::to_string(n), 2.0 * bytes, us);
}

void benchSoftmax(Bench &b, int64_t rows, int64_t cols) {
  const size_t bytes = size_t(rows * cols) * 4;
  int sets = rotation(2 * bytes);
  auto in = buffers(sets, bytes), out = buffers(sets, bytes);
  double us = b.medianUs(
      [&](int i) { tk::Softmax::launch(gAot, out[i % sets].ptr(), in[i % sets].ptr(), rows, cols, cols, cols); });
  b.add("tile_softmax", std::to_string(rows) + "x" + std::to_string(cols), 2.0 * bytes, us);
}

void benchLayerNorm(Bench &b, int64_t rows, int64_t cols) {
  const size_t bytes = size_t(rows * cols) * 4;
  int sets = rotation(2 * bytes);
  auto x = buffers(sets, bytes), y = buffers(sets, bytes);
  auto wb = buffers(2, size_t(cols) * 4), stats = buffers(2, size_t(rows) * 4);
  double us = b.medianUs([&](int i) {
    tk::LayerNormForward::launch(gAot, x[i % sets].ptr(), y[i % sets].ptr(), wb[0].ptr(), wb[1].ptr(), stats[0].ptr(),
                                 stats[1].ptr(), rows, cols, cols, 1e-5f);
  });
  // Minimal traffic: x read, y written, w and b read, mean and rstd written.
  b.add("tile_layernorm", std::to_string(rows) + "x" + std::to_string(cols),
        2.0 * bytes + 2.0 * cols * 4 + 2.0 * rows * 4, us);
}

// Device buffers of n elements drawn uniformly from [-1, 1) (16-bit patterns when `half`): matmul
// timing is checked on random data, not on constant bytes (tensor cores run faster on zeros).
DeviceBuffer randomMatrix(size_t n, int kind, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (float &f : v) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    f = float(int64_t(x >> 40) - (int64_t(1) << 23)) / float(1 << 23);
  }
  if (kind == 0) return DeviceBuffer::fromHost(v);
  std::vector<uint16_t> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = kind == 1 ? tile::halfBits(v[i]) : tile::bf16Bits(v[i]);
  return DeviceBuffer::fromHost(h);
}

// C = A·B, square n, f32 C; kind 0 f32 (CUDA cores, exact), 1 f16, 2 bf16 (tensor cores), 3 tf32 inputs.
// reps 0: --reps.
void benchMatmul(Bench &b, int64_t n, int kind, int reps = 0) {
  static const char *names[] = {"tile_matmul_f32", "tile_matmul_f16", "tile_matmul_bf16", "tile_matmul_tf32"};
  const int input = kind == 3 ? 0 : kind;
  DeviceBuffer a = randomMatrix(size_t(n * n), input, 1), bm = randomMatrix(size_t(n * n), input, 2);
  DeviceBuffer c(size_t(n * n) * 4), bias(size_t(n) * 4);
  const int64_t m = n;
  const std::string shape = std::to_string(n);
  const double flops = 2.0 * double(n) * n * n;
  // Every launch below multiplies the same square row-major operands, described once per API.
  const tk::MatmulTmaProblem tma{
      .a = a, .b = bm, .c = c, .bias = bias, .m = m, .n = m, .k = m, .lda = m, .ldb = m, .ldc = m};
  const tk::MatmulProblem strided{.a = a,
                                  .b = bm,
                                  .c = c,
                                  .bias = bias,
                                  .m = m,
                                  .n = m,
                                  .k = m,
                                  .strideAm = m,
                                  .strideAk = 1,
                                  .strideBk = m,
                                  .strideBn = 1,
                                  .strideCm = m,
                                  .strideCn = 1};
  tk::MatmulProblem stridedTf32 = strided;
  stridedTf32.tf32 = true;
  auto row = [&](const std::string &name, auto launch) {
    b.addFlops(name, shape, flops, b.medianUs(launch, reps, /*flushEach=*/true));
  };
  if (kind == 3) {
    // TF32 on wgmma (MatmulTma, bᵀ K-major): B row-major as torch.matmul(a, b) takes it, transposed into a
    // workspace first (its cost included); B given transposed (x·Wᵀ); the persistent grid; and the
    // mma.sync path the library took before (Matmul<float>, row-major B).
    DeviceBuffer work(size_t(n * n) * 4);
    row(names[kind], [&](int) { tk::MatmulTmaTf32Bt::launchTransposingB(gAot, tma, work, m * m); });
    row("tile_matmul_tf32_bt", [&](int) { tk::MatmulTmaTf32Bt::launch(gAot, tma); });
    row("tile_matmul_tf32_bt_persistent", [&](int) { tk::MatmulTmaPersistentTf32Bt::launch(gAot, tma); });
    row("tile_matmul_tf32_mma", [&](int) { tk::MatmulF32::launch(gAot, stridedTf32); });
    return;
  }
  // f16/bf16: C in the inputs' type, as torch.matmul and Triton's tutorial write it (MatmulTma, and on
  // the persistent grid); then the library's f32 C (Matmul) as tile_matmul_*_c32.
  row(names[kind], [&](int) {
    if (kind == 1) tk::MatmulTmaF16OutF16::launch(gAot, tma);
    else if (kind == 2) tk::MatmulTmaBF16OutBF16::launch(gAot, tma);
    else tk::MatmulF32::launch(gAot, strided);
  });
  if (kind != 1 && kind != 2) return;
  row(std::string(names[kind]) + "_persistent", [&](int) {
    if (kind == 1) tk::MatmulTmaPersistentF16OutF16::launch(gAot, tma);
    else tk::MatmulTmaPersistentBF16OutBF16::launch(gAot, tma);
  });
  row(std::string(names[kind]) + "_c32", [&](int) {
    if (kind == 1) tk::MatmulF16::launch(gAot, strided);
    else tk::MatmulBF16::launch(gAot, strided);
  });
}

// C[i] = A[i]·B[i] for `batch` row-major M x K and K x N problems (BatchedMatmul, f16, f32 C), shape
// BxMxNxK as in torch_triton_bench.py's BMM_SHAPES (torch.bmm there).
void benchBatchedMatmul(Bench &b, int64_t batch, int64_t m, int64_t n, int64_t k) {
  DeviceBuffer a = randomMatrix(size_t(batch * m * k), 1, 1), bm = randomMatrix(size_t(batch * k * n), 1, 2);
  DeviceBuffer c(size_t(batch * m * n) * 4), bias(size_t(n) * 4);
  double us = b.medianUs([&](int) {
    tk::BatchedMatmulF16::launch(gAot, {.matrix = {.a = a,
                                                   .b = bm,
                                                   .c = c,
                                                   .bias = bias,
                                                   .m = m,
                                                   .n = n,
                                                   .k = k,
                                                   .strideAm = k,
                                                   .strideAk = 1,
                                                   .strideBk = n,
                                                   .strideBn = 1,
                                                   .strideCm = n,
                                                   .strideCn = 1},
                                        .batch = batch,
                                        .strideAb = m * k,
                                        .strideBb = k * n,
                                        .strideCb = m * n,
                                        .strideBiasb = 0});
  });
  b.addFlops("tile_matmul_f16",
             std::to_string(batch) + "x" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
             2.0 * double(batch) * m * n * k, us);
}

// The MNIST model's linear layers (docs/models.md), M x N x K, f16 and f32 (the same
// list as torch_triton_bench.py's MNIST_MATMULS).
void benchMatmulShape(Bench &b, int64_t m, int64_t n, int64_t k) {
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  for (int kind : {1, 0}) {
    DeviceBuffer a = randomMatrix(size_t(m * k), kind, 1), bm = randomMatrix(size_t(k * n), kind, 2);
    DeviceBuffer c(size_t(m * n) * 4), bias(size_t(n) * 4);
    double us = b.medianUs([&](int) {
      if (kind == 1)
        tk::MatmulF16::launch(gAot, {.a = a,
                                     .b = bm,
                                     .c = c,
                                     .bias = bias,
                                     .m = m,
                                     .n = n,
                                     .k = k,
                                     .strideAm = k,
                                     .strideAk = 1,
                                     .strideBk = n,
                                     .strideBn = 1,
                                     .strideCm = n,
                                     .strideCn = 1});
      else
        tk::MatmulF32::launch(gAot, {.a = a,
                                     .b = bm,
                                     .c = c,
                                     .bias = bias,
                                     .m = m,
                                     .n = n,
                                     .k = k,
                                     .strideAm = k,
                                     .strideAk = 1,
                                     .strideBk = n,
                                     .strideBn = 1,
                                     .strideCm = n,
                                     .strideCn = 1});
    });
    b.addFlops(kind == 1 ? "tile_matmul_f16" : "tile_matmul_f32", shape, 2.0 * double(m) * n * k, us);
  }
}

// Skinny products (few rows of A against a large square B: M x N x K with N = K), f16,
// named like torch_triton_bench.py's SKINNY_MATMULS.
void benchMatmulSkinny(Bench &b, int64_t m, int64_t nk) {
  DeviceBuffer a = randomMatrix(size_t(m * nk), 1, 1), bm = randomMatrix(size_t(nk * nk), 1, 2);
  DeviceBuffer c(size_t(m * nk) * 4), bias(size_t(nk) * 4);
  double us = b.medianUs(
      [&](int) {
        tk::MatmulTmaF16OutF16::launch(
            gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = m, .n = nk, .k = nk, .lda = nk, .ldb = nk, .ldc = nk});
      },
      0, /*flushEach=*/true);
  b.addFlops("tile_matmul_f16", std::to_string(m) + "x" + std::to_string(nk) + "x" + std::to_string(nk),
             2.0 * double(m) * nk * nk, us);
}

// "128x256x64w8s4": a tile's row name (no "s" where the stages are the compiler's default, 0).
std::string tileName(const tk::MatmulConfig &c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + "w" +
         std::to_string(c.numWarps) + (c.numStages ? "s" + std::to_string(c.numStages) : "") +
         (c.warpSpecialize ? "ws" : "");
}

// One row per tile: "<prefix><tileName>" at `shape`, `launch(tile)` timed with the L2 flushed before each.
void tileRows(Bench &b, const std::string &prefix, const std::string &shape, double flops,
              const std::vector<tk::MatmulConfig> &tiles, const std::function<void(const tk::MatmulConfig &)> &launch) {
  for (const tk::MatmulConfig &cfg : tiles)
    b.addFlops(prefix + tileName(cfg), shape, flops, b.medianUs([&](int) { launch(cfg); }, 0, /*flushEach=*/true));
}

// Every tile of the descriptor kernel (f16, C in f16) on an m x nk x nk product: on skinny products
// which keeps the long K loop of few programs fed, at 1024^3 (with the sweep's deeper rings) which
// serves a grid of about one wave and a short K loop best (bench/NOTES.md).
void benchMatmulHalfOutTiles(Bench &b, int64_t m, int64_t nk) {
  DeviceBuffer a = randomMatrix(size_t(m * nk), 1, 1), bm = randomMatrix(size_t(nk * nk), 1, 2);
  DeviceBuffer c(size_t(m * nk) * 2), bias(size_t(nk) * 4);
  std::vector<tk::MatmulConfig> tiles = tk::MatmulTmaF16OutF16::tiles();
  if (m == nk)
    for (const tk::MatmulConfig &t : tk::MatmulTmaF16OutF16::sweep()) tiles.push_back(t);
  const std::string shape = std::to_string(m) + "x" + std::to_string(nk) + "x" + std::to_string(nk);
  tileRows(b, "tile_matmul_f16_", shape, 2.0 * double(m) * nk * nk, tiles, [&](const tk::MatmulConfig &cfg) {
    tk::MatmulTmaF16OutF16::launch(
        gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = m, .n = nk, .k = nk, .lda = nk, .ldb = nk, .ldc = nk},
        nullptr, &cfg);
  });
}

// C = relu(A·B + bias) in one kernel (the epilogue fused after the K loop), against
// torch's addmm + relu (two kernels) in torch_triton_bench.py.
void benchMatmulBiasRelu(Bench &b, int64_t n) {
  DeviceBuffer a = randomMatrix(size_t(n * n), 1, 1), bm = randomMatrix(size_t(n * n), 1, 2);
  DeviceBuffer c(size_t(n * n) * 4), bias = randomMatrix(size_t(n), 0, 3);
  double us = b.medianUs(
      [&](int) {
        tk::MatmulTmaF16OutF16::launch(gAot, {.a = a,
                                              .b = bm,
                                              .c = c,
                                              .bias = bias,
                                              .m = n,
                                              .n = n,
                                              .k = n,
                                              .lda = n,
                                              .ldb = n,
                                              .ldc = n,
                                              .epilogue = tk::MatmulEpilogue::BiasRelu});
      },
      0, /*flushEach=*/true);
  b.addFlops("tile_matmul_bias_relu_f16", std::to_string(n), 2.0 * double(n) * n * n, us);
}

// TF32 bᵀ tiles (MatmulTma<float>'s kTf32Sweep and tiles) at n^3, B given transposed.
void benchMatmulTf32Tiles(Bench &b, int64_t n) {
  DeviceBuffer a = randomMatrix(size_t(n * n), 0, 1), bm = randomMatrix(size_t(n * n), 0, 2);
  DeviceBuffer c(size_t(n * n) * 4), bias(size_t(n) * 4);
  std::vector<tk::MatmulConfig> tiles = tk::MatmulTmaTf32Bt::tiles();
  for (const tk::MatmulConfig &t : tk::MatmulTmaTf32Bt::sweep()) tiles.push_back(t);
  tileRows(b, "tile_matmul_tf32_bt_", std::to_string(n), 2.0 * double(n) * n * n, tiles,
           [&](const tk::MatmulConfig &cfg) {
             tk::MatmulTmaTf32Bt::launch(
                 gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n},
                 nullptr, &cfg);
           });
}

// The warp-specialised K loop (MatmulTma's kWarpSpecialized: a producer warp issues the TMA copies)
// beside the same kernel's grid-of-tiles default (tileFor's) at n^3: f16 and bf16 with C in the
// inputs' type, TF32 bᵀ with C in f32.
void benchMatmulWarpSpecialized(Bench &b, int64_t n) {
  for (int kind : {0, 1, 2}) { // f16, bf16, tf32
    const bool tf32 = kind == 2;
    DeviceBuffer a = randomMatrix(size_t(n * n), tf32 ? 0 : 1, 1), bm = randomMatrix(size_t(n * n), tf32 ? 0 : 1, 2);
    DeviceBuffer c(size_t(n * n) * 4), bias(size_t(n) * 4);
    auto launch = [&](const tk::MatmulConfig &cfg) {
      if (kind == 0)
        tk::MatmulTmaF16OutF16::launch(
            gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n},
            nullptr, &cfg);
      else if (kind == 1)
        tk::MatmulTmaBF16OutBF16::launch(
            gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n},
            nullptr, &cfg);
      else
        tk::MatmulTmaTf32Bt::launch(
            gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n},
            nullptr, &cfg);
    };
    std::vector<tk::MatmulConfig> tiles{tf32 ? tk::MatmulTmaTf32Bt::tileFor(n, n)
                                             : tk::MatmulTmaF16OutF16::tileFor(n, n)};
    for (const tk::MatmulConfig &t : tf32 ? std::span<const tk::MatmulConfig>(tk::MatmulTmaTf32Bt::kWarpSpecialized)
                                          : std::span<const tk::MatmulConfig>(tk::MatmulTmaF16OutF16::kWarpSpecialized))
      tiles.push_back(t);
    tileRows(b,
             kind == 0   ? "tile_matmul_f16_"
             : kind == 1 ? "tile_matmul_bf16_"
                         : "tile_matmul_tf32_bt_",
             std::to_string(n), 2.0 * double(n) * n * n, tiles, launch);
  }
}

// The persistent kernel's tiles (MatmulTmaPersistent::tiles(), f16 and TF32 bᵀ) at n^3.
void benchMatmulPersistentTiles(Bench &b, int64_t n) {
  for (int tf32 : {0, 1}) {
    DeviceBuffer a = randomMatrix(size_t(n * n), tf32 ? 0 : 1, 1), bm = randomMatrix(size_t(n * n), tf32 ? 0 : 1, 2);
    DeviceBuffer c(size_t(n * n) * 4), bias(size_t(n) * 4);
    const std::vector<tk::MatmulConfig> tiles =
        tf32 ? tk::MatmulTmaPersistentTf32Bt::tiles() : tk::MatmulTmaPersistentF16OutF16::tiles();
    tileRows(
        b, std::string(tf32 ? "tile_matmul_tf32_bt" : "tile_matmul_f16") + "_persistent_", std::to_string(n),
        2.0 * double(n) * n * n, tiles, [&](const tk::MatmulConfig &cfg) {
          if (tf32)
            tk::MatmulTmaPersistentTf32Bt::launch(
                gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n},
                nullptr, 0, &cfg);
          else
            tk::MatmulTmaPersistentF16OutF16::launch(
                gAot, {.a = a, .b = bm, .c = c, .bias = bias, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n},
                nullptr, 0, &cfg);
        });
  }
}

// The f16 tensor-core tiles compiled ahead of time for comparison (tile_matmul_f16 above is
// the library's choice).
void benchMatmulTiles(Bench &b, int64_t n) {
  DeviceBuffer a = randomMatrix(size_t(n * n), 1, 1), bm = randomMatrix(size_t(n * n), 1, 2);
  DeviceBuffer c(size_t(n * n) * 4), bias(size_t(n) * 4);
  std::vector<tk::MatmulConfig> tiles(std::begin(tk::kMatmulTensorCoreSweep), std::end(tk::kMatmulTensorCoreSweep));
  // The library's tiles for full waves, measured in the same stretch, and the descriptor
  // kernel's (TMA on sm_90a; names end in _tma: MatmulTma runs them).
  tiles.insert(tiles.begin(), {tk::kMatmulTensorCoreLarge, tk::kMatmulTensorCore});
  tiles.insert(tiles.end(), std::begin(tk::MatmulTma<tile::f16>::kSweep), std::end(tk::MatmulTma<tile::f16>::kSweep));
  std::vector<std::string> seen;
  for (const tk::MatmulConfig &cfg : tiles) {
    std::string name = "tile_matmul_f16_" + tileName(cfg) + (tk::MatmulTma<tile::f16>::hasTile(cfg) ? "_tma" : "");
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue; // listed by both kernels
    seen.push_back(name);
    double us = b.medianUs(
        [&](int) {
          tk::MatmulF16::launch(gAot,
                                {.a = a,
                                 .b = bm,
                                 .c = c,
                                 .bias = bias,
                                 .m = n,
                                 .n = n,
                                 .k = n,
                                 .strideAm = n,
                                 .strideAk = 1,
                                 .strideBk = n,
                                 .strideBn = 1,
                                 .strideCm = n,
                                 .strideCn = 1},
                                nullptr, &cfg);
        },
        0, /*flushEach=*/true);
    b.addFlops(name, std::to_string(n), 2.0 * double(n) * n * n, us);
  }
}

// The f16/bf16 matmul with its tile chosen by the autotuner (MatmulAutotune.h: the first launch times
// every compiled tile on this GPU, in the warm-up), next to tile_matmul_f16/bf16 (the fixed policy).
// Prints the choice; TILE_AUTOTUNE_VERBOSE=1 prints every candidate's time.
void benchMatmulAutotuned(Bench &b, int64_t n, int kind, int reps = 0) {
  DeviceBuffer a = randomMatrix(size_t(n * n), kind, 1), bm = randomMatrix(size_t(n * n), kind, 2);
  DeviceBuffer c(size_t(n * n) * 4), bias(size_t(n) * 4);
  double us = b.medianUs(
      [&](int) {
        if (kind == 1)
          tk::launchMatmulAutotuned<tile::f16>(gAot, {.a = a,
                                                      .b = bm,
                                                      .c = c,
                                                      .bias = bias,
                                                      .m = n,
                                                      .n = n,
                                                      .k = n,
                                                      .strideAm = n,
                                                      .strideAk = 1,
                                                      .strideBk = n,
                                                      .strideBn = 1,
                                                      .strideCm = n,
                                                      .strideCn = 1});
        else
          tk::launchMatmulAutotuned<tile::bf16>(gAot, {.a = a,
                                                       .b = bm,
                                                       .c = c,
                                                       .bias = bias,
                                                       .m = n,
                                                       .n = n,
                                                       .k = n,
                                                       .strideAm = n,
                                                       .strideAk = 1,
                                                       .strideBk = n,
                                                       .strideBn = 1,
                                                       .strideCm = n,
                                                       .strideCn = 1});
      },
      reps, /*flushEach=*/true);
  const char *name = kind == 1 ? "tile_matmul_f16_tuned" : "tile_matmul_bf16_tuned";
  std::string chosen; // the remembered choice (no measurement: the key was tuned above)
  auto choice = [&]<class T>() {
    Autotuner &t = tk::matmulAutotuner<T>(gAot, tk::MatmulEpilogue::None, false, true);
    chosen = t.choose(tk::matmulTuneKey(n, n, n), nullptr, nullptr, true).str();
  };
  if (kind == 1) choice.template operator()<tile::f16>();
  else choice.template operator()<tile::bf16>();
  std::printf("autotune: %s %lld: %s\n", name, static_cast<long long>(n), chosen.c_str());
  b.addFlops(name, std::to_string(n), 2.0 * double(n) * n * n, us);
}

// Host cost of one cached launch of `launch`: batches of 100 back-to-back launches without sync,
// median of 100 batches. A tiny kernel runs for a few µs, so if launching is faster than that the
// launch queue fills and this measures the GPU instead: read it as an upper bound on the host cost.
double launchHostUs(const std::function<void()> &launch) {
  // Batches short enough that the launch queue never fills (else the GPU's per-kernel time,
  // not the host's, is measured), synchronised between batches; median over batches.
  constexpr int kLaunches = 100;
  std::vector<double> per;
  launch();
  Context::get().synchronize();
  for (int trial = 0; trial < 100; ++trial) {
    auto t0 = Clock::now();
    for (int i = 0; i < kLaunches; ++i) launch();
    per.push_back(microsSince(t0) / kLaunches);
    Context::get().synchronize();
  }
  return median(per);
}

} // namespace

int main(int argc, char **argv) {
  int reps = 100;
  bool onlyWarpSpecialized = false; // --warp-specialized: only benchMatmulWarpSpecialized's rows (a short device call)
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(50, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--warp-specialized")) onlyWarpSpecialized = true;
    else {
      std::fprintf(stderr, "usage: %s [--reps N (>= 50)] [--warp-specialized]\n", argv[0]);
      return 2;
    }
  }
  // Cold launches below must measure the driver compiling our PTX, not a hit in its on-disk JIT cache.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  std::string why;
  auto t0 = Clock::now();
  if (!gpuAvailable(&why)) {
    std::printf("bench_kernels: skipped: %s\n", why.c_str());
    return 0;
  }
  try {
    const DeviceInfo &d = Context::get().info();
    std::printf("bench_kernels: %s (sm_%d%d, %d SMs, %zu MiB), driver %d, context ready in %.0f ms, %d reps, median\n",
                d.name.c_str(), d.ccMajor, d.ccMinor, d.smCount, d.totalMem >> 20, driverVersion(),
                microsSince(t0) / 1e3, reps);
    Bench b(reps);
    if (onlyWarpSpecialized) {
      for (int64_t n : {4096, 8192}) benchMatmulWarpSpecialized(b, n);
      b.print();
      return 0;
    }
    {
      DeviceBuffer x(1024 * 4), y(1024 * 4), z(1024 * 4), m(1024 * 4);
      b.note("tile_cold_add", "-", coldUs([&] { tk::VectorAdd::launch(gAot, x.ptr(), y.ptr(), z.ptr(), 1024); }));
      b.note("tile_cold_softmax", "-",
             coldUs([&] { tk::Softmax::launch(gAot, m.ptr(), x.ptr(), 1, 1024, 1024, 1024); }));
    }
    benchCopy(b);
    benchVectorAdd(b);
    benchTranspose(b);
    // 4096 rows as in Triton's tutorials, plus 256 MiB tensors where launch and tail
    // effects fade (the same list as torch_triton_bench.py).
    const std::pair<int64_t, int64_t> rowShapes[] = {
        {4096, 1024}, {4096, 4096}, {4096, 16384}, {65536, 1024}, {16384, 4096}};
    for (auto [rows, cols] : rowShapes) benchSoftmax(b, rows, cols);
    for (auto [rows, cols] : rowShapes) benchLayerNorm(b, rows, cols);
    {
      // A vector add (3 pointers), and a descriptor matmul (3 tensor descriptors, their TMA maps
      // written into the parameters at every launch).
      const int64_t n = 1024, mm = 64;
      DeviceBuffer x(n * 4), y(n * 4), z(n * 4), a(mm * mm * 2), bm(mm * mm * 2), c(mm * mm * 2), bias(mm * 4);
      b.note("tile_launch_host", "1024",
             launchHostUs([&] { tk::VectorAdd::launch(gAot, x.ptr(), y.ptr(), z.ptr(), n); }));
      b.note("tile_launch_host_tma", "64x64x64", launchHostUs([&] {
               tk::MatmulTmaF16OutF16::launch(
                   gAot,
                   {.a = a, .b = bm, .c = c, .bias = bias, .m = mm, .n = mm, .k = mm, .lda = mm, .ldb = mm, .ldc = mm});
             }));
    }
    for (int64_t n : {1024, 2048, 4096})
      for (int kind : {1, 2, 0, 3}) benchMatmul(b, n, kind);
    // 8192: tensor cores only (f32 on CUDA cores would take ~0.1 s a launch), 20 repeats of ~3 ms.
    for (int kind : {1, 2, 3}) benchMatmul(b, 8192, kind, 20);
    benchMatmulTiles(b, 4096);
    for (int64_t n : {1024, 4096}) benchMatmulTf32Tiles(b, n);
    for (int64_t n : {4096, 8192}) benchMatmulPersistentTiles(b, n);
    for (int64_t n : {4096, 8192}) benchMatmulWarpSpecialized(b, n);
    for (int64_t n : {1024, 2048, 4096})
      for (int kind : {1, 2}) benchMatmulAutotuned(b, n, kind);
    for (int kind : {1, 2}) benchMatmulAutotuned(b, 8192, kind, 20);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{64, 128, 3136}, {1024, 128, 3136}, {1024, 10, 128}})
      benchMatmulShape(b, m, n, k);
    benchBatchedMatmul(b, 32, 512, 512, 512);
    for (int64_t nk : {4096, 8192})
      for (int64_t m : {64, 128, 256, 512}) benchMatmulSkinny(b, m, nk);
    for (int64_t m : {64, 128, 1024}) benchMatmulHalfOutTiles(b, m, m == 1024 ? 1024 : 4096);
    benchMatmulBiasRelu(b, 4096);
    b.print();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_kernels: %s\n", e.what());
    return 1;
  }
  return 0;
}
