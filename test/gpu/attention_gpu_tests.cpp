// The attention forward (kernels/Attention.h, ahead-of-time PTX through AotLauncher) on a real GPU
// against float64 (ctest label `gpu`; skipped with the reason where there is no GPU): head dims 64,
// 128 and 256, causal and not, grouped- and multi-query heads, ragged and packed variable lengths,
// f16 and bf16. Fresh random inputs every run (seed printed on failure, TILE_TEST_SEED=<n> replays),
// outputs poisoned with NaN bytes first: every element must be written, none past a sequence.
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Attention.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/AttentionReference.h"
#include "SeededGpuTest.h"
#include "../common/Numerics.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;
namespace tt = tile::testing;

namespace {

tk::AotLauncher gAot;

class AttentionGpu : public tt::SeededGpuTest {
protected:
  template <class T>
  void check(const tt::AttentionShape &s, bool varlen, uint16_t (*toBits)(float), float (*fromBits)(uint16_t)) {
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
                          v = randomBits(size_t(tokens * kvRow));
    DeviceBuffer dq = DeviceBuffer::fromHost(q), dk = DeviceBuffer::fromHost(k), dv = DeviceBuffer::fromHost(v);
    DeviceBuffer dO(q.size() * 2), dLse(size_t(s.heads * tokens) * 4), dStarts = DeviceBuffer::fromHost(s.starts);
    dO.fillBytes(0xFF);
    dLse.fillBytes(0xFF);
    int32_t maxLen = 0;
    for (size_t b = 0; b + 1 < s.starts.size(); ++b) maxLen = std::max(maxLen, s.starts[b + 1] - s.starts[b]);
    const double scale = 0.7 / std::sqrt(double(s.d));
    tk::AttentionProblem p{dq,
                           dk,
                           dv,
                           dO,
                           dLse,
                           int64_t(s.starts.size()) - 1,
                           s.heads,
                           s.kvHeads,
                           s.d,
                           varlen ? maxLen : s.starts[1],
                           varlen ? tk::Address(dStarts) : tk::Address(nullptr),
                           tokens,
                           s.causal,
                           scale};
    tk::AttentionForward<T>::launch(gAot, p);
    Context::get().synchronize();
    tt::AttentionReference ref =
        tt::attentionReference(s, q, k, v, scale, [&](uint16_t x) { return double(fromBits(x)); });
    std::vector<uint16_t> o = dO.toHost<uint16_t>(q.size());
    std::vector<float> got(o.size()), lse = dLse.toHost<float>(size_t(s.heads * tokens));
    for (size_t i = 0; i < o.size(); ++i) got[i] = fromBits(o[i]);
    EXPECT_TRUE(tile::testutil::closeTo(got, ref.o, std::is_same_v<T, tile::f16> ? 2e-3 : 1e-2, "o"));
    EXPECT_TRUE(tile::testutil::closeTo(lse, ref.lse, 1e-5, "lse"));
  }
};

TEST_F(AttentionGpu, ForwardF16MatchesFloat64) {
  using tile::testutil::halfToFloat;
  using tile::testutil::toHalf;
  for (int d : {64, 128, 256})
    for (bool causal : {false, true}) {
      check<tile::f16>({2, 2, d, causal, tt::equalLengthStarts(2, 256)}, false, toHalf, halfToFloat); // whole tiles
      check<tile::f16>({4, 1, d, causal, tt::equalLengthStarts(1, 200)}, false, toHalf,
                       halfToFloat);                                                     // ragged, multi-query
      check<tile::f16>({4, 2, d, causal, {0, 37, 300, 364}}, true, toHalf, halfToFloat); // packed, grouped
    }
}

TEST_F(AttentionGpu, ForwardBf16MatchesFloat64) {
  for (bool causal : {false, true})
    check<tile::bf16>({4, 2, 128, causal, {0, 130, 131, 390}}, true, tile::testutil::toBf16,
                      tile::testutil::bf16BitsToFloat);
}

} // namespace
