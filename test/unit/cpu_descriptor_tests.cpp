// Tensor descriptors (tile::TensorDesc) on the CPU executor: blocks read at any offset, negative
// and past the end included (zeros there), written back only inside the tensor, with padded row
// strides; a matmul whose K loop reads both operands through descriptors, against float64; and
// the launch's refusals of descriptors TMA could not use, on every executor alike.
#include "cpu_test_util.h"

#include "TestKernels.h"
#include "tile/kernels/DslLauncher.h"
#include "tile/kernels/Matmul.h"

#include "../common/BatchedMatmulCheck.h"

#include <algorithm>
#include <random>

using namespace tile;
using namespace tile::cputest;
namespace tt = tile::testing;

namespace {

class CpuDescriptors : public Seeded {};

TEST_F(CpuDescriptors, BlocksAtAnyOffsetReadZerosOutsideAndWriteOnlyInside) {
  struct Case {
    int m, n, ld, dm, dn, bm, bn;
  };
  for (Case c : std::vector<Case>{{64, 64, 64, 0, 0, 32, 32},
                                  {37, 50, 52, -5, 3, 16, 32},
                                  {100, 7, 8, 9, -6, 32, 8},
                                  {1, 1, 4, 0, 0, 1, 16},
                                  {33, 129, 132, -40, -130, 64, 64}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + " ld " + std::to_string(c.ld) + " at " +
                 std::to_string(c.dm) + "," + std::to_string(c.dn));
    const int gridM = int(cdiv(c.m + std::abs(c.dm), c.bm)) + 1, gridN = int(cdiv(c.n + std::abs(c.dn), c.bn)) + 1;
    auto src = randomFloats(size_t(c.m) * c.ld);
    auto dst = poisoned(src.size());
    auto out = poisoned(size_t(gridM) * c.bm * gridN * c.bn);
    tt::DescriptorBlocks ref =
        tt::descriptorBlocksReference(src, dst, c.m, c.n, c.ld, c.dm, c.dn, c.bm, c.bn, gridM, gridN);
    // Checking mode: every element the blocks touch must lie in these buffers.
    cpu::ScopedBuffer srcBuf(src.data(), src.size() * 4), dstBuf(dst.data(), dst.size() * 4),
        outBuf(out.data(), out.size() * 4, /*initialized=*/false);
    tt::descriptorBlocksKernel().launch(
        {gridM, gridN}, cpuOptions(4, /*check=*/true), TensorDescArg{src.data(), {c.m, c.n}, {c.ld, 1}},
        TensorDescArg{dst.data(), {c.m, c.n}, {c.ld, 1}}, out.data(), gridN * c.bn, c.dm, c.dn, c.bm, c.bn);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(bitsOf(out[i]), bitsOf(ref.out[i])) << "out " << i;
    for (size_t i = 0; i < dst.size(); ++i) ASSERT_EQ(bitsOf(dst[i]), bitsOf(ref.dst[i])) << "dst " << i;
  }
}

// Descriptor atomic adds, blocks starting before, inside and past the tensor: the elements
// inside get both adds, in order; nothing else is touched (checking mode).
TEST_F(CpuDescriptors, AddsAtAnyOffsetTouchOnlyTheTensor) {
  struct Case {
    int m, n, ld, dm, dn, bm, bn;
  };
  for (Case c : std::vector<Case>{{48, 96, 96, -5, 3, 16, 32}, {37, 50, 52, 9, -6, 16, 32}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + " at " + std::to_string(c.dm) + "," +
                 std::to_string(c.dn));
    const int gridM = int(cdiv(c.m + std::abs(c.dm), c.bm)) + 1, gridN = int(cdiv(c.n + std::abs(c.dn), c.bn)) + 1;
    auto src = randomFloats(size_t(c.m) * c.ld), dst = randomFloats(src.size());
    const std::vector<float> ref =
        tt::descriptorAddsReference(src, dst, c.m, c.n, c.ld, c.dm, c.dn, c.bm, c.bn, gridM, gridN);
    cpu::ScopedBuffer srcBuf(src.data(), src.size() * 4), dstBuf(dst.data(), dst.size() * 4);
    tt::descriptorAddsKernel().launch({gridM, gridN}, cpuOptions(4, /*check=*/true),
                                      TensorDescArg{src.data(), {c.m, c.n}, {c.ld, 1}},
                                      TensorDescArg{dst.data(), {c.m, c.n}, {c.ld, 1}}, c.dm, c.dn, c.bm, c.bn);
    for (size_t i = 0; i < dst.size(); ++i) ASSERT_EQ(bitsOf(dst[i]), bitsOf(ref[i])) << "dst " << i;
  }
}

TEST_F(CpuDescriptors, MatmulThroughDescriptorsMatchesFloat64) {
  struct Case {
    int m, n, k, bm, bn, bk;
  };
  for (Case c : std::vector<Case>{{64, 64, 64, 64, 64, 32}, {100, 72, 48, 64, 64, 32}, {128, 256, 80, 128, 128, 64}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
    std::vector<uint16_t> a(size_t(c.m) * c.k), b(size_t(c.k) * c.n);
    for (auto &x : a) x = toHalf(uniform(-2.f, 2.f));
    for (auto &x : b) x = toHalf(uniform(-2.f, 2.f));
    auto out = poisoned(size_t(c.m) * c.n);
    tt::descriptorMatmulKernel().launch(
        {cdiv(c.m, c.bm), cdiv(c.n, c.bn)}, cpuOptions(), TensorDescArg{a.data(), {c.m, c.k}, {c.k, 1}},
        TensorDescArg{b.data(), {c.k, c.n}, {c.n, 1}}, out.data(), c.m, c.n, c.k, c.bm, c.bn, c.bk);
    auto toFloat = [](uint16_t h) { return halfToFloat(h); };
    std::vector<double> ref = tt::matmulReference16(a, b, c.m, c.n, c.k, toFloat);
    // Σ|a·b|, what bounds the error: the same product of the inputs without their signs.
    auto unsigned16 = [](std::vector<uint16_t> v) {
      for (uint16_t &h : v) h &= 0x7fff;
      return v;
    };
    std::vector<double> magnitude = tt::matmulReference16(unsigned16(a), unsigned16(b), c.m, c.n, c.k, toFloat);
    EXPECT_TRUE(closeToMagnitude(out, ref, magnitude, 1e-5, "descriptor matmul"));
  }
}

TEST_F(CpuDescriptors, LaunchRefusesWhatTmaCannotDescribe) {
  std::vector<float> buf(4096), out(4096);
  auto launch = [&](TensorDescArg src) {
    tt::descriptorBlocksKernel().launch({1, 1}, cpuOptions(), src, TensorDescArg{buf.data(), {16, 16}, {16, 1}},
                                        out.data(), 16, 0, 0, 16, 16);
  };
  auto refused = [&](TensorDescArg d, const std::string &why) {
    try {
      launch(d);
      ADD_FAILURE() << "accepted; expected: " << why;
    } catch (const ArgumentError &e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("argument 0"), std::string::npos) << e.what();
    }
  };
  refused(TensorDescArg{buf.data() + 1, {16, 16}, {16, 1}}, "not 16-byte aligned");
  refused(TensorDescArg{buf.data(), {16, 16}, {18, 1}}, "not a positive multiple of 16");
  refused(TensorDescArg{buf.data(), {16, 16}, {16, 2}}, "innermost stride must be 1");
  refused(TensorDescArg{buf.data(), {16, 16, 1}, {16, 16, 1}}, "rank-2 descriptor");
  refused(TensorDescArg{buf.data(), {16, 16}, {16}}, "one entry per dimension");
  refused(TensorDescArg{buf.data(), {0, 16}, {16, 1}}, "extent 0");
  refused(TensorDescArg{buf.data(), {1 << 20, 4096}, {4096, 1}}, "beyond int32");
  EXPECT_NO_THROW(launch(TensorDescArg{buf.data(), {16, 16}, {16, 1}}));
}

} // namespace

// The library's descriptor matmul with C in the inputs' type (MatmulTma<T, T>) on the CPU
// executor: bias and relu fused, one rounding at the store, C's padding untouched.
TEST_F(CpuDescriptors, LibraryMatmulHalfOutMatchesFloat64) {
  tile::kernels::DslLauncher cpu{Executor::CPU};
  const int64_t m = 70, n = 48, k = 40, ldc = 56;
  std::vector<uint16_t> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * ldc), 0xFFFF);
  std::vector<float> bias = randomFloats(size_t(n));
  for (auto &x : a) x = toHalf(uniform(-2.f, 2.f));
  for (auto &x : b) x = toHalf(uniform(-2.f, 2.f));
  tile::kernels::MatmulTmaF16OutF16::launch(cpu, {.a = a.data(),
                                                  .b = b.data(),
                                                  .c = c.data(),
                                                  .bias = bias.data(),
                                                  .m = m,
                                                  .n = n,
                                                  .k = k,
                                                  .lda = k,
                                                  .ldb = n,
                                                  .ldc = ldc,
                                                  .epilogue = tile::kernels::MatmulEpilogue::BiasRelu});
  std::vector<float> got;
  std::vector<double> ref, magnitude; // magnitude: Σ|a·b| + |bias|, what bounds the error
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias[size_t(j)], mag = std::fabs(bias[size_t(j)]);
      for (int64_t kk = 0; kk < k; ++kk) {
        const double p = double(halfToFloat(a[size_t(i * k + kk)])) * halfToFloat(b[size_t(kk * n + j)]);
        acc += p, mag += std::fabs(p);
      }
      ref.push_back(std::max(acc, 0.0));
      magnitude.push_back(mag);
      got.push_back(halfToFloat(c[size_t(i * ldc + j)]));
    }
    for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[size_t(i * ldc + j)], 0xFFFF) << "padding written";
  }
  // The f16 store rounds by 2^-11 of the result, which is at most its magnitude.
  EXPECT_TRUE(closeToMagnitude(got, ref, magnitude, 1e-3, "matmul_tma f16 out"));
  EXPECT_THROW(tile::kernels::MatmulTmaF16OutF16::launch(cpu, {.a = a.data() + 1,
                                                               .b = b.data(),
                                                               .c = c.data(),
                                                               .bias = bias.data(),
                                                               .m = m,
                                                               .n = n,
                                                               .k = k,
                                                               .lda = k,
                                                               .ldb = n,
                                                               .ldc = ldc}),
               ArgumentError);
}

// The descriptor matmul's other forms on the CPU executor: B transposed (bᵀ [N, K]), f16 and
// TF32 (inputs rounded to nearest as cvt.rna), and the persistent grid (one program walking
// every tile), against float64; C's padding untouched.
TEST_F(CpuDescriptors, LibraryMatmulBtTf32AndPersistentMatchFloat64) {
  namespace tk = tile::kernels;
  tk::DslLauncher cpu{Executor::CPU};
  const int64_t m = 70, n = 48, k = 40, ldc = 56;
  std::vector<uint16_t> a(size_t(m * k)), b(size_t(k * n)), bT(b.size());
  std::vector<float> bias = randomFloats(size_t(n));
  for (auto &x : a) x = toHalf(uniform(-2.f, 2.f));
  for (auto &x : b) x = toHalf(uniform(-2.f, 2.f));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) bT[size_t(j * k + kk)] = b[size_t(kk * n + j)];
  for (bool persistent : {false, true}) {
    SCOPED_TRACE(persistent ? "persistent" : "bT");
    std::vector<uint16_t> c(size_t(m * ldc), 0xFFFF);
    if (persistent)
      tk::MatmulTmaPersistentF16OutF16::launch(cpu, {.a = a.data(),
                                                     .b = b.data(),
                                                     .c = c.data(),
                                                     .bias = bias.data(),
                                                     .m = m,
                                                     .n = n,
                                                     .k = k,
                                                     .lda = k,
                                                     .ldb = n,
                                                     .ldc = ldc,
                                                     .epilogue = tk::MatmulEpilogue::BiasRelu});
    else
      tk::MatmulTmaF16BtOutF16::launch(cpu, {.a = a.data(),
                                             .b = bT.data(),
                                             .c = c.data(),
                                             .bias = bias.data(),
                                             .m = m,
                                             .n = n,
                                             .k = k,
                                             .lda = k,
                                             .ldb = k,
                                             .ldc = ldc,
                                             .epilogue = tk::MatmulEpilogue::BiasRelu});
    std::vector<float> got;
    std::vector<double> ref, magnitude;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = bias[size_t(j)], mag = std::fabs(bias[size_t(j)]);
        for (int64_t kk = 0; kk < k; ++kk) {
          const double p = double(halfToFloat(a[size_t(i * k + kk)])) * halfToFloat(b[size_t(kk * n + j)]);
          acc += p, mag += std::fabs(p);
        }
        ref.push_back(std::max(acc, 0.0));
        magnitude.push_back(mag);
        got.push_back(halfToFloat(c[size_t(i * ldc + j)]));
      }
      for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[size_t(i * ldc + j)], 0xFFFF) << "padding written";
    }
    EXPECT_TRUE(closeToMagnitude(got, ref, magnitude, 1e-3, "matmul_tma f16 out"));
  }

  // TF32: bᵀ stored as BatchedMatmulCheck's column-major B.
  using S = tile::testutil::Storage;
  std::mt19937 gen(7);
  for (int how = 0; how < 3; ++how) {
    // Rows padded to 16-byte multiples (k + 2 = 32, n + 2 = 52 floats), as descriptors need.
    tile::testutil::BatchedMatmulCase cs{
        1, 37, 50, 30, S::RowMajor, how == 2 ? S::RowMajor : S::ColMajor, S::RowMajor, 2, false, 2, 0};
    SCOPED_TRACE(std::to_string(how) + " " + cs.str());
    tile::testutil::BatchedMatmulProblem p =
        tile::testutil::makeBatchedMatmul(tile::testutil::MatmulInput::TF32, cs, gen);
    std::vector<float> out = poisoned(size_t(p.c.size));
    if (how == 0)
      tk::MatmulTmaTf32Bt::launch(cpu, {.a = p.a32.data(),
                                        .b = p.b32.data(),
                                        .c = out.data(),
                                        .bias = p.bias.data(),
                                        .m = cs.m,
                                        .n = cs.n,
                                        .k = cs.k,
                                        .lda = p.a.row,
                                        .ldb = p.b.col,
                                        .ldc = p.c.row,
                                        .epilogue = tk::MatmulEpilogue::BiasRelu});
    else if (how == 1)
      tk::MatmulTmaPersistentTf32Bt::launch(cpu, {.a = p.a32.data(),
                                                  .b = p.b32.data(),
                                                  .c = out.data(),
                                                  .bias = p.bias.data(),
                                                  .m = cs.m,
                                                  .n = cs.n,
                                                  .k = cs.k,
                                                  .lda = p.a.row,
                                                  .ldb = p.b.col,
                                                  .ldc = p.c.row,
                                                  .epilogue = tk::MatmulEpilogue::BiasRelu});
    else // a row-major B with padded rows: not a dense matrix to transpose, so Matmul's mma.sync path
      tk::MatmulF32::launch(cpu, {.a = p.a32.data(),
                                  .b = p.b32.data(),
                                  .c = out.data(),
                                  .bias = p.bias.data(),
                                  .m = cs.m,
                                  .n = cs.n,
                                  .k = cs.k,
                                  .strideAm = p.a.row,
                                  .strideAk = 1,
                                  .strideBk = p.b.row,
                                  .strideBn = 1,
                                  .strideCm = p.c.row,
                                  .strideCn = 1,
                                  .epilogue = tk::MatmulEpilogue::BiasRelu,
                                  .tf32 = true});
    EXPECT_TRUE(tile::testutil::checkBatchedMatmul(p, out, 1e-5));
  }
}

// MatmulTma's tile policy on 132 SMs (kMatmulWaveTiles), worked out by hand from tileFor's rule: the
// first tile whose grid fills 7/8 of a wave, and the 8-deep 64 x 128 tile where that tile's grid is
// at most one wave.
TEST(MatmulTmaPolicy, TileForFillsAWaveAndDeepensOneWaveGrids) {
  namespace tk = tile::kernels;
  struct Case {
    int64_t m, n;
    int bm, bn, stages;
  };
  auto check = [](const tk::MatmulConfig &got, const Case &c, const char *kernel) {
    EXPECT_TRUE(got.bm == c.bm && got.bn == c.bn && got.numStages == c.stages)
        << kernel << " " << c.m << "x" << c.n << ": got " << got.bm << "x" << got.bn << " s" << got.numStages;
  };
  for (Case c : std::vector<Case>{{4096, 4096, 128, 256, 4}, // 512 programs of 128 x 256
                                  {2048, 2048, 128, 256, 4}, // 128: 7/8 of a wave
                                  {1024, 1024, 64, 128, 8},  // 128 of 64 x 128: one wave, the deep ring
                                  {256, 4096, 64, 128, 8},   // 128 of 64 x 128
                                  {512, 4096, 64, 128, 4},   // 256 of 64 x 128: two waves, 4 deep
                                  {128, 4096, 64, 64, 8},    // 128 of 64 x 64
                                  {64, 4096, 64, 32, 8}}) {  // 64 of 64 x 64 fall short: 64 x 32
    check(tk::MatmulTmaF16OutF16::tileFor(c.m, c.n), c, "f16");
    check(tk::MatmulTmaTf32Bt::tileFor(c.m, c.n), c, "tf32");
  }
}
