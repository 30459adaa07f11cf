//===- AttentionAnchor.h - the attention forward and backward against cuDNN's, in one process ----===//
// bench_attention's library rows timed against cuDNN's fused attention (test/common/cudnn_attention.h) on the
// same q/k/v (and dO) buffers, in turns (Interleave.h), with NVML's clocks read before and after and sampled
// during (GpuClocks.h): what the project's standards ask of a library anchor, where PyTorch's SDPA in
// attention_torch_bench.py runs in another process and is only indicative. The forward rows compare O and
// the row log-sum-exp; the backward rows (either mode's) dQ, dK and dV, each side's backward fed
// its own forward's O and log-sum-exp (cuDNN's forward runs once for its backward).
#pragma once

#include "tile/runtime/Memory.h"

#include <cstdint>
#include <functional>
#include <string>

namespace tile::bench {

/// One row: the library's problem on its buffers (the layout of kernels/Attention.h and AttentionBackward.h).
struct AttentionAnchorCase {
  bool bf16 = false;
  int64_t batch = 0, heads = 0, kvHeads = 0, seqlen = 0, headDim = 0;
  bool causal = false;
  double scale = 0; ///< the softmax scale ours uses (detail::softmaxScale)
  const rt::DeviceBuffer *q = nullptr, *k = nullptr, *v = nullptr; ///< read by both sides
  /// Ours' forward outputs ([tokens, heads·D], f32 [heads, tokens]); the backward's `ours` reads them.
  rt::DeviceBuffer *o = nullptr, *lse = nullptr;
  const rt::DeviceBuffer *dO = nullptr;                         ///< the backward's: read by both sides
  rt::DeviceBuffer *dq = nullptr, *dk = nullptr, *dv = nullptr; ///< ours' gradients (like q, k, v)
  std::string name;                                             ///< "f16_d128_causal"
  std::string shape;                                            ///< "4x16x4096" (B x H x S)
  double flops = 0; ///< per forward launch, FlashAttention's count (the backward's rows count 2.5 times it)
};

/// Runs `ours` and cuDNN's forward once each on poisoned outputs and compares them, then times them in
/// turns. Prints `RESULT tile_attn_fwd_<name> <shape> <TFLOP/s> <us>` and `RESULT cudnn_attn_fwd_<name> ...`
/// (medians of the interleaved samples), a `cudnn-attn fwd_<name> <shape>:` line (cuDNN's time / ours per round,
/// ours' error against cuDNN, cuDNN's engine) and a `clocks cudnn_attn_fwd_<name> <shape>:` line. Where
/// cuDNN cannot run the row it prints `skip cudnn_attn_fwd_<name> <shape>: <why>` and returns false: the
/// caller times ours alone. Exceptions from `ours` propagate.
bool timeForwardAgainstCudnn(const AttentionAnchorCase &c, const std::function<void()> &ours);

/// The same for the backward: `ours` computes dq, dk, dv from dO and ours' forward outputs c.o and c.lse
/// (which the caller's forward has written). cuDNN's forward runs once into buffers of its own for its
/// backward's O and stats; both sides' gradients are poisoned, each backward runs once and dq, dk, dv are
/// compared (max and normwise relative errors), then the two backwards are timed in turns: rows
/// `RESULT tile_attn_bwd_<name> ...` and `RESULT cudnn_attn_bwd_<name> ...` (2.5 times the forward's FLOPs),
/// `cudnn-attn bwd_<name> <shape>:` and `clocks cudnn_attn_bwd_<name> <shape>:`; `skip cudnn_attn_bwd_...`
/// and false where cuDNN cannot run it. `pass` names the rows ("bwd", or "bwd_1pass" for the one-pass mode).
bool timeBackwardAgainstCudnn(const AttentionAnchorCase &c, const std::function<void()> &ours,
                              const std::string &pass = "bwd");

} // namespace tile::bench
