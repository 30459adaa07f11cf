// The attention backward (kernels/AttentionBackward.h, ahead-of-time PTX through AotLauncher)
// on a real GPU against float64 (ctest label `gpu`; skipped with the reason where there is no
// GPU): dQ, dK, dV at head dims 64 and 128, causal and not, grouped- and multi-query heads,
// ragged and packed variable lengths, f16 and bf16, in both modes; and bit-identical gradients
// from a second run (deterministic mode: all three; one-pass mode, whose dQ sums by atomics in
// any order: dK and dV). Fresh random inputs every run (seed printed on failure,
// TILE_TEST_SEED=<n> replays); every output and the one-pass accumulator poisoned with NaN first.
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/AttentionBackward.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/AttentionCase.h"
#include "SeededGpuTest.h"
#include "../common/Numerics.h"

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;
namespace tt = tile::testing;

namespace {

tk::AotLauncher gAot;

class AttentionBackwardGpu : public tt::SeededGpuTest {
protected:
  template <class T>
  void check(const tt::AttentionShape &s, bool varlen, uint16_t (*toBits)(float), float (*fromBits)(uint16_t),
             double tol) {
    for (bool onePass : {false, true}) check<T>(s, varlen, toBits, fromBits, tol, onePass);
  }

  template <class T>
  void check(const tt::AttentionShape &s, bool varlen, uint16_t (*toBits)(float), float (*fromBits)(uint16_t),
             double tol, bool onePass) {
    SCOPED_TRACE(tt::describe(s, varlen) + (onePass ? ", one pass" : ", deterministic"));
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    const tt::AttentionInputs in = tt::randomAttentionInputs(s, toBits, [&] { return u(gen_); });
    const std::vector<uint16_t> &q = in.q, &k = in.k;
    DeviceBuffer qBuf = DeviceBuffer::fromHost(q), kBuf = DeviceBuffer::fromHost(k),
                 vBuf = DeviceBuffer::fromHost(in.v), doBuf = DeviceBuffer::fromHost(in.dO),
                 starts = DeviceBuffer::fromHost(s.starts);
    DeviceBuffer oBuf(q.size() * 2), lse(size_t(s.heads * s.tokens()) * 4), delta(lse.bytes());
    DeviceBuffer dqBuf(q.size() * 2), dkBuf(k.size() * 2), dvBuf(k.size() * 2);
    for (DeviceBuffer *b : {&oBuf, &lse, &delta, &dqBuf, &dkBuf, &dvBuf}) b->fillBytes(0xFF);
    const double scale = 0.7 / std::sqrt(double(s.d));
    const tk::AttentionProblem f = tt::attentionProblem(s, varlen, qBuf, kBuf, vBuf, oBuf, lse, starts, scale);
    DeviceBuffer accum(onePass ? size_t(tk::AttentionBackward<T>::dqAccumBytes(f)) : 16);
    accum.fillBytes(0xFF);
    const tk::AttentionBackwardProblem p{f, doBuf, dqBuf, dkBuf, dvBuf, delta, onePass ? tk::Address(accum) : nullptr};
    tk::AttentionForward<T>::launch(gAot, f);
    tk::AttentionBackward<T>::launch(gAot, p);
    Context::get().synchronize();
    const std::vector<uint16_t> dq = dqBuf.toHost<uint16_t>(q.size()), dk = dkBuf.toHost<uint16_t>(k.size()),
                                dv = dvBuf.toHost<uint16_t>(k.size());
    tt::AttentionGradients ref =
        tt::attentionBackwardReference(s, q, k, in.v, in.dO, scale, [&](uint16_t x) { return double(fromBits(x)); });
    EXPECT_TRUE(tile::testutil::closeTo(tt::floatsOf(dq, fromBits), ref.dq, tol, "dq"));
    EXPECT_TRUE(tile::testutil::closeTo(tt::floatsOf(dk, fromBits), ref.dk, tol, "dk"));
    EXPECT_TRUE(tile::testutil::closeTo(tt::floatsOf(dv, fromBits), ref.dv, tol, "dv"));

    for (DeviceBuffer *b : {&dqBuf, &dkBuf, &dvBuf, &accum}) b->fillBytes(0xFF);
    tk::AttentionBackward<T>::launch(gAot, p);
    Context::get().synchronize();
    if (onePass)
      EXPECT_TRUE(
          tile::testutil::closeTo(tt::floatsOf(dqBuf.toHost<uint16_t>(q.size()), fromBits), ref.dq, tol, "dq again"));
    else EXPECT_EQ(dqBuf.toHost<uint16_t>(q.size()), dq) << "dq differs between two runs";
    EXPECT_EQ(dkBuf.toHost<uint16_t>(k.size()), dk) << "dk differs between two runs";
    EXPECT_EQ(dvBuf.toHost<uint16_t>(k.size()), dv) << "dv differs between two runs";
  }
};

TEST_F(AttentionBackwardGpu, F16MatchesFloat64) {
  using tile::testutil::halfToFloat;
  using tile::testutil::toHalf;
  for (int d : {64, 128})
    for (bool causal : {false, true}) {
      check<tile::f16>({2, 2, d, causal, tt::equalLengthStarts(2, 256)}, false, toHalf, halfToFloat,
                       tt::kBackwardF16Tolerance); // whole tiles
      check<tile::f16>({4, 1, d, causal, tt::equalLengthStarts(1, 200)}, false, toHalf, halfToFloat,
                       tt::kBackwardF16Tolerance); // ragged, multi-query
      check<tile::f16>({4, 2, d, causal, {0, 37, 300, 364}}, true, toHalf, halfToFloat,
                       tt::kBackwardF16Tolerance); // packed, grouped
    }
}

TEST_F(AttentionBackwardGpu, Bf16MatchesFloat64) {
  for (bool causal : {false, true})
    check<tile::bf16>({4, 2, 128, causal, {0, 130, 131, 390}}, true, tile::testutil::toBf16,
                      tile::testutil::bf16BitsToFloat, tt::kBackwardBf16Tolerance);
}

} // namespace
