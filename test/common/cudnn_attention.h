// cuDNN's fused attention forward (scaled dot-product attention, "SDPA") on the library's packed
// buffers: the numerical oracle of the attention forward's GPU tests and the in-process anchor
// bench_attention times it against. cuDNN is dlopen'ed (cudnn_api.h); the operation graph is built
// through the backend API as cudnn-frontend's composite SDPA node lowers it for cuDNN 9.x before
// 9.21 (Q·Kᵀ, scale, top-left causal mask as gen_index/cmp_ge/binary_select, softmax spelled out
// with its log-sum-exp as stats, P·V), the pattern cuDNN's fused flash-attention engines match.
// Plans are built once per problem (heuristics mode A, then the fallback list) and cached.
#pragma once

#include "cudnn_api.h"

#include "tile/runtime/Memory.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace tile::reference {

using DevicePtr = uint64_t; // a CUdeviceptr

/// One forward problem in the library's layout (kernels/Attention.h): q and o [batch·seqlen,
/// heads·headDim], k and v [batch·seqlen, kvHeads·headDim], row-major, every sequence seqlen long.
struct SdpaProblem {
  bool bf16 = false; ///< else f16
  int64_t batch = 0, heads = 0, kvHeads = 0, seqlen = 0, headDim = 0;
  bool causal = false; ///< top-left aligned: query i sees keys 0..i of its sequence

  auto key() const { return std::tuple(bf16, batch, heads, kvHeads, seqlen, headDim, causal); }
  /// "f16 d128 causal 4x16/16x4096" (batch x heads/kvHeads x seqlen).
  std::string describe() const;
};

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

  /// Builds the graph and its plan for `p` once (kept for later calls): "" when cuDNN runs it,
  /// else one line saying why not (no engine supports the graph, a descriptor was refused, ...).
  std::string prepare(const SdpaProblem &p);
  /// What prepare chose: "engine 8 (heuristics A, config 1 of 3), workspace 0 B, built in 812 ms".
  std::string describe(const SdpaProblem &p) const;

  /// o = softmax(scale · q·kᵀ [causal]) · v and stats [batch, heads, seqlen] f32, contiguous: the
  /// natural-log log-sum-exp of each row of scaled scores (the library's lse, another layout).
  /// Queued on the legacy default stream. Throws (with prepare's reason) where cuDNN cannot.
  void forward(const SdpaProblem &p, DevicePtr q, DevicePtr k, DevicePtr v, DevicePtr o, DevicePtr stats, double scale);

private:
  struct Plan;
  const CudnnApi &api_;
  cudnnHandle_t handle_ = nullptr;
  std::map<decltype(SdpaProblem{}.key()), std::unique_ptr<Plan>> plans_;
  std::map<decltype(SdpaProblem{}.key()), std::string> refused_; ///< prepare's reasons, not retried
};

} // namespace tile::reference
