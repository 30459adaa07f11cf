// Library kernels declared once (tile/kernels/Declare.h): launched by their shape-level
// launchers through DslLauncher on the CPU executor against float64 references, the
// argument checks of launchKernel (at compile time) and of the launchers (one-line
// errors), and that every (constants, warps) a launcher asks for is among its
// declaration's variants(), i.e. compiled into the AOT bundle.
#include "cpu_test_util.h"

#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/DslLauncher.h"

#include "AotDeclared.h"

#include <algorithm>
#include <set>

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

// ---------------------------------------------------------------------------------------
// Every (constants, warps, stages) the launchers ask for is a declared variant (so the AOT
// bundle has it), over the shapes of the model and ragged ones.

class Recorder : public tk::Launcher {
public:
  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **, CUstream) override {
    calls.push_back({kernelName, spec, grid});
  }
  bool hostMemory() const override { return true; }
  struct Call {
    std::string kernel;
    Specialization spec;
    rt::Dim3 grid;
  };
  std::vector<Call> calls;
};

template <class D> bool declared(const Specialization &spec) {
  std::vector<int64_t> consts;
  for (const ArgSpec &a : spec.args)
    if (a.kind == ArgKind::Const) consts.push_back(a.constValue);
  for (const tk::Variant &v : D::variants())
    if (v.consts == consts && v.numWarps == spec.numWarps && v.numStages == spec.numStages) return true;
  return false;
}

TEST(CpuLibraryDeclarations, LaunchersAskOnlyForDeclaredVariants) {
  Recorder r;
  const tk::Address p = uint64_t(1024);
  std::vector<int64_t> sizes = {1, 2, 3, 7, 10, 28, 100, 1000, 1023, 1024, 1025, 3136, 16384};
  for (int64_t s : sizes) {
    tk::VectorAdd::launch(r, p, p, p, s);
    tk::Softmax::launch(r, p, p, 3, s, s, s);
    tk::LayerNormForward::launch(r, p, p, p, p, p, p, 3, s, s, 1e-5f);
    tk::ReluForward::launch(r, p, p, s);
    tk::ReluBackward::launch(r, p, p, p, s);
    tk::SgdUpdate::launch(r, p, p, 0.01f, s);
    tk::Fill::zero(r, p, s);
    tk::ColumnSum::launch(r, p, p, s, 10, 10);
    tk::SumPartials::launch(r, p, p, s, 3);
    tk::SumPartials::launch(r, p, p, s, 883);
    if (s <= 64) tk::CrossEntropy::launch(r, p, p, p, p, p, 64, s);
    for (int64_t classes : {1, 10, 16, 17, 32})
      tk::LinearCrossEntropy::launch(r, p, p, p, p, p, p, p, p, p, p, p, s, 128, classes, true, p, int64_t(1) << 30);
    tk::ConvWeightTaps::launch(r, p, p, s, 64);
    for (int64_t d : {64, 128, 256})
      for (bool causal : {false, true}) {
        tk::AttentionProblem equal{p, p, p, p, p, 3, 8, 2, d, s};
        equal.causal = causal;
        tk::AttentionForwardF16::launch(r, equal);
        tk::AttentionForwardBf16::launch(r, equal);
        tk::AttentionProblem packed = equal;
        packed.cuSeqlens = p;
        packed.tokens = 3 * s - 1;
        tk::AttentionForwardF16::launch(r, packed);
        for (const auto &t : tk::AttentionForwardF16::kSweep)
          if (t.headDim == d) tk::AttentionForwardF16::launch(r, equal, nullptr, &t.config);
        if (d == 256) continue;                                            // the backward's head dims are 64 and 128
        for (tk::Address accum : {tk::Address(nullptr), tk::Address(p)}) { // deterministic, one pass
          tk::AttentionBackward<tile::f16>::launch(r, {equal, p, p, p, p, p, accum});
          tk::AttentionBackward<tile::bf16>::launch(r, {equal, p, p, p, p, p, accum});
          tk::AttentionBackward<tile::f16>::launch(r, {packed, p, p, p, p, p, accum});
          tk::AttentionBackward<tile::bf16>::launch(r, {packed, p, p, p, p, p, accum});
          for (const auto &t : tk::kAttentionBackwardSweep)
            if (t.headDim == d)
              tk::AttentionBackward<tile::f16>::launch(r, {equal, p, p, p, p, p, accum}, nullptr, &t.config);
        }
      }
    for (bool relu : {false, true}) {
      tk::ChannelStats st = tk::Conv2dForward::channelStats(p, 3, 1, s, 2, tk::ConvPrecision::Exact);
      tk::BatchNorm2dForward::launch(r, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu);
      tk::BatchNorm2dForward::launch(r, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu, &st);
      tk::BatchNorm2dBackward::launch(r, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu);
      tk::BatchNorm2dBackward::launch(r, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu, p);
      if (s >= 2) {
        tk::BatchNorm2dForward::launchPooled(r, p, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu);
        tk::BatchNorm2dForward::launchPooled(r, p, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu, &st);
        tk::BatchNorm2dBackward::launchPooled(r, p, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu);
        tk::BatchNorm2dBackward::launchPooled(r, p, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu, p);
      }
    }
    tk::Transpose::launch(r, p, p, s, 3);
    tk::MaxPool2dForward::launch(r, p, p, p, 3, 5, s, 28);
    tk::MaxPool2dBackward::launch(r, p, p, p, 3, 5, s, 28);
    if (s <= 1024) {
      for (auto prec : {tk::ConvPrecision::Exact, tk::ConvPrecision::Tf32})
        for (tk::Address taps : {tk::Address(nullptr), p}) {
          tk::Conv2dForward::launch(
              r, p, p, p, p, {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64, .precision = prec, .weightTaps = taps});
          tk::Conv2dForward::launchWithStats(
              r, p, p, p, p, p,
              {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64, .precision = prec, .weightTaps = taps});
          tk::Conv2dBackwardData::launch(
              r, p, p, p, {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64, .precision = prec, .weightTaps = taps});
        }
      tk::Conv2dBackwardWeight::launch(r, p, p, p, p, int64_t(1) << 30,
                                       {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64});
      tk::ChannelSum::launch(r, p, p, 3, 64, s, 14);
    }
    for (auto ep : {tk::MatmulEpilogue::None, tk::MatmulEpilogue::Bias, tk::MatmulEpilogue::BiasRelu}) {
      tk::MatmulF32::launch(r, {.a = p,
                                .b = p,
                                .c = p,
                                .bias = p,
                                .m = s,
                                .n = 64,
                                .k = 30,
                                .strideAm = 30,
                                .strideAk = 1,
                                .strideBk = 64,
                                .strideBn = 1,
                                .strideCm = 64,
                                .strideCn = 1,
                                .epilogue = ep});
      tk::MatmulF32::launch(r, {.a = p,
                                .b = p,
                                .c = p,
                                .bias = p,
                                .m = s,
                                .n = 64,
                                .k = 30,
                                .strideAm = 30,
                                .strideAk = 1,
                                .strideBk = 64,
                                .strideBn = 1,
                                .strideCm = 64,
                                .strideCn = 1,
                                .epilogue = ep,
                                .tf32 = true});
      tk::MatmulF16::launch(r, {.a = p,
                                .b = p,
                                .c = p,
                                .bias = p,
                                .m = s,
                                .n = 64,
                                .k = 30,
                                .strideAm = 30,
                                .strideAk = 1,
                                .strideBk = 64,
                                .strideBn = 1,
                                .strideCm = 64,
                                .strideCn = 1,
                                .epilogue = ep});
      tk::MatmulBF16::launch(r, {.a = p,
                                 .b = p,
                                 .c = p,
                                 .bias = p,
                                 .m = s,
                                 .n = 64,
                                 .k = 30,
                                 .strideAm = 30,
                                 .strideAk = 1,
                                 .strideBk = 64,
                                 .strideBn = 1,
                                 .strideCm = 64,
                                 .strideCn = 1,
                                 .epilogue = ep});
      // Row-major operands a tensor descriptor describes: MatmulTma (f32 C through Matmul, and C
      // in the inputs' type), on small and large grids.
      for (int64_t n : {64, 4096}) {
        tk::MatmulF16::launch(r, {.a = p,
                                  .b = p,
                                  .c = p,
                                  .bias = p,
                                  .m = s,
                                  .n = n,
                                  .k = 32,
                                  .strideAm = 32,
                                  .strideAk = 1,
                                  .strideBk = n,
                                  .strideBn = 1,
                                  .strideCm = n,
                                  .strideCn = 1,
                                  .epilogue = ep});
        tk::MatmulBF16::launch(r, {.a = p,
                                   .b = p,
                                   .c = p,
                                   .bias = p,
                                   .m = s,
                                   .n = n,
                                   .k = 32,
                                   .strideAm = 32,
                                   .strideAk = 1,
                                   .strideBk = n,
                                   .strideBn = 1,
                                   .strideCm = n,
                                   .strideCn = 1,
                                   .epilogue = ep});
        tk::MatmulTmaF16::launch(r, {.a = p,
                                     .b = p,
                                     .c = p,
                                     .bias = p,
                                     .m = s,
                                     .n = n,
                                     .k = 32,
                                     .lda = 32,
                                     .ldb = n,
                                     .ldc = n,
                                     .epilogue = ep});
        tk::MatmulTmaBF16::launch(r, {.a = p,
                                      .b = p,
                                      .c = p,
                                      .bias = p,
                                      .m = s,
                                      .n = n,
                                      .k = 32,
                                      .lda = 32,
                                      .ldb = n,
                                      .ldc = n,
                                      .epilogue = ep});
        tk::MatmulTmaF16OutF16::launch(r, {.a = p,
                                           .b = p,
                                           .c = p,
                                           .bias = p,
                                           .m = s,
                                           .n = n,
                                           .k = 32,
                                           .lda = 32,
                                           .ldb = n,
                                           .ldc = n,
                                           .epilogue = ep});
        tk::MatmulTmaBF16OutBF16::launch(r, {.a = p,
                                             .b = p,
                                             .c = p,
                                             .bias = p,
                                             .m = s,
                                             .n = n,
                                             .k = 32,
                                             .lda = 32,
                                             .ldb = n,
                                             .ldc = n,
                                             .epilogue = ep});
        // bᵀ operands (TF32 on wgmma; f16/bf16 x·Wᵀ), through Matmul<float> too, and the persistent grid.
        tk::MatmulTmaTf32Bt::launch(r, {.a = p,
                                        .b = p,
                                        .c = p,
                                        .bias = p,
                                        .m = s,
                                        .n = n,
                                        .k = 32,
                                        .lda = 32,
                                        .ldb = 32,
                                        .ldc = n,
                                        .epilogue = ep});
        tk::MatmulF32::launch(r, {.a = p,
                                  .b = p,
                                  .c = p,
                                  .bias = p,
                                  .m = s,
                                  .n = n,
                                  .k = 32,
                                  .strideAm = 32,
                                  .strideAk = 1,
                                  .strideBk = 1,
                                  .strideBn = 32,
                                  .strideCm = n,
                                  .strideCn = 1,
                                  .epilogue = ep,
                                  .tf32 = true});
        tk::MatmulTmaTf32Bt::launchTransposingB(
            r,
            {.a = p, .b = p, .c = p, .bias = p, .m = s, .n = n, .k = 32, .lda = 32, .ldb = n, .ldc = n, .epilogue = ep},
            p, 32 * n);
        tk::MatmulTmaF16BtOutF16::launch(r, {.a = p,
                                             .b = p,
                                             .c = p,
                                             .bias = p,
                                             .m = s,
                                             .n = n,
                                             .k = 32,
                                             .lda = 32,
                                             .ldb = 32,
                                             .ldc = n,
                                             .epilogue = ep});
        tk::MatmulTmaBF16BtOutBF16::launch(r, {.a = p,
                                               .b = p,
                                               .c = p,
                                               .bias = p,
                                               .m = s,
                                               .n = n,
                                               .k = 32,
                                               .lda = 32,
                                               .ldb = 32,
                                               .ldc = n,
                                               .epilogue = ep});
        tk::MatmulTmaPersistentF16OutF16::launch(
            r,
            {.a = p, .b = p, .c = p, .bias = p, .m = s, .n = n, .k = 32, .lda = 32, .ldb = n, .ldc = n, .epilogue = ep},
            nullptr, 132);
        tk::MatmulTmaPersistentBF16OutBF16::launch(
            r,
            {.a = p, .b = p, .c = p, .bias = p, .m = s, .n = n, .k = 32, .lda = 32, .ldb = n, .ldc = n, .epilogue = ep},
            nullptr, 132);
        tk::MatmulTmaPersistentTf32Bt::launch(r,
                                              {.a = p,
                                               .b = p,
                                               .c = p,
                                               .bias = p,
                                               .m = s,
                                               .n = n,
                                               .k = 32,
                                               .lda = 32,
                                               .ldb = 32,
                                               .ldc = n,
                                               .epilogue = ep},
                                              nullptr, 132);
      }
      for (int64_t batch : {3, 64}) { // below and above a wave of 128 x 128 tiles
        tk::BatchedMatmulF32::launch(r, {.matrix = {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = s,
                                                    .n = 64,
                                                    .k = 30,
                                                    .strideAm = 30,
                                                    .strideAk = 1,
                                                    .strideBk = 64,
                                                    .strideBn = 1,
                                                    .strideCm = 64,
                                                    .strideCn = 1,
                                                    .epilogue = ep},
                                         .batch = batch,
                                         .strideAb = s * 30,
                                         .strideBb = 0,
                                         .strideCb = s * 64,
                                         .strideBiasb = 64});
        tk::BatchedMatmulF32::launch(r, {.matrix = {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = s,
                                                    .n = 64,
                                                    .k = 30,
                                                    .strideAm = 30,
                                                    .strideAk = 1,
                                                    .strideBk = 64,
                                                    .strideBn = 1,
                                                    .strideCm = 64,
                                                    .strideCn = 1,
                                                    .epilogue = ep,
                                                    .tf32 = true},
                                         .batch = batch,
                                         .strideAb = s * 30,
                                         .strideBb = 0,
                                         .strideCb = s * 64,
                                         .strideBiasb = 64});
        tk::BatchedMatmulF16::launch(r, {.matrix = {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = s,
                                                    .n = 64,
                                                    .k = 32,
                                                    .strideAm = 32,
                                                    .strideAk = 1,
                                                    .strideBk = 64,
                                                    .strideBn = 1,
                                                    .strideCm = 64,
                                                    .strideCn = 1,
                                                    .epilogue = ep},
                                         .batch = batch,
                                         .strideAb = s * 32,
                                         .strideBb = 0,
                                         .strideCb = s * 64,
                                         .strideBiasb = 0});
        tk::BatchedMatmulBF16::launch(r, {.matrix = {.a = p,
                                                     .b = p,
                                                     .c = p,
                                                     .bias = p,
                                                     .m = s,
                                                     .n = 64,
                                                     .k = 30,
                                                     .strideAm = 1,
                                                     .strideAk = s,
                                                     .strideBk = 64,
                                                     .strideBn = 1,
                                                     .strideCm = 64,
                                                     .strideCn = 1,
                                                     .epilogue = ep},
                                          .batch = batch,
                                          .strideAb = s * 30,
                                          .strideBb = 30,
                                          .strideCb = s * 64,
                                          .strideBiasb = 0});
      }
    }
    tk::Linear::forward(r, p, p, p, p, 64, s, 128, true);
    tk::Linear::backwardData(r, p, p, p, 64, s, 128);
    tk::Linear::backwardWeight(r, p, p, p, 64, s, 128);
    tk::Linear::backwardBias(r, p, p, 64, s);
    tk::Linear::forward(r, p, p, p, p, 64, s, 128, true, p, int64_t(1) << 30); // split-K where s is long
    tk::Linear::forward(r, p, p, p, p, s, 3136, 10, false, p, int64_t(1) << 30);
    for (bool pool : {false, true}) { // channels split over programs (BatchNormSplit.h)
      if (pool && s < 2) continue;
      tk::ChannelStats st = tk::Conv2dForward::channelStats(p, 64, 1, s, 28, tk::ConvPrecision::Exact);
      tk::BatchNorm2dForwardSplit::launch(r, p, p, p, p, p, p, p, st, p, int64_t(1) << 30, 64, 5, s, 28, 1e-5f, true,
                                          pool);
      tk::BatchNorm2dForwardSplit::launch(r, p, p, p, p, p, p, p, st, p, int64_t(1) << 30, 64, 5, s, 28, 1e-5f, false,
                                          pool);
      for (bool relu : {false, true})
        for (tk::Address dxSum : {tk::Address(nullptr), p})
          tk::BatchNorm2dBackwardSplit::launch(r, p, p, p, p, p, p, p, p, p, p, dxSum, p, int64_t(1) << 30, 64, 5, s,
                                               28, relu, pool);
    }
  }
  std::set<std::string> seen;
  for (const Recorder::Call &c : r.calls) {
    bool ok = false, known = false;
    tk::AllKernels::forEach([&]<class D>() {
      if (c.kernel == D::name) known = true, ok = declared<D>(c.spec);
    });
    EXPECT_TRUE(known) << c.kernel << " is not in AllKernels";
    EXPECT_TRUE(ok) << c.kernel << " launched as [" << c.spec.str() << "], not among its variants()";
    seen.insert(c.kernel);
  }
  // Every library kernel was exercised.
  tk::AllKernels::forEach([&]<class D>() { EXPECT_TRUE(seen.count(D::name)) << D::name << " never launched"; });
}

// A launch runs the compiled specialisation with the most facts its arguments hold
// (rt::selectAotVariant: isSafeFor, then divisibilityFacts). The attention kernels assume
// nothing of their head count and group size (factFreeParams): a group size of 1 or 12 heads
// once held every launch to the pointers-only specialisation, whose descriptors lack the
// 16-element extents TMA stores and reduce-adds need (the one-pass backward added dQ by
// per-element atomics). Here the facts a launch's descriptors hold reach the specialisation
// it runs.
TEST(CpuLibraryDeclarations, AttentionDescriptorsKeepTheirFactsWhateverTheHeads) {
  const tk::Address p = uint64_t(1024);
  for (auto [heads, kvHeads] : {std::pair{16, 16}, std::pair{12, 12}, std::pair{16, 2}})
    for (tk::Address accum : {tk::Address(nullptr), tk::Address(p)}) {
      Recorder r;
      tk::AttentionProblem problem{p, p, p, p, p, 4, heads, kvHeads, 128, 4096};
      tk::AttentionForwardF16::launch(r, problem);
      tk::AttentionBackward<tile::f16>::launch(r, {problem, p, p, p, p, p, accum});
      for (const Recorder::Call &call : r.calls) {
        std::vector<Specialization> compiled;
        tk::AllKernels::forEach([&]<class D>() {
          if (call.kernel == D::name) compiled = aot::declaredVariants<D>();
        });
        const Specialization *best = nullptr;
        for (const Specialization &v : compiled)
          if (isSafeFor(v, call.spec) && (!best || divisibilityFacts(v) > divisibilityFacts(*best))) best = &v;
        ASSERT_NE(best, nullptr) << call.kernel << " [" << call.spec.str() << "]";
        for (size_t i = 0; i < call.spec.args.size(); ++i) {
          if (call.spec.args[i].kind != ArgKind::Desc) continue;
          EXPECT_EQ(best->args[i].div16, call.spec.args[i].div16)
              << call.kernel << " with " << heads << "/" << kvHeads << " heads runs [" << best->str() << "] for ["
              << call.spec.str() << "]";
        }
      }
    }
}

TEST(CpuLibraryDeclarations, AllKernelsHaveUniqueNamesAndTheRegistryFindsThem) {
  std::set<std::string> names;
  tk::AllKernels::forEach([&]<class D>() {
    EXPECT_TRUE(names.insert(D::name).second) << "duplicate name " << D::name;
    const KernelBase *k = tk::findKernel(D::name);
    ASSERT_NE(k, nullptr) << D::name;
    EXPECT_EQ(k->name(), D::name);
    EXPECT_EQ(k->params().size(), D::params.size());
    size_t consts = 0;
    for (const ParamDesc &p : k->params()) consts += p.kind == ArgKind::Const;
    EXPECT_FALSE(D::variants().empty()) << D::name;
    for (const tk::Variant &v : D::variants()) EXPECT_EQ(v.consts.size(), consts) << D::name;
  });
  EXPECT_EQ(names.size(), tk::libraryKernels().size());
  EXPECT_EQ(tk::findKernel("no_such_kernel"), nullptr);
  for (const char *n : {"vector_add", "softmax", "layernorm_fwd", "matmul_f32", "matmul_f16", "matmul_bf16"})
    EXPECT_TRUE(names.count(n)) << n << " (a stable AOT name) is missing";
}

} // namespace
