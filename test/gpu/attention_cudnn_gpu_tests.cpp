// The attention forward (kernels/Attention.h) and backward (kernels/AttentionBackward.h) against cuDNN's
// fused attention on the same inputs (test/common/cudnn_attention.h; ctest label `gpu`). Forward: O and the
// row log-sum-exp, f16 and bf16, head dims 64, 128 and 256, causal and not, grouped- and multi-query heads.
// Backward: dQ, dK, dV of both modes (deterministic and one-pass), f16 and bf16, head dims 64 and 128, causal
// and not, grouped- and multi-query heads, each side's backward fed its own forward's O and log-sum-exp.
// Equal lengths only (the cuDNN graphs built here have no packed variable lengths). Fresh random inputs
// every run (TILE_TEST_SEED=<n> replays), every output of both sides poisoned with NaN bytes first; the
// errors are max|ours − cuDNN| / max|cuDNN| and ‖ours − cuDNN‖₂ / ‖cuDNN‖₂, and a NaN on either side never
// passes. Each case prints one `cudnn-attn-check` (forward) or `cudnn-attn-bwd-check` line (backward, one per
// mode). Skipped with the reason where there is no GPU or cuDNN cannot be loaded; a problem cuDNN offers no
// engine for prints its reason and is left out, and a test in which cuDNN ran none of its cases fails (the
// oracle would be checking nothing).
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Attention.h"
#include "tile/kernels/AttentionBackward.h"

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
using tile::reference::SdpaPass;
using tile::reference::SdpaProblem;

namespace {

tk::AotLauncher gAot;

/// Two f32 results closer than one unit of the output type round at most one unit apart, and a unit
/// is at most 2^-10 of the largest output in f16, 2^-7 in bf16: 2e-3 holds for f16 (both sides' f32
/// results differ by ~1e-4 of it here, the rounding of P included), and one bf16 unit is the bound
/// for bf16, where 2e-3 would fail on any one-unit disagreement in the top binade. Over the whole
/// output (‖ours − cuDNN‖₂ / ‖cuDNN‖₂) 2e-3 holds for both: few elements round apart. The lse is f32.
constexpr double kF16Tol = 2e-3, kBf16Tol = 1.0 / 128, kNormTol = 2e-3, kLseTol = 2e-3;
/// The backward's gradients, normwise: each side is within tt::kBackward*Tolerance of float64 (ours:
/// attention_backward_gpu_tests; cuDNN's graph, too, rounds P and dS to the inputs' type before their
/// products, the error those bounds are derived from), so by the triangle inequality the two are within twice
/// that of each other. A gradient's largest element is printed, not bounded: dS = P∘(dP − D) cancels.
constexpr double kBackwardF16Tol = 2 * tt::kBackwardF16Tolerance, kBackwardBf16Tol = 2 * tt::kBackwardBf16Tolerance;

/// The stored bits of T and the bounds against cuDNN: O elementwise, the gradients normwise.
template <class T> struct Io;
template <> struct Io<tile::f16> {
  static constexpr uint16_t (*toBits)(float) = tile::testutil::toHalf;
  static constexpr float (*fromBits)(uint16_t) = tile::testutil::halfToFloat;
  static constexpr double oTol = kF16Tol, gradientTol = kBackwardF16Tol;
};
template <> struct Io<tile::bf16> {
  static constexpr uint16_t (*toBits)(float) = tile::testutil::toBf16;
  static constexpr float (*fromBits)(uint16_t) = tile::testutil::bf16BitsToFloat;
  static constexpr double oTol = kBf16Tol, gradientTol = kBackwardBf16Tol;
};

/// The f16 cases: head dims `dims`, causal and not, two sequences of a length no 128 divides; and
/// grouped-query heads (4 query heads per K/V head), causal, on one sequence.
std::vector<SdpaProblem> f16Cases(std::initializer_list<int> dims) {
  std::vector<SdpaProblem> cases;
  for (int d : dims)
    for (bool causal : {false, true}) cases.push_back({false, 2, 4, 4, 320, d, causal});
  cases.push_back({false, 1, 8, 2, 256, 128, true});
  return cases;
}
/// The bf16 cases: d128 causal and not; multi-query heads (one K/V head) at a length no tile divides.
const std::vector<SdpaProblem> kBf16Cases = {
    {true, 2, 4, 4, 320, 128, false}, {true, 2, 4, 4, 320, 128, true}, {true, 3, 4, 1, 200, 64, false}};

/// ‖got − ref‖₂ / ‖ref‖₂ (the inputs already checked finite).
::testing::AssertionResult normRelativeError(const std::vector<float> &got, const std::vector<float> &ref, double tol,
                                             const std::string &what, double *error) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff += (double(got[i]) - ref[i]) * (double(got[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  *error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  if (*error <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": normwise relative error " << *error << " > " << tol;
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

  /// Every case of `pass`, then that cuDNN ran at least one (else the oracle checked nothing).
  template <class T> void checkAll(SdpaPass pass, const std::vector<SdpaProblem> &cases) {
    int ran = 0;
    for (const SdpaProblem &p : cases) ran += pass == SdpaPass::Forward ? checkForward<T>(p) : checkBackward<T>(p);
    EXPECT_GT(ran, 0) << "cuDNN offered an engine for none of the cases (their lines say why)";
  }

  /// Fresh random inputs of `p` (q, k, v, dO), stored in T, on the device.
  struct Inputs {
    tt::AttentionShape s;
    tt::AttentionInputs in;
    DeviceBuffer q, k, v, dO;
    size_t rows; ///< of the log-sum-exp: heads · tokens
  };
  template <class T> Inputs inputs(const SdpaProblem &p) {
    const tt::AttentionShape s{int(p.heads), int(p.kvHeads), int(p.headDim), p.causal,
                               tt::equalLengthStarts(int(p.batch), int(p.seqlen))};
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    tt::AttentionInputs in = tt::randomAttentionInputs(s, Io<T>::toBits, [&] { return u(gen_); });
    return {s,
            in,
            DeviceBuffer::fromHost(in.q),
            DeviceBuffer::fromHost(in.k),
            DeviceBuffer::fromHost(in.v),
            DeviceBuffer::fromHost(in.dO),
            size_t(p.heads * s.tokens())};
  }
  /// Whether cuDNN runs `passes` of `p`; else a `<tag> <case> skipped: <why>` line.
  bool prepared(const SdpaProblem &p, const char *tag, std::initializer_list<SdpaPass> passes) {
    for (SdpaPass pass : passes)
      if (std::string why = dnn_->prepare(p, pass); !why.empty()) {
        std::printf("%s %-30s skipped: %s\n", tag, p.describe().c_str(), why.c_str());
        return false;
      }
    return true;
  }
  /// The f16/bf16 elements of `b` as floats.
  template <class T> static std::vector<float> floats(const DeviceBuffer &b, size_t count) {
    return tt::floatsOf(b.toHost<uint16_t>(count), Io<T>::fromBits);
  }

  /// Ours and cuDNN's forward on the same fresh inputs; false (after a line saying why) where cuDNN
  /// offers no engine for `p`.
  template <class T> bool checkForward(const SdpaProblem &p) {
    SCOPED_TRACE(p.describe());
    if (!prepared(p, "cudnn-attn-check", {SdpaPass::Forward})) return false;
    Inputs x = inputs<T>(p);
    const size_t elems = x.in.q.size(), rows = x.rows;
    DeviceBuffer oursO(elems * 2), oursLse(rows * 4), refO(elems * 2), refStats(rows * 4);
    for (DeviceBuffer *b : {&oursO, &oursLse, &refO, &refStats}) b->fillBytes(0xFF);
    const double scale = 0.7 / std::sqrt(double(p.headDim));
    tk::AttentionForward<T>::launch(gAot,
                                    tt::attentionProblem(x.s, false, x.q, x.k, x.v, oursO, oursLse, nullptr, scale));
    dnn_->forward(p, x.q.ptr(), x.k.ptr(), x.v.ptr(), refO.ptr(), refStats.ptr(), scale);
    Context::get().synchronize();

    const std::vector<float> got = floats<T>(oursO, elems), ref = floats<T>(refO, elems);
    // Ours [heads, tokens]; cuDNN's stats [batch, heads, seqlen]: brought to ours.
    const std::vector<float> lse = oursLse.toHost<float>(rows), stats = refStats.toHost<float>(rows);
    std::vector<float> refLse(rows);
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t h = 0; h < p.heads; ++h)
        for (int64_t i = 0; i < p.seqlen; ++i)
          refLse[size_t(h * x.s.tokens() + b * p.seqlen + i)] = stats[size_t((b * p.heads + h) * p.seqlen + i)];
    const double tol = Io<T>::oTol;
    double oError = 0, oNormError = NAN, lseError = 0;
    EXPECT_TRUE(maxRelativeError(got, ref, tol, "o", &oError));
    if (std::isfinite(oError)) { // else NaN: failed above
      EXPECT_TRUE(normRelativeError(got, ref, kNormTol, "o", &oNormError));
    }
    EXPECT_TRUE(maxRelativeError(lse, refLse, kLseTol, "lse", &lseError));
    std::printf("cudnn-attn-check %-30s o max rel err %.2e (tol %.1e), normwise %.2e (tol %.1e), lse %.2e; cuDNN %s\n",
                p.describe().c_str(), oError, tol, oNormError, kNormTol, lseError, dnn_->describe(p).c_str());
    return true;
  }

  /// Ours' backward (both modes) and cuDNN's on the same fresh inputs, each fed by its own forward's O and
  /// log-sum-exp; false (after a line saying why) where cuDNN offers no engine for `p`'s forward or backward.
  template <class T> bool checkBackward(const SdpaProblem &p) {
    SCOPED_TRACE(p.describe() + " backward");
    if (!prepared(p, "cudnn-attn-bwd-check", {SdpaPass::Forward, SdpaPass::Backward})) return false;
    Inputs x = inputs<T>(p);
    const size_t qElems = x.in.q.size(), kvElems = x.in.k.size(), rows = x.rows;
    DeviceBuffer o(qElems * 2), lse(rows * 4), delta(rows * 4), dq(qElems * 2), dk(kvElems * 2), dv(kvElems * 2);
    DeviceBuffer refO(qElems * 2), refStats(rows * 4), refDq(qElems * 2), refDk(kvElems * 2), refDv(kvElems * 2);
    for (DeviceBuffer *b : {&o, &lse, &refO, &refStats, &refDq, &refDk, &refDv}) b->fillBytes(0xFF);
    const double scale = 0.7 / std::sqrt(double(p.headDim));
    const tk::AttentionProblem f = tt::attentionProblem(x.s, false, x.q, x.k, x.v, o, lse, nullptr, scale);
    DeviceBuffer accum(size_t(tk::AttentionBackward<T>::dqAccumBytes(f)));
    tk::AttentionForward<T>::launch(gAot, f);
    dnn_->forward(p, x.q.ptr(), x.k.ptr(), x.v.ptr(), refO.ptr(), refStats.ptr(), scale);
    dnn_->backward(p, x.q.ptr(), x.k.ptr(), x.v.ptr(), refO.ptr(), x.dO.ptr(), refStats.ptr(), refDq.ptr(), refDk.ptr(),
                   refDv.ptr(), scale);
    Context::get().synchronize();
    const std::vector<float> ref[] = {floats<T>(refDq, qElems), floats<T>(refDk, kvElems), floats<T>(refDv, kvElems)};

    const double tol = Io<T>::gradientTol;
    for (bool onePass : {false, true}) {
      SCOPED_TRACE(onePass ? "one pass" : "deterministic");
      for (DeviceBuffer *b : {&delta, &dq, &dk, &dv, &accum}) b->fillBytes(0xFF);
      tk::AttentionBackward<T>::launch(gAot, {f, x.dO, dq, dk, dv, delta, onePass ? tk::Address(accum) : nullptr});
      Context::get().synchronize();
      const std::vector<float> got[] = {floats<T>(dq, qElems), floats<T>(dk, kvElems), floats<T>(dv, kvElems)};
      const char *what[] = {"dq", "dk", "dv"};
      double maxError[3], normError[3] = {NAN, NAN, NAN};
      for (int g = 0; g < 3; ++g) {
        EXPECT_TRUE(maxRelativeError(got[g], ref[g], INFINITY, what[g], &maxError[g])); // NaN fails, no bound
        if (std::isfinite(maxError[g])) { EXPECT_TRUE(normRelativeError(got[g], ref[g], tol, what[g], &normError[g])); }
      }
      std::printf("cudnn-attn-bwd-check %-30s %-13s normwise dq %.2e dk %.2e dv %.2e (tol %.1e); max rel dq %.2e dk "
                  "%.2e dv %.2e; cuDNN %s\n",
                  p.describe().c_str(), onePass ? "one-pass" : "deterministic", normError[0], normError[1],
                  normError[2], tol, maxError[0], maxError[1], maxError[2],
                  dnn_->describe(p, SdpaPass::Backward).c_str());
    }
    return true;
  }

  CudnnAttention *dnn_ = nullptr;
};

TEST_F(AttentionCudnnGpu, ForwardF16MatchesCudnn) { checkAll<tile::f16>(SdpaPass::Forward, f16Cases({64, 128, 256})); }
TEST_F(AttentionCudnnGpu, ForwardBf16MatchesCudnn) { checkAll<tile::bf16>(SdpaPass::Forward, kBf16Cases); }
// The backward's head dims: 64 and 128 (AttentionBackward.h).
TEST_F(AttentionCudnnGpu, BackwardF16MatchesCudnn) { checkAll<tile::f16>(SdpaPass::Backward, f16Cases({64, 128})); }
TEST_F(AttentionCudnnGpu, BackwardBf16MatchesCudnn) { checkAll<tile::bf16>(SdpaPass::Backward, kBf16Cases); }

} // namespace
