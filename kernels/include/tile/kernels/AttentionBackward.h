//===- AttentionBackward.h - the gradients of fused attention (FlashAttention-2) ===//
// Given the forward's inputs, its output O and row log-sum-exp L (Attention.h), and the
// output's gradient dO, computes dQ, dK, dV without materialising the scores, as
// FlashAttention-2's backward does, in three kernels:
//   1. delta: D_i = rowsum(dO ∘ O)_i per query row (= Σ_j P_ij dP_ij);
//   2. dK, dV: each program owns BN keys of one kv head and walks the query blocks of every
//      query head of its group, recomputing Pᵀ = exp(scale·K Qᵀ - L) from L:
//        dV += Pᵀ dO,  dSᵀ = Pᵀ ∘ (V dOᵀ - D),  dK += scale · dSᵀ Q;
//   3. dQ: each program owns BM query rows of one head and walks the key blocks:
//        dS = P ∘ (dO Vᵀ - D),  dQ += scale · dS K.
// WS = 1 runs kernels 2 and 3's loops warp-specialised (LoopOptions::warpSpecialize: a producer
// warpgroup streams Q/dO, or K/V, by TMA; the consumer warpgroups take turns at their dots);
// WS = 2 likewise without turns (LoopOptions::pingPong = false).
// Deterministic mode: no atomics, dQ gets its own pass and a kv head's dK/dV sum its query
// heads in one program, so the gradients are bit-identical from run to run by construction.
// One-pass mode (FlashAttention-3's; AttentionBackwardProblem::dqAccum given): kernel 2 (DQ = 1)
// also adds each block's dQᵀ = Kᵀ dSᵀ into an f32 accumulator that kernel 1 zeroed, by a
// descriptor atomic_add (on sm_90a one TMA reduce-add per block), and kernel 3 is a cast of
// the accumulator: five products per block instead of seven, the sums' order left to the GPU.
// The transposed products are computed transposed (K Qᵀ, V dOᵀ) so that Pᵀ and dSᵀ come out
// in the accumulator layout and feed the next dot from registers.
#pragma once

#include "tile/kernels/Attention.h"

namespace tile::kernels {

/// The gradients of one forward problem. `forward` is the problem the forward ran (its q,
/// k, v, o and lse are read); the gradients have the shapes and type of q, k, v.
struct AttentionBackwardProblem {
  AttentionProblem forward;
  Address dO;         ///< [tokens, heads·headDim], the inputs' type
  Address dq, dk, dv; ///< like q, k, v
  Address delta;      ///< workspace: [heads, tokens] f32
  /// Workspace of the one-pass mode, dQᵀ accumulated by atomics: [heads·headDim, tokens
  /// rounded up to 16] f32, AttentionBackward<T>::dqAccumBytes (16-byte aligned). Null: the
  /// deterministic mode (dQ in a pass of its own, gradients bit-identical from run to run).
  Address dqAccum = nullptr;
};

namespace detail {

/// Query blocks [lo, hi) of one key block that some query of the sequence sees, in three
/// runs: the causal diagonal (masked), the blocks wholly visible (unmasked), the ragged tail
/// (masked). Without the causal mask the diagonal run is empty.
struct QueryBlockRuns {
  Value diagonalLo, diagonalHi, fullHi, tailHi;
};

inline QueryBlockRuns queryBlockRuns(Value n0, Value len, int bm, int bn, bool causal) {
  // A key block past the sequence's end has no gradient to compute.
  Value end = where(n0 < len, len, 0);
  Value full = (end / bm) * bm;
  if (!causal) return {constant(0, DType::i32), constant(0, DType::i32), full, end};
  Value diagonalHi = minimum(((n0 + bn + (bm - 1)) / bm) * bm, end);
  Value diagonalLo = minimum((n0 / bm) * bm, diagonalHi);
  Value fullHi = maximum(full, diagonalHi);
  return {diagonalLo, diagonalHi, fullHi, end};
}

} // namespace detail

/// The backward's tiles for one head dim: dK/dV's programs own BN keys and step BM queries,
/// dQ's own BM queries and step BN keys. The fastest of bench_attention's sweep on an H200
/// (bench/NOTES.md): at D = 128 both kernels warp-specialised on two consumer warpgroups that
/// do not take turns (as FlashAttention-3's backward; +2-13% over taking turns, the one pass
/// +9-13%), well above the one-warpgroup tiles without it; at D = 64 those one-warpgroup
/// tiles, 13-19% above the warp-specialised ones taking turns (without turns: level within
/// the runs' spread, bench/NOTES.md 2026-11-28).
/// `onePass`: the dK/dV kernel's tile when it also accumulates dQ (the one-pass mode).
struct AttentionBackwardConfig {
  AttentionConfig keyValue, query;
  AttentionConfig onePass = {64, 128, 8, 2};
};
constexpr AttentionBackwardConfig attentionBackwardConfigFor(int headDim) {
  return headDim <= 64 ? AttentionBackwardConfig{{64, 64, 4, 2, false}, {64, 64, 4, 3, false}, {64, 64, 4, 2, false}}
                       : AttentionBackwardConfig{{64, 128, 8, 2, true, true, false},
                                                 {128, 64, 8, 2, true, true, false},
                                                 {64, 128, 8, 2, true, true, false}};
}
/// The one-pass dK/dV tile for a problem: `onePass`, but 32-query blocks for packed causal
/// problems on the two-warpgroup 64-query tile (which spills 4 bytes there at 240 registers).
constexpr AttentionConfig onePassTileFor(const AttentionConfig &onePass, bool causal, bool varlen) {
  if (causal && varlen && onePass.bm == 64 && onePass.numWarps == 8 && onePass.warpSpecialize) {
    AttentionConfig c = onePass;
    c.bm = 32;
    return c;
  }
  return onePass;
}
constexpr int kAttentionBackwardHeadDims[] = {64, 128};
/// bench_attention's sweep of the backward (f16, equal lengths): other tiles beside configFor's.
struct AttentionBackwardSweepTile {
  int headDim;
  AttentionBackwardConfig config;
};
constexpr AttentionBackwardSweepTile kAttentionBackwardSweep[] = {
    {64, {{64, 128, 8, 2}, {128, 64, 8, 2}, {64, 128, 8, 2}}},
    // D = 128's tiles, warp-specialised without turns: the two passes level with the library's
    // within the runs' spread; the one pass 197-204 TFLOP/s (the library's 320-331).
    {64, {{64, 128, 8, 2, true, true, false}, {128, 64, 8, 2, true, true, false}, {64, 128, 8, 2, true, true, false}}},
    {64, {{64, 64, 4, 2, false}, {64, 64, 4, 3, false}, {64, 128, 8, 3}}},
    {128, {{64, 128, 8, 3}, {128, 64, 8, 3}, {64, 128, 8, 3}}},
    // One pass on 32-query blocks: the 64-query one-warpgroup tile (244-258 TFLOP/s, well below the
    // warp-specialised ones) spills 24-48 bytes since L and D are shuffled into Sᵀ's columns.
    {128, {{32, 64, 4, 3, false}, {64, 64, 4, 2, false}, {32, 64, 4, 2, false}}},
    // Warp-specialised taking turns (FlashAttention-3's forward ping-pong; its backward has none).
    {128, {{64, 128, 8, 2}, {128, 64, 8, 2}, {64, 128, 8, 2}}}};

constexpr bool inAttentionBackwardSweep(int headDim, const AttentionBackwardConfig &c) {
  for (const AttentionBackwardSweepTile &t : kAttentionBackwardSweep)
    if (t.headDim == headDim && detail::sameTile(t.config.keyValue, c.keyValue) &&
        detail::sameTile(t.config.query, c.query) && detail::sameTile(t.config.onePass, c.onePass))
      return true;
  return false;
}

namespace detail {
/// The variants of a backward kernel: its tile (`which` of the config) per head dim, causal
/// or not, equal or packed lengths; with `sweep`, kAttentionBackwardSweep's (equal lengths).
/// `dq` >= 0: the dK/dV kernel's DQ constant, last.
inline std::vector<Variant> attentionBackwardVariants(AttentionConfig AttentionBackwardConfig::*which, bool sweep,
                                                      int dq = -1) {
  std::vector<Variant> v;
  auto add = [&](int d, const AttentionConfig &c, int causal, int varlen) {
    std::vector<int64_t> consts{c.bm, c.bn, d, causal, varlen, c.backwardSchedule()};
    if (dq >= 0) consts.push_back(dq);
    const Variant variant{consts, c.numWarps, /*unitOnly=*/false, c.numStages};
    for (const Variant &have : v) // sweep tiles may share one kernel's tile
      if (have.consts == variant.consts && have.numWarps == variant.numWarps && have.numStages == variant.numStages)
        return;
    v.push_back(variant);
  };
  for (int d : kAttentionBackwardHeadDims)
    for (int causal = 0; causal < 2; ++causal)
      for (int varlen = 0; varlen < 2; ++varlen) {
        const AttentionConfig c = attentionBackwardConfigFor(d).*which;
        add(d, dq == 1 ? onePassTileFor(c, causal, varlen) : c, causal, varlen);
      }
  if (sweep)
    for (const AttentionBackwardSweepTile &t : kAttentionBackwardSweep)
      for (int causal = 0; causal < 2; ++causal) add(t.headDim, t.config.*which, causal, 0);
  return v;
}
} // namespace detail

/// Kernel 1 of the backward: delta[h, token] = Σ_c dO ∘ O over the head's D columns (f32).
template <class T> struct AttentionBackwardDelta {
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16>, "attention inputs are f16 or bf16");
  static constexpr const char *name = std::is_same_v<T, f16> ? "attention_bwd_delta_f16" : "attention_bwd_delta_bf16";

  static constexpr auto body = [](Ptr<T> o, Ptr<T> dO, Ptr<float> delta, Ptr<float> dqAccum, Ptr<int32_t> cuSeqlens,
                                  I32 seqlen, I32 tokens, I32 heads, I32 ld, Const<int> BM, Const<int> D,
                                  Const<int> VARLEN, Const<int> ZERO_DQ) {
    Value m0 = program_id(0) * BM, bh = program_id(1);
    Value b = bh / heads, h = bh % heads;
    const detail::SequenceExtent seq = detail::sequenceExtent(b, seqlen, cuSeqlens, VARLEN);
    Value rows = m0 + arange(0, BM);
    Value inside = rows < seq.len;
    Value at = col(seq.start + rows) * (heads * D) + (row(arange(0, D)) + h * D);
    Value prod = cast(load(o + at, col(inside), 0.0f), DType::f32) * cast(load(dO + at, col(inside), 0.0f), DType::f32);
    store(delta + h * tokens + (seq.start + rows), sum(prod, 1), inside);
    // The one-pass mode's dQᵀ accumulator ([heads·D, ld] f32) starts at zero: this block's
    // columns of the head's rows, zeroed here.
    if (ZERO_DQ)
      store(dqAccum + row(h * D + arange(0, D)) * ld + col(seq.start + rows), zeros({BM, D}, DType::f32), col(inside));
  };
  static constexpr std::array params{"o",     "d_o", "delta", "dq_accum", "cu_seqlens", "seqlen", "tokens",
                                     "heads", "ld",  "BM",    "D",        "VARLEN",     "ZERO_DQ"};
  static constexpr std::array factFreeParams{"heads"}; // as AttentionForward's
  static constexpr int kBlockRows = 64;

  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int d : {64, 128})
      for (int varlen = 0; varlen < 2; ++varlen)
        for (int zero = 0; zero < 2; ++zero) v.push_back({{kBlockRows, d, varlen, zero}, 4});
    return v;
  }
};

/// Kernel 2 of the backward: dK and dV of BN keys of one kv head (summed over its group's
/// query heads), walking the query blocks BM at a time; with DQ = 1 also each block's share
/// of dQᵀ/scale, added to `dqAccum` ([heads·D, padded tokens] f32; unused with DQ = 0).
template <class T> struct AttentionBackwardKeyValue {
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16>, "attention inputs are f16 or bf16");
  static constexpr const char *name = std::is_same_v<T, f16> ? "attention_bwd_dkdv_f16" : "attention_bwd_dkdv_bf16";
  static constexpr DType kElem = std::is_same_v<T, f16> ? DType::f16 : DType::bf16;

  static constexpr auto body = [](TensorDesc<T, 2> q, TensorDesc<T, 2> k, TensorDesc<T, 2> v, TensorDesc<T, 2> dO,
                                  Ptr<float> lse, Ptr<float> delta, Ptr<T> dk, Ptr<T> dv, TensorDesc<float, 2> dqAccum,
                                  Ptr<int32_t> cuSeqlens, I32 seqlen, I32 tokens, I32 heads, I32 groupSize, F32 scale,
                                  Const<int> BM, Const<int> BN, Const<int> D, Const<int> CAUSAL, Const<int> VARLEN,
                                  Const<int> WS, Const<int> DQ) {
    Value n0 = program_id(0) * BN, bkv = program_id(1);
    Value kvHeads = heads / groupSize;
    Value b = bkv / kvHeads, kvh = bkv % kvHeads;
    const detail::SequenceExtent seq = detail::sequenceExtent(b, seqlen, cuSeqlens, VARLEN);
    Value start = seq.start, len = seq.len;
    Value keys = n0 + arange(0, BN);
    Value kBlock = load(k, {start + n0, kvh * D}, {BN, D});
    // Keys past the sequence (the next one's, packed behind it) have no gradient of their own
    // (their dK/dV rows are not stored), but would add to dQ = dS K: zero rows there instead.
    if (DQ) kBlock = where(col(keys < len), kBlock, zeros({BN, D}, kElem));
    Value vBlock = load(v, {start + n0, kvh * D}, {BN, D});
    Value scaleLog2 = scale * float(M_LOG2E);
    const detail::QueryBlockRuns runs = detail::queryBlockRuns(n0, len, BM, BN, CAUSAL);

    // Each run of query blocks [lo, hi) is walked for every query head of the group as one
    // flat loop over (head, block) pairs, not a loop of loops: the software pipeliner streams
    // Q and dO blocks by TMA through a loop at the top level only.
    auto run = [&](Value lo, Value hi, bool masked, std::vector<Value> grads) {
      Value blocks = (hi - lo + (BM - 1)) / BM;
      return for_range(
          0, blocks * groupSize, 1, grads,
          [&](Value it, std::vector<Value> c) {
            Value g = it / blocks, block = it - g * blocks;
            // One pass: each program starts its walk at a block of its own (rotated by its key
            // block), so that the programs of a head add to different dQ blocks at a time rather
            // than all to the same one (the adds to one block serialise in L2).
            if (DQ) block = (block + program_id(0)) % blocks;
            Value m0 = lo + block * BM;
            Value h = kvh * groupSize + g;
            Value qBlock = load(q, {start + m0, h * D}, {BM, D});
            Value doBlock = load(dO, {start + m0, h * D}, {BM, D});
            Value rows = m0 + arange(0, BM);
            // Rows past the sequence (masked blocks only) read the last row's L and D instead:
            // finite, and their probabilities are masked to 0 below (no load predicates held).
            Value at = h * tokens + (start + (masked ? minimum(rows, len - 1) : rows));
            Value lse2 = load(lse + at) * float(M_LOG2E);
            Value d = load(delta + at);
            // Both products of the block first: they are independent, so the second's wgmmas run
            // while the first's exp2 does (tile-pipeline's OverlapDots; warp-specialised: one turn).
            Value sT = dot(kBlock, trans(qBlock)); // [BN, BM]
            Value dpT = dot(vBlock, trans(doBlock));
            Value pT = fast_exp2(sT * scaleLog2 - row(lse2)); // probabilities: fast_exp2 as the forward
            if (masked) {
              Value visible = row(rows < len);
              if (CAUSAL) visible = visible & (row(rows) >= col(keys));
              pT = where(visible, pT, 0.0f);
            }
            Value dvNext = dot(cast(pT, kElem), doBlock, c[1]);
            Value dsT = cast(pT * (dpT - row(d)), kElem);
            // dQᵀ = Kᵀ dSᵀ [D, BM]: K's buffer read transposed (wgmma's MN-major a), dSᵀ staged
            // once in shared memory, the product added as it comes out of the tensor cores to
            // the accumulator laid out transposed ([heads·D, tokens]; the cast kernel turns it
            // back). Queries past the sequence add zeros (their dS is 0): harmless to a neighbour.
            // Warp-specialised, issued before dK's product, in one turn with it: dK's wgmmas
            // then run while dQᵀ is staged and added. Without turns the order changes nothing
            // (each dot waits as issued): after it, as before.
            Value dqT = DQ && WS ? dot(trans(kBlock), dsT) : Value();
            Value dkNext = dot(dsT, qBlock, c[0]);
            if (DQ && WS == 0) dqT = dot(trans(kBlock), dsT);
            if (DQ) atomic_add(dqAccum, {h * D, start + m0}, dqT);
            return std::vector<Value>{dkNext, dvNext};
          },
          LoopOptions{.warpSpecialize = WS != 0, .pingPong = WS != 2});
    };
    std::vector<Value> grads = {zeros({BN, D}, DType::f32), zeros({BN, D}, DType::f32)};
    grads = run(runs.diagonalLo, runs.diagonalHi, true, grads);
    grads = run(runs.diagonalHi, runs.fullHi, false, grads);
    grads = run(runs.fullHi, runs.tailHi, true, grads);

    Value at = col(start + keys) * (kvHeads * D) + (row(arange(0, D)) + kvh * D);
    Value inside = col(keys < len);
    store(dk + at, cast(grads[0] * scale, kElem), inside);
    store(dv + at, cast(grads[1], kElem), inside);
  };
  static constexpr std::array params{"q",      "k",          "v",      "d_o",    "lse",   "delta",      "dk",    "dv",
                                     "dq_acc", "cu_seqlens", "seqlen", "tokens", "heads", "group_size", "scale", "BM",
                                     "BN",     "D",          "CAUSAL", "VARLEN", "WS",    "DQ"};
  static constexpr std::array factFreeParams{"heads", "group_size"}; // as AttentionForward's
  static std::vector<Variant> variants() {
    std::vector<Variant> v =
        detail::attentionBackwardVariants(&AttentionBackwardConfig::keyValue, std::is_same_v<T, f16>, /*dq=*/0);
    std::vector<Variant> onePass =
        detail::attentionBackwardVariants(&AttentionBackwardConfig::onePass, std::is_same_v<T, f16>, /*dq=*/1);
    v.insert(v.end(), onePass.begin(), onePass.end());
    return v;
  }
};

/// Kernel 3 of the backward: dQ of BM query rows of one head, walking the key blocks as the
/// forward does (detail::keyBlockRuns).
template <class T> struct AttentionBackwardQuery {
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16>, "attention inputs are f16 or bf16");
  static constexpr const char *name = std::is_same_v<T, f16> ? "attention_bwd_dq_f16" : "attention_bwd_dq_bf16";
  static constexpr DType kElem = std::is_same_v<T, f16> ? DType::f16 : DType::bf16;

  static constexpr auto body = [](TensorDesc<T, 2> q, TensorDesc<T, 2> k, TensorDesc<T, 2> v, TensorDesc<T, 2> dO,
                                  Ptr<float> lse, Ptr<float> delta, Ptr<T> dq, Ptr<int32_t> cuSeqlens, I32 seqlen,
                                  I32 tokens, I32 heads, I32 groupSize, F32 scale, Const<int> BM, Const<int> BN,
                                  Const<int> D, Const<int> CAUSAL, Const<int> VARLEN, Const<int> WS) {
    // Costliest causal blocks first, as the forward (Attention.h).
    Value mBlock = CAUSAL ? num_programs(0) - 1 - program_id(0) : program_id(0);
    Value m0 = mBlock * BM, bh = program_id(1);
    Value b = bh / heads, h = bh % heads, kvh = h / groupSize;
    const detail::SequenceExtent seq = detail::sequenceExtent(b, seqlen, cuSeqlens, VARLEN);
    Value start = seq.start, len = seq.len;
    Value qBlock = load(q, {start + m0, h * D}, {BM, D});
    Value doBlock = load(dO, {start + m0, h * D}, {BM, D});
    Value rows = m0 + arange(0, BM);
    Value inside = rows < len;
    Value at = h * tokens + (start + rows);
    Value lse2 = load(lse + at, inside, 0.0f) * float(M_LOG2E);
    Value d = load(delta + at, inside, 0.0f);
    Value scaleLog2 = scale * float(M_LOG2E);

    const detail::KeyBlockRuns runs = detail::keyBlockRuns(m0, len, BM, BN, CAUSAL);
    auto block = [&](bool masked) {
      return [&, masked](Value n0, std::vector<Value> c) {
        Value kBlock = load(k, {start + n0, kvh * D}, {BN, D});
        Value vBlock = load(v, {start + n0, kvh * D}, {BN, D});
        Value s = dot(qBlock, trans(kBlock));           // [BM, BN]
        Value dp = dot(doBlock, trans(vBlock));         // in flight during s's exp2 (as in dK/dV)
        Value p = fast_exp2(s * scaleLog2 - col(lse2)); // probabilities: fast_exp2 as the forward
        if (masked) {
          Value keys = n0 + arange(0, BN);
          p = where(detail::visibleScores(rows, keys, len, CAUSAL), p, 0.0f);
        }
        Value ds = p * (dp - col(d));
        return std::vector<Value>{dot(cast(ds, kElem), kBlock, c[0])};
      };
    };
    const LoopOptions ws{.warpSpecialize = WS != 0, .pingPong = WS != 2};
    std::vector<Value> dqAcc = for_range(0, runs.unmaskedHi, BN, {zeros({BM, D}, DType::f32)}, block(false), ws);
    dqAcc = for_range(runs.unmaskedHi, runs.maskedHi, BN, dqAcc, block(true), ws);
    store(dq + col(start + rows) * (heads * D) + (row(arange(0, D)) + h * D), cast(dqAcc[0] * scale, kElem),
          col(inside));
  };
  static constexpr std::array params{"q",          "k",      "v",      "d_o",    "lse",        "delta", "dq",
                                     "cu_seqlens", "seqlen", "tokens", "heads",  "group_size", "scale", "BM",
                                     "BN",         "D",      "CAUSAL", "VARLEN", "WS"};
  static constexpr std::array factFreeParams{"heads", "group_size"}; // as AttentionForward's
  static std::vector<Variant> variants() {
    return detail::attentionBackwardVariants(&AttentionBackwardConfig::query, std::is_same_v<T, f16>);
  }
};

/// Kernel 3 of the one-pass mode: dq = scale · dqAccumᵀ in the inputs' type (dqAccum
/// [cols, ld] f32, dq [rows, cols]).
template <class T> struct AttentionBackwardQueryCast {
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16>, "attention inputs are f16 or bf16");
  static constexpr const char *name =
      std::is_same_v<T, f16> ? "attention_bwd_dq_cast_f16" : "attention_bwd_dq_cast_bf16";
  static constexpr DType kElem = std::is_same_v<T, f16> ? DType::f16 : DType::bf16;

  static constexpr auto body = [](Ptr<float> dqAccum, Ptr<T> dq, I32 rows, I32 cols, I32 ld, F32 scale, Const<int> BM,
                                  Const<int> BN) {
    Value r = program_id(0) * BM + arange(0, BM), c = program_id(1) * BN + arange(0, BN);
    Value inside = col(r < rows) & row(c < cols);
    Value sum = load(dqAccum + row(c) * ld + col(r), inside, 0.0f);
    store(dq + col(r) * cols + row(c), cast(sum * scale, kElem), inside);
  };
  static constexpr std::array params{"dq_accum", "dq", "rows", "cols", "ld", "scale", "BM", "BN"};
  static constexpr int kBlockRows = 64, kBlockCols = 64;
  static std::vector<Variant> variants() { return {{{kBlockRows, kBlockCols}, 4}}; }
};

/// The backward pass of AttentionForward<T>: dQ, dK, dV (the inputs' type) from dO, the
/// forward's O and row log-sum-exp, for head dims 64 and 128; one pass or deterministic
/// (AttentionBackwardProblem::dqAccum).
template <class T> struct AttentionBackward {
  static constexpr const char *name = std::is_same_v<T, f16> ? "attention_bwd_f16" : "attention_bwd_bf16";

  /// The one-pass mode's accumulator columns: the tokens rounded up to 16 (whole 16-byte rows,
  /// so that TMA may add its blocks).
  static constexpr int64_t accumulatorColumns(int64_t tokens) { return (tokens + 15) / 16 * 16; }
  /// The bytes of AttentionBackwardProblem::dqAccum for `f`.
  static int64_t dqAccumBytes(const AttentionProblem &f) {
    return f.heads * f.headDim * accumulatorColumns(detail::checkedTokens(name, f)) * int64_t(sizeof(float));
  }

  /// The gradients of the packed problem `p.forward` (Attention.h's layout), on `stream`:
  /// three launches in order (the third a cast in the one-pass mode). Refuses what no variant
  /// computes, naming the rule.
  /// `config`: one of kAttentionBackwardSweep's for f16 at headDim (equal lengths only), else
  /// attentionBackwardConfigFor's.
  static void launch(Launcher &l, const AttentionBackwardProblem &p, CUstream stream = nullptr,
                     const AttentionBackwardConfig *config = nullptr) {
    const AttentionProblem &f = p.forward;
    if (f.headDim != 64 && f.headDim != 128) fail(name, "headDim is 64 or 128 (the backward's)");
    const int64_t tokens = detail::checkedTokens(name, f);
    if (tokens == 0 || f.seqlen == 0) return;
    const bool varlen = f.cuSeqlens.ptr() != 0;
    const int d = int(f.headDim);
    if (config && (varlen || !std::is_same_v<T, f16> || !inAttentionBackwardSweep(d, *config)))
      fail(name, "no compiled variant has the requested tiles (kAttentionBackwardSweep's, f16, equal lengths)");
    const AttentionBackwardConfig c = config ? *config : attentionBackwardConfigFor(d);
    const int64_t qRow = f.heads * f.headDim, kvRow = f.kvHeads * f.headDim;
    const int32_t group = int32_t(f.heads / f.kvHeads);
    const float scale = float(detail::softmaxScale(f));
    const int bd = AttentionBackwardDelta<T>::kBlockRows;
    const bool onePass = p.dqAccum.ptr() != 0;
    const int64_t ld = accumulatorColumns(tokens);
    launchKernel<AttentionBackwardDelta<T>>(l, {ceilDiv(f.seqlen, bd), f.batch * f.heads}, 4, stream, f.o, p.dO,
                                            p.delta, p.dqAccum, f.cuSeqlens, int32_t(f.seqlen), int32_t(tokens),
                                            int32_t(f.heads), int32_t(ld), bd, d, int(varlen), int(onePass));
    auto desc = [&](Address a, int64_t rowElems) { return TensorDescArg{a.ptr(), {tokens, rowElems}, {rowElems, 1}}; };
    // Deterministic: the dK/dV kernel never reads its dq_acc, which is then dq's bytes seen as f32.
    const TensorDescArg dqAccum = onePass ? TensorDescArg{p.dqAccum.ptr(), {qRow, ld}, {ld, 1}} : desc(p.dq, qRow / 2);
    const AttentionConfig kv = onePass ? onePassTileFor(c.onePass, f.causal, varlen) : c.keyValue;
    launchKernel<AttentionBackwardKeyValue<T>>(
        l, {ceilDiv(f.seqlen, kv.bn), f.batch * f.kvHeads}, {kv.numWarps, kv.numStages}, stream, desc(f.q, qRow),
        desc(f.k, kvRow), desc(f.v, kvRow), desc(p.dO, qRow), f.lse, p.delta, p.dk, p.dv, dqAccum, f.cuSeqlens,
        int32_t(f.seqlen), int32_t(tokens), int32_t(f.heads), group, scale, kv.bm, kv.bn, d, int(f.causal), int(varlen),
        kv.backwardSchedule(), int(onePass));
    if (onePass) {
      using Cast = AttentionBackwardQueryCast<T>;
      launchKernel<Cast>(l, {ceilDiv(tokens, Cast::kBlockRows), ceilDiv(qRow, Cast::kBlockCols)}, 4, stream, p.dqAccum,
                         p.dq, int32_t(tokens), int32_t(qRow), int32_t(ld), scale, Cast::kBlockRows, Cast::kBlockCols);
      return;
    }
    const AttentionConfig &qc = c.query;
    launchKernel<AttentionBackwardQuery<T>>(l, {ceilDiv(f.seqlen, qc.bm), f.batch * f.heads},
                                            {qc.numWarps, qc.numStages}, stream, desc(f.q, qRow), desc(f.k, kvRow),
                                            desc(f.v, kvRow), desc(p.dO, qRow), f.lse, p.delta, p.dq, f.cuSeqlens,
                                            int32_t(f.seqlen), int32_t(tokens), int32_t(f.heads), group, scale, qc.bm,
                                            qc.bn, d, int(f.causal), int(varlen), qc.backwardSchedule());
  }
};

using AttentionBackwardDeltaF16 = AttentionBackwardDelta<f16>;
using AttentionBackwardDeltaBf16 = AttentionBackwardDelta<bf16>;
using AttentionBackwardKeyValueF16 = AttentionBackwardKeyValue<f16>;
using AttentionBackwardKeyValueBf16 = AttentionBackwardKeyValue<bf16>;
using AttentionBackwardQueryF16 = AttentionBackwardQuery<f16>;
using AttentionBackwardQueryBf16 = AttentionBackwardQuery<bf16>;
using AttentionBackwardQueryCastF16 = AttentionBackwardQueryCast<f16>;
using AttentionBackwardQueryCastBf16 = AttentionBackwardQueryCast<bf16>;
TILE_LIBRARY_KERNEL(AttentionBackwardDeltaF16);
TILE_LIBRARY_KERNEL(AttentionBackwardDeltaBf16);
TILE_LIBRARY_KERNEL(AttentionBackwardKeyValueF16);
TILE_LIBRARY_KERNEL(AttentionBackwardKeyValueBf16);
TILE_LIBRARY_KERNEL(AttentionBackwardQueryF16);
TILE_LIBRARY_KERNEL(AttentionBackwardQueryBf16);
TILE_LIBRARY_KERNEL(AttentionBackwardQueryCastF16);
TILE_LIBRARY_KERNEL(AttentionBackwardQueryCastBf16);

} // namespace tile::kernels
