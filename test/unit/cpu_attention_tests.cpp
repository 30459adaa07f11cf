// The attention forward (kernels/Attention.h) on the CPU executor against float64: ragged
// lengths, causal, grouped- and multi-query heads, packed variable lengths, head dims 64,
// 128 and 256, f16 and bf16; small tiles through the DSL kernel, the library's own tiles
// through its shape-level launch.
#include "cpu_test_util.h"

#include "tile/kernels/Attention.h"
#include "tile/kernels/DslLauncher.h"

#include "../common/AttentionCase.h"

#include <cmath>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;
namespace tt = tile::testing;

namespace {

struct Case {
  tt::AttentionShape shape;
  bool varlen;
  int bm = 0, bn = 0; ///< 0: the library's launch and tile
};

class CpuAttention : public Seeded {
protected:
  /// Runs `c` on fresh inputs (o and lse poisoned, checking mode) and compares with float64.
  template <class T> void check(const Case &c, uint16_t (*toBits)(float), float (*fromBits)(uint16_t)) {
    const tt::AttentionShape &s = c.shape;
    SCOPED_TRACE(tt::describe(s, c.varlen) +
                 (c.bm ? " tile " + std::to_string(c.bm) + "x" + std::to_string(c.bn) : ""));
    const int64_t tokens = s.tokens(), qRow = int64_t(s.heads) * s.d, kvRow = int64_t(s.kvHeads) * s.d;
    tt::AttentionInputs in = tt::randomAttentionInputs(s, toBits, [&] { return uniform(-1.5f, 1.5f); });
    std::vector<uint16_t> &q = in.q, &k = in.k, &v = in.v;
    std::vector<uint16_t> o(q.size(), 0xFFFF); // NaN in f16 and bf16
    std::vector<float> lse = poisoned(size_t(s.heads * tokens));
    const double scale = 0.7 / std::sqrt(double(s.d));
    const int32_t maxLen = tt::longestSequence(s);
    const int batch = int(s.starts.size()) - 1;
    std::vector<int32_t> starts = s.starts;
    // Checking mode: every element read or written must lie in these buffers, and o's rows
    // past a sequence's end are never read.
    cpu::ScopedBuffer qBuf(q.data(), q.size() * 2), kBuf(k.data(), k.size() * 2), vBuf(v.data(), v.size() * 2),
        oBuf(o.data(), o.size() * 2, /*initialized=*/false), lseBuf(lse.data(), lse.size() * 4, false),
        startsBuf(starts.data(), starts.size() * 4);
    if (c.bm) {
      tk::dslKernel<tk::AttentionForward<T>>().launch(
          {cdiv(maxLen, c.bm), int64_t(batch) * s.heads}, cpuOptions(4, /*check=*/true),
          TensorDescArg{q.data(), {tokens, qRow}, {qRow, 1}}, TensorDescArg{k.data(), {tokens, kvRow}, {kvRow, 1}},
          TensorDescArg{v.data(), {tokens, kvRow}, {kvRow, 1}}, static_cast<void *>(o.data()), lse.data(),
          c.varlen ? starts.data() : nullptr, maxLen, int32_t(tokens), s.heads, s.heads / s.kvHeads,
          float(scale / std::log(2.0)), c.bm, c.bn, s.d, int(s.causal), int(c.varlen), /*WS=*/1);
    } else {
      tk::DslLauncher cpu{Executor::CPU, /*check=*/true};
      const tk::AttentionProblem p =
          tt::attentionProblem(s, c.varlen, q.data(), k.data(), v.data(), o.data(), lse.data(), starts.data(), scale);
      tk::AttentionForward<T>::launch(cpu, p);
    }
    tt::AttentionReference ref =
        tt::attentionReference(s, q, k, v, scale, [&](uint16_t x) { return double(fromBits(x)); });
    const std::vector<float> got = tt::floatsOf(o, fromBits);
    // P is rounded to the inputs' type before P·V (as FlashAttention does): about 2^-9 (f16)
    // or 2^-6 (bf16) of each weight, averaging out over the keys.
    EXPECT_TRUE(closeTo(got, ref.o, std::is_same_v<T, f16> ? 2e-3 : 1e-2, "o"));
    EXPECT_TRUE(closeTo(lse, ref.lse, 1e-5, "lse"));
  }
};

TEST_F(CpuAttention, ForwardMatchesFloat64) {
  const std::vector<Case> cases = {
      {{2, 2, 64, false, tt::equalLengthStarts(2, 128)}, false, 64, 64},  // whole blocks
      {{2, 1, 64, true, tt::equalLengthStarts(1, 100)}, false, 64, 64},   // ragged, causal, multi-query
      {{4, 2, 128, false, tt::equalLengthStarts(2, 77)}, false, 64, 32},  // grouped-query, d 128
      {{2, 2, 64, true, {0, 37, 37 + 130, 37 + 130 + 64}}, true, 64, 64}, // packed lengths
      {{2, 2, 64, false, {0, 5, 90}}, true, 32, 32},                      // packed, tiny
  };
  for (const Case &c : cases) check<f16>(c, toHalf, halfToFloat);
  check<bf16>(cases[1], toBf16, tile::testutil::bf16BitsToFloat);
}

TEST_F(CpuAttention, LibraryLaunchMatchesFloat64) {
  check<f16>({{2, 1, 64, true, tt::equalLengthStarts(2, 150)}, false}, toHalf, halfToFloat);
  check<bf16>({{4, 2, 128, false, {0, 20, 220}}, true}, toBf16, tile::testutil::bf16BitsToFloat);
  check<f16>({{2, 2, 256, true, tt::equalLengthStarts(1, 70)}, false}, toHalf, halfToFloat);
}

TEST_F(CpuAttention, LaunchRefusesWhatNoVariantComputes) {
  tk::DslLauncher cpu{Executor::CPU};
  std::vector<uint16_t> buf(64);
  auto launch = [&](int64_t heads, int64_t kvHeads, int64_t d) {
    tk::AttentionProblem p{buf.data(), buf.data(), buf.data(), buf.data(), buf.data(), 1, heads, kvHeads, d, 1};
    tk::AttentionForward<f16>::launch(cpu, p);
  };
  EXPECT_THROW(launch(4, 3, 64), Error); // kv heads must divide the heads
  EXPECT_THROW(launch(2, 2, 96), Error); // no variant for head dim 96
  EXPECT_THROW(launch(2, 4, 64), Error); // more kv heads than heads
}

} // namespace
