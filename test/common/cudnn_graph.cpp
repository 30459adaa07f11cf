// cuDNN's backend graph API (see cudnn_graph.h). Each operation sets what cudnn-frontend's node of that
// kind sets (include/cudnn_frontend/node/pointwise.h, matmul.h, reduction.h, reshape.h, v1.18, the
// version PyTorch 2.11 pins), in the same order.
#include "cudnn_graph.h"

#include <array>
#include <stdexcept>

namespace tile::reference::backend {

namespace {

const bool kTrue = true, kFalse = false;

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

} // namespace

void fail(const CudnnApi &api, cudnnStatus_t s, const std::string &what) {
  char detail[1024] = {};
  api.getLastErrorString(detail, sizeof detail);
  std::string msg = what + ": " + api.getErrorString(s);
  if (detail[0]) msg += ": " + std::string(detail);
  for (char &c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  throw std::runtime_error(msg);
}

Desc::Desc(const CudnnApi &api, cudnnBackendDescriptorType_t type, const char *what) : api_(&api), what_(what) {
  if (cudnnStatus_t s = api.backendCreate(type, &d_); s != CUDNN_STATUS_SUCCESS)
    fail(api, s, std::string("cudnnBackendCreateDescriptor ") + what);
}

cudnnBackendDescriptor_t Graph::tensor(int64_t uid, cudnnDataType_t type, const Dims &dims, const Dims &strides,
                                       bool isVirtual, bool byValue) {
  const int64_t alignment = 16;
  Desc &t = add(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor");
  t.set(TILE_ATTR(CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_TYPE_DATA_TYPE, type)
      .setArray(TILE_ATTR(CUDNN_ATTR_TENSOR_DIMENSIONS), CUDNN_TYPE_INT64, dims.data(), int64_t(dims.size()))
      .setArray(TILE_ATTR(CUDNN_ATTR_TENSOR_STRIDES), CUDNN_TYPE_INT64, strides.data(), int64_t(strides.size()))
      .set(TILE_ATTR(CUDNN_ATTR_TENSOR_UNIQUE_ID), CUDNN_TYPE_INT64, uid)
      .set(TILE_ATTR(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT), CUDNN_TYPE_INT64, alignment);
  // The frontend sets these two only when true.
  if (isVirtual) t.set(TILE_ATTR(CUDNN_ATTR_TENSOR_IS_VIRTUAL), CUDNN_TYPE_BOOLEAN, kTrue);
  if (byValue) t.set(TILE_ATTR(CUDNN_ATTR_TENSOR_IS_BY_VALUE), CUDNN_TYPE_BOOLEAN, kTrue);
  return t.finalize().get();
}

void Graph::pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t prec, cudnnBackendDescriptor_t x,
                      cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
                      int64_t axis) {
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

void Graph::matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
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

void Graph::reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
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

void Graph::reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
  Desc &op = add(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, "reshape operation");
  op.set(TILE_ATTR(CUDNN_ATTR_OPERATION_RESHAPE_XDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, x)
      .set(TILE_ATTR(CUDNN_ATTR_OPERATION_RESHAPE_YDESC), CUDNN_TYPE_BACKEND_DESCRIPTOR, y);
  ops.push_back(op.finalize().get());
}

cudnnBackendDescriptor_t Graph::finalize(cudnnHandle_t handle) {
  Desc &graph = add(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
  graph
      .setArray(TILE_ATTR(CUDNN_ATTR_OPERATIONGRAPH_OPS), CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.data(),
                int64_t(ops.size()))
      .set(TILE_ATTR(CUDNN_ATTR_OPERATIONGRAPH_HANDLE), CUDNN_TYPE_HANDLE, handle)
      .finalize();
  return graph.get();
}

Plan buildPlan(const CudnnApi &api, cudnnHandle_t handle, cudnnBackendDescriptor_t graph) {
  std::string tried;
  for (auto [mode, modeName] : {std::pair{CUDNN_HEUR_MODE_A, "A"}, std::pair{CUDNN_HEUR_MODE_FALLBACK, "fallback"}}) {
    Plan p;
    try {
      p.configs = engineConfigs(api, graph, mode);
    } catch (const std::exception &e) {
      tried += std::string(tried.empty() ? "" : "; ") + "heuristics " + modeName + ": " + e.what();
      continue;
    }
    std::string firstError;
    for (size_t i = 0; i < p.configs.size(); ++i) {
      try {
        auto candidate = std::make_unique<Desc>(api, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
        const cudnnBackendDescriptor_t config = p.configs[i].get();
        candidate->set(TILE_ATTR(CUDNN_ATTR_EXECUTION_PLAN_HANDLE), CUDNN_TYPE_HANDLE, handle)
            .set(TILE_ATTR(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG), CUDNN_TYPE_BACKEND_DESCRIPTOR, config)
            .finalize();
        int64_t n = 0;
        candidate->get(TILE_ATTR(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE), CUDNN_TYPE_INT64, 1, &n, &p.workspaceBytes);
        p.engine = engineName(api, config) + " (heuristics " + modeName + ", config " + std::to_string(i + 1) + " of " +
                   std::to_string(p.configs.size()) + ")";
        p.plan = std::move(candidate);
        return p;
      } catch (const std::exception &e) {
        if (firstError.empty()) firstError = e.what();
      }
    }
    tried += std::string(tried.empty() ? "" : "; ") + "heuristics " + modeName + ": " +
             std::to_string(p.configs.size()) + " configs" +
             (firstError.empty() ? "" : ", first refused: " + firstError);
  }
  throw std::runtime_error("no cuDNN engine supports this graph (" + tried + ")");
}

void execute(const CudnnApi &api, cudnnHandle_t handle, const Plan &plan,
             const std::vector<std::pair<int64_t, void *>> &tensors, void *workspace, const std::string &what) {
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  for (auto [uid, pointer] : tensors) uids.push_back(uid), pointers.push_back(pointer);
  Desc pack(api, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
  pack.setArray(TILE_ATTR(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS), CUDNN_TYPE_INT64, uids.data(), int64_t(uids.size()))
      .setArray(TILE_ATTR(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS), CUDNN_TYPE_VOID_PTR, pointers.data(),
                int64_t(pointers.size()))
      .set(TILE_ATTR(CUDNN_ATTR_VARIANT_PACK_WORKSPACE), CUDNN_TYPE_VOID_PTR, workspace)
      .finalize();
  if (cudnnStatus_t s = api.backendExecute(handle, plan.plan->get(), pack.get()); s != CUDNN_STATUS_SUCCESS)
    fail(api, s, "cudnnBackendExecute " + what);
}

} // namespace tile::reference::backend
