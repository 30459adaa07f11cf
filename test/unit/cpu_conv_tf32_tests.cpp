// The convolutions with TF32 inputs (ConvPrecision::Tf32; the CPU executor rounds the
// inputs with cvt.rna.tf32.f32's rule, as the tensor cores see them) against the exact-f32
// path, which cpu_library_model_test checks against float64: within the TF32 bound of
// docs/models.md (1e-3), and not identical (the rounding is in effect). The model's
// shapes and a ragged one.
#include "cpu_test_util.h"

#include "tile/kernels/Conv.h"
#include "tile/kernels/DslLauncher.h"

#include <cmath>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

constexpr double kTf32Tol = 1e-3;

double relError(const std::vector<float> &got, const std::vector<float> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    double d = double(got[i]) - ref[i];
    num += d * d, den += double(ref[i]) * ref[i];
  }
  return std::sqrt(num / den);
}

class CpuConvTf32 : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
};

TEST_F(CpuConvTf32, WithinTf32OfExact) {
  struct Case {
    int64_t n, cin, h, w, cout;
  };
  for (Case k : {Case{3, 1, 28, 28, 32}, Case{3, 32, 14, 14, 64}, Case{2, 3, 7, 9, 5}}) {
    SCOPED_TRACE(std::to_string(k.n) + "x" + std::to_string(k.cin) + "x" + std::to_string(k.h) + "x" +
                 std::to_string(k.w) + " -> " + std::to_string(k.cout));
    const size_t in = size_t(k.n * k.cin * k.h * k.w), out = size_t(k.n * k.cout * k.h * k.w);
    const size_t wn = size_t(k.cout * k.cin * 9);
    std::vector<float> x = randomFloats(in), wt = randomFloats(wn, -0.3f, 0.3f), bias = randomFloats(size_t(k.cout));
    std::vector<float> dy = randomFloats(out);
    std::vector<float> work(size_t(tk::Conv2dBackwardWeight::workspaceElements(k.n, k.cin, k.h, k.w, k.cout)));
    std::vector<float> y[2], dx[2], dw[2];
    for (int tf32 = 0; tf32 < 2; ++tf32) {
      const auto prec = tf32 ? tk::ConvPrecision::Tf32 : tk::ConvPrecision::Exact;
      y[tf32] = poisoned(out), dx[tf32] = poisoned(in), dw[tf32] = poisoned(wn);
      tk::Conv2dForward::launch(cpu, x.data(), wt.data(), bias.data(), y[tf32].data(),
                                {.n = k.n, .cin = k.cin, .h = k.h, .w = k.w, .cout = k.cout, .precision = prec});
      tk::Conv2dBackwardData::launch(cpu, dy.data(), wt.data(), dx[tf32].data(),
                                     {.n = k.n, .cin = k.cin, .h = k.h, .w = k.w, .cout = k.cout, .precision = prec});
      tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), dw[tf32].data(), work.data(), int64_t(work.size()),
                                       {.n = k.n, .cin = k.cin, .h = k.h, .w = k.w, .cout = k.cout, .precision = prec});
    }
    for (auto [what, got, exact] : {std::tuple{"y", &y[1], &y[0]}, {"dx", &dx[1], &dx[0]}, {"dw", &dw[1], &dw[0]}}) {
      double e = relError(*got, *exact);
      EXPECT_LE(e, kTf32Tol) << what;
      EXPECT_GT(e, 1e-7) << what << ": identical to exact f32, TF32 not in effect?";
    }
  }
}

} // namespace
