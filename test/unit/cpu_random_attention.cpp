// The random programs' attention block (cpu_random_attention.h): drawing it, tracing it, and
// its float64 reference with an error bound derived below.
#include "cpu_random_attention.h"

#include "tile/HalfBits.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace tile::randomkernels {

namespace {

/// The queries are clamped to +-kQClamp: scores stay in a range where the softmax neither
/// degenerates to an argmax everywhere nor its error bound to the trivial one.
constexpr float kQClamp = 4;
constexpr float kInf = std::numeric_limits<float>::infinity();

double halfToDouble(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return h & 0x8000 ? -v : v;
}

/// x as the kernel holds it after an f32 value of it is cast to f16 / bf16 (nearest even).
double rounded(double x, bool bf16) {
  float f = float(x);
  if (!bf16) return halfToDouble(halfBits(f));
  uint32_t bits = uint32_t(bf16Bits(f)) << 16;
  std::memcpy(&f, &bits, 4);
  return f;
}

int pickInt(std::mt19937_64 &rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

} // namespace

AttentionSpec drawAttention(std::mt19937_64 &rng) {
  AttentionSpec a;
  // Mostly the key blocks wgmma takes (multiples of 16), else any power of two.
  a.bkv = pickInt(rng, 0, 3) ? 16 << pickInt(rng, 0, 2) : 1 << pickInt(rng, 0, 6);
  // Powers of two, and log2(e) / 4 and / 8 (the library's scale · log2(e) for head dims 16
  // and 64), which round the scores once more.
  static const float scales[] = {1.0f, 0.5f, 0.25f, 0.125f, float(M_LOG2E / 4), float(M_LOG2E / 8)};
  a.scale = scales[pickInt(rng, 0, 5)];
  a.bf16 = pickInt(rng, 0, 2) == 0;
  const int keys = pickInt(rng, 0, 9);
  a.keys = keys < 4 ? AttnKeys::In1 : keys < 7 ? AttnKeys::In0 : AttnKeys::In2Half;
  a.values = pickInt(rng, 0, 1) ? AttnValues::In2Half : AttnValues::In2;
  const int extra = pickInt(rng, 0, 4);
  a.extra = extra < 3 ? AttnExtra::None : extra == 3 ? AttnExtra::RowMax : AttnExtra::RowSum;
  a.reciprocal = pickInt(rng, 0, 1);
  return a;
}

std::string describeAttention(const AttentionSpec &a) {
  static const char *keys[] = {"in1", "in0", "in2's f16 copy (descriptor)"};
  std::ostringstream os;
  os << (a.bf16 ? "bf16" : "f16") << ", BKV " << a.bkv << ", scale " << a.scale << ", keys "
     << keys[static_cast<int>(a.keys)] << ", values " << (a.values == AttnValues::In2 ? "in2" : "in2's f16 copy")
     << (a.reciprocal ? ", acc * col(1 / l)" : ", acc / col(l)")
     << (a.extra == AttnExtra::RowMax   ? " + col(m)"
         : a.extra == AttnExtra::RowSum ? " + col(l) / 16"
                                        : "");
  return os.str();
}

Value traceAttention(const AttentionSpec &a, const AttentionOperands &o) {
  const std::vector<int64_t> shape = o.q.shape();
  const int64_t bm = shape[0], bn = shape[1];
  const DType elem = a.bf16 ? DType::bf16 : DType::f16;
  // Defined outside the loop: on sm_90a its wgmma buffer is written once, before it.
  Value q = cast(minimum(maximum(o.q, -kQClamp), kQClamp), elem);
  // Rows n0.. of a [m, n] input in the program's column block: f16 from the copy, else f32.
  auto block = [&](bool halfCopy, int input, Value n0) {
    if (halfCopy) return load(o.halfDesc, {n0, o.colStart}, {a.bkv, bn});
    Value rows = col(n0 + arange(0, a.bkv));
    return load(o.in[input] + (rows * o.n + o.colIdx), (rows < o.m) & o.cmask, 0.0f);
  };
  auto as = [](Value x, DType t) { return x.dtype() == t ? x : cast(x, t); };
  auto step = [&](Value n0, std::vector<Value> c) {
    Value k = block(a.keys == AttnKeys::In2Half, a.keys == AttnKeys::In0 ? 0 : 1, n0);
    Value v = as(block(a.values == AttnValues::In2Half, 2, n0), elem);
    Value kt = trans(as(k, elem));
    Value s = dot(q, kt) * a.scale;
    s = where(row(n0 + arange(0, a.bkv) < o.m), s, -kInf); // every block holds a key < m
    Value mNew = maximum(c[0], max(s, 1));
    Value p = exp2(s - col(mNew));
    Value alpha = exp2(c[0] - mNew);
    Value l = c[1] * alpha + sum(p, 1);
    Value acc = dot(cast(p, elem), v, c[2] * col(alpha));
    return std::vector<Value>{mNew, l, acc};
  };
  std::vector<Value> c = for_range(
      0, o.m, a.bkv, {full({bm}, -kInf, DType::f32), zeros({bm}, DType::f32), zeros({bm, bn}, DType::f32)}, step);
  Value out = a.reciprocal ? c[2] * col(1.0f / c[1]) : c[2] / col(c[1]);
  if (a.extra == AttnExtra::RowMax) out = out + col(c[0]);
  if (a.extra == AttnExtra::RowSum) out = out + col(c[1]) * 0.0625f;
  return out;
}

// The error bound, per query row i and output column d. Write w_j = 2^(S_j - M) for the
// exact scores S_j of the rounded queries q~ and keys (M their max, W = sum w_j), so that
// the reference is O = sum_j w_j v_j / W: a convex combination of the rows' values v_j.
// The kernel computes sum_j a_j v_j / sum_j b_j with
//   a_j = w_j c_j (1 + alpha_j),  b_j = w_j c_j (1 + beta_j),
// where c_j, common to numerator and denominator, collects what happens to p_j before the
// numerator and denominator part ways: its score's error dS_j (2^dS_j), the exp2 that makes
// p_j and the alphas that rescale it later (one value multiplies both acc and l). Only
// ratios c_j / c_k matter: with |ln c_j - ln c| <= L for some c,
//   - the convex combination under weights w_j c_j moves by at most (e^(2L) - 1) R, R =
//     max_j |v_j - O| (both lie in the hull of the v_j, so never by more than R);
//   - alpha_j (P rounded to f16/bf16: 2^-11 / 2^-8 relative, the f32 accumulation of P V,
//     the rescaling products, the final division) and beta_j (the f32 sums of l) move the
//     ratio by at most (A + B) / (1 - B) times the c-weighted mean of |v_j|, itself at
//     most e^(2L) times the w-weighted one and at most max |v_j|.
// L = ln2 max_j |dS_j| + (trips + 1) (exp2's relative error + ln2 times its argument's
// rounding), and |dS_j| <= scale (sum_k |dq_k| |k_jk| + gamma sum_k |q_k k_jk|) + the
// scale product's rounding, where dq_k is the largest move of the query's rounding over
// the interval the query's own error bound (tolerance * its magnitude) allows: 0 unless
// that interval holds a rounding boundary. Accumulations are bounded as n terms of 2^-21
// relative each (four times round-to-nearest's worst case: the tensor cores truncate and
// sum in their own order). Probabilities below f16's normal range carry an absolute error
// (2^-25 each, against l >= 1: the key at the running max has p = 1 exactly). The sum of
// the first-order terms is widened by 1/16 for their products.
void referenceAttention(const AttentionSpec &a, int m, int n, int bn, const std::vector<std::vector<float>> &inputs,
                        const std::vector<double> &q, const std::vector<double> &qMag, double tolerance,
                        std::vector<double> &value, std::vector<double> &mag) {
  const std::vector<float> &keySrc = inputs[a.keys == AttnKeys::In0 ? 0 : a.keys == AttnKeys::In1 ? 1 : 2];
  const std::vector<float> &valSrc = inputs[2]; // the f16 copy holds in2's values exactly
  const size_t mn = size_t(m) * n;
  std::vector<double> key(mn), val(mn);
  for (size_t k = 0; k < mn; ++k) key[k] = rounded(keySrc[k], a.bf16), val[k] = rounded(valSrc[k], a.bf16);
  const double ln2 = M_LN2, ulp = std::ldexp(1.0, -23);
  const double u = std::ldexp(1.0, a.bf16 ? -8 : -11);      // P's rounding, relative
  const double tiny = std::ldexp(1.0, a.bf16 ? -125 : -25); // below the normal range, absolute
  const double exp2Err = std::ldexp(1.0, -21);              // exp2 (ex2.approx: 2 ulp), relative
  const int trips = (m + a.bkv - 1) / a.bkv;
  const double gammaK = (bn + 16) * std::ldexp(1.0, -21);                // S's accumulation
  const double gammaN = (m + a.bkv + trips + 16) * std::ldexp(1.0, -21); // P V's and l's
  const double B = gammaN + trips * ulp;                                 // l: sums, rescaling products
  const double A = u + gammaN + trips * ulp + 2 * ulp;                   // acc: + P's rounding, the division
  const double scale = a.scale;
  value.assign(mn, 0.0);
  mag.assign(mn, 0.0);
  std::vector<double> qt(static_cast<size_t>(bn)), dq(qt.size()), s(static_cast<size_t>(m)), w(s.size());
  for (int c0 = 0; c0 < n; c0 += bn) {
    const int width = std::min(bn, n - c0);
    for (int i = 0; i < m; ++i) {
      for (int k = 0; k < width; ++k) {
        const size_t at = size_t(i) * n + c0 + k;
        const double x = q[at], e = tolerance * qMag[at];
        auto r = [&](double y) { return rounded(std::clamp(y, -double(kQClamp), double(kQClamp)), a.bf16); };
        qt[k] = r(x);
        dq[k] = std::max(std::fabs(r(x - e) - qt[k]), std::fabs(r(x + e) - qt[k])); // rounding is monotone
      }
      double maxS = -INFINITY, delta = 0, sMax = 0;
      for (int j = 0; j < m; ++j) {
        double dot = 0, absDot = 0, moved = 0;
        for (int k = 0; k < width; ++k) {
          const double kv = key[size_t(j) * n + c0 + k];
          dot += qt[k] * kv;
          absDot += (std::fabs(qt[k]) + dq[k]) * std::fabs(kv);
          moved += dq[k] * std::fabs(kv);
        }
        s[size_t(j)] = scale * dot;
        delta = std::max(delta, scale * (moved + gammaK * absDot) + ulp * scale * absDot);
        maxS = std::max(maxS, s[size_t(j)]);
        sMax = std::max(sMax, std::fabs(s[size_t(j)]));
      }
      double W = 0;
      for (int j = 0; j < m; ++j) W += w[size_t(j)] = std::exp2(s[size_t(j)] - maxS);
      const double L = ln2 * delta + (trips + 1) * (exp2Err + ln2 * ulp * (sMax + delta));
      const double spread = std::exp(2 * L);
      for (int d = 0; d < width; ++d) {
        double o = 0, absMean = 0, vMax = 0;
        for (int j = 0; j < m; ++j) {
          const double v = val[size_t(j) * n + c0 + d];
          o += w[size_t(j)] * v, absMean += w[size_t(j)] * std::fabs(v), vMax = std::max(vMax, std::fabs(v));
        }
        o /= W, absMean /= W;
        double R = 0;
        for (int j = 0; j < m; ++j) R = std::max(R, std::fabs(val[size_t(j) * n + c0 + d] - o));
        double err = std::min(spread - 1, 1.0) * R + (A + B) / (1 - B) * std::min(spread * absMean, vMax) +
                     2.0 * m * tiny * vMax;
        double result = o;
        if (a.extra == AttnExtra::RowMax) {
          result += maxS;
          err += delta + ulp * (std::fabs(o) + std::fabs(maxS));
        } else if (a.extra == AttnExtra::RowSum) {
          // Each term of l moves by its score's error and by the max's: 2 delta.
          const double lErr =
              W * (std::exp(2 * ln2 * delta + (trips + 1) * (exp2Err + ln2 * ulp * (sMax + delta))) * (1 + B) - 1);
          result += W / 16;
          err += lErr / 16 + ulp * (std::fabs(o) + W / 16);
        }
        const size_t at = size_t(i) * n + c0 + d;
        value[at] = result;
        mag[at] = err * 1.0625 / tolerance + std::fabs(result);
      }
    }
  }
}

} // namespace tile::randomkernels
