// The attention backward (kernels/AttentionBackward.h, ahead-of-time PTX through AotLauncher)
// on a real GPU against float64 (ctest label `gpu`; skipped with the reason where there is no
// GPU): dQ, dK, dV at head dims 64 and 128, causal and not, grouped- and multi-query heads,
// ragged and packed variable lengths, f16 and bf16; and bit-identical gradients from a second
// run (the backward is deterministic: no atomics). Fresh random inputs every run (seed printed
// on failure, TILE_TEST_SEED=<n> replays); every output poisoned with NaN bytes first.
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/AttentionBackward.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/AttentionReference.h"
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
    SCOPED_TRACE("heads " + std::to_string(s.heads) + "/" + std::to_string(s.kvHeads) + " d " + std::to_string(s.d) +
                 (s.causal ? " causal" : "") + (varlen ? " varlen" : "") + " tokens " + std::to_string(s.tokens()));
    const int64_t tokens = s.tokens(), qRow = int64_t(s.heads) * s.d, kvRow = int64_t(s.kvHeads) * s.d;
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    auto randomBits = [&](size_t n) {
      std::vector<uint16_t> v(n);
      for (uint16_t &x : v) x = toBits(u(gen_));
      return v;
    };
    std::vector<uint16_t> q = randomBits(size_t(tokens * qRow)), k = randomBits(size_t(tokens * kvRow)),
                          v = randomBits(size_t(tokens * kvRow)), dO = randomBits(q.size());
    DeviceBuffer qBuf = DeviceBuffer::fromHost(q), kBuf = DeviceBuffer::fromHost(k), vBuf = DeviceBuffer::fromHost(v),
                 doBuf = DeviceBuffer::fromHost(dO), starts = DeviceBuffer::fromHost(s.starts);
    DeviceBuffer oBuf(q.size() * 2), lse(size_t(s.heads * tokens) * 4), delta(lse.bytes());
    DeviceBuffer dqBuf(q.size() * 2), dkBuf(k.size() * 2), dvBuf(k.size() * 2);
    for (DeviceBuffer *b : {&oBuf, &lse, &delta, &dqBuf, &dkBuf, &dvBuf}) b->fillBytes(0xFF);
    int32_t maxLen = 0;
    for (size_t b = 0; b + 1 < s.starts.size(); ++b) maxLen = std::max(maxLen, s.starts[b + 1] - s.starts[b]);
    const double scale = 0.7 / std::sqrt(double(s.d));
    tk::AttentionProblem f{qBuf,
                           kBuf,
                           vBuf,
                           oBuf,
                           lse,
                           int64_t(s.starts.size()) - 1,
                           s.heads,
                           s.kvHeads,
                           s.d,
                           varlen ? maxLen : s.starts[1],
                           varlen ? tk::Address(starts) : tk::Address(nullptr),
                           tokens,
                           s.causal,
                           scale};
    const tk::AttentionBackwardProblem p{f, doBuf, dqBuf, dkBuf, dvBuf, delta};
    tk::AttentionForward<T>::launch(gAot, f);
    tk::AttentionBackward<T>::launch(gAot, p);
    Context::get().synchronize();
    const std::vector<uint16_t> dq = dqBuf.toHost<uint16_t>(q.size()), dk = dkBuf.toHost<uint16_t>(k.size()),
                                dv = dvBuf.toHost<uint16_t>(k.size());
    tt::AttentionGradients ref =
        tt::attentionBackwardReference(s, q, k, v, dO, scale, [&](uint16_t x) { return double(fromBits(x)); });
    auto floats = [&](const std::vector<uint16_t> &x) {
      std::vector<float> out(x.size());
      for (size_t i = 0; i < x.size(); ++i) out[i] = fromBits(x[i]);
      return out;
    };
    EXPECT_TRUE(tile::testutil::closeTo(floats(dq), ref.dq, tol, "dq"));
    EXPECT_TRUE(tile::testutil::closeTo(floats(dk), ref.dk, tol, "dk"));
    EXPECT_TRUE(tile::testutil::closeTo(floats(dv), ref.dv, tol, "dv"));

    for (DeviceBuffer *b : {&dqBuf, &dkBuf, &dvBuf}) b->fillBytes(0xFF);
    tk::AttentionBackward<T>::launch(gAot, p);
    Context::get().synchronize();
    EXPECT_EQ(dqBuf.toHost<uint16_t>(q.size()), dq) << "dq differs between two runs";
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
