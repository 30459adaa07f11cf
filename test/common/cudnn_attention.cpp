// cuDNN's fused attention forward and backward through the backend graph API (see cudnn_attention.h).
//
// The operation graphs are the ones cudnn-frontend's CompositeSDPANode and CompositeSDPABackwardNode
// emit for f16/bf16 on cuDNN 9.x below 9.21 (where the frontend has no single softmax or band-mask
// operation): include/cudnn_frontend/node/scaled_dot_product_flash_attention.h, softmax.h,
// diagonal_band_mask.h and utils/attn_score_modifiers.h of v1.18 (the frontend PyTorch 2.11 pins; the
// backward node's graph is the same through v1.23 for what is built here), as PyTorch's
// aten/src/ATen/native/cudnn/MHA.cpp configures them: io type f16/bf16, intermediates and compute f32,
// the scale a by-value f32 tensor, no dropout, no bias, no padding mask, stats [b, h, s, 1] f32.
// Forward:
//   S = Q·Kᵀ (matmul, f32 [b, h, s, s]);  S = S · scale (pointwise MUL)
//   causal (top left): r = gen_index(S, axis 2), c = gen_index(S, axis 3), keep = r >= c (CMP_GE,
//     boolean), S = keep ? S : -inf (BINARY_SELECT)
//   M = max over keys (reduction), E = exp(S - M), L = Σ E (reduction), stats = M + log(L),
//   P = E / L (in the inputs' type, as the second matmul's A), O = P·V
// Backward (PyTorch sets no deterministic mode, so the frontend takes its dQ-accumulator form):
//   sum = Σ_d dO∘O (MUL, reduction) · 1 (MUL by the frontend's constant 1: its inverse dropout scale),
//     a non-virtual f32 tensor in the workspace
//   S = Q·Kᵀ · scale, causal mask as above, P = exp(S − stats)
//   Pᵀ = reshape(P) in the inputs' type, dV = Pᵀ·dO (grouped heads: into [b, h, s, d] in the inputs'
//     type, then summed over each group by an ADD reduction into dV)
//   dP = dO·Vᵀ, dS = (dP − sum) ∘ P · scale
//   dSᵀ = reshape(dS) in the inputs' type, dK = dSᵀ·Q (grouped heads: as dV)
//   K = reshape(Kᵀ) (f32: the frontend leaves the virtual tensor's type to its intermediate type),
//   dQacc = dS·K (non-virtual f32 [b, h, s, d] in the workspace; cuDNN zeroes it from 9.6 on),
//   dQ = identity(dQacc)
// in those orders, every attribute the frontend sets and no other. cuDNN's heuristics recognise the
// patterns and offer their fused flash-attention engines. The single SDPA operations of cuDNN 9.13+ are
// not used: the frontend takes the forward's (CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR) for a causal
// mask only from cuDNN 9.21 on, and through v1.23 never builds the backward's (..._SDPA_BWD_...), so on
// 9.19 the composite graphs are what PyTorch's SDPA runs.
#include "cudnn_attention.h"

#include "cudnn_graph.h"

#include "tile/runtime/Context.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tile::reference {

namespace {

using backend::Dims;
using backend::Graph;

// Unique ids: of the tensors the variant pack names (any distinct values do), then the virtual ones.
enum : int64_t {
  kQ = 1,
  kK,
  kV,
  kO,
  kStats,
  kScale,
  kNegInf,
  kDO,
  kDQ,
  kDK,
  kDV,
  kOne,
  kSum,     ///< the backward's rowsum(dO∘O), in the workspace
  kDQAccum, ///< the backward's f32 dQ, in the workspace
  kFirstVirtual = 100
};

/// The packed [tokens, heads·d] buffers seen as [b, h, s, d] (token b·s + i, head h at column h·d),
/// and the shapes and strides the frontend gives the graphs' intermediates.
struct Shapes {
  int64_t b, h, hkv, s, d;
  cudnnDataType_t io;
  Dims q, qStrides;   ///< Q, O, dO, dQ
  Dims kv, kvStrides; ///< K, V, dK, dV
  /// Kᵀ and Vᵀ [b, hkv, d, s]: K's and V's views with their last two dims (and strides) swapped, as
  /// the frontend hands them to the matmuls. Grouped queries: hkv divides h (the frontend's rule).
  Dims kvT, kvTStrides;
  Dims scores, scoreStrides;    ///< [b, h, s, s]
  Dims scoresT, scoresTStrides; ///< the scores transposed by the backward's reshapes
  Dims rows, rowStrides;        ///< [b, h, s, 1]: stats, the row sums
  Dims heads, headStrides;      ///< [b, h, s, d] contiguous: the backward's per-query-head products
};

Shapes shapesOf(const SdpaProblem &p) {
  const int64_t b = p.batch, h = p.heads, hkv = p.kvHeads, s = p.seqlen, d = p.headDim;
  const int64_t qRow = h * d, kvRow = hkv * d; // elements per token of q/o and of k/v
  return {b,
          h,
          hkv,
          s,
          d,
          p.bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF,
          {b, h, s, d},
          {s * qRow, d, qRow, 1},
          {b, hkv, s, d},
          {s * kvRow, d, kvRow, 1},
          {b, hkv, d, s},
          {s * kvRow, d, 1, kvRow},
          {b, h, s, s},
          {h * s * s, s * s, s, 1},
          {b, h, s, s},
          {h * s * s, s * s, 1, s},
          {b, h, s, 1},
          {h * s, s, 1, 1},
          {b, h, s, d},
          {h * s * d, s * d, d, 1}};
}

/// `scores` where the query sees the key, else -inf (`negInf`): the frontend's right-bound band mask
/// with bound 0 (its causal_mask), as composed before cuDNN 9.21 (diagonal_band_mask.h).
cudnnBackendDescriptor_t causalMask(Graph &g, const Shapes &sh, cudnnBackendDescriptor_t scores,
                                    cudnnBackendDescriptor_t negInf) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const auto row = g.virt(CUDNN_DATA_INT32, sh.scores, sh.scoreStrides),
             col = g.virt(CUDNN_DATA_INT32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scores, row, nullptr, nullptr, /*axis=*/2);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scores, col, nullptr, nullptr, /*axis=*/3);
  const auto visible = g.virt(CUDNN_DATA_BOOLEAN, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, visible, col);
  const auto masked = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, scores, masked, negInf, visible);
  return masked;
}

/// S = Q·Kᵀ · scale, masked where causal: the first steps of both passes.
cudnnBackendDescriptor_t scaledScores(Graph &g, const Shapes &sh, const SdpaProblem &p, cudnnBackendDescriptor_t Q,
                                      cudnnBackendDescriptor_t KT, cudnnBackendDescriptor_t scale,
                                      cudnnBackendDescriptor_t negInf) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const auto qk = g.virt(f32, sh.scores, sh.scoreStrides);
  g.matmul(Q, KT, qk);
  const auto scaled = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, qk, scaled, scale);
  return p.causal ? causalMask(g, sh, scaled, negInf) : scaled;
}

/// The SDPA forward's operations for `p` into `g` (the graph at the top of this file).
void buildForward(Graph &g, const SdpaProblem &p) {
  const Shapes sh = shapesOf(p);
  const cudnnDataType_t io = sh.io, f32 = CUDNN_DATA_FLOAT;
  const auto Q = g.tensor(kQ, io, sh.q, sh.qStrides), KT = g.tensor(kK, io, sh.kvT, sh.kvTStrides),
             V = g.tensor(kV, io, sh.kv, sh.kvStrides), O = g.tensor(kO, io, sh.q, sh.qStrides),
             stats = g.tensor(kStats, f32, sh.rows, sh.rowStrides);
  const auto scaled = scaledScores(g, sh, p, Q, KT, g.scalar(kScale), p.causal ? g.scalar(kNegInf) : nullptr);
  // The frontend's composite softmax with stats (softmax.h, before cuDNN 9.21).
  const auto rowMax = g.virt(f32, sh.rows, sh.rowStrides);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, scaled, rowMax);
  const auto shifted = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, scaled, shifted, rowMax);
  const auto e = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, shifted, e);
  const auto rowSum = g.virt(f32, sh.rows, sh.rowStrides);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, rowSum);
  const auto logSum = g.virt(f32, sh.rows, sh.rowStrides);
  g.pointwise(CUDNN_POINTWISE_LOG, f32, rowSum, logSum);
  g.pointwise(CUDNN_POINTWISE_ADD, f32, rowMax, stats, logSum);
  // P in the inputs' type: the frontend's "bmm2 aType as i/o type" requirement.
  const auto probs = g.virt(io, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_DIV, f32, e, probs, rowSum);
  g.matmul(probs, V, O);
}

/// The SDPA backward's operations for `p` into `g` (the graph at the top of this file).
void buildBackward(Graph &g, const SdpaProblem &p) {
  const Shapes sh = shapesOf(p);
  const cudnnDataType_t io = sh.io, f32 = CUDNN_DATA_FLOAT;
  const auto Q = g.tensor(kQ, io, sh.q, sh.qStrides), KT = g.tensor(kK, io, sh.kvT, sh.kvTStrides),
             VT = g.tensor(kV, io, sh.kvT, sh.kvTStrides), O = g.tensor(kO, io, sh.q, sh.qStrides),
             dO = g.tensor(kDO, io, sh.q, sh.qStrides), stats = g.tensor(kStats, f32, sh.rows, sh.rowStrides),
             dQ = g.tensor(kDQ, io, sh.q, sh.qStrides), dK = g.tensor(kDK, io, sh.kv, sh.kvStrides),
             dV = g.tensor(kDV, io, sh.kv, sh.kvStrides);
  const auto scale = g.scalar(kScale);

  // sum = rowsum(dO∘O) · 1: the product's virtual tensor has the (odd, unused) strides the frontend
  // gives it; the sum is non-virtual (the frontend's softmax_sum, in its workspace).
  const auto dOO = g.virt(f32, sh.heads, {sh.h * sh.s * sh.d, sh.s * sh.d, sh.h * sh.d, 1});
  g.pointwise(CUDNN_POINTWISE_MUL, f32, dO, dOO, O);
  const auto dOORows = g.virt(f32, sh.rows, sh.rowStrides);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, dOO, dOORows);
  const auto sum = g.tensor(kSum, f32, sh.rows, sh.rowStrides);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, dOORows, sum, g.scalar(kOne));

  // P = exp(S − stats), and dV = Pᵀ·dO.
  const auto scaled = scaledScores(g, sh, p, Q, KT, scale, p.causal ? g.scalar(kNegInf) : nullptr);
  const auto shifted = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, scaled, shifted, stats);
  const auto probs = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, shifted, probs);
  // out = aᵀ·b for each kv head: by one matmul where every query head has its own, else per query
  // head into [b, h, s, d] in the inputs' type, summed over each group of heads.
  auto perKvHead = [&](cudnnBackendDescriptor_t aT, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t out) {
    if (sh.h == sh.hkv) return g.matmul(aT, b, out);
    const auto full = g.virt(io, sh.heads, sh.headStrides);
    g.matmul(aT, b, full);
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, full, out);
  };
  const auto probsT = g.virt(io, sh.scoresT, sh.scoresTStrides);
  g.reshape(probs, probsT);
  perKvHead(probsT, dO, dV);

  // dS = (dO·Vᵀ − sum) ∘ P · scale, dK = dSᵀ·Q, dQ = dS·K.
  const auto dP = g.virt(f32, sh.scores, sh.scoreStrides);
  g.matmul(dO, VT, dP);
  const auto centred = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, dP, centred, sum);
  const auto weighted = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, centred, weighted, probs);
  const auto dS = g.virt(f32, sh.scores, sh.scoreStrides);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, weighted, dS, scale);
  const auto dST = g.virt(io, sh.scoresT, sh.scoresTStrides);
  g.reshape(dS, dST);
  perKvHead(dST, Q, dK);
  const auto K = g.virt(f32, sh.kv, sh.kvStrides);
  g.reshape(KT, K);
  const auto dQAccum = g.tensor(kDQAccum, f32, sh.heads, sh.headStrides);
  g.matmul(dS, K, dQAccum);
  g.pointwise(CUDNN_POINTWISE_IDENTITY, f32, dQAccum, dQ);
}

const CudnnApi &requireCudnn() {
  std::string why;
  const CudnnApi *api = cudnnApi(&why);
  if (!api) throw std::runtime_error("cuDNN is not loadable: " + why);
  return *api;
}

void *at(DevicePtr x) { return reinterpret_cast<void *>(static_cast<uintptr_t>(x)); }

} // namespace

std::string SdpaProblem::describe() const {
  return std::string(bf16 ? "bf16" : "f16") + " d" + std::to_string(headDim) + (causal ? " causal " : " full ") +
         std::to_string(batch) + "x" + std::to_string(heads) + "/" + std::to_string(kvHeads) + "x" +
         std::to_string(seqlen);
}

// Members in the order they are made, so destroyed plan first, graph last.
struct CudnnAttention::Plan {
  Graph graph;         ///< tensors, operations and the operation graph (last)
  backend::Plan built; ///< the execution plan and the configs it came from
  rt::DeviceBuffer workspace;
  /// The workspace as the frontend lays it out: its own tensors first (the backward's f32 dQ and row
  /// sums, at these offsets), then the plan's.
  size_t dqAccumAt = 0, sumAt = 0, planAt = 0;
  std::string description;

  explicit Plan(const CudnnApi &api) : graph(api, kFirstVirtual) {}
  void *workspaceAt(size_t offset) const { return workspace.bytes() ? at(workspace.ptr() + offset) : nullptr; }
};

CudnnAttention::CudnnAttention() : api_(requireCudnn()) {
  rt::Context::get(); // the primary context, which cuDNN's runtime calls find current
  check(api_.create(&handle_), "cudnnCreate");
}

CudnnAttention::~CudnnAttention() {
  plans_.clear(); // descriptors before the handle they were built with
  if (handle_) api_.destroy(handle_);
}

std::string CudnnAttention::version() const { return "cuDNN " + std::to_string(api_.getVersion()); }

std::string CudnnAttention::prepare(const SdpaProblem &p, SdpaPass pass) {
  const Key key{pass, p.key()};
  if (plans_.count(key)) return "";
  if (auto r = refused_.find(key); r != refused_.end()) return r->second;
  const auto start = std::chrono::steady_clock::now();
  auto plan = std::make_unique<Plan>(api_);
  const bool backward = pass == SdpaPass::Backward;
  std::string why;
  try {
    if (p.batch < 1 || p.heads < 1 || p.kvHeads < 1 || p.heads % p.kvHeads || p.seqlen < 1 || p.headDim % 8)
      throw std::runtime_error(
          "not a problem the graph describes (kvHeads must divide heads, headDim a multiple of 8)");
    Graph &g = plan->graph;
    if (backward) buildBackward(g, p);
    else buildForward(g, p);
    plan->built = backend::buildPlan(api_, handle_, g.finalize(handle_));
    // The backward's own tensors: dQ [b, h, s, d] and the row sums [b, h, s], f32 (16-byte multiples).
    const size_t rows = size_t(p.batch * p.heads * p.seqlen), align = 256;
    const size_t dqBytes = backward ? rows * size_t(p.headDim) * 4 : 0, sumBytes = backward ? rows * 4 : 0;
    plan->dqAccumAt = 0;
    plan->sumAt = dqBytes;
    plan->planAt = (dqBytes + sumBytes + align - 1) / align * align;
    plan->workspace = rt::DeviceBuffer(plan->planAt + size_t(plan->built.workspaceBytes));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    plan->description = plan->built.engine + ", workspace " + std::to_string(plan->built.workspaceBytes) + " B" +
                        (backward ? " + " + std::to_string(dqBytes + sumBytes) + " B (f32 dQ, row sums)" : "") +
                        ", built in " + std::to_string(int64_t(ms)) + " ms";
  } catch (const std::exception &e) { why = e.what(); }
  if (!why.empty()) {
    why = version() + ", " + (backward ? "backward " : "forward ") + p.describe() + ": " + why;
    refused_[key] = why;
    return why;
  }
  plans_[key] = std::move(plan);
  return "";
}

std::string CudnnAttention::describe(const SdpaProblem &p, SdpaPass pass) const {
  auto it = plans_.find({pass, p.key()});
  return it == plans_.end() ? "not prepared" : it->second->description;
}

const CudnnAttention::Plan &CudnnAttention::plan(const SdpaProblem &p, SdpaPass pass) {
  if (std::string why = prepare(p, pass); !why.empty()) throw std::runtime_error(why);
  return *plans_.at({pass, p.key()});
}

void CudnnAttention::forward(const SdpaProblem &p, DevicePtr q, DevicePtr k, DevicePtr v, DevicePtr o, DevicePtr stats,
                             double scale) {
  const Plan &pl = plan(p, SdpaPass::Forward);
  // By-value scalars are read from host memory when the plan executes.
  float scaleValue = float(scale), negInf = -INFINITY;
  std::vector<std::pair<int64_t, void *>> tensors{{kQ, at(q)}, {kK, at(k)},         {kV, at(v)},
                                                  {kO, at(o)}, {kStats, at(stats)}, {kScale, &scaleValue}};
  if (p.causal) tensors.push_back({kNegInf, &negInf}); // only where the causal mask uses it
  backend::execute(api_, handle_, pl.built, tensors, pl.workspaceAt(pl.planAt), "forward " + p.describe());
}

void CudnnAttention::backward(const SdpaProblem &p, DevicePtr q, DevicePtr k, DevicePtr v, DevicePtr o, DevicePtr dO,
                              DevicePtr stats, DevicePtr dq, DevicePtr dk, DevicePtr dv, double scale) {
  const Plan &pl = plan(p, SdpaPass::Backward);
  float scaleValue = float(scale), one = 1.0f, negInf = -INFINITY;
  std::vector<std::pair<int64_t, void *>> tensors{{kQ, at(q)},
                                                  {kK, at(k)},
                                                  {kV, at(v)},
                                                  {kO, at(o)},
                                                  {kDO, at(dO)},
                                                  {kStats, at(stats)},
                                                  {kDQ, at(dq)},
                                                  {kDK, at(dk)},
                                                  {kDV, at(dv)},
                                                  {kScale, &scaleValue},
                                                  {kOne, &one},
                                                  {kSum, pl.workspaceAt(pl.sumAt)},
                                                  {kDQAccum, pl.workspaceAt(pl.dqAccumAt)}};
  if (p.causal) tensors.push_back({kNegInf, &negInf});
  backend::execute(api_, handle_, pl.built, tensors, pl.workspaceAt(pl.planAt), "backward " + p.describe());
}

} // namespace tile::reference
