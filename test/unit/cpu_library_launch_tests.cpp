// Library kernels declared once (tile/kernels/Declare.h): launched by their shape-level
// launchers through DslLauncher on the CPU executor against float64 references, the
// argument checks of launchKernel (at compile time) and of the launchers (one-line
// errors). What the launchers ask for against the declarations: cpu_library_declarations_tests.cpp.
#include "cpu_test_util.h"

#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/DslLauncher.h"

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

// ---------------------------------------------------------------------------------------
// Compile-time argument checks: a wrong count or a wrong kind of argument does not compile
// (launchKernel applies tile::Kernel::launch's rule; these pin the concept itself).

static_assert(tk::LaunchArgsFor<tk::VectorAdd, float *, float *, float *, int, int>);
static_assert(tk::LaunchArgsFor<tk::VectorAdd, tile::DeviceAddress, tk::Address, const float *, int64_t, int>);
static_assert(tk::LaunchArgsFor<tk::VectorAdd, void *, std::nullptr_t, float[16], int, int>);
static_assert(!tk::LaunchArgsFor<tk::VectorAdd, double *, float *, float *, int, int>, "a double * for a Ptr<float>");
static_assert(!tk::LaunchArgsFor<tk::VectorAdd, uint64_t, float *, float *, int, int>, "a plain integer for a pointer");
static_assert(!tk::LaunchArgsFor<tk::VectorAdd, float *, float *, float *, int>, "one argument short");
static_assert(!tk::LaunchArgsFor<tk::VectorAdd, float *, float *, float *, int, int, int>, "one argument too many");
static_assert(!tk::LaunchArgsFor<tk::VectorAdd, float *, float *, float, int, int>, "a float for a pointer");
static_assert(!tk::LaunchArgsFor<tk::VectorAdd, float *, float *, float *, int, double>, "a double for a Const");
static_assert(tk::LaunchArgsFor<tk::MatmulF32, float *, float *, float *, float *, int, int, int, int, int, int, int,
                                int, int, int, int, int, int, tk::MatmulEpilogue, int>);

// ---------------------------------------------------------------------------------------
// Launches through DslLauncher on the CPU executor.

class CpuLibrary : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
};

TEST_F(CpuLibrary, HostMemoryOnTheCpuExecutor) { EXPECT_TRUE(cpu.hostMemory()); }

TEST_F(CpuLibrary, VectorAddThroughDslLauncher) {
  for (int64_t n : {int64_t(1), int64_t(17), int64_t(1024), int64_t(1025), uniformInt(2, 100000)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> x = randomFloats(static_cast<size_t>(n)), y = randomFloats(static_cast<size_t>(n)),
                       z = poisoned(static_cast<size_t>(n) + 16);
    tk::VectorAdd::launch(cpu, x.data(), y.data(), z.data() + 1, n);
    std::vector<double> ref(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ref[i] = double(x[i]) + double(y[i]);
    EXPECT_TRUE(closeTo(std::vector<float>(z.begin() + 1, z.begin() + 1 + n), ref, 1e-7, "z"));
    EXPECT_EQ(bitsOf(z[0]), kPoisonBits);
    for (size_t i = static_cast<size_t>(n) + 1; i < z.size(); ++i) EXPECT_EQ(bitsOf(z[i]), kPoisonBits) << i;
  }
}

TEST_F(CpuLibrary, TransposeThroughDslLauncher) {
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {64, 64}, {70, 45}, {3, 129}, {uniformInt(1, 300), uniformInt(1, 300)}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    std::vector<float> in = randomFloats(static_cast<size_t>(m * n)), out = poisoned(static_cast<size_t>(m * n));
    tk::Transpose::launch(cpu, in.data(), out.data(), m, n);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) ASSERT_EQ(bitsOf(out[c * m + r]), bitsOf(in[r * n + c])) << r << ", " << c;
  }
}

TEST_F(CpuLibrary, SoftmaxThroughDslLauncher) {
  for (int64_t cols : {int64_t(1), int64_t(10), int64_t(1000), uniformInt(2, 5000)}) {
    int64_t rows = uniformInt(1, 20), stride = cols + uniformInt(0, 5);
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<float> in = randomFloats(static_cast<size_t>(rows * stride), -6.f, 6.f),
                       out = poisoned(static_cast<size_t>(rows * stride));
    tk::Softmax::launch(cpu, out.data(), in.data(), rows, cols, stride, stride);
    std::vector<float> got;
    std::vector<double> ref;
    for (int64_t r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::max(m, double(in[r * stride + c]));
      for (int64_t c = 0; c < cols; ++c) s += std::exp(double(in[r * stride + c]) - m);
      for (int64_t c = 0; c < cols; ++c) {
        ref.push_back(std::exp(double(in[r * stride + c]) - m) / s);
        got.push_back(out[r * stride + c]);
      }
    }
    EXPECT_TRUE(closeTo(got, ref, 1e-5, "softmax"));
  }
}

TEST_F(CpuLibrary, MatmulF32ThroughDslLauncherWithEpilogue) {
  const int64_t m = 37, n = 45, k = 70;
  std::vector<float> a = randomFloats(m * k), b = randomFloats(k * n), bias = randomFloats(n), c = poisoned(m * n);
  tk::MatmulF32::launch(cpu, {.a = a.data(),
                              .b = b.data(),
                              .c = c.data(),
                              .bias = bias.data(),
                              .m = m,
                              .n = n,
                              .k = k,
                              .strideAm = k,
                              .strideAk = 1,
                              .strideBk = n,
                              .strideBn = 1,
                              .strideCm = n,
                              .strideCn = 1,
                              .epilogue = tk::MatmulEpilogue::BiasRelu});
  std::vector<double> ref, magnitude; // magnitude: Σ|a·b| + |bias|, what bounds the error
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias[j], mag = std::fabs(bias[j]);
      for (int64_t q = 0; q < k; ++q) {
        const double p = double(a[i * k + q]) * b[q * n + j];
        s += p, mag += std::fabs(p);
      }
      ref.push_back(std::max(s, 0.0));
      magnitude.push_back(mag);
    }
  EXPECT_TRUE(closeToMagnitude(c, ref, magnitude, 1e-6, "matmul"));
}

// A declaration outside the library (not in AllKernels): DslLauncher::add makes it
// launchable by name.
struct TestScale {
  static constexpr const char *name = "test_scale";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, F32 s, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    store(y + offs, load(x + offs, offs < n) * s, offs < n);
  };
  static constexpr std::array params{"x", "y", "s", "n", "BLOCK"};
  static std::vector<tk::Variant> variants() { return {{{128}, 4}}; }
};
TILE_LIBRARY_KERNEL(TestScale);

TEST_F(CpuLibrary, DeclarationOutsideTheLibrary) {
  std::vector<float> x = randomFloats(300), y = poisoned(300);
  EXPECT_THROW(tk::launchKernel<TestScale>(cpu, {3}, 4, nullptr, x.data(), y.data(), 2.0f, 300, 128),
               tile::ArgumentError);
  cpu.add<TestScale>();
  tk::launchKernel<TestScale>(cpu, {3}, 4, nullptr, x.data(), y.data(), 2.0f, 300, 128);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(y[i], 2.0f * x[i]) << i;
}

// ---------------------------------------------------------------------------------------
// Shape errors: thrown before anything runs, in one line naming the kernel.

template <class F> std::string invalidArgument(F f) {
  try {
    f();
  } catch (const tile::ArgumentError &e) { return e.what(); }
  return "(no exception)";
}
::testing::AssertionResult oneLine(const std::string &s, const std::string &needle) {
  if (s.find('\n') == std::string::npos && s.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << s << "' lacks '" << needle << "' or is not one line";
}

TEST_F(CpuLibrary, WrongShapesGiveOneLineErrors) {
  std::vector<float> buf(64);
  float *p = buf.data();
  EXPECT_TRUE(oneLine(invalidArgument([&] { tk::Softmax::launch(cpu, p, p, 4, 100, 100, 99); }),
                      "softmax: inRowStride = 99 is smaller than cols = 100"));
  EXPECT_TRUE(oneLine(invalidArgument([&] { tk::VectorAdd::launch(cpu, p, p, p, -1); }), "vector_add: n = -1"));
  {
    std::vector<int32_t> labels(64, 0);
    auto head = [&](int64_t batch, int64_t classes, int64_t workFloats) {
      return invalidArgument([&] {
        tk::LinearCrossEntropy::launch(cpu, p, p, p, labels.data(), p, p, p, p, p, p, p, batch, 4, classes, true, p,
                                       workFloats);
      });
    };
    EXPECT_TRUE(oneLine(head(4, 33, 0), "linear_cross_entropy: classes = 33 is outside [1, 32]"));
    EXPECT_TRUE(oneLine(head(40, 4, 1), "linear_cross_entropy: the workspace holds 1 floats; 75 needed"));
    EXPECT_TRUE(oneLine(head(0, 4, 0), "linear_cross_entropy: batch = 0 is outside"));
  }
  {
    // The sum of dx on a branch forks from the launcher's own line only.
    CUstream branch = nullptr;
    EXPECT_TRUE(oneLine(invalidArgument([&] {
                          tk::BatchNorm2dBackwardSplit::launch(cpu, p, p, p, p, p, p, p, p, p, p, p, p, 64, 1, 1, 2, 2,
                                                               true, true, reinterpret_cast<CUstream>(p), &branch);
                        }),
                        "batchnorm2d_bwd_split: a branch for the sum of dx forks from the launcher's own line"));
  }
  EXPECT_TRUE(
      oneLine(invalidArgument([&] {
                tk::Conv2dBackwardData::launchTile(cpu, {32, 32, 8, 4, 1}, p, p, p,
                                                   {.n = 1, .cin = 8, .h = 2, .w = 2, .cout = 8});
              }),
              "conv3x3_bwd_data: a tap-major tile reads the tap-major weights [9, cout, cin]: pass weightTaps"));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::MatmulF32::launch(cpu, {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = 4,
                                                    .n = 4,
                                                    .k = 0,
                                                    .strideAm = 4,
                                                    .strideAk = 1,
                                                    .strideBk = 4,
                                                    .strideBn = 1,
                                                    .strideCm = 4,
                                                    .strideCn = 1});
                      }),
                      "matmul_f32: k = 0 is outside [1, "));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::MatmulF16::launch(cpu, {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = 4,
                                                    .n = 4,
                                                    .k = 4,
                                                    .strideAm = 4,
                                                    .strideAk = 1,
                                                    .strideBk = 4,
                                                    .strideBn = 1,
                                                    .strideCm = 4,
                                                    .strideCn = 1,
                                                    .tf32 = true});
                      }),
                      "matmul_f16: tf32 applies to float inputs only"));
  EXPECT_TRUE(oneLine(invalidArgument([&] { tk::MaxPool2dForward::launch(cpu, p, p, p, 1 << 16, 64, 28, 28); }),
                      "exceeds the kernel's int32 indexing"));
  EXPECT_TRUE(
      oneLine(invalidArgument([&] { tk::BatchNorm2dForward::launch(cpu, p, p, p, p, p, p, 2, 3, 4, 4, 0.0f, true); }),
              "batchnorm2d_fwd: eps must be > 0"));
  EXPECT_TRUE(oneLine(invalidArgument([&] { tk::CrossEntropy::launch(cpu, p, p, p, p, p, 8, 100); }),
                      "log_softmax_nll: classes = 100 is outside [1, 64]"));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::Conv2dForward::launch(cpu, p, p, p, p, {.n = 2, .cin = 0, .h = 8, .w = 8, .cout = 4});
                      }),
                      "conv3x3_fwd: cin = 0 is outside"));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::Conv2dBackwardWeight::launch(cpu, p, p, p, p, 10,
                                                         {.n = 2, .cin = 3, .h = 8, .w = 8, .cout = 4});
                      }),
                      "conv3x3_bwd_weight: the workspace holds 10 floats"));
  auto bmm = [&](int64_t batch, int64_t k, int64_t strideAb, int64_t strideBb = 0) {
    tk::BatchedMatmulF32::launch(cpu, {.matrix = {.a = p,
                                                  .b = p,
                                                  .c = p,
                                                  .bias = p,
                                                  .m = 4,
                                                  .n = 4,
                                                  .k = k,
                                                  .strideAm = 4,
                                                  .strideAk = 1,
                                                  .strideBk = 4,
                                                  .strideBn = 1,
                                                  .strideCm = 4,
                                                  .strideCn = 1},
                                       .batch = batch,
                                       .strideAb = strideAb,
                                       .strideBb = strideBb,
                                       .strideCb = 16,
                                       .strideBiasb = 0});
  };
  EXPECT_TRUE(
      oneLine(invalidArgument([&] { bmm(65536, 4, 16); }), "batched_matmul_f32: batch = 65536 is outside [0, 65535]"));
  EXPECT_TRUE(oneLine(invalidArgument([&] { bmm(2, 0, 16); }), "batched_matmul_f32: k = 0 is outside [1, "));
  EXPECT_TRUE(oneLine(invalidArgument([&] { bmm(2, 4, -16); }), "batched_matmul_f32: strideAb = -16 is outside"));
  EXPECT_TRUE(
      oneLine(invalidArgument([&] { bmm(2, 4, 16, int64_t(1) << 45); }), "strideBb = 35184372088832 is outside"));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::BatchedMatmulF32::launch(cpu, {.matrix = {.a = p,
                                                                      .b = p,
                                                                      .c = p,
                                                                      .bias = p,
                                                                      .m = 4,
                                                                      .n = 4,
                                                                      .k = 4,
                                                                      .strideAm = 4,
                                                                      .strideAk = 1,
                                                                      .strideBk = 4,
                                                                      .strideBn = 1,
                                                                      .strideCm = 4,
                                                                      .strideCn = 1},
                                                           .batch = 2,
                                                           .strideAb = 16,
                                                           .strideBb = 16,
                                                           .strideCb = 0,
                                                           .strideBiasb = 0});
                      }),
                      "batched_matmul_f32: strideCb = 0 with batch = 2"));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::BatchedMatmulBF16::launch(cpu, {.matrix = {.a = p,
                                                                       .b = p,
                                                                       .c = p,
                                                                       .bias = p,
                                                                       .m = 4,
                                                                       .n = 4,
                                                                       .k = 4,
                                                                       .strideAm = 4,
                                                                       .strideAk = 1,
                                                                       .strideBk = 4,
                                                                       .strideBn = 1,
                                                                       .strideCm = 4,
                                                                       .strideCn = 1,
                                                                       .tf32 = true},
                                                            .batch = 2,
                                                            .strideAb = 16,
                                                            .strideBb = 16,
                                                            .strideCb = 16,
                                                            .strideBiasb = 0});
                      }),
                      "batched_matmul_bf16: tf32 applies to float inputs only"));
  EXPECT_TRUE(oneLine(invalidArgument([&] {
                        tk::BatchedMatmulF16::launch(cpu, {.matrix = {.a = p,
                                                                      .b = p,
                                                                      .c = p,
                                                                      .bias = p,
                                                                      .m = 70000,
                                                                      .n = 70000,
                                                                      .k = 8,
                                                                      .strideAm = 70000,
                                                                      .strideAk = 1,
                                                                      .strideBk = 70000,
                                                                      .strideBn = 1,
                                                                      .strideCm = 70000,
                                                                      .strideCn = 1},
                                                           .batch = 2,
                                                           .strideAb = 0,
                                                           .strideBb = 0,
                                                           .strideCb = 16,
                                                           .strideBiasb = 0});
                      }),
                      "batched_matmul_f16: m, n, k = 70000, 70000, 8 with these strides exceed int32 indexing"));
  // batch, m or n == 0 launches nothing.
  EXPECT_NO_THROW(bmm(0, 4, 16));
  EXPECT_NO_THROW(tk::BatchedMatmulF32::launch(cpu, {.matrix = {.a = p,
                                                                .b = p,
                                                                .c = p,
                                                                .bias = p,
                                                                .m = 0,
                                                                .n = 4,
                                                                .k = 4,
                                                                .strideAm = 4,
                                                                .strideAk = 1,
                                                                .strideBk = 4,
                                                                .strideBn = 1,
                                                                .strideCm = 4,
                                                                .strideCn = 1},
                                                     .batch = 3,
                                                     .strideAb = 16,
                                                     .strideBb = 16,
                                                     .strideCb = 16,
                                                     .strideBiasb = 0}));
  for (float v : buf) EXPECT_EQ(v, 0.0f) << "nothing ran";
}

} // namespace
