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

#include "../common/AttentionCase.h"
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
    SCOPED_TRACE(tt::describe(s, varlen));
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    const tt::AttentionInputs in = tt::randomAttentionInputs(s, toBits, [&] { return u(gen_); });
    DeviceBuffer dq = DeviceBuffer::fromHost(in.q), dk = DeviceBuffer::fromHost(in.k),
                 dv = DeviceBuffer::fromHost(in.v), dStarts = DeviceBuffer::fromHost(s.starts);
    DeviceBuffer dO(in.q.size() * 2), dLse(size_t(s.heads * s.tokens()) * 4);
    dO.fillBytes(0xFF);
    dLse.fillBytes(0xFF);
    const double scale = 0.7 / std::sqrt(double(s.d));
    const tk::AttentionProblem p = tt::attentionProblem(s, varlen, dq, dk, dv, dO, dLse, dStarts, scale);
    tk::AttentionForward<T>::launch(gAot, p);
    Context::get().synchronize();
    tt::AttentionReference ref =
        tt::attentionReference(s, in.q, in.k, in.v, scale, [&](uint16_t x) { return double(fromBits(x)); });
    const std::vector<float> got = tt::floatsOf(dO.toHost<uint16_t>(in.q.size()), fromBits),
                             lse = dLse.toHost<float>(size_t(s.heads * s.tokens()));
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
