//===- cpu_random_attention.h - the random programs' attention block ------===//
// One node kind of the random-program generator (cpu_random_kernels.h): FlashAttention's
// inner loop on the program's [BM, BN] tile. The tile (masked, clamped to +-4, cast to f16
// or bf16) is the queries, BN the head dimension; the keys and values are rows 0..m-1 of
// the program's inputs in the same column block. A for_range over key blocks of BKV rows
// carries a running row max [BM], a running sum [BM] and an accumulator [BM, BN]:
//   S = dot(q, trans(k)) * scale, keys past m at -inf
//   m' = maximum(m, max(S, 1)); p = exp2(S - col(m')); alpha = exp2(m - m')
//   l = l * alpha + sum(p, 1); acc = dot(cast(p), v, acc * col(alpha))
// and the node is acc / col(l) (or acc * col(1 / l)), plus col(m) or col(l) / 16 in some.
// On sm_90a with 4 warps, BM = 64 and BN, BKV multiples of 16, both dots are wgmma, the
// second with P in registers, and the softmax runs on the accumulators' #mma layout.
#pragma once

#include "tile/tile.h"

#include <random>
#include <string>
#include <vector>

namespace tile::randomkernels {

/// The keys: in1 (quarters, exact in f16 and bf16) or in0 (continuous: the cast rounds) by
/// masked loads, or blocks of in2's f16 copy's descriptor (h2; TMA-fed wgmma on sm_90a).
enum class AttnKeys { In1, In0, In2Half };
/// The values: in2 by masked loads (cast), or blocks of its f16 copy's descriptor.
enum class AttnValues { In2, In2Half };
/// What the node adds to the normalised output: nothing, the row max m, or l / 16.
enum class AttnExtra { None, RowMax, RowSum };

struct AttentionSpec {
  int bkv = 16;        ///< keys per step (a power of two)
  float scale = 0.25f; ///< S = dot(q, kᵀ) * scale, in base-2 units (p = exp2(S - max))
  bool bf16 = false;   ///< q, k, v and P as bf16 (else f16)
  AttnKeys keys = AttnKeys::In1;
  AttnValues values = AttnValues::In2;
  AttnExtra extra = AttnExtra::None;
  bool reciprocal = false; ///< acc * col(1 / l), the library's form, instead of acc / col(l)
  /// Whether it reads in2's f16 copy through its descriptor (n then a multiple of 8).
  bool readsHalfCopy() const { return keys == AttnKeys::In2Half || values == AttnValues::In2Half; }
};

AttentionSpec drawAttention(std::mt19937_64 &rng);
std::string describeAttention(const AttentionSpec &spec);

/// What the traced node reads; rank 2 only.
struct AttentionOperands {
  Value q;             ///< [BM, BN] f32, 0 outside the problem
  Value in[3];         ///< the inputs' pointers
  Value halfDesc;      ///< in2's f16 copy's descriptor, [m, n]
  Value colStart;      ///< the program's first column
  Value colIdx, cmask; ///< [1, BN]: the program's columns, and which are < n
  Value m, n;
};
Value traceAttention(const AttentionSpec &spec, const AttentionOperands &ops);

/// The float64 value of the node on the m x n problem (column blocks of `bn`), from the
/// queries' float64 values `q` and magnitudes `qMag` (error <= tolerance * qMag), with
/// magnitudes such that tolerance * mag bounds the error of a correct kernel (derivation
/// in the .cpp). `inputs` as RandomCase::inputs.
void referenceAttention(const AttentionSpec &spec, int m, int n, int bn, const std::vector<std::vector<float>> &inputs,
                        const std::vector<double> &q, const std::vector<double> &qMag, double tolerance,
                        std::vector<double> &value, std::vector<double> &mag);

} // namespace tile::randomkernels
