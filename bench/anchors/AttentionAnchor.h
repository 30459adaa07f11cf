//===- AttentionAnchor.h - the attention forward against cuDNN's, in one process ----===//
// bench_attention's library forward rows timed against cuDNN's fused attention (test/common/cudnn_attention.h)
// on the same q/k/v buffers, in turns (Interleave.h), with NVML's clocks read before and after and sampled
// during (GpuClocks.h): what the project's standards ask of a library anchor, where PyTorch's SDPA in
// attention_torch_bench.py runs in another process and is only indicative.
#pragma once

#include "tile/runtime/Memory.h"

#include <cstdint>
#include <functional>
#include <string>

namespace tile::bench {

/// One forward row: the library's problem on its buffers (the layout of kernels/Attention.h).
struct AttentionAnchorCase {
  bool bf16 = false;
  int64_t batch = 0, heads = 0, kvHeads = 0, seqlen = 0, headDim = 0;
  bool causal = false;
  double scale = 0; ///< the softmax scale ours uses (detail::softmaxScale)
  const rt::DeviceBuffer *q = nullptr, *k = nullptr, *v = nullptr; ///< read by both sides
  rt::DeviceBuffer *o = nullptr, *lse = nullptr; ///< ours' outputs ([tokens, heads·D], f32 [heads, tokens])
  std::string name;                              ///< "f16_d128_causal"
  std::string shape;                             ///< "4x16x4096" (B x H x S)
  double flops = 0;                              ///< per launch, FlashAttention's count
};

/// Runs `ours` and cuDNN's forward once each on poisoned outputs and compares them, then times them in
/// turns. Prints `RESULT tile_attn_fwd_<name> <shape> <TFLOP/s> <us>` and `RESULT cudnn_attn_fwd_<name> ...`
/// (medians of the interleaved samples), a `cudnn-attn fwd_<name> <shape>:` line (cuDNN's time / ours per round,
/// ours' error against cuDNN, cuDNN's engine) and a `clocks cudnn_attn_fwd_<name> <shape>:` line. Where
/// cuDNN cannot run the row it prints `skip cudnn_attn_fwd_<name> <shape>: <why>` and returns false: the
/// caller times ours alone. Exceptions from `ours` propagate.
bool timeForwardAgainstCudnn(const AttentionAnchorCase &c, const std::function<void()> &ours);

} // namespace tile::bench
