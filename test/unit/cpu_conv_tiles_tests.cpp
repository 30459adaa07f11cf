// Every tile each convolution kernel declares (ConvTile, tiles(precision) in Conv.h: the
// policy's and the ones bench_conv sweeps), in both precisions, against the float64
// definition: exact f32 within 1e-5, TF32 within 1e-3 (docs/models.md), of the sums
// of the terms' absolute values. The shapes are ragged against every tile: channels not
// multiples of BK or BN, pixels not of BM, and a single input channel (the first layer).
#include "conv_reference.h"
#include "cpu_test_util.h"

#include "tile/kernels/Conv.h"
#include "tile/kernels/DslLauncher.h"

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

std::string tileName(tk::ConvTile t, tk::ConvPrecision p) {
  return tk::convTileName(t) + (p == tk::ConvPrecision::Tf32 ? " tf32" : " exact");
}

class CpuConvTiles : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
};

TEST_F(CpuConvTiles, EveryDeclaredTileMatchesFloat64) {
  for (ConvShape c : {ConvShape{2, 33, 5, 7, 35}, ConvShape{3, 1, 6, 5, 32}}) {
    SCOPED_TRACE(std::to_string(c.n) + "x" + std::to_string(c.cin) + "x" + std::to_string(c.h) + "x" +
                 std::to_string(c.w) + " -> " + std::to_string(c.cout));
    const size_t in = size_t(c.n * c.cin * c.h * c.w), out = size_t(c.n * c.cout * c.h * c.w);
    std::vector<float> x = randomFloats(in), wt = randomFloats(size_t(c.cout * c.cin * 9), -0.3f, 0.3f);
    std::vector<float> bias = randomFloats(size_t(c.cout)), dy = randomFloats(out);
    const ConvReference ref = convReference(c, x, wt, bias, dy);
    // The same sums of the terms' absolute values: what bounds each output's rounding.
    const ConvReference mag = convReference(c, absolute(x), absolute(wt), absolute(bias), absolute(dy));
    // The tap-major copy the tap-major tiles read, against the permutation written out here.
    std::vector<float> taps = poisoned(wt.size());
    tk::ConvWeightTaps::launch(cpu, wt.data(), taps.data(), c.cin, c.cout);
    for (int64_t co = 0; co < c.cout; ++co)
      for (int64_t ci = 0; ci < c.cin; ++ci)
        for (int64_t tap = 0; tap < 9; ++tap)
          ASSERT_EQ(bitsOf(taps[size_t((tap * c.cout + co) * c.cin + ci)]),
                    bitsOf(wt[size_t((co * c.cin + ci) * 9 + tap)]))
              << "taps of co " << co << ", ci " << ci << ", tap " << tap;
    std::vector<float> work(size_t(tk::Conv2dBackwardWeight::workspaceElements(c.n, c.cin, c.h, c.w, c.cout)));
    for (tk::ConvPrecision p : {tk::ConvPrecision::Exact, tk::ConvPrecision::Tf32}) {
      const double tol = p == tk::ConvPrecision::Tf32 ? 1e-3 : 1e-5;
      for (tk::ConvTile t : tk::Conv2dForward::tiles(p)) {
        std::vector<float> y = poisoned(out);
        tk::Conv2dForward::launchTile(
            cpu, t, x.data(), wt.data(), bias.data(), y.data(), nullptr,
            {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout, .precision = p, .weightTaps = taps.data()});
        EXPECT_TRUE(closeToMagnitude(y, ref.y, mag.y, tol, "y, " + tileName(t, p)));
      }
      for (tk::ConvTile t : tk::Conv2dBackwardData::tiles(p)) {
        std::vector<float> dx = poisoned(in);
        tk::Conv2dBackwardData::launchTile(
            cpu, t, dy.data(), wt.data(), dx.data(),
            {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout, .precision = p, .weightTaps = taps.data()});
        EXPECT_TRUE(closeToMagnitude(dx, ref.dx, mag.dx, tol, "dx, " + tileName(t, p)));
      }
      for (tk::ConvTile t : tk::Conv2dBackwardWeight::tiles(p)) {
        std::vector<float> dw = poisoned(wt.size());
        std::fill(work.begin(), work.end(), poisoned(1)[0]);
        tk::Conv2dBackwardWeight::launchTile(
            cpu, t, x.data(), dy.data(), dw.data(), work.data(), int64_t(work.size()),
            {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout, .precision = p});
        EXPECT_TRUE(closeToMagnitude(dw, ref.dw, mag.dw, tol, "dw, " + tileName(t, p)));
      }
    }
  }
}

} // namespace
