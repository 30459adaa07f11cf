// The attention backward (kernels/AttentionBackward.h) on the CPU executor: dQ, dK, dV of
// sum(dO ∘ O) against float64 (ragged lengths, causal, grouped- and multi-query heads,
// packed variable lengths, head dims 64 and 128, f16 and bf16), in the deterministic and the
// one-pass mode, and on a tiny case against finite differences of the float64 forward, which
// also checks the reference's formulas.
#include "cpu_test_util.h"

#include "tile/kernels/AttentionBackward.h"
#include "tile/kernels/DslLauncher.h"

#include "../common/AttentionCase.h"

#include <cmath>
#include <optional>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;
namespace tt = tile::testing;

namespace {

/// One problem's inputs (stored bits), the forward's outputs and the backward's gradients,
/// run through the library's launches on the CPU executor in checking mode.
struct BackwardRun {
  std::vector<uint16_t> q, k, v, o, dO, dq, dk, dv;
  std::vector<float> lse, delta, dqAccum;
};

class CpuAttentionBackward : public Seeded {
protected:
  template <class T>
  BackwardRun run(const tt::AttentionShape &s, bool varlen, double scale, uint16_t (*toBits)(float), bool onePass) {
    tt::AttentionInputs in = tt::randomAttentionInputs(s, toBits, [&] { return uniform(-1.5f, 1.5f); });
    BackwardRun r;
    r.q = std::move(in.q), r.k = std::move(in.k), r.v = std::move(in.v), r.dO = std::move(in.dO);
    // Every output poisoned (NaN in f16 and bf16): an element never written fails.
    r.o.assign(r.q.size(), 0xFFFF), r.dq.assign(r.q.size(), 0xFFFF);
    r.dk.assign(r.k.size(), 0xFFFF), r.dv.assign(r.k.size(), 0xFFFF);
    r.lse = poisoned(size_t(s.heads * s.tokens())), r.delta = poisoned(r.lse.size());
    std::vector<int32_t> starts = s.starts;
    cpu::ScopedBuffer qBuf(r.q.data(), r.q.size() * 2), kBuf(r.k.data(), r.k.size() * 2),
        vBuf(r.v.data(), r.v.size() * 2), doBuf(r.dO.data(), r.dO.size() * 2),
        oBuf(r.o.data(), r.o.size() * 2, /*initialized=*/false), lseBuf(r.lse.data(), r.lse.size() * 4, false),
        dqBuf(r.dq.data(), r.dq.size() * 2, false), dkBuf(r.dk.data(), r.dk.size() * 2, false),
        dvBuf(r.dv.data(), r.dv.size() * 2, false), deltaBuf(r.delta.data(), r.delta.size() * 4, false),
        startsBuf(starts.data(), starts.size() * 4);
    tk::DslLauncher cpu{Executor::CPU, /*check=*/true};
    const tk::AttentionProblem f = tt::attentionProblem(s, varlen, r.q.data(), r.k.data(), r.v.data(), r.o.data(),
                                                        r.lse.data(), starts.data(), scale);
    // The one-pass accumulator poisoned too: the delta kernel must zero every element it sums.
    if (onePass) r.dqAccum = poisoned(size_t(tk::AttentionBackward<T>::dqAccumBytes(f) / 4));
    std::optional<cpu::ScopedBuffer> accumBuf;
    if (onePass) accumBuf.emplace(r.dqAccum.data(), r.dqAccum.size() * 4);
    tk::AttentionForward<T>::launch(cpu, f);
    tk::AttentionBackward<T>::launch(cpu, {f, r.dO.data(), r.dq.data(), r.dk.data(), r.dv.data(), r.delta.data(),
                                           onePass ? r.dqAccum.data() : nullptr});
    return r;
  }

  /// Runs the problem and compares the three gradients with float64's; `tol` bounds
  /// ||got - ref|| / ||ref||.
  template <class T>
  void check(const tt::AttentionShape &s, bool varlen, uint16_t (*toBits)(float), float (*fromBits)(uint16_t),
             double tol) {
    SCOPED_TRACE(tt::describe(s, varlen));
    const double scale = 0.7 / std::sqrt(double(s.d));
    for (bool onePass : {false, true}) {
      SCOPED_TRACE(onePass ? "one pass" : "deterministic");
      BackwardRun r = run<T>(s, varlen, scale, toBits, onePass);
      auto toDouble = [&](uint16_t x) { return double(fromBits(x)); };
      tt::AttentionGradients ref = tt::attentionBackwardReference(s, r.q, r.k, r.v, r.dO, scale, toDouble);
      EXPECT_TRUE(closeTo(tt::floatsOf(r.dq, fromBits), ref.dq, tol, "dq"));
      EXPECT_TRUE(closeTo(tt::floatsOf(r.dk, fromBits), ref.dk, tol, "dk"));
      EXPECT_TRUE(closeTo(tt::floatsOf(r.dv, fromBits), ref.dv, tol, "dv"));
    }
  }
};

TEST_F(CpuAttentionBackward, MatchesFloat64) {
  check<f16>({2, 2, 64, false, tt::equalLengthStarts(2, 128)}, false, toHalf, halfToFloat, tt::kBackwardF16Tolerance);
  check<f16>({2, 1, 64, true, tt::equalLengthStarts(1, 100)}, false, toHalf, halfToFloat, tt::kBackwardF16Tolerance);
  check<f16>({4, 2, 128, false, tt::equalLengthStarts(2, 77)}, false, toHalf, halfToFloat, tt::kBackwardF16Tolerance);
  check<f16>({2, 2, 64, true, {0, 37, 37 + 130, 37 + 130 + 64}}, true, toHalf, halfToFloat, tt::kBackwardF16Tolerance);
  check<f16>({4, 2, 128, true, tt::equalLengthStarts(1, 150)}, false, toHalf, halfToFloat, tt::kBackwardF16Tolerance);
  check<bf16>({2, 1, 64, true, tt::equalLengthStarts(1, 100)}, false, toBf16, tile::testutil::bf16BitsToFloat,
              tt::kBackwardBf16Tolerance);
}

// Central differences of L = sum(dO ∘ O) through the float64 forward, at a few elements of
// each input: the float64 backward agrees to rounding, the kernel's to its f16 accuracy.
TEST_F(CpuAttentionBackward, MatchesFiniteDifferences) {
  const tt::AttentionShape s{2, 1, 64, true, tt::equalLengthStarts(1, 9)};
  const double scale = 1 / std::sqrt(64.0);
  BackwardRun r = run<f16>(s, false, scale, toHalf, /*onePass=*/true);
  auto toDouble = [](double x) { return x; };
  auto widen = [](const std::vector<uint16_t> &x) {
    std::vector<double> d(x.size());
    for (size_t i = 0; i < x.size(); ++i) d[i] = halfToFloat(x[i]);
    return d;
  };
  std::vector<double> q = widen(r.q), k = widen(r.k), v = widen(r.v), dO = widen(r.dO);
  tt::AttentionGradients exact = tt::attentionBackwardReference(s, q, k, v, dO, scale, toDouble);
  auto loss = [&] {
    std::vector<double> o = tt::attentionReference(s, q, k, v, scale, toDouble).o;
    double l = 0;
    for (size_t i = 0; i < o.size(); ++i) l += o[i] * dO[i];
    return l;
  };
  struct Input {
    const char *name;
    std::vector<double> &x;
    const std::vector<double> &exact;
    const std::vector<uint16_t> &kernel;
  };
  for (const Input &in :
       {Input{"dq", q, exact.dq, r.dq}, Input{"dk", k, exact.dk, r.dk}, Input{"dv", v, exact.dv, r.dv}}) {
    double largest = 0;
    for (double g : in.exact) largest = std::max(largest, std::fabs(g));
    for (size_t i = 0; i < in.x.size(); i += 37) {
      const double x0 = in.x[i], h = 1e-4;
      in.x[i] = x0 + h;
      const double up = loss();
      in.x[i] = x0 - h;
      const double down = loss();
      in.x[i] = x0;
      const double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(in.exact[i], numeric, 1e-6 * largest) << in.name << "[" << i << "]: float64 backward";
      EXPECT_NEAR(halfToFloat(in.kernel[i]), numeric, 1e-2 * largest) << in.name << "[" << i << "]: kernel";
    }
  }
}

TEST_F(CpuAttentionBackward, LaunchRefusesWhatNoVariantComputes) {
  tk::DslLauncher cpu{Executor::CPU};
  std::vector<uint16_t> buf(64);
  auto launch = [&](int64_t heads, int64_t kvHeads, int64_t d) {
    tk::AttentionProblem f{buf.data(), buf.data(), buf.data(), buf.data(), buf.data(), 1, heads, kvHeads, d, 1};
    tk::AttentionBackward<f16>::launch(cpu, {f, buf.data(), buf.data(), buf.data(), buf.data(), buf.data()});
  };
  EXPECT_THROW(launch(4, 3, 64), Error);  // kv heads must divide the heads
  EXPECT_THROW(launch(2, 2, 256), Error); // the backward covers head dims 64 and 128
  EXPECT_THROW(launch(2, 4, 64), Error);  // more kv heads than heads
}

} // namespace
