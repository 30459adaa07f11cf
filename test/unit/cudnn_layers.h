// The layers of the MNIST CNN as cuDNN and cuBLAS compute them: the oracle of the GPU
// reference tests (cudnn_gpu_tests.cpp). Every call is float32 NCHW (row-major matrices for
// the linear layers) on device addresses, with tensor cores off: convolutions in
// CUDNN_FMA_MATH, cuBLAS in CUBLAS_PEDANTIC_MATH, so ours (CUDA-core FMA) is held to 1e-5.
#pragma once

#include "cudnn_api.h"

#include "tile/runtime/Memory.h"

#include <cstdint>

namespace tile::reference {

using DevicePtr = uint64_t; // a CUdeviceptr

class CudnnLayers {
public:
  /// Throws std::runtime_error if cuDNN or cuBLAS cannot be loaded (the message says why).
  CudnnLayers();
  ~CudnnLayers();
  CudnnLayers(const CudnnLayers &) = delete;
  CudnnLayers &operator=(const CudnnLayers &) = delete;

  /// "cuDNN 91900, cuBLAS 130100": what answered.
  std::string versions() const;

  // 3x3 convolution, stride 1, padding 1: x [n, cin, h, w], weight [cout, cin, 3, 3], bias [cout].
  void convForward(DevicePtr x, DevicePtr weight, DevicePtr bias, DevicePtr y, int n, int cin, int h, int w, int cout);
  void convBackwardData(DevicePtr dy, DevicePtr weight, DevicePtr dx, int n, int cin, int h, int w, int cout);
  void convBackwardWeight(DevicePtr x, DevicePtr dy, DevicePtr dweight, int n, int cin, int h, int w, int cout);
  void convBackwardBias(DevicePtr dy, DevicePtr dbias, int n, int cout, int h, int w);

  // Batchnorm with batch statistics (spatial): saveMean, saveInvStd [c] as cuDNN saves them.
  void batchNormForward(DevicePtr x, DevicePtr y, DevicePtr gamma, DevicePtr beta, DevicePtr saveMean,
                        DevicePtr saveInvStd, int n, int c, int h, int w, double eps);
  void batchNormBackward(DevicePtr x, DevicePtr dy, DevicePtr gamma, DevicePtr dx, DevicePtr dgamma, DevicePtr dbeta,
                         DevicePtr saveMean, DevicePtr saveInvStd, int n, int c, int h, int w, double eps);

  // Relu and 2x2 max pooling (stride 2) over [n, c, h, w] (pooling: y [n, c, h/2, w/2]).
  void reluForward(DevicePtr x, DevicePtr y, int n, int c, int h, int w);
  void reluBackward(DevicePtr y, DevicePtr dy, DevicePtr x, DevicePtr dx, int n, int c, int h, int w);
  void maxPoolForward(DevicePtr x, DevicePtr y, int n, int c, int h, int w);
  void maxPoolBackward(DevicePtr y, DevicePtr dy, DevicePtr x, DevicePtr dx, int n, int c, int h, int w);

  // Row-wise (log-)softmax over [rows, cols].
  void softmaxForward(DevicePtr x, DevicePtr y, int rows, int cols);
  void logSoftmaxForward(DevicePtr x, DevicePtr y, int rows, int cols);
  void logSoftmaxBackward(DevicePtr y, DevicePtr dy, DevicePtr dx, int rows, int cols);

  // Linear layer through cuBLAS: x [batch, in], weight [out, in], bias [out], y [batch, out].
  void linearForward(DevicePtr x, DevicePtr weight, DevicePtr bias, DevicePtr y, int batch, int in, int out);
  void linearBackwardData(DevicePtr dy, DevicePtr weight, DevicePtr dx, int batch, int in, int out);
  void linearBackwardWeight(DevicePtr dy, DevicePtr x, DevicePtr dweight, int batch, int in, int out);
  void linearBackwardBias(DevicePtr dy, DevicePtr dbias, int batch, int out);

  /// Row-major C[m, n] (f32) = A[m, k] · B[k, n] with A and B of `inputs` (CUDA_R_16F,
  /// CUDA_R_16BF or CUDA_R_32F) through cublasGemmEx in `compute` (CUBLAS_COMPUTE_32F, or
  /// CUBLAS_COMPUTE_32F_FAST_TF32 for TF32 tensor cores).
  void matmul(DevicePtr a, DevicePtr b, DevicePtr c, int m, int n, int k, cudaDataType inputs,
              cublasComputeType_t compute);

  /// y += alpha * x over n floats (the SGD update with alpha = -lr).
  void axpy(DevicePtr x, DevicePtr y, int64_t n, float alpha);

private:
  void *workspace(size_t bytes);
  DevicePtr ones(int n);
  const CudnnApi &dnn_;
  const CublasApi &blas_;
  cudnnHandle_t handle_ = nullptr;
  cublasHandle_t blasHandle_ = nullptr;
  cudnnActivationDescriptor_t relu_ = nullptr;
  cudnnPoolingDescriptor_t pool_ = nullptr;
  rt::DeviceBuffer workspace_, ones_;
};

} // namespace tile::reference
