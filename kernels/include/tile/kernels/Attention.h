//===- Attention.h - fused scaled-dot-product attention (FlashAttention) --===//
// O = softmax(Q Kᵀ · scale [+ causal mask]) V per (sequence, head), never materialising
// the scores: each program owns BM query rows of one head and walks the key blocks with an
// online softmax in base 2 (FlashAttention-2's forward, Triton's tutorial 06).
//
// Layout (FlashAttention's): tokens of every sequence packed one after another, each token
// a row of heads x D elements: q [tokens, heads·D], k and v [tokens, kvHeads·D], o like q,
// all row-major and 16-byte aligned (q, k, v are tensor descriptors: TMA on sm_90a). Batches
// of equal lengths are sequences of `seqlen` tokens; variable lengths are given as the
// cumulative offsets `cuSeqlens` [batch + 1] (FlashAttention's varlen interface). Grouped-
// and multi-query attention: query head h reads key/value head h / (heads / kvHeads).
#pragma once

#include "tile/kernels/Declare.h"

#include <cmath>
#include <limits>

namespace tile::kernels {

/// A batch of attention problems in FlashAttention's packed layout (above).
struct AttentionProblem {
  Address q, k, v; ///< [tokens, heads·headDim], [tokens, kvHeads·headDim] (f16 or bf16)
  Address o;       ///< [tokens, heads·headDim], the inputs' type
  Address lse;     ///< [heads, tokens] f32: the natural-log row log-sum-exp
  int64_t batch = 0, heads = 0, kvHeads = 0, headDim = 0;
  /// Equal lengths: every sequence's. Variable lengths: the longest (it sizes the grid).
  int64_t seqlen = 0;
  /// Variable lengths: device i32 [batch + 1] cumulative offsets, and their last value.
  Address cuSeqlens = nullptr;
  int64_t tokens = 0;
  bool causal = false;
  double scale = 0; ///< 0: 1 / sqrt(headDim)
};

/// An attention tile: BM query rows, BN keys per step, warps, K/V ring stages, whether the K/V
/// loops run warp-specialised (a producer warpgroup issues the copies; two consumer warpgroups
/// take turns at their wgmmas: FlashAttention-3's ping-pong) and, so, whether each iteration
/// issues its scores' product with the previous block's P V (FA3's intra-warpgroup overlap).
struct AttentionConfig {
  int bm, bn, numWarps, numStages;
  bool warpSpecialize = true;
  bool overlapIterations = true;
  /// Warp-specialised: the consumer warpgroups take turns at their dots (LoopOptions::pingPong).
  bool pingPong = true;
  /// The forward's WS constant: 0 not warp-specialised, 1 warp-specialised, 2 and overlapped.
  constexpr int schedule() const { return warpSpecialize ? (overlapIterations ? 2 : 1) : 0; }
  /// The backward's WS constant: 0 not warp-specialised, 1 warp-specialised taking turns, 2
  /// warp-specialised without turns.
  constexpr int backwardSchedule() const { return warpSpecialize ? (pingPong ? 1 : 2) : 0; }
};

namespace detail {

/// The online-softmax state of BM query rows: running max m (base-2 units), running sum l,
/// unnormalised output acc [BM, D].
struct OnlineSoftmax {
  Value m, l, acc;
};

/// One key block [n0, n0 + BN) folded into `st`. `mask` (a [BM, BN] i1, or null) keeps the
/// visible scores; scaleLog2 = scale · log2(e), so exp2 of scaled scores is exp of scores.
/// The scores stay unscaled: the row max scales once per row (the scale is positive), and
/// each score's scaling and shift are one FFMA, as in FlashAttention.
inline OnlineSoftmax attentionStep(const OnlineSoftmax &st, Value qBlock, Value kBlock, Value vBlock, Value scaleLog2,
                                   Value mask, DType elem) {
  Value s = dot(qBlock, trans(kBlock));
  if (mask.valid()) s = where(mask, s, -std::numeric_limits<float>::infinity());
  Value mNew = maximum(st.m, max(s, 1) * scaleLog2);
  // fast_exp2: one MUFU.EX2 per score (exp2 adds a fix-up for subnormal results); what
  // it flushes, below 2^-126 of the row's largest term, no sum in f32 would notice.
  Value p = fast_exp2(fma(s, scaleLog2, -col(mNew)));
  Value alpha = fast_exp2(st.m - mNew);
  Value l = st.l * alpha + sum(p, 1);
  Value acc = dot(cast(p, elem), vBlock, st.acc * col(alpha));
  return {mNew, l, acc};
}

constexpr bool sameTile(const AttentionConfig &a, const AttentionConfig &b) {
  return a.bm == b.bm && a.bn == b.bn && a.numWarps == b.numWarps && a.numStages == b.numStages &&
         a.schedule() == b.schedule() && a.pingPong == b.pingPong;
}

/// The packed problem's token count, after checking the shapes every attention kernel
/// shares (heads, kv heads, batch, lengths: 32-bit offsets). Fails naming `kernel`.
inline int64_t checkedTokens(const char *kernel, const AttentionProblem &p) {
  checkRange(kernel, "headDim", p.headDim, 64, 256);
  checkRange(kernel, "heads", p.heads, 1, 1 << 16);
  checkRange(kernel, "kvHeads", p.kvHeads, 1, p.heads);
  if (p.heads % p.kvHeads) fail(kernel, "kvHeads = " + num(p.kvHeads) + " does not divide heads = " + num(p.heads));
  checkRange(kernel, "batch", p.batch, 1, 1 << 16);
  checkRange(kernel, "seqlen", p.seqlen, 0, kMaxI32);
  const int64_t tokens = p.cuSeqlens.ptr() != 0 ? p.tokens : p.batch * p.seqlen;
  checkRange(kernel, "tokens", tokens, 0, kMaxI32 / (p.heads * p.headDim));
  return tokens;
}

/// The softmax scale: the problem's, or 1 / sqrt(headDim).
inline double softmaxScale(const AttentionProblem &p) {
  return p.scale > 0 ? p.scale : 1.0 / std::sqrt(double(p.headDim));
}

/// Sequence b's first token and its length: equal lengths, or the packed cumulative
/// offsets `cuSeqlens` (varlen).
struct SequenceExtent {
  Value start, len;
};
inline SequenceExtent sequenceExtent(Value b, Value seqlen, Value cuSeqlens, bool varlen) {
  Value start = varlen ? load(cuSeqlens + b) : b * seqlen;
  Value len = varlen ? load(cuSeqlens + (b + 1)) - start : seqlen;
  return {start, len};
}

/// The key blocks a block of BM queries from m0 walks: [0, unmaskedHi) wholly visible to every
/// query (unmasked), then [unmaskedHi, maskedHi), the blocks the mask cuts (the ragged tail, or
/// the causal diagonal). A block of queries past its sequence's end walks none. Causal needs
/// BN to divide BM (the diagonal starts at m0).
struct KeyBlockRuns {
  Value unmaskedHi, maskedHi;
};
inline KeyBlockRuns keyBlockRuns(Value m0, Value len, int bm, int bn, bool causal) {
  Value hi = causal ? minimum(m0 + bm, len) : len;
  hi = where(m0 < len, hi, 0);
  return {minimum(causal ? m0 : (len / bn) * bn, hi), hi};
}

/// [queries, keys] i1: which scores a query sees (keys inside the sequence; causal: key <= query).
inline Value visibleScores(Value queries, Value keys, Value len, bool causal) {
  Value visible = row(keys < len);
  return causal ? visible & (col(queries) >= row(keys)) : visible;
}

} // namespace detail

/// The forward pass: O and the row log-sum-exp (natural log, [heads, tokens] f32, what the
/// backward pass recomputes P from) for f16/bf16 inputs, f32 accumulation, head dim D.
/// Rows past a sequence's length are neither read as keys nor written.
template <class T> struct AttentionForward {
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16>, "attention inputs are f16 or bf16");
  static constexpr const char *name = std::is_same_v<T, f16> ? "attention_fwd_f16" : "attention_fwd_bf16";
  static constexpr DType kElem = std::is_same_v<T, f16> ? DType::f16 : DType::bf16;

  static constexpr auto body = [](TensorDesc<T, 2> q, TensorDesc<T, 2> k, TensorDesc<T, 2> v, Ptr<T> o, Ptr<float> lse,
                                  Ptr<int32_t> cuSeqlens, I32 seqlen, I32 tokens, I32 heads, I32 groupSize,
                                  F32 scaleLog2, Const<int> BM, Const<int> BN, Const<int> D, Const<int> CAUSAL,
                                  Const<int> VARLEN, Const<int> WS) {
    // Causal blocks cost in proportion to their row (the keys up to the diagonal): the grid
    // launches the costliest first, so that the last wave is cheap blocks rather than the
    // sequence's longest rows (FlashAttention-3's order).
    Value mBlock = CAUSAL ? num_programs(0) - 1 - program_id(0) : program_id(0);
    Value m0 = mBlock * BM, bh = program_id(1);
    Value b = bh / heads, h = bh % heads, kvh = h / groupSize;
    const detail::SequenceExtent seq = detail::sequenceExtent(b, seqlen, cuSeqlens, VARLEN);
    Value start = seq.start, len = seq.len;

    Value qBlock = load(q, {start + m0, h * D}, {BM, D});
    const float inf = std::numeric_limits<float>::infinity();
    detail::OnlineSoftmax st{full({BM}, -inf, DType::f32), zeros({BM}, DType::f32), zeros({BM, D}, DType::f32)};
    Value rows = m0 + arange(0, BM);
    const detail::KeyBlockRuns runs = detail::keyBlockRuns(m0, len, BM, BN, CAUSAL);
    auto step = [&](bool masked) {
      return [&, masked](Value n0, std::vector<Value> c) {
        Value kBlock = load(k, {start + n0, kvh * D}, {BN, D});
        Value vBlock = load(v, {start + n0, kvh * D}, {BN, D});
        Value mask;
        if (masked) {
          Value keys = n0 + arange(0, BN);
          mask = detail::visibleScores(rows, keys, len, CAUSAL);
        }
        detail::OnlineSoftmax next =
            detail::attentionStep({c[0], c[1], c[2]}, qBlock, kBlock, vBlock, scaleLog2, mask, kElem);
        return std::vector<Value>{next.m, next.l, next.acc};
      };
    };
    const LoopOptions schedule{.warpSpecialize = WS != 0, .overlapIterations = WS == 2};
    std::vector<Value> c = for_range(0, runs.unmaskedHi, BN, {st.m, st.l, st.acc}, step(false), schedule);
    c = for_range(runs.unmaskedHi, runs.maskedHi, BN, c, step(true), schedule);

    Value inside = rows < len;
    Value out = c[2] * col(1.0f / c[1]); // one division per row
    Value cols = arange(0, D);
    store(o + col(start + rows) * (heads * D) + (row(cols) + h * D), cast(out, kElem), col(inside));
    // log-sum-exp in natural units: sum exp(s) = 2^m · l.
    store(lse + h * tokens + (start + rows), c[0] * float(M_LN2) + log(c[1]), inside);
  };
  static constexpr std::array params{"q",      "k",      "v",      "o",          "lse",        "cu_seqlens",
                                     "seqlen", "tokens", "heads",  "group_size", "scale_log2", "BM",
                                     "BN",     "D",      "CAUSAL", "VARLEN",     "WS"};
  // A head count and a group size of 1 are rarely multiples of 16: assumed of neither, so that
  // they do not hold the descriptors and pointers to the specialisations without their facts.
  static constexpr std::array factFreeParams{"heads", "group_size"};

  /// The tile per head dim: BM query rows on two warpgroups (64 rows each), BN keys per
  /// step, K/V rings as deep as shared memory allows (Q once + 2 · stages · BN · D · 2 bytes).
  /// The fastest of kSweep's in bench_attention on an H200 (bench/NOTES.md): warp-specialised
  /// with turns, K and V on rings of their own. At D = 64 and 128 with the overlap (+2-9% over
  /// the same tile without it at D = 128), which with K and V apart needs two stages at least:
  /// 128 x 128 blocks, on three at D = 128 (+2-10% over two on every row, in two calls of
  /// 2026-11-28), on two at D = 64 (three or four measure the same, within the 16k rows' ±5%
  /// from call to call). D = 256 (128 x 64 on two stages) without it: overlapped, the consumers
  /// spill a few registers and gain nothing.
  static constexpr AttentionConfig configFor(int headDim) {
    return headDim <= 64    ? AttentionConfig{128, 128, 8, 2}
           : headDim <= 128 ? AttentionConfig{128, 128, 8, 3}
                            : AttentionConfig{128, 64, 8, 2, true, false};
  }
  static constexpr int kHeadDims[] = {64, 128, 256};
  /// bench_attention's sweep (equal lengths): other tiles per head dim, beside configFor's.
  struct SweepTile {
    int headDim;
    AttentionConfig config;
  };
  /// Beside each configFor tile, the schedules it improves on (not warp-specialised;
  /// warp-specialised without the overlap; the overlap on other stage counts; at D = 256 one
  /// warpgroup on 64 x 64), to measure each step. (D = 256 overlapped spills, which the
  /// ptxas_library_kernels test refuses: bench/NOTES.md has its figures.)
  static constexpr SweepTile kSweep[] = {
      {64, {128, 64, 8, 4, false}}, {64, {128, 128, 8, 2, true, false}}, {64, {128, 128, 8, 3}},
      {64, {128, 128, 8, 4}},       {128, {128, 128, 8, 3, false}},      {128, {128, 128, 8, 2, true, false}},
      {128, {128, 128, 8, 2}},      {256, {128, 64, 8, 2, false}},       {256, {64, 64, 4, 2}}};

  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    auto add = [&](int d, const AttentionConfig &c, int causal, int varlen) {
      v.push_back({{c.bm, c.bn, d, causal, varlen, c.schedule()}, c.numWarps, /*unitOnly=*/false, c.numStages});
    };
    for (int d : kHeadDims)
      for (int causal = 0; causal < 2; ++causal)
        for (int varlen = 0; varlen < 2; ++varlen) add(d, configFor(d), causal, varlen);
    for (const SweepTile &t : kSweep)
      for (int causal = 0; causal < 2; ++causal) add(t.headDim, t.config, causal, 0);
    return v;
  }

  /// O = softmax(Q Kᵀ · scale [causal]) V and the row log-sum-exp, for the packed problem `p`
  /// (the layout above). Refuses what no variant computes, naming the rule.
  /// `config`: one of kSweep's tiles for p.headDim (equal lengths only), else configFor's.
  static void launch(Launcher &l, const AttentionProblem &p, CUstream stream = nullptr,
                     const AttentionConfig *config = nullptr) {
    if (p.headDim != 64 && p.headDim != 128 && p.headDim != 256) fail(name, "headDim is 64, 128 or 256");
    const int64_t tokens = detail::checkedTokens(name, p);
    if (tokens == 0 || p.seqlen == 0) return;
    const bool varlen = p.cuSeqlens.ptr() != 0;
    if (config && (varlen || !inSweep(int(p.headDim), *config)))
      fail(name, "no compiled variant has the requested tile (kSweep's, equal lengths)");
    const AttentionConfig c = config ? *config : configFor(int(p.headDim));
    const int64_t qRow = p.heads * p.headDim, kvRow = p.kvHeads * p.headDim;
    const double scale = detail::softmaxScale(p);
    launchKernel<AttentionForward>(
        l, {ceilDiv(p.seqlen, c.bm), p.batch * p.heads}, {c.numWarps, c.numStages}, stream,
        TensorDescArg{p.q.ptr(), {tokens, qRow}, {qRow, 1}}, TensorDescArg{p.k.ptr(), {tokens, kvRow}, {kvRow, 1}},
        TensorDescArg{p.v.ptr(), {tokens, kvRow}, {kvRow, 1}}, p.o, p.lse, p.cuSeqlens, int32_t(p.seqlen),
        int32_t(tokens), int32_t(p.heads), int32_t(p.heads / p.kvHeads), float(scale / M_LN2), c.bm, c.bn,
        int(p.headDim), int(p.causal), int(varlen), c.schedule());
  }

  static constexpr bool inSweep(int headDim, const AttentionConfig &c) {
    for (const SweepTile &t : kSweep)
      if (t.headDim == headDim && detail::sameTile(t.config, c)) return true;
    return false;
  }
};
using AttentionForwardF16 = AttentionForward<f16>;
using AttentionForwardBf16 = AttentionForward<bf16>;
TILE_LIBRARY_KERNEL(AttentionForwardF16);
TILE_LIBRARY_KERNEL(AttentionForwardBf16);

} // namespace tile::kernels
