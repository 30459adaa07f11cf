//===- CudnnConv.h - cuDNN as the convolution anchor, loaded at run time ----===//
// The MNIST CNN's 3x3 convolutions (stride 1, padding 1, float32 NCHW) through cuDNN on the device
// buffers ours reads: forward with its bias (cudnnConvolutionForward + cudnnAddTensor; ours also writes
// the batchnorm's partial statistics, which cuDNN does not), the data gradient and the weight gradient.
// Each plan's algorithm is cuDNN's fastest by its own timed search (cudnnFind*AlgorithmEx, what
// PyTorch runs with cudnn.benchmark on), among those whose workspace fits 256 MiB. fp32 is
// CUDNN_FMA_MATH (no tensor cores, as ours' exact f32); tf32 lets cuDNN use TF32 tensor cores.
// libcudnn.so.9 is dlopen'ed: bench_anchors does not link it.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

namespace tile::bench {

enum class ConvPass { Forward, BackwardData, BackwardWeight };

/// What a pass reads and writes: fwd x, weight, bias -> out (y); bwd_data dy, weight -> out (dx);
/// bwd_weight x, dy -> out (dweight [cout, cin, 3, 3]).
struct ConvBuffers {
  CUdeviceptr x = 0, weight = 0, bias = 0, dy = 0, out = 0;
};

struct ConvShape {
  ConvPass pass;
  int n, cin, hw, cout;
  bool tf32;
};

class CudnnConv {
public:
  /// Loads cuDNN and creates its handle once; nullptr with *why (one line) where it cannot.
  static CudnnConv *get(std::string *why);
  /// "cuDNN 91900".
  std::string version() const;

  class Plan;
  /// Descriptors for `shape` and cuDNN's fastest algorithm for it, found by timing on `b` (which the
  /// search overwrites: out only).
  std::shared_ptr<Plan> plan(const ConvShape &shape, const ConvBuffers &b);
  /// "implicit_precomp_gemm tensor_op (3 tried)": the chosen algorithm, its math, how many ran.
  static std::string describe(const Plan &p);
  void run(const Plan &p);

private:
  CudnnConv() = default;
  void *handle_ = nullptr;
  CUdeviceptr workspace_ = 0;
};

} // namespace tile::bench
