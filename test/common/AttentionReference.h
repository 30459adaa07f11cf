//===- AttentionReference.h - attention in float64, the oracle of the tests -===//
// FlashAttention's packed layout (kernels/Attention.h): q and o [tokens, heads·D], k and v
// [tokens, kvHeads·D], sequences one after another from `starts` (batch + 1 offsets).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tile::testing {

struct AttentionShape {
  int heads, kvHeads, d;
  bool causal;
  std::vector<int32_t> starts; ///< cumulative sequence offsets, starts.back() = tokens
  int64_t tokens() const { return starts.back(); }
};

/// The offsets of `batch` sequences of `len` tokens each.
inline std::vector<int32_t> equalLengthStarts(int batch, int len) {
  std::vector<int32_t> s;
  for (int b = 0; b <= batch; ++b) s.push_back(b * len);
  return s;
}

struct AttentionReference {
  std::vector<double> o;   ///< [tokens, heads·d]
  std::vector<double> lse; ///< [heads, tokens], natural log
};

/// softmax(q kᵀ · scale, causal: key <= query within a sequence) v, each input element
/// `toDouble(x)` of its stored bits.
template <class T, class ToDouble>
AttentionReference attentionReference(const AttentionShape &s, const std::vector<T> &q, const std::vector<T> &k,
                                      const std::vector<T> &v, double scale, ToDouble toDouble) {
  const int64_t tokens = s.tokens(), qRow = int64_t(s.heads) * s.d, kvRow = int64_t(s.kvHeads) * s.d;
  const int group = s.heads / s.kvHeads;
  AttentionReference r{std::vector<double>(size_t(tokens * qRow)), std::vector<double>(size_t(s.heads * tokens))};
  std::vector<double> p;
  for (size_t b = 0; b + 1 < s.starts.size(); ++b) {
    const int64_t start = s.starts[b], len = s.starts[b + 1] - start;
    for (int h = 0; h < s.heads; ++h) {
      const int kvh = h / group;
      for (int64_t i = 0; i < len; ++i) {
        const int64_t keys = s.causal ? i + 1 : len;
        p.assign(size_t(keys), 0.0);
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < keys; ++j) {
          double dotProduct = 0;
          for (int c = 0; c < s.d; ++c)
            dotProduct += toDouble(q[size_t((start + i) * qRow + h * s.d + c)]) *
                          toDouble(k[size_t((start + j) * kvRow + kvh * s.d + c)]);
          p[size_t(j)] = dotProduct * scale;
          mx = std::max(mx, p[size_t(j)]);
        }
        double total = 0;
        for (double &x : p) total += (x = std::exp(x - mx));
        for (int c = 0; c < s.d; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < keys; ++j)
            acc += p[size_t(j)] * toDouble(v[size_t((start + j) * kvRow + kvh * s.d + c)]);
          r.o[size_t((start + i) * qRow + h * s.d + c)] = acc / total;
        }
        r.lse[size_t(h * tokens + start + i)] = mx + std::log(total);
      }
    }
  }
  return r;
}

/// The backward's bounds on ||got - ref|| / ||ref|| per gradient: P and dS are rounded to the
/// inputs' type before their products (as FlashAttention does), about 2^-11 (f16) or 2^-8
/// (bf16) of each term, averaging out over the sums.
constexpr double kBackwardF16Tolerance = 3e-3, kBackwardBf16Tolerance = 2e-2;

struct AttentionGradients {
  std::vector<double> dq, dk, dv; ///< shaped like q, k, v
};

/// The gradients of sum(dO ∘ O) for O = attentionReference(...): with P the softmax weights,
/// dV = Pᵀ dO, dS = P ∘ (dO Vᵀ - rowsum(P ∘ dO Vᵀ)), dQ = scale · dS K, dK = scale · dSᵀ Q;
/// a kv head's dK and dV sum over its group's query heads.
template <class T, class ToDouble>
AttentionGradients attentionBackwardReference(const AttentionShape &s, const std::vector<T> &q, const std::vector<T> &k,
                                              const std::vector<T> &v, const std::vector<T> &dO, double scale,
                                              ToDouble toDouble) {
  const int64_t qRow = int64_t(s.heads) * s.d, kvRow = int64_t(s.kvHeads) * s.d;
  const int group = s.heads / s.kvHeads;
  AttentionGradients g{std::vector<double>(q.size()), std::vector<double>(k.size()), std::vector<double>(v.size())};
  auto at = [](const std::vector<T> &x, int64_t i) { return x[size_t(i)]; };
  std::vector<double> p, dp;
  for (size_t b = 0; b + 1 < s.starts.size(); ++b) {
    const int64_t start = s.starts[b], len = s.starts[b + 1] - start;
    for (int h = 0; h < s.heads; ++h) {
      const int64_t qh = h * s.d, kvh = int64_t(h / group) * s.d;
      for (int64_t i = 0; i < len; ++i) {
        const int64_t qi = (start + i) * qRow + qh, keys = s.causal ? i + 1 : len;
        p.assign(size_t(keys), 0.0);
        dp.assign(size_t(keys), 0.0);
        double mx = -std::numeric_limits<double>::infinity(), total = 0, delta = 0;
        for (int64_t j = 0; j < keys; ++j) {
          const int64_t kj = (start + j) * kvRow + kvh;
          for (int c = 0; c < s.d; ++c) {
            p[size_t(j)] += toDouble(at(q, qi + c)) * toDouble(at(k, kj + c)) * scale;
            dp[size_t(j)] += toDouble(at(dO, qi + c)) * toDouble(at(v, kj + c));
          }
          mx = std::max(mx, p[size_t(j)]);
        }
        for (double &x : p) total += (x = std::exp(x - mx));
        for (int64_t j = 0; j < keys; ++j) delta += (p[size_t(j)] /= total) * dp[size_t(j)];
        for (int64_t j = 0; j < keys; ++j) {
          const int64_t kj = (start + j) * kvRow + kvh;
          const double ds = p[size_t(j)] * (dp[size_t(j)] - delta) * scale;
          for (int c = 0; c < s.d; ++c) {
            g.dq[size_t(qi + c)] += ds * toDouble(at(k, kj + c));
            g.dk[size_t(kj + c)] += ds * toDouble(at(q, qi + c));
            g.dv[size_t(kj + c)] += p[size_t(j)] * toDouble(at(dO, qi + c));
          }
        }
      }
    }
  }
  return g;
}

} // namespace tile::testing
