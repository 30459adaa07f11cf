// GPU tests of test/kernels/TestKernels.h against float64 (or exact integer) host
// references: 2-D tiles, reductions along both axes, argmax, colliding atomics, half
// precision rounding, loops and branches. Random shapes include ragged edges.
#include "test_kernels_aot.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/Numerics.h"
#include "../kernels/TestKernelReferences.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace tile;
using namespace tile::rt;
using tile::testutil::closeTo;
using tile::testutil::halfToFloat;
using tile::testutil::smallFloatFma;
using tile::testutil::toBf16;
using tile::testutil::toHalf;

namespace {

#define REQUIRE_GPU()                                                                                                  \
  do {                                                                                                                 \
    std::string why;                                                                                                   \
    if (!gpuAvailable(&why)) GTEST_SKIP() << why;                                                                      \
  } while (0)

uint64_t seedForTest() {
  if (const char *s = std::getenv("TILE_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

std::vector<float> randomFloats(size_t n, std::mt19937_64 &rng) {
  std::uniform_real_distribution<float> d(-4.f, 4.f);
  std::vector<float> v(n);
  for (float &x : v) x = d(rng);
  return v;
}

DeviceBuffer poisoned(size_t bytes) {
  DeviceBuffer b(std::max<size_t>(bytes, 16));
  b.fillBytes(0xFF);
  return b;
}

AotLaunchConfig grid(unsigned x, unsigned y = 1) { return AotLaunchConfig{Dim3{x, y, 1}, 4, nullptr}; }

/// A checked descriptor parameter over device memory (what a DSL launch builds from a TensorDescArg).
TensorDescParam descriptor(CUdeviceptr base, std::initializer_list<int64_t> shape,
                           std::initializer_list<int64_t> strides, int elemBytes) {
  TensorDescArg d{base, shape, strides};
  std::string why = checkTensorDesc("test descriptor", d, int(shape.size()), elemBytes);
  if (!why.empty()) throw std::invalid_argument(why);
  return toTensorDescParam(d);
}

} // namespace

TEST(TestKernelsGpu, Transpose2D) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {32, 32}, {33, 31}, {100, 7}, {5, 300}, {257, 129}}) {
    auto in = randomFloats(size_t(m) * n, rng);
    auto din = DeviceBuffer::fromHost(in);
    DeviceBuffer dout = poisoned(in.size() * 4);
    aot_test::transpose(grid((m + 31) / 32, (n + 31) / 32), din.ptr(), dout.ptr(), m, n, 32, 32);
    auto out = dout.toHost<float>(in.size());
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c)
        ASSERT_EQ(out[size_t(c) * m + r], in[size_t(r) * n + c])
            << m << "x" << n << " at " << r << "," << c << " seed " << seed;
  }
}

TEST(TestKernelsGpu, RowSumMaxArgmax) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  struct Shape {
    int m, n, bm, bn;
  };
  for (Shape s : std::vector<Shape>{
           {1, 1, 16, 128}, {16, 128, 16, 128}, {37, 100, 16, 128}, {3, 1000, 1, 1024}, {129, 1024, 1, 1024}}) {
    auto in = randomFloats(size_t(s.m) * s.n, rng);
    if (s.n > 3) in[size_t(s.m - 1) * s.n + 2] = in[size_t(s.m - 1) * s.n + 3] = 100.f; // a tie: first index wins
    auto din = DeviceBuffer::fromHost(in);
    DeviceBuffer sums = poisoned(s.m * 4), maxima = poisoned(s.m * 4), arg = poisoned(s.m * 4);
    aot_test::row_stats(grid((s.m + s.bm - 1) / s.bm), din.ptr(), sums.ptr(), maxima.ptr(), arg.ptr(), s.m, s.n, s.bm,
                        s.bn);
    auto gotSums = sums.toHost<float>(s.m), gotMax = maxima.toHost<float>(s.m);
    auto gotArg = arg.toHost<int32_t>(s.m);
    tile::testing::RowStats ref = tile::testing::rowStatsReference(in, s.m, s.n);
    EXPECT_EQ(gotArg, ref.argmax) << s.m << "x" << s.n << " seed " << seed;
    EXPECT_TRUE(closeTo(gotSums, ref.sums, 1e-5, "row sums")) << s.m << "x" << s.n << " seed " << seed;
    EXPECT_TRUE(closeTo(gotMax, ref.maxima, 0, "row maxima")) << s.m << "x" << s.n << " seed " << seed;
  }
}

TEST(TestKernelsGpu, Rank3ReductionsOnEveryAxis) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  // Block shapes and warps as compiled (gen_test_kernels_aot.cpp); extents ragged too.
  struct Case {
    int d0, d1, d2, b0, b1, b2, axis, warps;
  };
  for (Case c : std::vector<Case>{{4, 128, 4, 4, 128, 4, 1, 4},
                                  {8, 32, 16, 8, 32, 16, 0, 4},
                                  {7, 30, 9, 8, 32, 16, 1, 4},
                                  {8, 32, 16, 8, 32, 16, 2, 4},
                                  {2, 3, 200, 2, 4, 256, 2, 8},
                                  {16, 16, 16, 16, 16, 16, 0, 8},
                                  {13, 16, 5, 16, 16, 16, 1, 8},
                                  {1, 64, 2, 1, 64, 2, 1, 1}}) {
    std::string name = std::to_string(c.d0) + "x" + std::to_string(c.d1) + "x" + std::to_string(c.d2) + " axis " +
                       std::to_string(c.axis) + " seed " + std::to_string(seed);
    auto in = randomFloats(size_t(c.d0) * c.d1 * c.d2, rng);
    const int kept = (c.d0 * c.d1 * c.d2) / (c.axis == 0 ? c.d0 : c.axis == 1 ? c.d1 : c.d2);
    auto din = DeviceBuffer::fromHost(in);
    DeviceBuffer sums = poisoned(kept * 4), maxima = poisoned(kept * 4), arg = poisoned(kept * 4);
    aot_test::reduce3d(AotLaunchConfig{Dim3{1, 1, 1}, c.warps, nullptr}, din.ptr(), sums.ptr(), maxima.ptr(), arg.ptr(),
                       c.d0, c.d1, c.d2, c.b0, c.b1, c.b2, c.axis);
    tile::testing::RowStats ref = tile::testing::reduce3dReference(in, c.d0, c.d1, c.d2, c.axis);
    EXPECT_EQ(arg.toHost<int32_t>(kept), ref.argmax) << name;
    EXPECT_TRUE(closeTo(sums.toHost<float>(kept), ref.sums, 1e-5, "sums")) << name;
    EXPECT_TRUE(closeTo(maxima.toHost<float>(kept), ref.maxima, 0, "maxima")) << name;
  }
}

/// One matmul problem: shapes, strides (B transposed when `transB`), the kernel's blocks.
struct MatmulCase {
  int m, n, k;
  bool transB;
  int lda; ///< A's row stride (>= k)
};

enum class MatmulType { F32, TF32, F16, BF16 };

/// Runs the library matmul (FMA path) against float64 on inputs rounded as the kernel
/// sees them; TF32 also against the unrounded inputs.
void checkMatmul(MatmulType type, const MatmulCase &p, int bm, int bn, int bk, int group, int epilogue, int warps,
                 std::mt19937_64 &rng, uint64_t seed) {
  static const char *typeNames[] = {"f32", "tf32", "f16", "bf16"};
  std::string name = std::string(typeNames[int(type)]) + " " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                     std::to_string(p.k) + (p.transB ? " B^T" : "") + " lda " + std::to_string(p.lda) + " epilogue " +
                     std::to_string(epilogue) + " seed " + std::to_string(seed);
  const size_t aElems = size_t(p.m) * p.lda, bElems = size_t(p.k) * p.n;
  const int sbk = p.transB ? 1 : p.n, sbn = p.transB ? p.k : 1;
  std::vector<float> af(aElems), bf(bElems), bias(p.n);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (float &x : af) x = d(rng);
  for (float &x : bf) x = d(rng);
  for (float &x : bias) x = d(rng);
  // What the kernel multiplies: f16/bf16 roundings of the inputs, or tf32 roundings.
  std::vector<double> ar(aElems), br(bElems), aExact(af.begin(), af.end()), bExact(bf.begin(), bf.end());
  std::vector<uint16_t> ah(aElems), bh(bElems);
  auto round = [&](float x, uint16_t &bits) -> double {
    switch (type) {
    case MatmulType::F16: bits = toHalf(x); return halfToFloat(bits);
    case MatmulType::BF16: {
      bits = toBf16(x);
      uint32_t w = uint32_t(bits) << 16;
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    case MatmulType::TF32: {
      uint32_t w;
      std::memcpy(&w, &x, 4);
      w = tile::testing::tf32Bits(w);
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    case MatmulType::F32: return x;
    }
    return x;
  };
  for (size_t i = 0; i < aElems; ++i) ar[i] = round(af[i], ah[i]);
  for (size_t i = 0; i < bElems; ++i) br[i] = round(bf[i], bh[i]);
  std::vector<double> biasD(bias.begin(), bias.end());
  auto ref = tile::testing::matmulReference(ar, br, biasD, p.m, p.n, p.k, p.lda, 1, sbk, sbn, epilogue);

  const bool half = type == MatmulType::F16 || type == MatmulType::BF16;
  auto da = half ? DeviceBuffer::fromHost(ah) : DeviceBuffer::fromHost(af);
  auto db = half ? DeviceBuffer::fromHost(bh) : DeviceBuffer::fromHost(bf);
  auto dbias = DeviceBuffer::fromHost(bias);
  DeviceBuffer dc = poisoned(size_t(p.m) * p.n * 4);
  AotLaunchConfig cfg{Dim3{unsigned(((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn)), 1, 1}, warps, nullptr};
  const int tf32 = type == MatmulType::TF32;
  switch (type) {
  case MatmulType::F32:
  case MatmulType::TF32:
    aot_test::matmul_f32(cfg, da.ptr(), db.ptr(), dc.ptr(), dbias.ptr(), p.m, p.n, p.k, p.lda, 1, sbk, sbn, p.n, 1, bm,
                         bn, bk, group, epilogue, tf32);
    break;
  case MatmulType::F16:
    aot_test::matmul_f16(cfg, da.ptr(), db.ptr(), dc.ptr(), dbias.ptr(), p.m, p.n, p.k, p.lda, 1, sbk, sbn, p.n, 1, bm,
                         bn, bk, group, epilogue, 0);
    break;
  case MatmulType::BF16:
    aot_test::matmul_bf16(cfg, da.ptr(), db.ptr(), dc.ptr(), dbias.ptr(), p.m, p.n, p.k, p.lda, 1, sbk, sbn, p.n, 1, bm,
                          bn, bk, group, epilogue, 0);
    break;
  }
  auto got = dc.toHost<float>(size_t(p.m) * p.n);
  // Exact products accumulated in f32: about sqrt(k) * 2^-24 relative; 1e-6 leaves room.
  EXPECT_TRUE(closeTo(got, ref, 1e-6, "matmul vs float64 of the rounded inputs")) << name;
  if (type == MatmulType::TF32) {
    auto exact = tile::testing::matmulReference(aExact, bExact, biasD, p.m, p.n, p.k, p.lda, 1, sbk, sbn, epilogue);
    EXPECT_TRUE(closeTo(got, exact, 2e-3, "tf32 matmul vs float64 of the f32 inputs")) << name;
  }
}

const std::vector<MatmulCase> kMatmulShapes = {
    {1000, 999, 77, false, 77}, {1, 1, 1, false, 1},    {1, 256, 64, true, 64},   {256, 1, 64, false, 80},
    {64, 64, 64, true, 64},     {129, 65, 3, false, 3}, {33, 200, 130, true, 131}};

/// The variants gen_test_kernels_aot.cpp compiles: input type, BM, BN, BK, GROUP_M, epilogue, warps.
struct MatmulVariant {
  MatmulType type;
  int bm, bn, bk, group, epilogue, warps;
};
const MatmulVariant kMatmulVariants[] = {
    {MatmulType::F32, 32, 32, 8, 4, 0, 4},    {MatmulType::F32, 32, 32, 8, 4, 2, 4},
    {MatmulType::TF32, 32, 32, 8, 4, 0, 4},   {MatmulType::F16, 64, 64, 16, 8, 1, 4},
    {MatmulType::F16, 16, 16, 16, 1, 0, 1},   {MatmulType::BF16, 64, 64, 16, 8, 2, 4},
    {MatmulType::F16, 128, 128, 32, 8, 0, 8}, {MatmulType::BF16, 128, 128, 32, 8, 2, 8}};

TEST(TestKernelsGpu, MatmulEveryInputType) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (const MatmulCase &p : kMatmulShapes)
    for (const MatmulVariant &v : kMatmulVariants)
      checkMatmul(v.type, p, v.bm, v.bn, v.bk, v.group, v.epilogue, v.warps, rng, seed);
}

TEST(TestKernelsGpu, ColumnMin) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {64, 32}, {63, 33}, {17, 1000}}) {
    auto in = randomFloats(size_t(m) * n, rng);
    auto din = DeviceBuffer::fromHost(in);
    DeviceBuffer dmin = poisoned(n * 4);
    aot_test::col_min(grid((n + 31) / 32), din.ptr(), dmin.ptr(), m, n, 64, 32);
    auto got = dmin.toHost<float>(n);
    for (int c = 0; c < n; ++c) {
      float best = in[c];
      for (int r = 1; r < m; ++r) best = std::min(best, in[size_t(r) * n + c]);
      ASSERT_EQ(got[c], best) << "column " << c << " of " << m << "x" << n << " seed " << seed;
    }
  }
}

TEST(TestKernelsGpu, HistogramWithCollidingAtomics) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (int n : {1, 1000, 1025, 1 << 20}) {
    const int bins = 37;
    std::vector<int32_t> values(n);
    for (int32_t &v : values) v = int32_t(rng() % bins);
    auto dv = DeviceBuffer::fromHost(values);
    DeviceBuffer db(bins * 4);
    db.fillBytes(0);
    aot_test::histogram(grid((n + 1023) / 1024), dv.ptr(), db.ptr(), n, 1024);
    auto got = db.toHost<int32_t>(bins);
    std::vector<int32_t> ref(bins, 0);
    for (int32_t v : values) ++ref[v];
    EXPECT_EQ(got, ref) << "n " << n << " seed " << seed;
  }
}

TEST(TestKernelsGpu, HalfAndBfloat16Rounding) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (int n : {1, 7, 1024, 4097}) {
    auto xf = randomFloats(n, rng);
    std::vector<uint16_t> x(n);
    for (int i = 0; i < n; ++i) x[i] = toHalf(xf[i] * 300.f);
    const float scale = 1.37f;
    auto dx = DeviceBuffer::fromHost(x);
    DeviceBuffer dy = poisoned(n * 2), dz = poisoned(n * 2);
    aot_test::half_scale(grid((n + 1023) / 1024), dx.ptr(), dy.ptr(), dz.ptr(), scale, n, 1024);
    auto y = dy.toHost<uint16_t>(n), z = dz.toHost<uint16_t>(n);
    for (int i = 0; i < n; ++i) {
      float v = halfToFloat(x[i]) * scale; // exact in float: the GPU computes the same product
      ASSERT_EQ(y[i], toHalf(v)) << "f16 element " << i << " seed " << seed;
      ASSERT_EQ(z[i], toBf16(v)) << "bf16 element " << i << " seed " << seed;
    }
  }
}

TEST(TestKernelsGpu, HalfAndBfloat16Fma) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (int n : {1, 1000, 4097}) {
    auto r = randomFloats(3 * n, rng);
    std::vector<uint16_t> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) {
      a[i] = toHalf(8.f * r[i]);
      b[i] = toHalf(8.f * r[n + i]);
      c[i] = toHalf(64.f * r[2 * n + i]);
    }
    auto da = DeviceBuffer::fromHost(a), db = DeviceBuffer::fromHost(b), dc = DeviceBuffer::fromHost(c);
    DeviceBuffer dy = poisoned(n * 2), dz = poisoned(n * 2);
    aot_test::small_float_fma(grid((n + 1023) / 1024), da.ptr(), db.ptr(), dc.ptr(), dy.ptr(), dz.ptr(), n, 1024);
    auto y = dy.toHost<uint16_t>(n), z = dz.toHost<uint16_t>(n);
    for (int i = 0; i < n; ++i) {
      auto [half, bfloat] = smallFloatFma(a[i], b[i], c[i]);
      ASSERT_EQ(y[i], half) << "f16 element " << i << " seed " << seed;
      ASSERT_EQ(z[i], bfloat) << "bf16 element " << i << " seed " << seed;
    }
  }
}

/// fast_exp2 is ex2.approx.ftz.f32: within 2^-21 of 2^x (the PTX ISA's 2 ulp), +0 below 2^-126;
/// exp2 (libdevice's exp2f) beside it keeps the subnormal results fast_exp2 flushes.
TEST(TestKernelsGpu, FastExp2FlushesWhatExp2Keeps) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int n : {1, 1000, 4097}) {
    std::vector<float> x =
        tile::testutil::fastExp2Inputs(n, [&](float lo, float hi) { return lo + (hi - lo) * unit(rng); });
    auto dx = DeviceBuffer::fromHost(x);
    DeviceBuffer dfast = poisoned(n * 4), dexact = poisoned(n * 4);
    aot_test::fast_exp2(grid((n + 1023) / 1024), dx.ptr(), dfast.ptr(), dexact.ptr(), n, 1024);
    auto fast = dfast.toHost<float>(n), exact = dexact.toHost<float>(n);
    int flushedOnlyByFast = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(tile::testutil::fastExp2Admits(x[i], fast[i], 0x1p-21))
          << "x " << x[i] << ": " << fast[i] << " seed " << seed;
      const double want = std::exp2(double(x[i]));
      if (!std::isnan(x[i]) && want >= 0x1p-148 && !std::isinf(float(want)))
        ASSERT_NEAR(exact[i], want, 0x1p-21 * want + 0x1p-149) << "exp2, x " << x[i] << " seed " << seed;
      flushedOnlyByFast += fast[i] == 0.f && exact[i] > 0.f;
    }
    if (n >= 1000) { EXPECT_GT(flushedOnlyByFast, 0) << "no input where the flush shows"; }
  }
}

TEST(TestKernelsGpu, LoopWithCarriedTensorAndBranch) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (auto [n, block] : std::vector<std::pair<int, int>>{{1, 256}, {1000, 256}, {77, 32}, {4096, 32}}) {
    const int reps = int(rng() % 9);
    auto x = randomFloats(n, rng);
    auto dx = DeviceBuffer::fromHost(x);
    DeviceBuffer dout = poisoned(n * 4);
    aot_test::loop_branch(grid((n + block - 1) / block), dx.ptr(), dout.ptr(), n, reps, block);
    auto out = dout.toHost<float>(n);
    std::vector<double> ref = tile::testing::loopBranchReference(x, block, reps);
    EXPECT_TRUE(closeTo(out, ref, 1e-6, "loop_branch"))
        << "n " << n << " block " << block << " reps " << reps << " seed " << seed;
  }
}

/// A descriptor block test's case: an m x n tensor (row stride ld) read or written in bm x bn
/// blocks at offsets shifted by (dm, dn), on a grid one block past the shifted tensor each way.
struct DescriptorCase {
  int m, n, ld, dm, dn, bm, bn;
  int gridM() const { return (m + std::abs(dm) + bm - 1) / bm + 1; }
  int gridN() const { return (n + std::abs(dn) + bn - 1) / bn + 1; }
  std::string name(uint64_t seed) const {
    return std::to_string(m) + "x" + std::to_string(n) + " at " + std::to_string(dm) + "," + std::to_string(dn) +
           " seed " + std::to_string(seed);
  }
};

// Blocks of a descriptor at offsets that start before, inside and past the tensor, with padded
// rows: zeros outside, and the store through a descriptor writes only inside.
TEST(TestKernelsGpu, DescriptorBlocksAtAnyOffset) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (DescriptorCase c : std::vector<DescriptorCase>{{64, 64, 64, 0, 0, 64, 64},
                                                      {37, 50, 52, -5, 3, 16, 32},
                                                      {100, 7, 8, 9, -6, 16, 32},
                                                      {1, 1, 4, 0, 0, 16, 32},
                                                      {33, 129, 132, -40, -130, 64, 64}}) {
    SCOPED_TRACE(c.name(seed));
    const int gridM = c.gridM(), gridN = c.gridN();
    std::vector<float> src = randomFloats(size_t(c.m) * c.ld, rng), nan(src.size(), std::nanf(""));
    DeviceBuffer dSrc(src.size() * 4), dDst(src.size() * 4), dOut = poisoned(size_t(gridM) * c.bm * gridN * c.bn * 4);
    dSrc.copyFromHost(src.data(), src.size() * 4);
    dDst.fillBytes(0xFF);
    std::vector<float> dstBefore(src.size());
    dDst.copyToHost(dstBefore.data(), dstBefore.size() * 4);
    tile::testing::DescriptorBlocks ref =
        tile::testing::descriptorBlocksReference(src, dstBefore, c.m, c.n, c.ld, c.dm, c.dn, c.bm, c.bn, gridM, gridN);
    tile::aot_test::descriptor_blocks(grid(gridM, gridN), descriptor(dSrc.ptr(), {c.m, c.n}, {c.ld, 1}, 4),
                                      descriptor(dDst.ptr(), {c.m, c.n}, {c.ld, 1}, 4), dOut.ptr(), gridN * c.bn, c.dm,
                                      c.dn, c.bm, c.bn);
    Context::get().synchronize();
    std::vector<float> out(ref.out.size()), dst(ref.dst.size());
    dOut.copyToHost(out.data(), out.size() * 4);
    dDst.copyToHost(dst.data(), dst.size() * 4);
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(tile::testutil::bitsOf(out[i]), tile::testutil::bitsOf(ref.out[i])) << "out " << i;
    for (size_t i = 0; i < dst.size(); ++i)
      ASSERT_EQ(tile::testutil::bitsOf(dst[i]), tile::testutil::bitsOf(ref.dst[i])) << "dst " << i;
  }
}

// Descriptor atomic adds at offsets that start before, inside and past the tensor (16-element
// rows: on sm_90a TMA reduce-adds of the part inside, whatever the box's start; a box wholly
// outside issues none), twice per block: exactly the float sums, nothing outside written.
TEST(TestKernelsGpu, DescriptorAddsAtAnyOffset) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  for (DescriptorCase c : std::vector<DescriptorCase>{{64, 64, 64, 0, 0, 64, 64},
                                                      {48, 96, 96, -5, 3, 16, 32},
                                                      {32, 64, 64, 9, -6, 16, 32},
                                                      {48, 128, 128, -40, -130, 64, 64},
                                                      {37, 50, 52, -5, 3, 16, 32}}) {
    SCOPED_TRACE(c.name(seed));
    const int gridM = c.gridM(), gridN = c.gridN();
    std::vector<float> src = randomFloats(size_t(c.m) * c.ld, rng), before = randomFloats(src.size(), rng);
    const std::vector<float> ref =
        tile::testing::descriptorAddsReference(src, before, c.m, c.n, c.ld, c.dm, c.dn, c.bm, c.bn, gridM, gridN);
    DeviceBuffer dSrc = DeviceBuffer::fromHost(src), dDst = DeviceBuffer::fromHost(before);
    tile::aot_test::descriptor_adds(grid(gridM, gridN), descriptor(dSrc.ptr(), {c.m, c.n}, {c.ld, 1}, 4),
                                    descriptor(dDst.ptr(), {c.m, c.n}, {c.ld, 1}, 4), c.dm, c.dn, c.bm, c.bn);
    Context::get().synchronize();
    const std::vector<float> dst = dDst.toHost<float>(ref.size());
    for (size_t i = 0; i < dst.size(); ++i)
      ASSERT_EQ(tile::testutil::bitsOf(dst[i]), tile::testutil::bitsOf(ref[i])) << "dst " << i;
  }
}

// The descriptor matmul on ragged M and N (K and N multiples of 8: 16-byte rows), its K loop on
// TMA copies into the wgmma rings on sm_90a, against float64 of the f16 inputs.
TEST(TestKernelsGpu, DescriptorMatmulOnTmaAgainstFloat64) {
  REQUIRE_GPU();
  uint64_t seed = seedForTest();
  std::mt19937_64 rng(seed);
  struct Case {
    int m, n, k, bm, bn, bk, warps;
  };
  for (Case c : std::vector<Case>{{64, 64, 64, 64, 64, 32, 4},
                                  {100, 72, 48, 64, 64, 32, 4},
                                  {300, 264, 200, 128, 128, 64, 8},
                                  {129, 520, 72, 128, 256, 64, 8},
                                  {512, 512, 1024, 128, 256, 64, 8},
                                  {7, 8, 8, 64, 64, 32, 4}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " seed " +
                 std::to_string(seed));
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    std::vector<uint16_t> a(size_t(c.m) * c.k), b(size_t(c.k) * c.n);
    for (auto &x : a) x = toHalf(u(rng));
    for (auto &x : b) x = toHalf(u(rng));
    DeviceBuffer dA(a.size() * 2), dB(b.size() * 2), dC = poisoned(size_t(c.m) * c.n * 4);
    dA.copyFromHost(a.data(), a.size() * 2);
    dB.copyFromHost(b.data(), b.size() * 2);
    AotLaunchConfig cfg{Dim3{unsigned((c.m + c.bm - 1) / c.bm), unsigned((c.n + c.bn - 1) / c.bn), 1}, c.warps,
                        nullptr};
    tile::aot_test::descriptor_matmul(cfg, descriptor(dA.ptr(), {c.m, c.k}, {c.k, 1}, 2),
                                      descriptor(dB.ptr(), {c.k, c.n}, {c.n, 1}, 2), dC.ptr(), c.m, c.n, c.k, c.bm,
                                      c.bn, c.bk);
    Context::get().synchronize();
    std::vector<float> out(size_t(c.m) * c.n);
    dC.copyToHost(out.data(), out.size() * 4);
    std::vector<double> ref =
        tile::testing::matmulReference16(a, b, c.m, c.n, c.k, [](uint16_t h) { return halfToFloat(h); });
    EXPECT_TRUE(closeTo(out, ref, 1e-5, "descriptor matmul"));
  }
}
