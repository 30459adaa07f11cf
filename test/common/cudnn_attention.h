// cuDNN's fused attention (scaled dot-product attention, "SDPA"), forward and backward, on the
// library's packed buffers: the numerical oracle of the attention GPU tests and the in-process anchor
// bench_attention times ours against. cuDNN is dlopen'ed (cudnn_api.h); the operation graphs are built
// through the backend API (cudnn_graph.h) as cudnn-frontend's composite SDPA nodes lower them for cuDNN
// 9.x before 9.21, the patterns cuDNN's fused flash-attention engines match. Forward: Q·Kᵀ, scale,
// top-left causal mask as gen_index/cmp_ge/binary_select, softmax spelled out with its log-sum-exp as
// stats, P·V. Backward: rowsum(dO∘O), P recomputed from the stats, dV = Pᵀ·dO, dS = P∘(dO·Vᵀ − rowsum)
// · scale, dK = dSᵀ·Q, dQ = dS·K through an f32 accumulator (grouped heads summed by a reduction).
// Plans are built once per problem and pass (heuristics mode A, then the fallback list) and cached.
#pragma once

#include "cudnn_api.h"

#include "tile/runtime/Memory.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace tile::reference {

using DevicePtr = uint64_t; // a CUdeviceptr

/// One problem in the library's layout (kernels/Attention.h): q, o, dO and dq [batch·seqlen,
/// heads·headDim], k, v, dk and dv [batch·seqlen, kvHeads·headDim], row-major, every sequence
/// seqlen long.
struct SdpaProblem {
  bool bf16 = false; ///< else f16
  int64_t batch = 0, heads = 0, kvHeads = 0, seqlen = 0, headDim = 0;
  bool causal = false; ///< top-left aligned: query i sees keys 0..i of its sequence

  auto key() const { return std::tuple(bf16, batch, heads, kvHeads, seqlen, headDim, causal); }
  /// "f16 d128 causal 4x16/16x4096" (batch x heads/kvHeads x seqlen).
  std::string describe() const;
};

/// Which graph of a problem: its forward or its backward (each has a plan of its own).
enum class SdpaPass { Forward, Backward };

class CudnnAttention {
public:
  /// Loads cuDNN and creates a handle (on the runtime's primary context, legacy default stream).
  /// Throws std::runtime_error saying why where cuDNN cannot be loaded or no GPU answers.
  CudnnAttention();
  ~CudnnAttention();
  CudnnAttention(const CudnnAttention &) = delete;
  CudnnAttention &operator=(const CudnnAttention &) = delete;

  /// "cuDNN 91900".
  std::string version() const;

  /// Builds the graph of `pass` and its plan for `p` once (kept for later calls): "" when cuDNN runs
  /// it, else one line saying why not (no engine supports the graph, a descriptor was refused, ...).
  std::string prepare(const SdpaProblem &p, SdpaPass pass = SdpaPass::Forward);
  /// What prepare chose: "engine 8 (heuristics A, config 1 of 3), workspace 0 B, built in 812 ms".
  std::string describe(const SdpaProblem &p, SdpaPass pass = SdpaPass::Forward) const;

  /// o = softmax(scale · q·kᵀ [causal]) · v and stats [batch, heads, seqlen] f32, contiguous: the
  /// natural-log log-sum-exp of each row of scaled scores (the library's lse, another layout).
  /// Queued on the legacy default stream. Throws (with prepare's reason) where cuDNN cannot.
  void forward(const SdpaProblem &p, DevicePtr q, DevicePtr k, DevicePtr v, DevicePtr o, DevicePtr stats, double scale);
  /// dq, dk, dv: the gradients of the forward's inputs given dO, the gradient of its output o, with
  /// o and stats as forward writes them (the forward of the same q, k, v and scale). Queued on the
  /// legacy default stream. Throws (with prepare's reason) where cuDNN cannot.
  void backward(const SdpaProblem &p, DevicePtr q, DevicePtr k, DevicePtr v, DevicePtr o, DevicePtr dO, DevicePtr stats,
                DevicePtr dq, DevicePtr dk, DevicePtr dv, double scale);

private:
  struct Plan;
  using Key = std::pair<SdpaPass, decltype(SdpaProblem{}.key())>;
  const Plan &plan(const SdpaProblem &p, SdpaPass pass);
  const CudnnApi &api_;
  cudnnHandle_t handle_ = nullptr;
  std::map<Key, std::unique_ptr<Plan>> plans_;
  std::map<Key, std::string> refused_; ///< prepare's reasons, not retried
};

} // namespace tile::reference
