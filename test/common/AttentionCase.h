//===- AttentionCase.h - what the attention tests share around a shape -----===//
// Random inputs for an AttentionShape, the library problem on the executor's buffers, and
// the line that names a case in a failure.
#pragma once

#include "AttentionReference.h"

#include "tile/kernels/Attention.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tile::testing {

/// The case, for SCOPED_TRACE.
inline std::string describe(const AttentionShape &s, bool varlen) {
  return "heads " + std::to_string(s.heads) + "/" + std::to_string(s.kvHeads) + " d " + std::to_string(s.d) +
         (s.causal ? " causal" : "") + (varlen ? " varlen" : "") + " tokens " + std::to_string(s.tokens());
}

/// The longest sequence's length.
inline int32_t longestSequence(const AttentionShape &s) {
  int32_t longest = 0;
  for (size_t b = 0; b + 1 < s.starts.size(); ++b) longest = std::max(longest, s.starts[b + 1] - s.starts[b]);
  return longest;
}

/// Stored bits (f16 or bf16) of the inputs: q and dO [tokens, heads·d], k and v [tokens,
/// kvHeads·d], each element toBits(draw()).
struct AttentionInputs {
  std::vector<uint16_t> q, k, v, dO;
};
template <class Draw>
AttentionInputs randomAttentionInputs(const AttentionShape &s, uint16_t (*toBits)(float), Draw draw) {
  auto bits = [&](int64_t heads) {
    std::vector<uint16_t> x(size_t(s.tokens() * heads * s.d));
    for (uint16_t &e : x) e = toBits(draw());
    return x;
  };
  AttentionInputs in;
  in.q = bits(s.heads), in.k = bits(s.kvHeads), in.v = bits(s.kvHeads), in.dO = bits(s.heads);
  return in;
}

/// The library's problem for `s` on the executor's buffers; `starts` holds s.starts there
/// (read only with `varlen`, which packs the sequences by those offsets).
inline kernels::AttentionProblem attentionProblem(const AttentionShape &s, bool varlen, kernels::Address q,
                                                  kernels::Address k, kernels::Address v, kernels::Address o,
                                                  kernels::Address lse, kernels::Address starts, double scale) {
  kernels::AttentionProblem p{q, k, v, o, lse, int64_t(s.starts.size()) - 1, s.heads, s.kvHeads, s.d, s.starts[1]};
  if (varlen) p.seqlen = longestSequence(s), p.cuSeqlens = starts;
  p.tokens = s.tokens();
  p.causal = s.causal;
  p.scale = scale;
  return p;
}

/// The floats of stored bits.
inline std::vector<float> floatsOf(const std::vector<uint16_t> &bits, float (*fromBits)(uint16_t)) {
  std::vector<float> f(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) f[i] = fromBits(bits[i]);
  return f;
}

} // namespace tile::testing
