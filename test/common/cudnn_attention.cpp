// cuDNN's fused attention forward through the backend graph API (see cudnn_attention.h).
//
// The operation graph is the one cudnn-frontend's CompositeSDPANode emits for an f16/bf16 forward
// with stats on cuDNN 9.x below 9.21 (where the frontend has no single softmax or band-mask
// operation): include/cudnn_frontend/node/scaled_dot_product_flash_attention.h, softmax.h,
// diagonal_band_mask.h and utils/attn_score_modifiers.h, as PyTorch's aten/src/ATen/native/cudnn/
// MHA.cpp configures it (io type f16/bf16, intermediates and compute f32, the scale a by-value f32):
//   S = Q·Kᵀ (matmul, f32 [b, h, s, s]);  S = S · scale (pointwise MUL)
//   causal (top left): r = gen_index(S, axis 2), c = gen_index(S, axis 3), keep = r >= c (CMP_GE,
//     boolean), S = keep ? S : -inf (BINARY_SELECT)
//   M = max over keys (reduction), E = exp(S - M), L = Σ E (reduction), stats = M + log(L),
//   P = E / L (in the inputs' type, as the second matmul's A), O = P·V
// in that order, every attribute the frontend sets and no other. cuDNN's heuristics recognise the
// pattern and offer their fused flash-attention engines. The single SDPA operation of cuDNN 9.13+
// (CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR) is not used: the frontend takes it for a causal
// mask only from cuDNN 9.21 on, so on 9.19 the composite graph is what PyTorch's SDPA runs.
#include "cudnn_attention.h"

#include "tile/runtime/Context.h"

#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tile::reference {

namespace {

// Unique ids: of the tensors the variant pack names (any distinct values do), then the virtual ones.
enum : int64_t { kQ = 1, kK, kV, kO, kStats, kScale, kNegInf, kFirstVirtual = 100 };

using Dims = std::array<int64_t, 4>;

// An attribute and its name, for the errors (a refused attribute is what a remote run reports).
#define TILE_ATTR(name) name, #name

/// The failure of `what`: cuDNN's status and its last error message on one line (the message says
/// which rule refused the graph, where the status alone says "not supported").
[[noreturn]] void fail(const CudnnApi &api, cudnnStatus_t s, const std::string &what) {
  char detail[1024] = {};
  api.getLastErrorString(detail, sizeof detail);
  std::string msg = what + ": " + api.getErrorString(s);
  if (detail[0]) msg += ": " + std::string(detail);
  for (char &c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  throw std::runtime_error(msg);
}

/// One backend descriptor, destroyed with its owner.
class Desc {
public:
  Desc(const CudnnApi &api, cudnnBackendDescriptorType_t type, const char *what) : api_(&api), what_(what) {
    if (cudnnStatus_t s = api.backendCreate(type, &d_); s != CUDNN_STATUS_SUCCESS)
      fail(api, s, std::string("cudnnBackendCreateDescriptor ") + what);
  }
  Desc(Desc &&o) noexcept : api_(o.api_), d_(std::exchange(o.d_, nullptr)), what_(o.what_) {}
  Desc &operator=(Desc &&) = delete;
  ~Desc() {
    if (d_) api_->backendDestroy(d_);
  }
  cudnnBackendDescriptor_t get() const { return d_; }

  template <class T>
  Desc &setArray(cudnnBackendAttributeName_t name, const char *attr, cudnnBackendAttributeType_t type, const T *values,
                 int64_t count) {
    check(api_->backendSet(d_, name, type, count, values), attr);
    return *this;
  }
  template <class T>
  Desc &set(cudnnBackendAttributeName_t name, const char *attr, cudnnBackendAttributeType_t type, const T &value) {
    return setArray(name, attr, type, &value, 1);
  }
  /// GetAttribute: `*count` of `requested` elements written to `values`.
  void get(cudnnBackendAttributeName_t name, const char *attr, cudnnBackendAttributeType_t type, int64_t requested,
           int64_t *count, void *values) const {
    check(api_->backendGet(d_, name, type, requested, count, values), attr);
  }
  Desc &finalize() {
    check(api_->backendFinalize(d_), "cudnnBackendFinalize");
    return *this;
  }

private:
  void check(cudnnStatus_t s, const char *step) const {
    if (s != CUDNN_STATUS_SUCCESS) fail(*api_, s, std::string(what_) + ": " + step);
  }
  const CudnnApi *api_;
  cudnnBackendDescriptor_t d_ = nullptr;
  const char *what_;
};

const bool kTrue = true, kFalse = false;

/// The descriptors of one operation graph (a deque: references to them stay valid as it grows),
/// destroyed newest first: no descriptor outlives one it was given.
struct Graph {
  const CudnnApi &api;
  int version; ///< cudnnGetVersion()
  std::deque<Desc> keep;
  std::vector<cudnnBackendDescriptor_t> ops; ///< the operations, in the frontend's order
  int64_t nextUid = kFirstVirtual;

  Graph(const CudnnApi &a, int v) : api(a), version(v) {}
  ~Graph() {
    while (!keep.empty()) keep.pop_back();
  }

  Desc &add(cudnnBackendDescriptorType_t type, const char *what) { return keep.emplace_back(api, type, what); }

  cudnnBackendDescriptor_t tensor(int64_t uid, cudnnDataType_t type, Dims dims, Dims strides, bool isVirtual = false,
                                  bool byValue = false) {
    const int64_t alignment = 16; // the frontend's default for every tensor
    Desc &t = add(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor");
    t.set(TILE_ATTR(CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_TYPE_DATA_TYPE, type)
        .setArray(TILE_ATTR(CUDNN_ATTR_TENSOR_DIMENSIONS), CUDNN_TYPE_INT64, dims.data(), 4)
        .setArray(TILE_ATTR(CUDNN_ATTR_TENSOR_STRIDES), CUDNN_TYPE_INT64, strides.data(), 4)
        .set(TILE_ATTR(CUDNN_ATTR_TENSOR_UNIQUE_ID), CUDNN_TYPE_INT64, uid)
        .set(TILE_ATTR(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT), CUDNN_TYPE_INT64, alignment);
    // The frontend sets these two only when true.
    if (isVirtual) t.set(TILE_ATTR(CUDNN_ATTR_TENSOR_IS_VIRTUAL), CUDNN_TYPE_BOOLEAN, kTrue);
    if (byValue) t.set(TILE_ATTR(CUDNN_ATTR_TENSOR_IS_BY_VALUE), CUDNN_TYPE_BOOLEAN, kTrue);
    return t.finalize().get();
  }
  cudnnBackendDescriptor_t virt(cudnnDataType_t type, Dims dims, Dims strides) {
    return tensor(nextUid++, type, dims, strides, /*isVirtual=*/true);
  }

  /// y = mode(x[, b[, t]]) computed in `prec`; `axis` for GEN_INDEX.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t prec, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t b = nullptr, cudnnBackendDescriptor_t t = nullptr,
                 int64_t axis = -1) {
    Desc &pw = add(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pointwise");
    pw.set(TILE_ATTR(CUDNN_ATTR_POINTWISE_MODE), CUDNN_TYPE_POINTWISE_MODE, mode)
        .set(TILE_ATTR(CUDNN_ATTR_POINTWISE_MATH_PREC), CUDNN_TYPE_DATA_TYPE, prec);
    if (mode == CUDNN_POINTWISE_GEN_INDEX) pw.set(TILE_ATTR(CUDNN_ATTR_POINTWISE_AXIS), CUDNN_TYPE_INT64, axis);
    pw.finalize();
    Desc &op = add(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "pointwise operation");
    const cudnnBackendDescriptor_t desc = pw.get();
    const float one = 1.0f; // alpha1 and alpha2, which the frontend always sets to 1
    op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR), CUDNN_TYPE_BACKEND_DESCRIPTOR, desc)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_XDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, x)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_YDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, y);
    if (b) op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_BDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, b);
    if (t) op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_TDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, t);
    op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1), CUDNN_TYPE_FLOAT, one)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2), CUDNN_TYPE_FLOAT, one);
    ops.push_back(op.finalize().get());
  }

  /// c = a·b over the last two dims, computed in f32.
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    Desc &mm = add(CUDNN_BACKEND_MATMUL_DESCRIPTOR, "matmul");
    mm.set(TILE_ATTR(CUDNN_ATTR_MATMUL_COMP_TYPE), CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT).finalize();
    const cudnnBackendDescriptor_t desc = mm.get();
    Desc &op = add(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, "matmul operation");
    op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_MATMUL_ADESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, a)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_MATMUL_BDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, b)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_MATMUL_CDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, c)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_MATMUL_DESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, desc);
    ops.push_back(op.finalize().get());
  }

  /// y = x reduced by `mode` over the dims where y has extent 1, in f32.
  void reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    Desc &rd = add(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, "reduction");
    rd.set(TILE_ATTR(CUDNN_ATTR_REDUCTION_COMP_TYPE), CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT)
        .set(TILE_ATTR(CUDNN_ATTR_REDUCTION_OPERATOR), CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, mode);
    // The frontend sets its (default: false) determinism flag from cuDNN 9.11 on.
    if (version >= 91100) rd.set(TILE_ATTR(CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC), CUDNN_TYPE_BOOLEAN, kFalse);
    rd.finalize();
    const cudnnBackendDescriptor_t desc = rd.get();
    Desc &op = add(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, "reduction operation");
    op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_DESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, desc)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_XDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, x)
        .set(TILE_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_YDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, y);
    ops.push_back(op.finalize().get());
  }
};

/// The SDPA forward's operations for `p` into `g` (the graph at the top of this file).
void buildSdpa(Graph &g, const SdpaProblem &p) {
  const int64_t b = p.batch, h = p.heads, s = p.seqlen, d = p.headDim;
  const int64_t qRow = p.heads * d, kvRow = p.kvHeads * d; // elements per token of q/o and of k/v
  const cudnnDataType_t io = p.bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, f32 = CUDNN_DATA_FLOAT;
  // The packed [tokens, heads·d] buffers seen as [b, h, s, d]: token b·s + i, head h at column h·d.
  const auto Q = g.tensor(kQ, io, {b, h, s, d}, {s * qRow, d, qRow, 1});
  // The first matmul's B is Kᵀ [b, hkv, d, s]: K's view with its last two dims (and strides) swapped,
  // as the frontend hands K to it. Grouped queries: hkv divides h (the frontend's rule).
  const auto KT = g.tensor(kK, io, {b, p.kvHeads, d, s}, {s * kvRow, d, 1, kvRow});
  const auto V = g.tensor(kV, io, {b, p.kvHeads, s, d}, {s * kvRow, d, kvRow, 1});
  const auto O = g.tensor(kO, io, {b, h, s, d}, {s * qRow, d, qRow, 1});
  const auto stats = g.tensor(kStats, f32, {b, h, s, 1}, {h * s, s, 1, 1});
  const Dims one{1, 1, 1, 1};
  const auto scale = g.tensor(kScale, f32, one, one, false, /*byValue=*/true);
  // The scores and the per-row values, with the strides the frontend gives them.
  const Dims scores{b, h, s, s}, scoreStrides{h * s * s, s * s, s, 1}, rows{b, h, s, 1}, rowStrides{h * s, s, 1, 1};

  const auto qk = g.virt(f32, scores, scoreStrides);
  g.matmul(Q, KT, qk);
  auto scaled = g.virt(f32, scores, scoreStrides);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, qk, scaled, scale);
  if (p.causal) {
    // The frontend's right-bound band mask with bound 0 (its causal_mask), as composed before cuDNN 9.21.
    const auto row = g.virt(CUDNN_DATA_INT32, scores, scoreStrides),
               col = g.virt(CUDNN_DATA_INT32, scores, scoreStrides);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scaled, row, nullptr, nullptr, /*axis=*/2);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scaled, col, nullptr, nullptr, /*axis=*/3);
    const auto visible = g.virt(CUDNN_DATA_BOOLEAN, scores, scoreStrides);
    g.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, visible, col);
    const auto negInf = g.tensor(kNegInf, f32, one, one, false, /*byValue=*/true);
    const auto masked = g.virt(f32, scores, scoreStrides);
    g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, scaled, masked, negInf, visible);
    scaled = masked;
  }
  // The frontend's composite softmax with stats (softmax.h, before cuDNN 9.21).
  const auto rowMax = g.virt(f32, rows, rowStrides);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, scaled, rowMax);
  const auto shifted = g.virt(f32, scores, scoreStrides);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, scaled, shifted, rowMax);
  const auto e = g.virt(f32, scores, scoreStrides);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, shifted, e);
  const auto rowSum = g.virt(f32, rows, rowStrides);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, rowSum);
  const auto logSum = g.virt(f32, rows, rowStrides);
  g.pointwise(CUDNN_POINTWISE_LOG, f32, rowSum, logSum);
  g.pointwise(CUDNN_POINTWISE_ADD, f32, rowMax, stats, logSum);
  // P in the inputs' type: the frontend's "bmm2 aType as i/o type" requirement.
  const auto probs = g.virt(io, scores, scoreStrides);
  g.pointwise(CUDNN_POINTWISE_DIV, f32, e, probs, rowSum);
  g.matmul(probs, V, O);
}

/// The engine configurations heuristics `mode` offers for `graph`, best first.
std::vector<Desc> engineConfigs(const CudnnApi &api, cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode) {
  Desc heur(api, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "engine heuristics");
  heur.set(TILE_ATTR(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH), CUDNN_TYPE_BACKEND_DESCRIPTOR, graph)
      .set(TILE_ATTR(CUDNN_ATTR_ENGINEHEUR_MODE), CUDNN_TYPE_HEUR_MODE, mode)
      .finalize();
  int64_t count = 0;
  heur.get(TILE_ATTR(CUDNN_ATTR_ENGINEHEUR_RESULTS), CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
  // The results are written into engine-config descriptors made beforehand (as the frontend does).
  std::vector<Desc> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  configs.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i)
    raw.push_back(configs.emplace_back(api, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config").get());
  int64_t got = 0;
  if (count > 0)
    heur.get(TILE_ATTR(CUDNN_ATTR_ENGINEHEUR_RESULTS), CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data());
  while (int64_t(configs.size()) > got) configs.pop_back();
  return configs;
}

/// "engine 8, runtime-compiled" for an engine config (its global index and behaviour notes); the
/// queries are diagnostics only, so a failed one leaves its part out.
std::string engineName(const CudnnApi &api, cudnnBackendDescriptor_t config) {
  Desc engine(api, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine");
  cudnnBackendDescriptor_t e = engine.get();
  int64_t n = 0, index = -1;
  if (api.backendGet(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e) !=
          CUDNN_STATUS_SUCCESS ||
      api.backendGet(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &index) != CUDNN_STATUS_SUCCESS)
    return "engine ?";
  std::string name = "engine " + std::to_string(index);
  std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> notes{};
  if (api.backendGet(e, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, int64_t(notes.size()), &n,
                     notes.data()) == CUDNN_STATUS_SUCCESS)
    for (int64_t i = 0; i < n && i < int64_t(notes.size()); ++i)
      if (notes[size_t(i)] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) name += ", runtime-compiled";
  return name;
}

const CudnnApi &requireCudnn() {
  std::string why;
  const CudnnApi *api = cudnnApi(&why);
  if (!api) throw std::runtime_error("cuDNN is not loadable: " + why);
  return *api;
}

} // namespace

std::string SdpaProblem::describe() const {
  return std::string(bf16 ? "bf16" : "f16") + " d" + std::to_string(headDim) + (causal ? " causal " : " full ") +
         std::to_string(batch) + "x" + std::to_string(heads) + "/" + std::to_string(kvHeads) + "x" +
         std::to_string(seqlen);
}

// Members in the order they are made, so destroyed plan first, graph last.
struct CudnnAttention::Plan {
  Graph graph;                ///< tensors, operations and the operation graph (last)
  std::vector<Desc> configs;  ///< the heuristics' list the plan's config belongs to
  std::unique_ptr<Desc> plan; ///< the finalized execution plan
  rt::DeviceBuffer workspace;
  std::string description;

  explicit Plan(const CudnnApi &api) : graph(api, int(api.getVersion())) {}
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

std::string CudnnAttention::prepare(const SdpaProblem &p) {
  const auto key = p.key();
  if (plans_.count(key)) return "";
  if (auto r = refused_.find(key); r != refused_.end()) return r->second;
  const auto start = std::chrono::steady_clock::now();
  auto plan = std::make_unique<Plan>(api_);
  std::string why;
  try {
    if (p.batch < 1 || p.heads < 1 || p.kvHeads < 1 || p.heads % p.kvHeads || p.seqlen < 1 || p.headDim % 8)
      throw std::runtime_error(
          "not a problem the graph describes (kvHeads must divide heads, headDim a multiple of 8)");
    Graph &g = plan->graph;
    buildSdpa(g, p);
    Desc &graph = g.add(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
    graph
        .setArray(TILE_ATTR(CUDNN_ATTR_OPERATIONGRAPH_OPS), CUDNN_TYPE_BACKEND_DESCRIPTOR, g.ops.data(),
                  int64_t(g.ops.size()))
        .set(TILE_ATTR(CUDNN_ATTR_OPERATIONGRAPH_HANDLE), CUDNN_TYPE_HANDLE, handle_)
        .finalize();
    // Heuristics mode A (what PyTorch asks for), then the fallback list; the first config that
    // finalizes into a plan is taken, as the frontend's build_plans does by default.
    std::string tried;
    for (auto [mode, modeName] : {std::pair{CUDNN_HEUR_MODE_A, "A"}, std::pair{CUDNN_HEUR_MODE_FALLBACK, "fallback"}}) {
      std::vector<Desc> configs;
      try {
        configs = engineConfigs(api_, graph.get(), mode);
      } catch (const std::exception &e) {
        tried += std::string(tried.empty() ? "" : "; ") + "heuristics " + modeName + ": " + e.what();
        continue;
      }
      std::string firstError;
      for (size_t i = 0; i < configs.size(); ++i) {
        try {
          auto candidate = std::make_unique<Desc>(api_, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
          const cudnnBackendDescriptor_t config = configs[i].get();
          candidate->set(TILE_ATTR(CUDNN_ATTR_EXECUTION_PLAN_HANDLE), CUDNN_TYPE_HANDLE, handle_)
              .set(TILE_ATTR(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG), CUDNN_TYPE_BACKEND_DESCRIPTOR, config)
              .finalize();
          int64_t n = 0, bytes = 0;
          candidate->get(TILE_ATTR(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE), CUDNN_TYPE_INT64, 1, &n, &bytes);
          plan->workspace = rt::DeviceBuffer(size_t(bytes));
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
          plan->description = engineName(api_, config) + " (heuristics " + modeName + ", config " +
                              std::to_string(i + 1) + " of " + std::to_string(configs.size()) + "), workspace " +
                              std::to_string(bytes) + " B, built in " + std::to_string(int64_t(ms)) + " ms";
          plan->plan = std::move(candidate);
          plan->configs = std::move(configs);
          break;
        } catch (const std::exception &e) {
          if (firstError.empty()) firstError = e.what();
        }
      }
      if (plan->plan) break;
      tried += std::string(tried.empty() ? "" : "; ") + "heuristics " + modeName + ": " +
               std::to_string(configs.size()) + " configs" +
               (firstError.empty() ? "" : ", first refused: " + firstError);
    }
    if (!plan->plan) why = "no cuDNN engine supports this SDPA graph (" + tried + ")";
  } catch (const std::exception &e) { why = e.what(); }
  if (!why.empty()) {
    why = version() + ", " + p.describe() + ": " + why;
    refused_[key] = why;
    return why;
  }
  plans_[key] = std::move(plan);
  return "";
}

std::string CudnnAttention::describe(const SdpaProblem &p) const {
  auto it = plans_.find(p.key());
  return it == plans_.end() ? "not prepared" : it->second->description;
}

void CudnnAttention::forward(const SdpaProblem &p, DevicePtr q, DevicePtr k, DevicePtr v, DevicePtr o, DevicePtr stats,
                             double scale) {
  if (std::string why = prepare(p); !why.empty()) throw std::runtime_error(why);
  const Plan &plan = *plans_.at(p.key());
  // By-value scalars are read from host memory when the plan executes.
  float scaleValue = float(scale), negInf = -INFINITY;
  auto at = [](DevicePtr x) { return reinterpret_cast<void *>(static_cast<uintptr_t>(x)); };
  void *pointers[] = {at(q), at(k), at(v), at(o), at(stats), &scaleValue, &negInf};
  const int64_t uids[] = {kQ, kK, kV, kO, kStats, kScale, kNegInf};
  const int64_t n = p.causal ? 7 : 6; // -inf only where the causal mask uses it
  void *workspace = plan.workspace.bytes() ? at(plan.workspace.ptr()) : nullptr;
  Desc pack(api_, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
  pack.setArray(TILE_ATTR(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS), CUDNN_TYPE_INT64, uids, n)
      .setArray(TILE_ATTR(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS), CUDNN_TYPE_VOID_PTR, pointers, n)
      .set(TILE_ATTR(CUDNN_ATTR_VARIANT_PACK_WORKSPACE), CUDNN_TYPE_VOID_PTR, workspace)
      .finalize();
  if (cudnnStatus_t s = api_.backendExecute(handle_, plan.plan->get(), pack.get()); s != CUDNN_STATUS_SUCCESS)
    fail(api_, s, "cudnnBackendExecute " + p.describe());
}

} // namespace tile::reference
