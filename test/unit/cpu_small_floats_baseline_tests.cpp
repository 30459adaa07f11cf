// f16/bf16 tiles computed on after a transpose, compiled for the x86-64 baseline (no F16C,
// no AVX512-BF16) whatever TILE_CPU_TARGET says, so the host run of cpu_tests checks it too.
// A transposed tile is read with vector gathers; LLVM's InstCombine turned the integer code
// that widens their bf16 results (bits & 0x7fff) into llvm.fabs on bfloat, which the x86
// backend computes in f32 and rounds back through __truncsfbf2, a helper the JIT does not
// provide: attention's scores, q . trans(k) in a loop over key blocks, failed to link.
// Since no f16/bf16 type reaches LLVM, an atomic add of them is a compare-and-swap loop on
// their bits (tile-cpu-expand-small-floats), checked here too. Results are checked bit for
// bit (the scores' terms are small integers: exact sums).
#include "cpu_test_util.h"

#include <cstdlib>
#include <string>

namespace {

using namespace tile;
using namespace tile::cputest;

/// Sets TILE_CPU_TARGET for the scope, restoring what was there.
class ScopedCpuTarget {
public:
  explicit ScopedCpuTarget(const char *target) {
    if (const char *old = std::getenv("TILE_CPU_TARGET")) saved_ = old, had_ = true;
    setenv("TILE_CPU_TARGET", target, 1);
  }
  ~ScopedCpuTarget() {
    if (had_) setenv("TILE_CPU_TARGET", saved_.c_str(), 1);
    else unsetenv("TILE_CPU_TARGET");
  }

private:
  std::string saved_;
  bool had_ = false;
};

/// Attention's scores: out[i] = sum over key rows j < m of q[i] . k[j], q (BM x C) and each
/// block of BKV key rows cast to T, the block transposed for the dot, in a loop over blocks.
template <class T> const auto &scoresKernel() {
  static const auto k = tile::kernel(
      std::string("scores_") + (std::is_same_v<T, bf16> ? "bf16" : "f16"),
      [](Ptr<float> q, Ptr<float> keys, Ptr<float> out, I32 m, Const<int> BM, Const<int> BKV, Const<int> C) {
        const DType elem = std::is_same_v<T, bf16> ? DType::bf16 : DType::f16;
        Value c = arange(0, C), i = arange(0, BM);
        Value qs = cast(load(q + (col(i) * C + row(c))), elem);
        auto step = [&](Value n0, std::vector<Value> acc) {
          Value rows = col(n0 + arange(0, BKV));
          Value kb = cast(load(keys + (rows * C + row(c)), rows < m, 0.0f), elem);
          return std::vector<Value>{acc[0] + sum(dot(qs, trans(kb)), 1)};
        };
        store(out + i, for_range(0, m, BKV, {zeros({BM}, DType::f32)}, step)[0]);
      });
  return k;
}

/// x is R x C row-major; t = trans(x) (C x R). wide = t as f32, scaled = t * scale rounded
/// back to T, both C x R row-major.
template <class T> const auto &transWidenKernel() {
  static const auto k =
      tile::kernel(std::string("trans_widen_") + (std::is_same_v<T, bf16> ? "bf16" : "f16"),
                   [](Ptr<T> x, Ptr<float> wide, Ptr<T> scaled, F32 scale, Const<int> R, Const<int> C) {
                     Value r = arange(0, R), c = arange(0, C);
                     Value t = trans(load(x + (col(r) * C + row(c))));
                     Value out = col(c) * R + row(r);
                     Value w = cast(t, DType::f32);
                     store(wide + out, w);
                     store(scaled + out, cast(w * scale, std::is_same_v<T, bf16> ? DType::bf16 : DType::f16));
                   });
  return k;
}

/// Colliding atomic adds of T into four totals, returning the old values; one program, whose
/// atomics run in row-major order.
template <class T> const auto &atomicAddKernel() {
  static const auto k = tile::kernel(std::string("atomic_add_") + (std::is_same_v<T, bf16> ? "bf16" : "f16"),
                                     [](Ptr<T> x, Ptr<T> total, Ptr<T> old, Const<int> BLOCK) {
                                       Value offs = arange(0, BLOCK);
                                       store(old + offs, atomic_add(total + offs % 4, load(x + offs)));
                                     });
  return k;
}

class CpuSmallFloatsBaseline : public Seeded {
protected:
  template <class T> void checkScores(int m, int bkv) {
    const int bm = 16, c = 16;
    // Integers in [-8, 8]: exact in f16 and bf16, every product and sum exact in f32.
    std::vector<float> q(size_t(bm) * c), keys(size_t(m) * c);
    for (float &v : q) v = float(uniformInt(-8, 8));
    for (float &v : keys) v = float(uniformInt(-8, 8));
    std::vector<float> out = poisoned(bm);
    {
      ScopedCpuTarget baseline("x86-64");
      ASSERT_NO_THROW(scoresKernel<T>().launch({1}, cpuOptions(), q.data(), keys.data(), out.data(), m, bm, bkv, c));
    }
    for (int i = 0; i < bm; ++i) {
      double expect = 0;
      for (int j = 0; j < m; ++j)
        for (int k = 0; k < c; ++k) expect += double(q[size_t(i) * c + k]) * keys[size_t(j) * c + k];
      ASSERT_EQ(out[i], float(expect)) << "row " << i;
    }
  }

  /// Each total is rounded to T after every add, from the f32 sum (one rounding: f32 holds
  /// 2p + 2 bits of either type), as the GPU's atom.add.
  template <class T> void checkAtomicAdd() {
    constexpr bool isBf16 = std::is_same_v<T, bf16>;
    const int n = 256;
    auto bits = [&](float f) { return isBf16 ? toBf16(f) : toHalf(f); };
    auto value = [&](uint16_t h) { return isBf16 ? bf16BitsToFloat(h) : halfToFloat(h); };
    std::vector<uint16_t> x(n), total(4), old(n, 0xdead);
    for (uint16_t &h : x) h = bits(uniform(-10.f, 10.f));
    for (uint16_t &h : total) h = bits(uniform(-100.f, 100.f));
    std::vector<uint16_t> ref = total;
    {
      ScopedCpuTarget baseline("x86-64");
      ASSERT_NO_THROW(atomicAddKernel<T>().launch({1}, cpuOptions(), reinterpret_cast<T *>(x.data()),
                                                  reinterpret_cast<T *>(total.data()),
                                                  reinterpret_cast<T *>(old.data()), n));
    }
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(old[i], ref[i % 4]) << "old value of element " << i << " (row-major order)";
      ref[i % 4] = bits(value(ref[i % 4]) + value(x[i]));
    }
    EXPECT_EQ(total, ref);
  }

  template <class T> void checkTransWiden(int rows, int cols) {
    constexpr bool isBf16 = std::is_same_v<T, bf16>;
    const int n = rows * cols;
    std::vector<uint16_t> x(n);
    for (uint16_t &h : x) h = isBf16 ? toBf16(uniform(-300.f, 300.f)) : toHalf(uniform(-300.f, 300.f));
    // Zeros, the smallest denormal, infinities, a signalling and a quiet NaN, the largest finite.
    const uint16_t specials[2][8] = {{0x0000, 0x8000, 0x0001, 0x7c00, 0xfc00, 0x7c01, 0x7e00, 0x7bff},
                                     {0x0000, 0x8000, 0x0001, 0x7f80, 0xff80, 0x7f81, 0xffc0, 0x7f7f}};
    for (int i = 0; i < n && i < 8; ++i) x[size_t(i) * 7 % size_t(n)] = specials[isBf16][i];
    const float scale = 1.37f;
    std::vector<float> wide = poisoned(n);
    std::vector<uint16_t> scaled(n, 0xdead);
    {
      ScopedCpuTarget baseline("x86-64");
      ASSERT_NO_THROW(transWidenKernel<T>().launch({1}, cpuOptions(), reinterpret_cast<T *>(x.data()), wide.data(),
                                                   reinterpret_cast<T *>(scaled.data()), scale, rows, cols));
    }
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < rows; ++r) {
        const uint16_t in = x[size_t(r) * cols + c];
        const size_t at = size_t(c) * rows + r;
        const float v = isBf16 ? bf16BitsToFloat(in) : halfToFloat(in);
        if (std::isnan(v)) {
          ASSERT_TRUE(std::isnan(wide[at])) << "element " << at;
          ASSERT_TRUE(isBf16 ? isBf16NaN(scaled[at]) : isHalfNaN(scaled[at])) << "element " << at;
          // A signalling NaN comes out quiet, as from the GPU's cvt.rn.
          ASSERT_TRUE(scaled[at] & (isBf16 ? 0x0040 : 0x0200)) << "element " << at << ": " << scaled[at];
          continue;
        }
        ASSERT_EQ(std::memcmp(&wide[at], &v, 4), 0) << "element " << at << ": " << wide[at] << " for " << v;
        const uint16_t expect = isBf16 ? toBf16(v * scale) : toHalf(v * scale);
        ASSERT_EQ(scaled[at], expect) << "element " << at << " from " << v;
      }
  }
};

TEST_F(CpuSmallFloatsBaseline, Bf16ScoresOfTransposedKeys) {
  for (auto [m, bkv] : {std::pair{64, 2}, {37, 2}, {64, 16}, {40, 8}}) {
    SCOPED_TRACE("m " + std::to_string(m) + ", BKV " + std::to_string(bkv));
    checkScores<bf16>(m, bkv);
  }
}

TEST_F(CpuSmallFloatsBaseline, F16ScoresOfTransposedKeys) {
  for (auto [m, bkv] : {std::pair{64, 2}, {37, 2}, {64, 16}, {40, 8}}) {
    SCOPED_TRACE("m " + std::to_string(m) + ", BKV " + std::to_string(bkv));
    checkScores<f16>(m, bkv);
  }
}

TEST_F(CpuSmallFloatsBaseline, Bf16TransposeThenArithmetic) {
  for (auto [r, c] : {std::pair{2, 16}, {16, 2}, {8, 8}, {4, 64}, {32, 16}}) {
    SCOPED_TRACE(std::to_string(r) + " x " + std::to_string(c));
    checkTransWiden<bf16>(r, c);
  }
}

TEST_F(CpuSmallFloatsBaseline, F16TransposeThenArithmetic) {
  for (auto [r, c] : {std::pair{2, 16}, {16, 2}, {8, 8}, {4, 64}, {32, 16}}) {
    SCOPED_TRACE(std::to_string(r) + " x " + std::to_string(c));
    checkTransWiden<f16>(r, c);
  }
}

TEST_F(CpuSmallFloatsBaseline, Bf16AtomicAddRoundsEachSum) { checkAtomicAdd<bf16>(); }

TEST_F(CpuSmallFloatsBaseline, F16AtomicAddRoundsEachSum) { checkAtomicAdd<f16>(); }

} // namespace
