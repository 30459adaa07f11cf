// The library kernels (kernels/include/tile/kernels) on the CPU executor against
// independent float64 references, on random shapes including 1, 2, 2^k +- 1 and ragged
// edges, with row strides larger than the row and misaligned pointers. Outputs are
// poisoned (NaN) first and padding must stay poisoned.
#include "cpu_test_util.h"

#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Softmax.h"

#include <algorithm>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

constexpr double kTol = 1e-5;

// A row-major matrix inside a larger buffer: rows x cols valid, rows `stride` apart,
// starting `offset` elements in (offset % 4 != 0: not 16-byte aligned).
struct Layout {
  int64_t rows, cols, stride, offset;
  size_t total() const { return static_cast<size_t>(offset + rows * stride); }
  size_t at(int64_t r, int64_t c) const { return static_cast<size_t>(offset + r * stride + c); }
  bool valid(size_t i) const {
    return static_cast<int64_t>(i) >= offset && (static_cast<int64_t>(i) - offset) % stride < cols;
  }
};

::testing::AssertionResult paddingUntouched(const std::vector<float> &buf, const Layout &l) {
  for (size_t i = 0; i < buf.size(); ++i)
    if (!l.valid(i) && bitsOf(buf[i]) != kPoisonBits)
      return ::testing::AssertionFailure() << "padding element " << i << " was written (" << buf[i] << ")";
  return ::testing::AssertionSuccess();
}

std::vector<float> gather(const std::vector<float> &buf, const Layout &l) {
  std::vector<float> out;
  for (int64_t r = 0; r < l.rows; ++r)
    for (int64_t c = 0; c < l.cols; ++c) out.push_back(buf[l.at(r, c)]);
  return out;
}

const std::vector<int64_t> kColumnCounts = {1,    2,    3,    17,   127,  128,  129,   1000, 1023,
                                            1024, 1025, 4095, 4096, 4097, 8191, 16383, 16384};

class CpuKernels : public Seeded {
protected:
  Layout randomLayout(int64_t cols, int64_t maxElems = int64_t(1) << 19) {
    int64_t rows = uniformInt(1, std::clamp<int64_t>(maxElems / cols, 1, 64));
    return Layout{rows, cols, cols + uniformInt(0, 1) * uniformInt(1, 40), uniformInt(0, 3)};
  }
};

// ---------------------------------------------------------------------------------------
// Vector add

TEST_F(CpuKernels, VectorAdd) {
  std::vector<int64_t> sizes = {1, 2, 3, 15, 16, 17, 1023, 1024, 1025, 4095, 4097, 65537};
  for (int i = 0; i < 4; ++i) sizes.push_back(uniformInt(1, 200000));
  for (int64_t n : sizes) {
    int64_t xo = uniformInt(0, 3), yo = uniformInt(0, 3), zo = uniformInt(0, 3);
    SCOPED_TRACE("n = " + std::to_string(n) + ", offsets " + std::to_string(xo) + "/" + std::to_string(yo) + "/" +
                 std::to_string(zo));
    std::vector<float> x = randomFloats(static_cast<size_t>(xo + n)), y = randomFloats(static_cast<size_t>(yo + n));
    const int64_t tail = 64;
    std::vector<float> z = poisoned(static_cast<size_t>(zo + n + tail));
    constexpr int block = tk::ElementwiseConfig::block;
    tk::vectorAddKernel().launch({cdiv(n, block)}, cpuOptions(tk::ElementwiseConfig::numWarps), x.data() + xo,
                                 y.data() + yo, z.data() + zo, static_cast<int32_t>(n), block);
    std::vector<double> ref(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ref[i] = double(x[xo + i]) + double(y[yo + i]);
    EXPECT_TRUE(closeTo(std::vector<float>(z.begin() + zo, z.begin() + zo + n), ref, kTol, "vector add"));
    for (int64_t i = 0; i < zo; ++i) EXPECT_EQ(bitsOf(z[i]), kPoisonBits) << "before z: " << i;
    for (int64_t i = zo + n; i < zo + n + tail; ++i) EXPECT_EQ(bitsOf(z[i]), kPoisonBits) << "tail: " << i;
  }
}

// ---------------------------------------------------------------------------------------
// Softmax

void softmaxRef(const std::vector<float> &in, const Layout &l, std::vector<double> &out) {
  for (int64_t r = 0; r < l.rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < l.cols; ++c) m = std::max(m, double(in[l.at(r, c)]));
    for (int64_t c = 0; c < l.cols; ++c) s += std::exp(double(in[l.at(r, c)]) - m);
    for (int64_t c = 0; c < l.cols; ++c) out.push_back(std::exp(double(in[l.at(r, c)]) - m) / s);
  }
}

TEST_F(CpuKernels, Softmax) {
  std::vector<int64_t> cols = kColumnCounts;
  for (int i = 0; i < 3; ++i) cols.push_back(uniformInt(1, tk::kMaxRowBlock));
  for (int64_t n : cols) {
    Layout li = randomLayout(n), lo = li;
    lo.stride = n + uniformInt(0, 1) * uniformInt(1, 40);
    lo.offset = uniformInt(0, 3);
    SCOPED_TRACE("softmax " + std::to_string(li.rows) + "x" + std::to_string(n) + " strides " +
                 std::to_string(li.stride) + "/" + std::to_string(lo.stride));
    std::vector<float> in = randomFloats(li.total(), -8.f, 8.f), out = poisoned(lo.total());
    tk::RowConfig p = tk::softmaxConfig(n);
    tk::softmaxKernel().launch({li.rows}, cpuOptions(p.numWarps), out.data() + lo.offset, in.data() + li.offset,
                               static_cast<int32_t>(lo.stride), static_cast<int32_t>(li.stride),
                               static_cast<int32_t>(n), p.block);
    std::vector<double> ref;
    softmaxRef(in, li, ref);
    EXPECT_TRUE(closeTo(gather(out, lo), ref, kTol, "softmax"));
    EXPECT_TRUE(paddingUntouched(out, lo));
  }
}

// ---------------------------------------------------------------------------------------
// LayerNorm forward

TEST_F(CpuKernels, LayerNormForward) {
  std::vector<int64_t> cols = {1, 2, 3, 17, 127, 128, 129, 1000, 1023, 1024, 1025, 4095, 4096, 4097, 8193, 10000};
  for (int i = 0; i < 3; ++i) cols.push_back(uniformInt(1, 20000));
  for (int64_t n : cols) {
    Layout l = randomLayout(n);
    SCOPED_TRACE("layernorm " + std::to_string(l.rows) + "x" + std::to_string(n) + " stride " +
                 std::to_string(l.stride));
    // y shares x's layout (the kernel takes one row stride).
    std::vector<float> x = randomFloats(l.total(), -3.f, 5.f), y = poisoned(l.total());
    std::vector<float> w = randomFloats(static_cast<size_t>(n), 0.5f, 1.5f), b = randomFloats(static_cast<size_t>(n));
    std::vector<float> mean = poisoned(static_cast<size_t>(l.rows)), rstd = poisoned(static_cast<size_t>(l.rows));
    const float eps = 1e-5f;
    tk::RowConfig p = tk::layerNormConfig(n);
    tk::layerNormForwardKernel().launch({l.rows}, cpuOptions(p.numWarps), x.data() + l.offset, y.data() + l.offset,
                                        w.data(), b.data(), mean.data(), rstd.data(), static_cast<int32_t>(l.stride),
                                        static_cast<int32_t>(n), eps, p.block);
    // The mean and y are sums that cancel (the mean of the row, y's bias against the rest):
    // bounded by the sizes of their terms, the mean's error carried into y included.
    std::vector<double> refY, refMean, refRstd, magY, magMean;
    for (int64_t r = 0; r < l.rows; ++r) {
      double mu = 0, var = 0, absMean = 0;
      for (int64_t c = 0; c < n; ++c) mu += x[l.at(r, c)], absMean += std::fabs(x[l.at(r, c)]);
      mu /= double(n), absMean /= double(n);
      for (int64_t c = 0; c < n; ++c) var += (x[l.at(r, c)] - mu) * (x[l.at(r, c)] - mu);
      double rs = 1.0 / std::sqrt(var / double(n) + eps);
      refMean.push_back(mu);
      magMean.push_back(absMean);
      refRstd.push_back(rs);
      for (int64_t c = 0; c < n; ++c) {
        refY.push_back((x[l.at(r, c)] - mu) * rs * w[c] + b[c]);
        magY.push_back((std::fabs(x[l.at(r, c)]) + absMean) * rs * std::fabs(w[c]) + std::fabs(b[c]));
      }
    }
    EXPECT_TRUE(closeToMagnitude(gather(y, l), refY, magY, kTol, "layernorm y"));
    EXPECT_TRUE(closeToMagnitude(mean, refMean, magMean, kTol, "layernorm mean"));
    EXPECT_TRUE(closeTo(rstd, refRstd, kTol, "layernorm rstd"));
    EXPECT_TRUE(paddingUntouched(y, l));
  }
}

} // namespace
