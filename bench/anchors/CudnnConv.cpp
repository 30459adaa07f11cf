//===- CudnnConv.cpp - cuDNN's convolutions through dlsym ----===//
#include "CudnnConv.h"

#include "Loader.h"

#include "tile/runtime/Memory.h"

#include <cudnn.h>

#include <stdexcept>
#include <vector>

namespace tile::bench {

namespace {

// cuDNN's entry points (test/common/cudnn_api.h), set once the library loads.
const reference::CudnnApi *gDnn = nullptr;

using reference::check;

constexpr size_t kWorkspaceBytes = size_t(256) << 20;
constexpr int kMaxAlgorithms = 8;

const char *algorithmName(ConvPass pass, int algo) {
  static const char *const forward[] = {"implicit_gemm", "implicit_precomp_gemm", "gemm", "direct", "fft", "fft_tiling",
                                        "winograd",      "winograd_nonfused"};
  static const char *const data[] = {"algo0", "algo1", "fft", "fft_tiling", "winograd", "winograd_nonfused"};
  static const char *const filter[] = {"algo0", "algo1", "fft", "algo3", "winograd", "winograd_nonfused", "fft_tiling"};
  auto pick = [&](const auto &names) { return algo >= 0 && size_t(algo) < std::size(names) ? names[algo] : "?"; };
  return pass == ConvPass::Forward ? pick(forward) : pass == ConvPass::BackwardData ? pick(data) : pick(filter);
}

// The fastest successful result of a Find*Ex (sorted by time, failures last): algorithm, math, workspace.
template <class Perf> bool fastest(const Perf *results, int count, int *algo, cudnnMathType_t *math, size_t *bytes) {
  for (int i = 0; i < count; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS && results[i].memory <= kWorkspaceBytes) {
      *algo = int(results[i].algo), *math = results[i].mathType, *bytes = results[i].memory;
      return true;
    }
  return false;
}

} // namespace

class CudnnConv::Plan {
public:
  ~Plan() {
    for (cudnnTensorDescriptor_t t : {xDesc, yDesc, biasDesc})
      if (t) gDnn->destroyTensor(t);
    if (wDesc) gDnn->destroyFilter(wDesc);
    if (conv) gDnn->destroyConv(conv);
  }
  ConvShape shape{};
  ConvBuffers buffers;
  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr, biasDesc = nullptr; // x/dx [n, cin], y/dy [n, cout]
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = -1, tried = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspaceBytes = 0;
};

CudnnConv *CudnnConv::get(std::string *why) {
  struct Loaded {
    CudnnConv *dnn = nullptr;
    std::string why;
  };
  static const Loaded once = [] {
    Loaded l;
    gDnn = reference::cudnnApi(&l.why);
    if (!gDnn) return l;
    auto *d = new CudnnConv; // never freed: the handle and workspace live until exit
    cudnnHandle_t h = nullptr;
    try {
      check(gDnn->create(&h), "cudnnCreate");
      d->workspace_ = (new rt::DeviceBuffer(kWorkspaceBytes))->ptr();
    } catch (const std::exception &e) {
      l.why = e.what();
      return l;
    }
    d->handle_ = h;
    l.dnn = d;
    return l;
  }();
  if (!once.dnn && why) *why = once.why;
  return once.dnn;
}

std::string CudnnConv::version() const { return "cuDNN " + std::to_string(gDnn->getVersion()); }

std::shared_ptr<CudnnConv::Plan> CudnnConv::plan(const ConvShape &s, const ConvBuffers &b) {
  auto p = std::make_shared<Plan>();
  p->shape = s, p->buffers = b;
  check(gDnn->createTensor(&p->xDesc), "cudnnCreateTensorDescriptor");
  check(gDnn->createTensor(&p->yDesc), "cudnnCreateTensorDescriptor");
  check(gDnn->createTensor(&p->biasDesc), "cudnnCreateTensorDescriptor");
  check(gDnn->createFilter(&p->wDesc), "cudnnCreateFilterDescriptor");
  check(gDnn->createConv(&p->conv), "cudnnCreateConvolutionDescriptor");
  check(gDnn->setTensor4d(p->xDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.cin, s.hw, s.hw), "x descriptor");
  check(gDnn->setTensor4d(p->yDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.cout, s.hw, s.hw), "y descriptor");
  check(gDnn->setTensor4d(p->biasDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, s.cout, 1, 1), "bias descriptor");
  check(gDnn->setFilter4d(p->wDesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.cout, s.cin, 3, 3), "weight descriptor");
  check(gDnn->setConv2d(p->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "convolution descriptor");
  check(gDnn->setConvMathType(p->conv, s.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
  auto h = static_cast<cudnnHandle_t>(handle_);
  void *ws = reinterpret_cast<void *>(workspace_);
  auto ptr = [](CUdeviceptr d) { return reinterpret_cast<void *>(d); };
  int count = 0;
  bool found = false;
  if (s.pass == ConvPass::Forward) {
    cudnnConvolutionFwdAlgoPerf_t r[kMaxAlgorithms];
    check(gDnn->findForward(h, p->xDesc, ptr(b.x), p->wDesc, ptr(b.weight), p->conv, p->yDesc, ptr(b.out),
                            kMaxAlgorithms, &count, r, ws, kWorkspaceBytes),
          "cudnnFindConvolutionForwardAlgorithmEx");
    found = fastest(r, count, &p->algo, &p->math, &p->workspaceBytes);
  } else if (s.pass == ConvPass::BackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t r[kMaxAlgorithms];
    check(gDnn->findBackwardData(h, p->wDesc, ptr(b.weight), p->yDesc, ptr(b.dy), p->conv, p->xDesc, ptr(b.out),
                                 kMaxAlgorithms, &count, r, ws, kWorkspaceBytes),
          "cudnnFindConvolutionBackwardDataAlgorithmEx");
    found = fastest(r, count, &p->algo, &p->math, &p->workspaceBytes);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t r[kMaxAlgorithms];
    check(gDnn->findBackwardFilter(h, p->xDesc, ptr(b.x), p->yDesc, ptr(b.dy), p->conv, p->wDesc, ptr(b.out),
                                   kMaxAlgorithms, &count, r, ws, kWorkspaceBytes),
          "cudnnFindConvolutionBackwardFilterAlgorithmEx");
    found = fastest(r, count, &p->algo, &p->math, &p->workspaceBytes);
  }
  if (!found) throw std::runtime_error("cuDNN found no algorithm for this convolution");
  p->tried = count;
  // As PyTorch does after its search: run the winner in the math it was timed with (fp32 stays FMA-only).
  if (s.tf32) check(gDnn->setConvMathType(p->conv, p->math), "cudnnSetConvolutionMathType");
  return p;
}

std::string CudnnConv::describe(const Plan &p) {
  const char *math = p.math == CUDNN_FMA_MATH ? "fma" : p.math == CUDNN_DEFAULT_MATH ? "default" : "tensor_op";
  return std::string(algorithmName(p.shape.pass, p.algo)) + " " + math + " (" + std::to_string(p.tried) + " tried)";
}

void CudnnConv::run(const Plan &p) {
  auto h = static_cast<cudnnHandle_t>(handle_);
  void *ws = reinterpret_cast<void *>(workspace_);
  auto ptr = [](CUdeviceptr d) { return reinterpret_cast<void *>(d); };
  const float one = 1.0f, zero = 0.0f;
  const ConvBuffers &b = p.buffers;
  switch (p.shape.pass) {
  case ConvPass::Forward:
    check(gDnn->convForward(h, &one, p.xDesc, ptr(b.x), p.wDesc, ptr(b.weight), p.conv,
                            cudnnConvolutionFwdAlgo_t(p.algo), ws, p.workspaceBytes, &zero, p.yDesc, ptr(b.out)),
          "cudnnConvolutionForward");
    check(gDnn->addTensor(h, &one, p.biasDesc, ptr(b.bias), &one, p.yDesc, ptr(b.out)), "cudnnAddTensor");
    break;
  case ConvPass::BackwardData:
    check(gDnn->convBackwardData(h, &one, p.wDesc, ptr(b.weight), p.yDesc, ptr(b.dy), p.conv,
                                 cudnnConvolutionBwdDataAlgo_t(p.algo), ws, p.workspaceBytes, &zero, p.xDesc,
                                 ptr(b.out)),
          "cudnnConvolutionBackwardData");
    break;
  case ConvPass::BackwardWeight:
    check(gDnn->convBackwardFilter(h, &one, p.xDesc, ptr(b.x), p.yDesc, ptr(b.dy), p.conv,
                                   cudnnConvolutionBwdFilterAlgo_t(p.algo), ws, p.workspaceBytes, &zero, p.wDesc,
                                   ptr(b.out)),
          "cudnnConvolutionBackwardFilter");
    break;
  }
}

} // namespace tile::bench
