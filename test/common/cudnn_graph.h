// cuDNN's backend graph API in a few types, as cudnn_attention.cpp builds its graphs with them: a
// descriptor that names itself in its errors, the descriptors of one operation graph (tensors and the
// operations cudnn-frontend's nodes lower to: pointwise, matmul, reduction, reshape), the plan its
// heuristics offer, and one execution. Every refusal throws std::runtime_error with one line: the step,
// cuDNN's status and its last error message (the rule that refused it), so a remote run says why.
#pragma once

#include "cudnn_api.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tile::reference::backend {

// An attribute and its name, for the errors (a refused attribute is what a remote run reports).
#define TILE_ATTR(name) name, #name

/// The failure of `what`: cuDNN's status and its last error message on one line (the message says
/// which rule refused the graph, where the status alone says "not supported").
[[noreturn]] void fail(const CudnnApi &api, cudnnStatus_t s, const std::string &what);

/// One backend descriptor, destroyed with its owner.
class Desc {
public:
  Desc(const CudnnApi &api, cudnnBackendDescriptorType_t type, const char *what);
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

using Dims = std::vector<int64_t>;

/// The descriptors of one operation graph (a deque: references to them stay valid as it grows),
/// destroyed newest first: no descriptor outlives one it was given. Each operation is built as
/// cudnn-frontend's node of that kind lowers it (the attributes it sets, and no others).
struct Graph {
  const CudnnApi &api;
  int version; ///< cudnnGetVersion()
  std::deque<Desc> keep;
  std::vector<cudnnBackendDescriptor_t> ops; ///< the operations, in the frontend's order
  int64_t nextUid;                           ///< of the next virtual tensor

  Graph(const CudnnApi &a, int64_t firstVirtualUid) : api(a), version(int(a.getVersion())), nextUid(firstVirtualUid) {}
  ~Graph() {
    while (!keep.empty()) keep.pop_back();
  }

  Desc &add(cudnnBackendDescriptorType_t type, const char *what) { return keep.emplace_back(api, type, what); }

  /// A tensor; byte alignment 16, the frontend's default for every tensor.
  cudnnBackendDescriptor_t tensor(int64_t uid, cudnnDataType_t type, const Dims &dims, const Dims &strides,
                                  bool isVirtual = false, bool byValue = false);
  cudnnBackendDescriptor_t virt(cudnnDataType_t type, const Dims &dims, const Dims &strides) {
    return tensor(nextUid++, type, dims, strides, /*isVirtual=*/true);
  }
  /// An f32 scalar passed by value, [1, 1, 1, 1]: PyTorch's scale, and the frontend's own constants
  /// (Tensor_attributes(float), dims {1}, which its attributes' pass-by-value step gives the rank of the
  /// operation's other inputs before any descriptor is made: graph_properties.h).
  cudnnBackendDescriptor_t scalar(int64_t uid) {
    return tensor(uid, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, /*isVirtual=*/false, /*byValue=*/true);
  }

  /// y = mode(x[, b[, t]]) computed in `prec`; `axis` for GEN_INDEX.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t prec, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t b = nullptr, cudnnBackendDescriptor_t t = nullptr,
                 int64_t axis = -1);
  /// c = a·b over the last two dims, computed in f32.
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c);
  /// y = x reduced by `mode` over the dims where y's extent differs from x's, in f32.
  void reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y);
  /// y = x seen with y's dims and strides (a transpose, here).
  void reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y);

  /// The operation graph of `ops`, on `handle`, finalized.
  cudnnBackendDescriptor_t finalize(cudnnHandle_t handle);
};

/// An execution plan and the engine configurations it came from (which it may reference).
struct Plan {
  std::vector<Desc> configs;
  std::unique_ptr<Desc> plan;
  int64_t workspaceBytes = 0;
  std::string engine; ///< "engine 8 (heuristics A, config 1 of 3)"
};

/// The first configuration of heuristics mode A (what PyTorch asks for), then of the fallback list,
/// that finalizes into a plan (as the frontend's build_plans does by default). Throws "no cuDNN engine
/// supports this graph (heuristics A: 0 configs; heuristics fallback: 2 configs, first refused: ...)".
Plan buildPlan(const CudnnApi &api, cudnnHandle_t handle, cudnnBackendDescriptor_t graph);

/// Runs `plan` on `tensors` (unique id, pointer: device memory; host memory for by-value tensors, read
/// when it runs) with `workspace`, queued on the handle's stream. Throws naming `what`.
void execute(const CudnnApi &api, cudnnHandle_t handle, const Plan &plan,
             const std::vector<std::pair<int64_t, void *>> &tensors, void *workspace, const std::string &what);

} // namespace tile::reference::backend
