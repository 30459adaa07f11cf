// The attention forward (kernels/Attention.h) against cuDNN's fused attention on the same inputs
// (test/common/cudnn_attention.h; ctest label `gpu`): O and the row log-sum-exp, f16 and bf16, head
// dims 64, 128 and 256, causal and not, grouped- and multi-query heads, equal lengths (the cuDNN graph
// built here has no packed variable lengths). Fresh random inputs every run (TILE_TEST_SEED=<n>
// replays), every output of both sides poisoned with NaN bytes first; the errors are
// max|ours − cuDNN| / max|cuDNN| and ‖ours − cuDNN‖₂ / ‖cuDNN‖₂, and a NaN on either side never passes. Each case prints one
// `cudnn-attn-check` line. Skipped with the reason where there is no GPU or cuDNN cannot be loaded; a
// problem cuDNN offers no engine for prints its reason and is left out, and a test in which cuDNN
// ran none of its cases fails (the oracle would be checking nothing).
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Attention.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/AttentionCase.h"
#include "../common/Numerics.h"
#include "../common/cudnn_attention.h"
#include "SeededGpuTest.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;
namespace tt = tile::testing;
using tile::reference::CudnnAttention;
using tile::reference::SdpaProblem;

namespace {

tk::AotLauncher gAot;

/// Two f32 results closer than one unit of the output type round at most one unit apart, and a unit
/// is at most 2^-10 of the largest output in f16, 2^-7 in bf16: 2e-3 holds for f16 (both sides' f32
/// results differ by ~1e-4 of it here, the rounding of P included), and one bf16 unit is the bound
/// for bf16, where 2e-3 would fail on any one-unit disagreement in the top binade. Over the whole
/// output (‖ours − cuDNN‖₂ / ‖cuDNN‖₂) 2e-3 holds for both: few elements round apart. The lse is f32.
constexpr double kF16Tol = 2e-3, kBf16Tol = 1.0 / 128, kNormTol = 2e-3, kLseTol = 2e-3;

/// ‖got − ref‖₂ / ‖ref‖₂ (the inputs already checked finite).
::testing::AssertionResult normRelativeError(const std::vector<float> &got, const std::vector<float> &ref,
                                             double *error) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff += (double(got[i]) - ref[i]) * (double(got[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  *error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  if (*error <= kNormTol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "o: normwise relative error " << *error << " > " << kNormTol;
}

/// max|got − ref| / max|ref|; a non-finite element on either side fails, naming the side.
::testing::AssertionResult maxRelativeError(const std::vector<float> &got, const std::vector<float> &ref, double tol,
                                            const std::string &what, double *error) {
  double worst = 0, largest = 0;
  size_t at = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(ref[i]) || !std::isfinite(got[i])) {
      *error = NAN;
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << got[i] << " (ours), " << ref[i]
                                           << " (cuDNN): NaN bytes are the poison, so never written";
    }
    largest = std::max(largest, double(std::fabs(ref[i])));
    if (double d = std::fabs(double(got[i]) - ref[i]); d > worst) worst = d, at = i;
  }
  *error = largest > 0 ? worst / largest : worst;
  if (*error <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": max relative error " << *error << " > " << tol << " (worst at "
                                       << at << ": ours " << got[at] << ", cuDNN " << ref[at] << ")";
}

class AttentionCudnnGpu : public tt::SeededGpuTest {
protected:
  void SetUp() override {
    tt::SeededGpuTest::SetUp();
    if (IsSkipped()) return;
    // One handle for the process, never destroyed: its plans are reused by every test, and at exit
    // the runtime's context may already be gone.
    static std::string why;
    static CudnnAttention *dnn = []() -> CudnnAttention * {
      try {
        return new CudnnAttention();
      } catch (const std::exception &e) {
        why = e.what();
        return nullptr;
      }
    }();
    if (!dnn) GTEST_SKIP() << why;
    dnn_ = dnn;
  }

  /// Ours and cuDNN's forward on the same fresh inputs; false (after a line saying why) where cuDNN
  /// offers no engine for `p`.
  template <class T>
  bool check(const SdpaProblem &p, uint16_t (*toBits)(float), float (*fromBits)(uint16_t), double tol) {
    SCOPED_TRACE(p.describe());
    const std::string name = p.describe();
    if (std::string why = dnn_->prepare(p); !why.empty()) {
      std::printf("cudnn-attn-check %-30s skipped: %s\n", name.c_str(), why.c_str());
      return false;
    }
    const tt::AttentionShape s{int(p.heads), int(p.kvHeads), int(p.headDim), p.causal,
                               tt::equalLengthStarts(int(p.batch), int(p.seqlen))};
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    const tt::AttentionInputs in = tt::randomAttentionInputs(s, toBits, [&] { return u(gen_); });
    DeviceBuffer dq = DeviceBuffer::fromHost(in.q), dk = DeviceBuffer::fromHost(in.k),
                 dv = DeviceBuffer::fromHost(in.v);
    const size_t rows = size_t(p.heads * s.tokens());
    DeviceBuffer oursO(in.q.size() * 2), oursLse(rows * 4), refO(in.q.size() * 2), refStats(rows * 4);
    for (DeviceBuffer *b : {&oursO, &oursLse, &refO, &refStats}) b->fillBytes(0xFF);
    const double scale = 0.7 / std::sqrt(double(p.headDim));
    tk::AttentionForward<T>::launch(gAot, tt::attentionProblem(s, false, dq, dk, dv, oursO, oursLse, nullptr, scale));
    dnn_->forward(p, dq.ptr(), dk.ptr(), dv.ptr(), refO.ptr(), refStats.ptr(), scale);
    Context::get().synchronize();

    const std::vector<float> got = tt::floatsOf(oursO.toHost<uint16_t>(in.q.size()), fromBits),
                             ref = tt::floatsOf(refO.toHost<uint16_t>(in.q.size()), fromBits);
    // Ours [heads, tokens]; cuDNN's stats [batch, heads, seqlen]: brought to ours.
    const std::vector<float> lse = oursLse.toHost<float>(rows), stats = refStats.toHost<float>(rows);
    std::vector<float> refLse(rows);
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t h = 0; h < p.heads; ++h)
        for (int64_t i = 0; i < p.seqlen; ++i)
          refLse[size_t(h * s.tokens() + b * p.seqlen + i)] = stats[size_t((b * p.heads + h) * p.seqlen + i)];
    double oError = 0, oNormError = NAN, lseError = 0;
    EXPECT_TRUE(maxRelativeError(got, ref, tol, "o", &oError));
    if (std::isfinite(oError)) { // else NaN: failed above
      EXPECT_TRUE(normRelativeError(got, ref, &oNormError));
    }
    EXPECT_TRUE(maxRelativeError(lse, refLse, kLseTol, "lse", &lseError));
    std::printf("cudnn-attn-check %-30s o max rel err %.2e (tol %.1e), normwise %.2e (tol %.1e), lse %.2e; cuDNN %s\n",
                name.c_str(), oError, tol, oNormError, kNormTol, lseError, dnn_->describe(p).c_str());
    return true;
  }

  CudnnAttention *dnn_ = nullptr;
};

TEST_F(AttentionCudnnGpu, ForwardF16MatchesCudnn) {
  using tile::testutil::halfToFloat;
  using tile::testutil::toHalf;
  int ran = 0;
  for (int d : {64, 128, 256})
    for (bool causal : {false, true})
      ran += check<tile::f16>({false, 2, 4, 4, 320, d, causal}, toHalf, halfToFloat, kF16Tol);
  // Grouped-query (4 query heads per K/V head), causal, on one sequence.
  ran += check<tile::f16>({false, 1, 8, 2, 256, 128, true}, toHalf, halfToFloat, kF16Tol);
  EXPECT_GT(ran, 0) << "cuDNN offered an engine for none of the cases (their lines say why)";
}

TEST_F(AttentionCudnnGpu, ForwardBf16MatchesCudnn) {
  using tile::testutil::bf16BitsToFloat;
  using tile::testutil::toBf16;
  int ran = 0;
  for (bool causal : {false, true})
    ran += check<tile::bf16>({true, 2, 4, 4, 320, 128, causal}, toBf16, bf16BitsToFloat, kBf16Tol);
  // Multi-query (one K/V head), a length no tile divides.
  ran += check<tile::bf16>({true, 3, 4, 1, 200, 64, false}, toBf16, bf16BitsToFloat, kBf16Tol);
  EXPECT_GT(ran, 0) << "cuDNN offered an engine for none of the cases (their lines say why)";
}

} // namespace
