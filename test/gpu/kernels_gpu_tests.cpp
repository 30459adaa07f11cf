// Library kernels (ahead-of-time PTX, launched through their declarations' launchers and AotLauncher) against a float64 host
// reference on a real GPU (ctest label `gpu`). Each GPU test skips with the reason when there is none.
// Every run: fresh random inputs (seed printed on failure; TILE_TEST_SEED=<n> replays one), outputs
// poisoned with 0xFF bytes (NaN) first, every element checked written, padding checked untouched,
// relative error ||out - ref|| / ||ref|| within tolerance, and any NaN/Inf fails.
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Softmax.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Stream.h"

#include <gtest/gtest.h>

#include "../common/BatchedMatmulCheck.h"
#include "../common/Numerics.h"
#include "SeededGpuTest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;

namespace {

tk::AotLauncher gAot; // the precompiled variants, found by kernel name

using tile::testutil::bitsOf;
using tile::testutil::closeTo;
using tile::testutil::kPoisonBits;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Fixture: skips without a GPU, seeds the generator, and prints the seed if anything failed.
class KernelsGpu : public tile::testing::SeededGpuTest {
protected:
  int64_t uniformInt(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(gen_); }
  float normal(float mean, float sd) { return std::normal_distribution<float>(mean, sd)(gen_); }
  // Random row count keeping each case at most ~2M elements, so the host reference stays fast.
  int64_t randomRows(int64_t cols) { return uniformInt(1, std::clamp<int64_t>((int64_t(1) << 21) / cols, 1, 300)); }
};

// A row-major matrix inside a larger buffer: rows x cols valid, rows padded to `stride` elements, starting
// `offset` elements into the allocation (offset % 4 != 0 makes the pointer not 16-byte aligned).
struct Layout {
  int64_t rows, cols, stride, offset = 0;
  size_t total() const { return static_cast<size_t>(offset + rows * stride); }
  size_t at(int64_t r, int64_t c) const { return static_cast<size_t>(offset + r * stride + c); }
  bool valid(size_t i) const {
    if (static_cast<int64_t>(i) < offset) return false;
    return (static_cast<int64_t>(i) - offset) % stride < cols;
  }
  std::string str() const {
    return std::to_string(rows) + "x" + std::to_string(cols) + " stride " + std::to_string(stride) + " offset " +
           std::to_string(offset);
  }
};

// Elements of a poisoned output outside the valid region must still be poison (masking works).
::testing::AssertionResult untouched(const std::vector<float> &buf, const Layout &l, const std::string &what) {
  for (size_t i = 0; i < buf.size(); ++i)
    if (!l.valid(i) && bitsOf(buf[i]) != kPoisonBits)
      return ::testing::AssertionFailure() << what << ": padding element " << i << " was written (" << buf[i] << ")";
  return ::testing::AssertionSuccess();
}

std::vector<float> gather(const std::vector<float> &buf, const Layout &l) {
  std::vector<float> out;
  out.reserve(static_cast<size_t>(l.rows * l.cols));
  for (int64_t r = 0; r < l.rows; ++r)
    for (int64_t c = 0; c < l.cols; ++c) out.push_back(buf[l.at(r, c)]);
  return out;
}

DeviceBuffer poisoned(size_t floats) {
  DeviceBuffer b(floats * sizeof(float));
  b.fillBytes(0xFF);
  return b;
}

CUdeviceptr at(const DeviceBuffer &b, int64_t elementOffset) { return b.ptr() + elementOffset * sizeof(float); }

// Column counts around every power-of-two block boundary, up to kMaxRowBlock.
const std::vector<int64_t> kColumnCounts = {1,    2,    3,    17,   127,  128,  129,   1000, 1023,
                                            1024, 1025, 4095, 4096, 4097, 8191, 16383, 16384};

} // namespace

// ---------------------------------------------------------------------------------------------------------
// Vector add

class VectorAdd : public KernelsGpu {
protected:
  // z = x + y on n elements at the given element offsets (misalignment); a 64-element tail after z checks
  // the mask.
  void check(int64_t n, int64_t xOff = 0, int64_t yOff = 0, int64_t zOff = 0, CUstream s = nullptr) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", offsets " + std::to_string(xOff) + "/" + std::to_string(yOff) + "/" +
                 std::to_string(zOff));
    const int64_t tail = 64;
    std::vector<float> x(static_cast<size_t>(xOff + n)), y(static_cast<size_t>(yOff + n));
    for (float &v : x) v = uniform(-4.0f, 4.0f);
    for (float &v : y) v = uniform(-4.0f, 4.0f);
    DeviceBuffer dx = DeviceBuffer::fromHost(x), dy = DeviceBuffer::fromHost(y);
    DeviceBuffer dz = poisoned(static_cast<size_t>(zOff + n + tail));
    tk::VectorAdd::launch(gAot, at(dx, xOff), at(dy, yOff), at(dz, zOff), n, s);
    Context::get().synchronize();
    std::vector<float> z = dz.toHost<float>(static_cast<size_t>(zOff + n + tail));
    std::vector<double> ref(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ref[i] = double(x[xOff + i]) + double(y[yOff + i]);
    // The float sum rounds once: 1e-7 is a few ulps of slack over the exact float64 sum.
    EXPECT_TRUE(closeTo(std::vector<float>(z.begin() + zOff, z.begin() + zOff + n), ref, 1e-7, "z"));
    EXPECT_TRUE(untouched(z, Layout{1, n, zOff + n + tail, zOff}, "z"));
  }
};

TEST_F(VectorAdd, EdgeAndRaggedSizes) {
  std::vector<int64_t> sizes = {
      1,    2,    3,    15,   16,    17,    127,   128,     129,           1023,      1024,
      1025, 4095, 4096, 4097, 65535, 65536, 65537, 1000003, (1 << 20) - 1, (1 << 20), (1 << 20) + 1};
  for (int i = 0; i < 4; ++i) sizes.push_back(uniformInt(1, 1 << 22));
  for (int64_t n : sizes) check(n);
}

// Divisible n and aligned pointers get the all-divisible variant, ragged n the pointers-only one, and
// misaligned pointers the variant assuming nothing: all three must compute the same thing.
TEST_F(VectorAdd, DivisibilityVariants) {
  check(1 << 16);          // n % 16 == 0, pointers 16-byte aligned
  check((1 << 16) + 3);    // n ragged
  check(1 << 16, 1, 2, 3); // n divisible, pointers not
  check(4099, 3, 0, 1);    // neither
}

TEST_F(VectorAdd, NonDefaultStream) {
  Stream s;
  check(uniformInt(1 << 18, 1 << 20), 0, 0, 0, s.handle());
  s.synchronize();
}

// ---------------------------------------------------------------------------------------------------------
// Softmax

class Softmax : public KernelsGpu {
protected:
  // Input padding holds NaN, so reading a masked-off column would show up in the result.
  void check(const Layout &in, const Layout &out, float scale) {
    SCOPED_TRACE("softmax in " + in.str() + ", out " + out.str() + ", scale " + std::to_string(scale));
    std::vector<float> x(in.total(), kNaN);
    for (int64_t r = 0; r < in.rows; ++r)
      for (int64_t c = 0; c < in.cols; ++c) x[in.at(r, c)] = normal(0.0f, scale);
    DeviceBuffer dIn = DeviceBuffer::fromHost(x);
    DeviceBuffer dOut = poisoned(out.total());
    tk::Softmax::launch(gAot, at(dOut, out.offset), at(dIn, in.offset), in.rows, in.cols, out.stride, in.stride);
    Context::get().synchronize();
    std::vector<float> y = dOut.toHost<float>(out.total());

    std::vector<double> ref;
    ref.reserve(static_cast<size_t>(in.rows * in.cols));
    for (int64_t r = 0; r < in.rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < in.cols; ++c) m = std::max(m, double(x[in.at(r, c)]));
      for (int64_t c = 0; c < in.cols; ++c) s += std::exp(double(x[in.at(r, c)]) - m);
      for (int64_t c = 0; c < in.cols; ++c) ref.push_back(std::exp(double(x[in.at(r, c)]) - m) / s);
    }
    EXPECT_TRUE(closeTo(gather(y, out), ref, 1e-5, "softmax"));
    EXPECT_TRUE(untouched(y, out, "softmax"));
  }
  void checkContiguous(int64_t rows, int64_t cols, float scale = 1.0f) {
    check(Layout{rows, cols, cols}, Layout{rows, cols, cols}, scale);
  }
};

TEST_F(Softmax, ColumnCounts) {
  for (int64_t cols : kColumnCounts) checkContiguous(randomRows(cols), cols);
  checkContiguous(1, 16384);
  for (int i = 0; i < 3; ++i) {
    int64_t cols = uniformInt(1, tile::kernels::kMaxRowBlock);
    checkContiguous(randomRows(cols), cols);
  }
}

// Row strides larger than cols and not multiples of 16 (non-vectorised variant), different strides for in
// and out, a divisible stride with ragged cols, and pointers off 16-byte alignment.
TEST_F(Softmax, StridedAndMisaligned) {
  for (int64_t cols : {1, 17, 1000, 1024, 4097, 16384}) {
    int64_t rows = randomRows(cols);
    int64_t inStride = cols + uniformInt(1, 15), outStride = cols + uniformInt(1, 15);
    if (inStride % 16 == 0) ++inStride;
    if (outStride % 16 == 0) ++outStride;
    check(Layout{rows, cols, inStride}, Layout{rows, cols, outStride}, 1.0f);
    check(Layout{rows, cols, cols, 1}, Layout{rows, cols, cols, 3}, 1.0f);
  }
  check(Layout{37, 1000, 1008}, Layout{37, 1000, 1024}, 1.0f);
}

// Large logits overflow exp() unless the row maximum is subtracted first.
TEST_F(Softmax, LargeLogits) {
  checkContiguous(64, 1000, 40.0f);
  checkContiguous(16, 16384, 40.0f);
}

// ---------------------------------------------------------------------------------------------------------
// LayerNorm forward

class LayerNorm : public KernelsGpu {
protected:
  // x and y share the layout (the kernel has one row stride). Inputs have a random offset so that the
  // mean is not ~0 and its relative error is meaningful; padding holds NaN.
  void check(const Layout &l, float eps = 1e-5f) {
    SCOPED_TRACE("layernorm " + l.str() + ", eps " + std::to_string(eps));
    float shift = (uniform(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f) * uniform(0.5f, 3.0f), scale = uniform(0.1f, 2.0f);
    std::vector<float> x(l.total(), kNaN), w(static_cast<size_t>(l.cols)), b(static_cast<size_t>(l.cols));
    for (int64_t r = 0; r < l.rows; ++r)
      for (int64_t c = 0; c < l.cols; ++c) x[l.at(r, c)] = shift + normal(0.0f, scale);
    for (float &v : w) v = uniform(0.5f, 1.5f);
    for (float &v : b) v = uniform(-1.0f, 1.0f);
    DeviceBuffer dx = DeviceBuffer::fromHost(x), dw = DeviceBuffer::fromHost(w), db = DeviceBuffer::fromHost(b);
    DeviceBuffer dy = poisoned(l.total()), dMean = poisoned(static_cast<size_t>(l.rows)),
                 dRstd = poisoned(static_cast<size_t>(l.rows));
    tk::LayerNormForward::launch(gAot, at(dx, l.offset), at(dy, l.offset), dw.ptr(), db.ptr(), dMean.ptr(), dRstd.ptr(),
                                 l.rows, l.cols, l.stride, eps);
    Context::get().synchronize();
    std::vector<float> y = dy.toHost<float>(l.total());
    std::vector<float> mean = dMean.toHost<float>(static_cast<size_t>(l.rows));
    std::vector<float> rstd = dRstd.toHost<float>(static_cast<size_t>(l.rows));

    std::vector<double> refY, refMean, refRstd;
    for (int64_t r = 0; r < l.rows; ++r) {
      double m = 0, v = 0;
      for (int64_t c = 0; c < l.cols; ++c) m += x[l.at(r, c)];
      m /= double(l.cols);
      for (int64_t c = 0; c < l.cols; ++c) v += (x[l.at(r, c)] - m) * (x[l.at(r, c)] - m);
      double rs = 1.0 / std::sqrt(v / double(l.cols) + double(eps));
      refMean.push_back(m);
      refRstd.push_back(rs);
      for (int64_t c = 0; c < l.cols; ++c) refY.push_back((x[l.at(r, c)] - m) * rs * w[c] + b[c]);
    }
    EXPECT_TRUE(closeTo(gather(y, l), refY, 1e-5, "y"));
    EXPECT_TRUE(untouched(y, l, "y"));
    EXPECT_TRUE(closeTo(mean, refMean, 1e-5, "mean"));
    EXPECT_TRUE(closeTo(rstd, refRstd, 1e-5, "rstd"));
  }
};

TEST_F(LayerNorm, ColumnCounts) {
  for (int64_t cols : kColumnCounts) check(Layout{randomRows(cols), cols, cols});
  for (int i = 0; i < 3; ++i) {
    int64_t cols = uniformInt(1, 3 * tile::kernels::kMaxRowBlock); // the kernel loops: no column limit
    check(Layout{randomRows(cols), cols, cols});
  }
}

TEST_F(LayerNorm, StridedAndMisaligned) {
  for (int64_t cols : {1, 17, 1000, 1024, 4097, 16384}) {
    int64_t rows = randomRows(cols);
    int64_t stride = cols + uniformInt(1, 15);
    if (stride % 16 == 0) ++stride;
    check(Layout{rows, cols, stride});
    check(Layout{rows, cols, cols, 1});
  }
  check(Layout{37, 1000, 1008});
  check(Layout{8, 4096, 4096}, 0.5f); // a large eps must show in rstd
}

// ---------------------------------------------------------------------------------------------------------
// Batched matmul: the problems of test/common/BatchedMatmulCheck.h (as on the CPU executor) plus shapes that
// take the large tensor-core tile. Bounds against float64 of the factors the kernel multiplies: 1e-6 for f32
// (FMA, exact products, f32 sums); 1e-5 for TF32, f16 and bf16, whose products are exact too but are summed
// by mma.sync in the tensor cores' order (and rounding). Against float64 of the unrounded inputs, relative
// to Σ|a·b| + |bias|: inputTolerance() (f32 1e-6, tf32 and f16 1.1e-3, bf16 8e-3).

class BatchedMatmulGpu : public KernelsGpu {
protected:
  void run(tile::testutil::MatmulInput input, const tile::testutil::BatchedMatmulCase &cs) {
    using tile::testutil::MatmulInput;
    SCOPED_TRACE(std::string(tile::testutil::inputName(input)) + " " + cs.str());
    tile::testutil::BatchedMatmulProblem p = tile::testutil::makeBatchedMatmul(input, cs, gen_);
    const bool half = tile::testutil::isHalfInput(input);
    DeviceBuffer da = half ? DeviceBuffer::fromHost(p.a16) : DeviceBuffer::fromHost(p.a32);
    DeviceBuffer db = half ? DeviceBuffer::fromHost(p.b16) : DeviceBuffer::fromHost(p.b32);
    DeviceBuffer dbias = DeviceBuffer::fromHost(p.bias), dc = poisoned(size_t(p.c.size));
    tile::testutil::launchBatchedMatmul(gAot, p, da.ptr(), db.ptr(), dc.ptr(), dbias.ptr());
    Context::get().synchronize();
    const double factorTolerance = input == MatmulInput::F32 ? 1e-6 : 1e-5;
    EXPECT_TRUE(tile::testutil::checkBatchedMatmul(p, dc.toHost<float>(size_t(p.c.size)), factorTolerance));
  }
  void runAll(tile::testutil::MatmulInput input) {
    using S = tile::testutil::Storage;
    std::vector<tile::testutil::BatchedMatmulCase> cases = tile::testutil::batchedMatmulCases();
    cases.push_back({33, 256, 256, 64, S::RowMajor, S::RowMajor, S::RowMajor, 2, false, 0}); // a full wave: 128x128
    cases.push_back({8, 128, 192, 320, S::RowMajor, S::Broadcast, S::RowMajor, 1, true, 0}); // aligned, B shared
    cases.push_back({2, 513, 999, 77, S::RowMajor, S::ColMajor, S::RowMajor, 2});            // ragged, B transposed
    for (const tile::testutil::BatchedMatmulCase &cs : cases) run(input, cs);
  }
};

TEST_F(BatchedMatmulGpu, F32) { runAll(tile::testutil::MatmulInput::F32); }
TEST_F(BatchedMatmulGpu, TF32) { runAll(tile::testutil::MatmulInput::TF32); }
TEST_F(BatchedMatmulGpu, F16) { runAll(tile::testutil::MatmulInput::F16); }
TEST_F(BatchedMatmulGpu, BF16) { runAll(tile::testutil::MatmulInput::BF16); }

// ---------------------------------------------------------------------------------------------------------
// Argument checks: thrown before any driver call, so these run without a GPU too.

namespace {
template <class F> std::string invalidArgument(F f) {
  try {
    f();
  } catch (const tile::ArgumentError &e) { return e.what(); }
  return "(no exception)";
}
bool oneLine(const std::string &s, const std::string &needle) {
  return s.find('\n') == std::string::npos && s.find(needle) != std::string::npos;
}
} // namespace

TEST(KernelsArgs, RejectedBeforeLaunch) {
  CUdeviceptr p = 0;
  std::string m = invalidArgument([&] { tk::Softmax::launch(gAot, p, p, 4, 16385, 16385, 16385); });
  EXPECT_TRUE(oneLine(m, "cols = 16385 exceeds kMaxRowBlock = 16384")) << m;
  m = invalidArgument([&] { tk::Softmax::launch(gAot, p, p, 4, 100, 100, 99); });
  EXPECT_TRUE(oneLine(m, "inRowStride = 99 is smaller than cols = 100")) << m;
  m = invalidArgument([&] { tk::Softmax::launch(gAot, p, p, 4, 0, 0, 0); });
  EXPECT_TRUE(oneLine(m, "cols = 0")) << m;
  m = invalidArgument([&] { tk::Softmax::launch(gAot, p, p, 1 << 20, 4096, 4096, 4096); });
  EXPECT_TRUE(oneLine(m, "int32 indexing")) << m;
  m = invalidArgument([&] { tk::Softmax::launch(gAot, p, p, 2, 8, 8, int64_t(1) << 40); });
  EXPECT_TRUE(oneLine(m, "int32 indexing")) << m;
  m = invalidArgument([&] { tk::VectorAdd::launch(gAot, p, p, p, int64_t(1) << 31); });
  EXPECT_TRUE(oneLine(m, "n = 2147483648")) << m;
  m = invalidArgument([&] { tk::VectorAdd::launch(gAot, p, p, p, -1); });
  EXPECT_TRUE(oneLine(m, "n = -1")) << m;
  m = invalidArgument([&] { tk::LayerNormForward::launch(gAot, p, p, p, p, p, p, -1, 8, 8, 1e-5f); });
  EXPECT_TRUE(oneLine(m, "rows = -1")) << m;
  m = invalidArgument([&] { tk::LayerNormForward::launch(gAot, p, p, p, p, p, p, 2, 8, 8, -1.0f); });
  EXPECT_TRUE(oneLine(m, "eps")) << m;
}

TEST(KernelsArgs, EmptyLaunchesNothing) {
  CUdeviceptr p = 0; // never dereferenced: nothing is launched
  EXPECT_NO_THROW(tk::VectorAdd::launch(gAot, p, p, p, 0));
  EXPECT_NO_THROW(tk::Softmax::launch(gAot, p, p, 0, 128, 128, 128));
  EXPECT_NO_THROW(tk::LayerNormForward::launch(gAot, p, p, p, p, p, p, 0, 128, 128, 1e-5f));
  EXPECT_NO_THROW(tk::BatchedMatmulF16::launch(gAot, {.matrix = {.a = p,
                                                                 .b = p,
                                                                 .c = p,
                                                                 .bias = p,
                                                                 .m = 64,
                                                                 .n = 64,
                                                                 .k = 64,
                                                                 .strideAm = 64,
                                                                 .strideAk = 1,
                                                                 .strideBk = 64,
                                                                 .strideBn = 1,
                                                                 .strideCm = 64,
                                                                 .strideCn = 1},
                                                      .batch = 0,
                                                      .strideAb = 0,
                                                      .strideBb = 0,
                                                      .strideCb = 0,
                                                      .strideBiasb = 0}));
}

// The descriptor matmul with C in the inputs' type (TMA copies on sm_90a, one rounding of the f32
// accumulator at the store: a TMA store of the C block), ragged M and N with K and N multiples of 8
// (16-byte rows), both library tiles, every epilogue, C with a padded row stride: against float64
// rounded once. The same for B given transposed (bᵀ [N, K], read K-major by wgmma) and for the
// persistent grid (on every SM, and on 3 programs so each walks many tiles and its copies run
// ahead across them), and for the warp-specialised K loop (its 128 x 256 tile: a producer warp
// issues the copies, K loops of 1 to 10 steps against its 4-deep ring) on a grid of tiles; the
// persistent kernel's default is warp-specialised too (the producer running into each program's
// next tile), so its tile without is launched as well.
class MatmulTmaHalfOutGpu : public KernelsGpu {};

enum class TmaMatmulKind { Plain, Bt, Persistent, PersistentFew, WarpSpecialized, PersistentUnspecialized };
const char *kindName(TmaMatmulKind k) {
  switch (k) {
  case TmaMatmulKind::Plain: return "plain";
  case TmaMatmulKind::Bt: return "bT";
  case TmaMatmulKind::Persistent: return "persistent";
  case TmaMatmulKind::PersistentFew: return "persistent on 3 programs";
  case TmaMatmulKind::WarpSpecialized: return "warp-specialised";
  case TmaMatmulKind::PersistentUnspecialized: return "persistent on 3 programs, K loop not warp-specialised";
  }
  return "?";
}

TEST_F(MatmulTmaHalfOutGpu, RaggedShapesEveryEpilogueAgainstFloat64) {
  struct Case {
    int64_t m, n, k, ldc;
  };
  // 960 x 1000 x 600: 120 programs of 64 x 128, the 8-deep ring (tileFor) wrapping over 10 ragged
  // K steps. One draw of the inputs per shape and type serves every kind and epilogue (the float64
  // product is the test's cost).
  for (Case c : std::vector<Case>{{100, 72, 48, 72},
                                  {1000, 520, 264, 528},
                                  {1024, 1024, 256, 1040},
                                  {5, 8, 8, 16},
                                  {300, 1000, 64, 1000},
                                  {960, 1000, 600, 1000}})
    for (bool bf16 : {false, true}) {
      auto toBits = [&](float x) { return bf16 ? tile::testutil::toBf16(x) : tile::testutil::toHalf(x); };
      auto toFloat = [&](uint16_t h) {
        return bf16 ? tile::testutil::bf16BitsToFloat(h) : tile::testutil::halfToFloat(h);
      };
      std::vector<uint16_t> a(size_t(c.m * c.k)), b(size_t(c.k * c.n)), bT(b.size());
      std::vector<float> bias(size_t(c.n));
      for (auto &x : a) x = toBits(uniform(-2, 2));
      for (auto &x : b) x = toBits(uniform(-2, 2));
      for (int64_t kk = 0; kk < c.k; ++kk)
        for (int64_t j = 0; j < c.n; ++j) bT[size_t(j * c.k + kk)] = b[size_t(kk * c.n + j)];
      for (auto &x : bias) x = uniform(-4, 4);
      // A·B in float64, accumulated row by row of B (cache-friendly).
      std::vector<double> product(size_t(c.m * c.n), 0.0);
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t kk = 0; kk < c.k; ++kk) {
          const double x = toFloat(a[size_t(i * c.k + kk)]);
          for (int64_t j = 0; j < c.n; ++j) product[size_t(i * c.n + j)] += x * toFloat(b[size_t(kk * c.n + j)]);
        }
      DeviceBuffer da(a.size() * 2), db(b.size() * 2), dbT(b.size() * 2), dbias(bias.size() * 4),
          dc(size_t(c.m * c.ldc) * 2);
      da.copyFromHost(a.data(), a.size() * 2);
      db.copyFromHost(b.data(), b.size() * 2);
      dbT.copyFromHost(bT.data(), bT.size() * 2);
      dbias.copyFromHost(bias.data(), bias.size() * 4);
      for (TmaMatmulKind kind :
           {TmaMatmulKind::Plain, TmaMatmulKind::Bt, TmaMatmulKind::Persistent, TmaMatmulKind::PersistentFew,
            TmaMatmulKind::WarpSpecialized, TmaMatmulKind::PersistentUnspecialized})
        for (auto e : {tk::MatmulEpilogue::None, tk::MatmulEpilogue::Bias, tk::MatmulEpilogue::BiasRelu}) {
          SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
                       (bf16 ? " bf16" : " f16") + " epilogue " + std::to_string(int(e)) + " " + kindName(kind));
          const bool bt = kind == TmaMatmulKind::Bt;
          const DeviceBuffer &bIn = bt ? dbT : db;
          dc.fillBytes(0xFF);
          const bool unspecialized = kind == TmaMatmulKind::PersistentUnspecialized;
          const int64_t ldb = bt ? c.k : c.n, programs = kind == TmaMatmulKind::PersistentFew || unspecialized ? 3 : 0;
          // Every epilogue has the default persistent tile; the others have epilogue None only.
          if (unspecialized && e != tk::MatmulEpilogue::None) continue;
          const tk::MatmulConfig unspecializedTile = tk::MatmulTmaPersistentF16OutF16::tiles()[1];
          if (kind == TmaMatmulKind::WarpSpecialized && bf16)
            tk::MatmulTmaBF16OutBF16::launch(gAot,
                                             {.a = da,
                                              .b = bIn,
                                              .c = dc,
                                              .bias = dbias,
                                              .m = c.m,
                                              .n = c.n,
                                              .k = c.k,
                                              .lda = c.k,
                                              .ldb = ldb,
                                              .ldc = c.ldc,
                                              .epilogue = e},
                                             nullptr, &tk::MatmulTmaBF16OutBF16::kWarpSpecialized[0]);
          else if (kind == TmaMatmulKind::WarpSpecialized)
            tk::MatmulTmaF16OutF16::launch(gAot,
                                           {.a = da,
                                            .b = bIn,
                                            .c = dc,
                                            .bias = dbias,
                                            .m = c.m,
                                            .n = c.n,
                                            .k = c.k,
                                            .lda = c.k,
                                            .ldb = ldb,
                                            .ldc = c.ldc,
                                            .epilogue = e},
                                           nullptr, &tk::MatmulTmaF16OutF16::kWarpSpecialized[0]);
          else if (kind == TmaMatmulKind::Plain && bf16)
            tk::MatmulTmaBF16OutBF16::launch(gAot, {.a = da,
                                                    .b = bIn,
                                                    .c = dc,
                                                    .bias = dbias,
                                                    .m = c.m,
                                                    .n = c.n,
                                                    .k = c.k,
                                                    .lda = c.k,
                                                    .ldb = ldb,
                                                    .ldc = c.ldc,
                                                    .epilogue = e});
          else if (kind == TmaMatmulKind::Plain)
            tk::MatmulTmaF16OutF16::launch(gAot, {.a = da,
                                                  .b = bIn,
                                                  .c = dc,
                                                  .bias = dbias,
                                                  .m = c.m,
                                                  .n = c.n,
                                                  .k = c.k,
                                                  .lda = c.k,
                                                  .ldb = ldb,
                                                  .ldc = c.ldc,
                                                  .epilogue = e});
          else if (bt && bf16)
            tk::MatmulTmaBF16BtOutBF16::launch(gAot, {.a = da,
                                                      .b = bIn,
                                                      .c = dc,
                                                      .bias = dbias,
                                                      .m = c.m,
                                                      .n = c.n,
                                                      .k = c.k,
                                                      .lda = c.k,
                                                      .ldb = ldb,
                                                      .ldc = c.ldc,
                                                      .epilogue = e});
          else if (bt)
            tk::MatmulTmaF16BtOutF16::launch(gAot, {.a = da,
                                                    .b = bIn,
                                                    .c = dc,
                                                    .bias = dbias,
                                                    .m = c.m,
                                                    .n = c.n,
                                                    .k = c.k,
                                                    .lda = c.k,
                                                    .ldb = ldb,
                                                    .ldc = c.ldc,
                                                    .epilogue = e});
          else if (bf16)
            tk::MatmulTmaPersistentBF16OutBF16::launch(gAot,
                                                       {.a = da,
                                                        .b = bIn,
                                                        .c = dc,
                                                        .bias = dbias,
                                                        .m = c.m,
                                                        .n = c.n,
                                                        .k = c.k,
                                                        .lda = c.k,
                                                        .ldb = ldb,
                                                        .ldc = c.ldc,
                                                        .epilogue = e},
                                                       nullptr, programs, unspecialized ? &unspecializedTile : nullptr);
          else
            tk::MatmulTmaPersistentF16OutF16::launch(gAot,
                                                     {.a = da,
                                                      .b = bIn,
                                                      .c = dc,
                                                      .bias = dbias,
                                                      .m = c.m,
                                                      .n = c.n,
                                                      .k = c.k,
                                                      .lda = c.k,
                                                      .ldb = ldb,
                                                      .ldc = c.ldc,
                                                      .epilogue = e},
                                                     nullptr, programs, unspecialized ? &unspecializedTile : nullptr);
          Context::get().synchronize();
          std::vector<uint16_t> out(size_t(c.m * c.ldc));
          dc.copyToHost(out.data(), out.size() * 2);
          std::vector<float> got;
          std::vector<double> ref;
          for (int64_t i = 0; i < c.m; ++i) {
            for (int64_t j = 0; j < c.n; ++j) {
              double acc = product[size_t(i * c.n + j)];
              if (e != tk::MatmulEpilogue::None) acc += bias[size_t(j)];
              if (e == tk::MatmulEpilogue::BiasRelu) acc = std::max(acc, 0.0);
              got.push_back(toFloat(out[size_t(i * c.ldc + j)]));
              ref.push_back(acc);
            }
            for (int64_t j = c.n; j < c.ldc; ++j) ASSERT_EQ(out[size_t(i * c.ldc + j)], 0xFFFF) << "padding written";
          }
          // One rounding to f16 (2^-11) or bf16 (2^-8) relative, on top of f32 accumulation.
          EXPECT_TRUE(closeTo(got, ref, bf16 ? 8e-3 : 1e-3, "matmul_tma half out"));
        }
    }
}

// TF32 on wgmma: B given transposed (bᵀ [N, K], K-major, the only order wgmma reads tf32 in), the
// operands rounded to tf32 by the TMA copies (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32: to nearest). Against
// float64 of the factors rounded as the copies round them (1e-5: the products are exact, only the
// f32 sums' order differs; ties to even on sm_90, where TMA copies round, else mma.sync's cvt.rna,
// ties away) and of the unrounded inputs (inputTolerance: 2^-10). The library's Matmul<float> takes this kernel
// for K-major B (x·Wᵀ); row-major B goes through a transpose (launchTransposingB); the persistent
// grid on every SM and on 3 programs; the warp-specialised K loop (its 128 x 256 tile).
class MatmulTmaTf32Gpu : public KernelsGpu {};

TEST_F(MatmulTmaTf32Gpu, RaggedShapesEveryEpilogueAgainstFloat64) {
  using tile::testutil::MatmulInput;
  using S = tile::testutil::Storage;
  // pad: every row padded to a multiple of 16 bytes, as descriptors need (the transposing launch
  // takes a dense B: its cases have k and n multiples of 4).
  struct Case {
    int64_t m, n, k, pad;
  };
  // 1000 x 1000 x 300: 128 programs of 64 x 128, the 8-deep ring (tileFor) wrapping over 10 ragged
  // K steps; one epilogue, not persistent (the float64 reference is the test's cost).
  const auto rounding = Context::get().info().ccMajor == 9 ? tile::testutil::Tf32Rounding::TiesEven
                                                           : tile::testutil::Tf32Rounding::TiesAway;
  for (Case c : std::vector<Case>{{1000, 517, 261, 3},
                                  {5, 13, 9, 3},
                                  {1024, 1024, 512, 0},
                                  {300, 257, 125, 3},
                                  {260, 196, 124, 0},
                                  {1000, 1000, 300, 4}})
    for (int epilogue = 0; epilogue < 3; ++epilogue) {
      // One problem per storage of B (bᵀ row-major, or B row-major for the transposing launch), drawn
      // once for every launch that reads it (the float64 references are the test's cost).
      std::optional<tile::testutil::BatchedMatmulProblem> problems[2];
      for (int how = 0; how < 6; ++how) {
        if (how == 2 && (c.k % 4 || c.n % 4)) continue;
        if (c.k == 300 && ((how >= 3 && how != 5) || epilogue != 2)) continue;
        const char *names[] = {"MatmulTmaTf32Bt", "Matmul<float> tf32 with K-major B", "launchTransposingB",
                               "persistent",      "persistent on 3 programs",          "warp-specialised"};
        // B stored transposed (Storage::ColMajor is bᵀ row-major) except for the transposing launch.
        tile::testutil::BatchedMatmulCase cs{1,
                                             c.m,
                                             c.n,
                                             c.k,
                                             S::RowMajor,
                                             how == 2 ? S::RowMajor : S::ColMajor,
                                             S::RowMajor,
                                             epilogue,
                                             false,
                                             how == 2 ? 0 : c.pad,
                                             0};
        SCOPED_TRACE(std::string(names[how]) + " " + cs.str());
        std::optional<tile::testutil::BatchedMatmulProblem> &problem = problems[how == 2 ? 1 : 0];
        if (!problem) problem = tile::testutil::makeBatchedMatmul(MatmulInput::TF32, cs, gen_, rounding);
        const tile::testutil::BatchedMatmulProblem &p = *problem;
        DeviceBuffer da = DeviceBuffer::fromHost(p.a32), db = DeviceBuffer::fromHost(p.b32);
        DeviceBuffer dbias = DeviceBuffer::fromHost(p.bias), dc = poisoned(size_t(p.c.size));
        const auto e = tk::MatmulEpilogue(epilogue);
        const int64_t ldb = how == 2 ? p.b.row : p.b.col;
        if (how == 0)
          tk::MatmulTmaTf32Bt::launch(gAot, {.a = da,
                                             .b = db,
                                             .c = dc,
                                             .bias = dbias,
                                             .m = c.m,
                                             .n = c.n,
                                             .k = c.k,
                                             .lda = p.a.row,
                                             .ldb = ldb,
                                             .ldc = p.c.row,
                                             .epilogue = e});
        if (how == 1)
          tk::MatmulF32::launch(gAot, {.a = da,
                                       .b = db,
                                       .c = dc,
                                       .bias = dbias,
                                       .m = c.m,
                                       .n = c.n,
                                       .k = c.k,
                                       .strideAm = p.a.row,
                                       .strideAk = 1,
                                       .strideBk = 1,
                                       .strideBn = ldb,
                                       .strideCm = p.c.row,
                                       .strideCn = 1,
                                       .epilogue = e,
                                       .tf32 = true});
        if (how == 2) {
          DeviceBuffer work(size_t(c.k * c.n) * 4);
          tk::MatmulTmaTf32Bt::launchTransposingB(gAot,
                                                  {.a = da,
                                                   .b = db,
                                                   .c = dc,
                                                   .bias = dbias,
                                                   .m = c.m,
                                                   .n = c.n,
                                                   .k = c.k,
                                                   .lda = p.a.row,
                                                   .ldb = c.n,
                                                   .ldc = p.c.row,
                                                   .epilogue = e},
                                                  work, c.k * c.n);
          Context::get().synchronize();
        }
        if (how == 5)
          tk::MatmulTmaTf32Bt::launch(gAot,
                                      {.a = da,
                                       .b = db,
                                       .c = dc,
                                       .bias = dbias,
                                       .m = c.m,
                                       .n = c.n,
                                       .k = c.k,
                                       .lda = p.a.row,
                                       .ldb = ldb,
                                       .ldc = p.c.row,
                                       .epilogue = e},
                                      nullptr, &tk::MatmulTmaTf32Bt::kWarpSpecialized[0]);
        if (how == 3 || how == 4)
          tk::MatmulTmaPersistentTf32Bt::launch(gAot,
                                                {.a = da,
                                                 .b = db,
                                                 .c = dc,
                                                 .bias = dbias,
                                                 .m = c.m,
                                                 .n = c.n,
                                                 .k = c.k,
                                                 .lda = p.a.row,
                                                 .ldb = ldb,
                                                 .ldc = p.c.row,
                                                 .epilogue = e},
                                                nullptr, how == 4 ? 3 : 0);
        Context::get().synchronize();
        EXPECT_TRUE(tile::testutil::checkBatchedMatmul(p, dc.toHost<float>(size_t(p.c.size)), 1e-5));
      }
    }
}

TEST(KernelsArgs, MatmulTmaRefusesWhatADescriptorCannotDescribe) {
  CUdeviceptr p = 256; // never dereferenced: refused before any launch
  std::string m = invalidArgument([&] {
    tk::MatmulTmaF16OutF16::launch(
        gAot, {.a = p + 2, .b = p, .c = p, .bias = p, .m = 64, .n = 64, .k = 64, .lda = 64, .ldb = 64, .ldc = 64});
  });
  EXPECT_TRUE(oneLine(m, "operand a: base address 258 is not 16-byte aligned")) << m;
  m = invalidArgument([&] {
    tk::MatmulTmaF16OutF16::launch(
        gAot, {.a = p, .b = p, .c = p, .bias = p, .m = 64, .n = 60, .k = 64, .lda = 64, .ldb = 60, .ldc = 64});
  });
  EXPECT_TRUE(oneLine(m, "operand b: stride 0 is 120 bytes, not a positive multiple of 16")) << m;
  m = invalidArgument([&] {
    tk::MatmulTmaF16OutF16::launch(
        gAot, {.a = p, .b = p, .c = p, .bias = p, .m = 64, .n = 64, .k = 64, .lda = 64, .ldb = 64, .ldc = 60});
  });
  EXPECT_TRUE(oneLine(m, "operand c: stride 0 is 120 bytes, not a positive multiple of 16")) << m;
  m = invalidArgument([&] {
    tk::MatmulTmaTf32Bt::launch(
        gAot, {.a = p, .b = p, .c = p, .bias = p, .m = 64, .n = 64, .k = 30, .lda = 32, .ldb = 30, .ldc = 64});
  });
  EXPECT_TRUE(oneLine(m, "operand bT: stride 0 is 120 bytes, not a positive multiple of 16")) << m;
  m = invalidArgument([&] {
    tk::MatmulTmaPersistentF16OutF16::launch(
        gAot, {.a = p, .b = p + 8, .c = p, .bias = p, .m = 64, .n = 64, .k = 64, .lda = 64, .ldb = 64, .ldc = 64});
  });
  EXPECT_TRUE(oneLine(m, "operand b: base address 264 is not 16-byte aligned")) << m;
  m = invalidArgument([&] {
    tk::MatmulTmaTf32Bt::launchTransposingB(
        gAot, {.a = p, .b = p, .c = p, .bias = p, .m = 64, .n = 64, .k = 64, .lda = 64, .ldb = 64, .ldc = 64}, p,
        64 * 63);
  });
  EXPECT_TRUE(oneLine(m, "the workspace holds 4032 floats; bᵀ needs k * n = 4096")) << m;
}
