// The MNIST CNN's layers through cuDNN and cuBLAS (see cudnn_layers.h).
#include "cudnn_layers.h"

#include <stdexcept>
#include <vector>

namespace tile::reference {

namespace {

const CudnnApi &requireCudnn() {
  std::string why;
  const CudnnApi *api = cudnnApi(&why);
  if (!api) throw std::runtime_error("cuDNN is not loadable: " + why);
  return *api;
}
const CublasApi &requireCublas() {
  std::string why;
  const CublasApi *api = cublasApi(&why);
  if (!api) throw std::runtime_error("cuBLAS is not loadable: " + why);
  return *api;
}

void *at(DevicePtr p) { return reinterpret_cast<void *>(static_cast<uintptr_t>(p)); }

const float kOne = 1.0f, kZero = 0.0f;

// Descriptors, destroyed at the end of the call that made them.
struct TensorDesc {
  const CudnnApi &api;
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc(const CudnnApi &a, int n, int c, int h, int w) : api(a) {
    check(api.createTensor(&d), "cudnnCreateTensorDescriptor");
    check(api.setTensor4d(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w), "cudnnSetTensor4dDescriptor");
  }
  ~TensorDesc() { api.destroyTensor(d); }
};

// A 3x3 convolution's filter and convolution descriptors (padding 1, stride 1, FMA math only).
struct ConvDescs {
  const CudnnApi &api;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ConvDescs(const CudnnApi &a, int cin, int cout) : api(a) {
    check(api.createFilter(&filter), "cudnnCreateFilterDescriptor");
    check(api.setFilter4d(filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, cout, cin, 3, 3), "cudnnSetFilter4dDescriptor");
    check(api.createConv(&conv), "cudnnCreateConvolutionDescriptor");
    check(api.setConv2d(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    check(api.setConvMathType(conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
  }
  ~ConvDescs() {
    api.destroyConv(conv);
    api.destroyFilter(filter);
  }
};

// The first algorithm cuDNN's heuristics rank that runs in FMA math.
template <class Perf> auto pickAlgorithm(const std::vector<Perf> &perf, int count, const char *what) {
  for (int i = 0; i < count; ++i)
    if (perf[size_t(i)].status == CUDNN_STATUS_SUCCESS && perf[size_t(i)].mathType == CUDNN_FMA_MATH)
      return perf[size_t(i)].algo;
  throw std::runtime_error(std::string(what) + ": cuDNN offers no algorithm in FMA math for this shape");
}

} // namespace

CudnnLayers::CudnnLayers() : dnn_(requireCudnn()), blas_(requireCublas()) {
  check(dnn_.create(&handle_), "cudnnCreate");
  check(blas_.create(&blasHandle_), "cublasCreate");
  // No TF32 or reduced precision anywhere: the oracle of a float32 FMA implementation.
  check(blas_.setMathMode(blasHandle_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  check(dnn_.createActivation(&relu_), "cudnnCreateActivationDescriptor");
  check(dnn_.setActivation(relu_, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0), "cudnnSetActivationDescriptor");
  check(dnn_.createPooling(&pool_), "cudnnCreatePoolingDescriptor");
  check(dnn_.setPooling2d(pool_, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2),
        "cudnnSetPooling2dDescriptor");
}

CudnnLayers::~CudnnLayers() {
  if (pool_) dnn_.destroyPooling(pool_);
  if (relu_) dnn_.destroyActivation(relu_);
  if (blasHandle_) blas_.destroy(blasHandle_);
  if (handle_) dnn_.destroy(handle_);
}

std::string CudnnLayers::versions() const {
  int blasVersion = 0;
  check(blas_.getVersion(blasHandle_, &blasVersion), "cublasGetVersion");
  return "cuDNN " + std::to_string(dnn_.getVersion()) + ", cuBLAS " + std::to_string(blasVersion);
}

void *CudnnLayers::workspace(size_t bytes) {
  if (bytes > workspace_.bytes()) workspace_ = rt::DeviceBuffer(bytes);
  return bytes ? at(workspace_.ptr()) : nullptr;
}

DevicePtr CudnnLayers::ones(int n) {
  if (size_t(n) * sizeof(float) > ones_.bytes())
    ones_ = rt::DeviceBuffer::fromHost(std::vector<float>(size_t(n), 1.0f));
  return ones_.ptr();
}

void CudnnLayers::convForward(DevicePtr x, DevicePtr weight, DevicePtr bias, DevicePtr y, int n, int cin, int h, int w,
                              int cout) {
  TensorDesc xd(dnn_, n, cin, h, w), yd(dnn_, n, cout, h, w), bd(dnn_, 1, cout, 1, 1);
  ConvDescs cd(dnn_, cin, cout);
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int count = 0;
  check(dnn_.convForwardAlgorithms(handle_, xd.d, cd.filter, cd.conv, yd.d, int(perf.size()), &count, perf.data()),
        "cudnnGetConvolutionForwardAlgorithm_v7");
  auto algo = pickAlgorithm(perf, count, "cudnnConvolutionForward");
  size_t bytes = 0;
  check(dnn_.convForwardWorkspace(handle_, xd.d, cd.filter, cd.conv, yd.d, algo, &bytes),
        "cudnnGetConvolutionForwardWorkspaceSize");
  void *ws = workspace(bytes);
  check(dnn_.convForward(handle_, &kOne, xd.d, at(x), cd.filter, at(weight), cd.conv, algo, ws, bytes, &kZero, yd.d,
                         at(y)),
        "cudnnConvolutionForward");
  check(dnn_.addTensor(handle_, &kOne, bd.d, at(bias), &kOne, yd.d, at(y)), "cudnnAddTensor");
}

void CudnnLayers::convBackwardData(DevicePtr dy, DevicePtr weight, DevicePtr dx, int n, int cin, int h, int w,
                                   int cout) {
  TensorDesc dxd(dnn_, n, cin, h, w), dyd(dnn_, n, cout, h, w);
  ConvDescs cd(dnn_, cin, cout);
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  int count = 0;
  check(
      dnn_.convBackwardDataAlgorithms(handle_, cd.filter, dyd.d, cd.conv, dxd.d, int(perf.size()), &count, perf.data()),
      "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  auto algo = pickAlgorithm(perf, count, "cudnnConvolutionBackwardData");
  size_t bytes = 0;
  check(dnn_.convBackwardDataWorkspace(handle_, cd.filter, dyd.d, cd.conv, dxd.d, algo, &bytes),
        "cudnnGetConvolutionBackwardDataWorkspaceSize");
  void *ws = workspace(bytes);
  check(dnn_.convBackwardData(handle_, &kOne, cd.filter, at(weight), dyd.d, at(dy), cd.conv, algo, ws, bytes, &kZero,
                              dxd.d, at(dx)),
        "cudnnConvolutionBackwardData");
}

void CudnnLayers::convBackwardWeight(DevicePtr x, DevicePtr dy, DevicePtr dweight, int n, int cin, int h, int w,
                                     int cout) {
  TensorDesc xd(dnn_, n, cin, h, w), dyd(dnn_, n, cout, h, w);
  ConvDescs cd(dnn_, cin, cout);
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  int count = 0;
  check(dnn_.convBackwardFilterAlgorithms(handle_, xd.d, dyd.d, cd.conv, cd.filter, int(perf.size()), &count,
                                          perf.data()),
        "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  auto algo = pickAlgorithm(perf, count, "cudnnConvolutionBackwardFilter");
  size_t bytes = 0;
  check(dnn_.convBackwardFilterWorkspace(handle_, xd.d, dyd.d, cd.conv, cd.filter, algo, &bytes),
        "cudnnGetConvolutionBackwardFilterWorkspaceSize");
  void *ws = workspace(bytes);
  check(dnn_.convBackwardFilter(handle_, &kOne, xd.d, at(x), dyd.d, at(dy), cd.conv, algo, ws, bytes, &kZero, cd.filter,
                                at(dweight)),
        "cudnnConvolutionBackwardFilter");
}

void CudnnLayers::convBackwardBias(DevicePtr dy, DevicePtr dbias, int n, int cout, int h, int w) {
  TensorDesc dyd(dnn_, n, cout, h, w), bd(dnn_, 1, cout, 1, 1);
  check(dnn_.convBackwardBias(handle_, &kOne, dyd.d, at(dy), &kZero, bd.d, at(dbias)), "cudnnConvolutionBackwardBias");
}

void CudnnLayers::batchNormForward(DevicePtr x, DevicePtr y, DevicePtr gamma, DevicePtr beta, DevicePtr saveMean,
                                   DevicePtr saveInvStd, int n, int c, int h, int w, double eps) {
  TensorDesc xd(dnn_, n, c, h, w), pd(dnn_, 1, c, 1, 1);
  // No running statistics (null): the model uses batch statistics always.
  check(dnn_.batchNormForwardTraining(handle_, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd.d, at(x), xd.d, at(y), pd.d,
                                      at(gamma), at(beta), 0.0, nullptr, nullptr, eps, at(saveMean), at(saveInvStd)),
        "cudnnBatchNormalizationForwardTraining");
}

void CudnnLayers::batchNormBackward(DevicePtr x, DevicePtr dy, DevicePtr gamma, DevicePtr dx, DevicePtr dgamma,
                                    DevicePtr dbeta, DevicePtr saveMean, DevicePtr saveInvStd, int n, int c, int h,
                                    int w, double eps) {
  TensorDesc xd(dnn_, n, c, h, w), pd(dnn_, 1, c, 1, 1);
  check(dnn_.batchNormBackward(handle_, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, &kOne, &kZero, xd.d, at(x), xd.d,
                               at(dy), xd.d, at(dx), pd.d, at(gamma), at(dgamma), at(dbeta), eps, at(saveMean),
                               at(saveInvStd)),
        "cudnnBatchNormalizationBackward");
}

void CudnnLayers::reluForward(DevicePtr x, DevicePtr y, int n, int c, int h, int w) {
  TensorDesc d(dnn_, n, c, h, w);
  check(dnn_.activationForward(handle_, relu_, &kOne, d.d, at(x), &kZero, d.d, at(y)), "cudnnActivationForward");
}

void CudnnLayers::reluBackward(DevicePtr y, DevicePtr dy, DevicePtr x, DevicePtr dx, int n, int c, int h, int w) {
  TensorDesc d(dnn_, n, c, h, w);
  check(dnn_.activationBackward(handle_, relu_, &kOne, d.d, at(y), d.d, at(dy), d.d, at(x), &kZero, d.d, at(dx)),
        "cudnnActivationBackward");
}

void CudnnLayers::maxPoolForward(DevicePtr x, DevicePtr y, int n, int c, int h, int w) {
  TensorDesc xd(dnn_, n, c, h, w), yd(dnn_, n, c, h / 2, w / 2);
  check(dnn_.poolingForward(handle_, pool_, &kOne, xd.d, at(x), &kZero, yd.d, at(y)), "cudnnPoolingForward");
}

void CudnnLayers::maxPoolBackward(DevicePtr y, DevicePtr dy, DevicePtr x, DevicePtr dx, int n, int c, int h, int w) {
  TensorDesc xd(dnn_, n, c, h, w), yd(dnn_, n, c, h / 2, w / 2);
  check(dnn_.poolingBackward(handle_, pool_, &kOne, yd.d, at(y), yd.d, at(dy), xd.d, at(x), &kZero, xd.d, at(dx)),
        "cudnnPoolingBackward");
}

void CudnnLayers::softmaxForward(DevicePtr x, DevicePtr y, int rows, int cols) {
  TensorDesc d(dnn_, rows, cols, 1, 1);
  check(dnn_.softmaxForward(handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &kOne, d.d, at(x), &kZero,
                            d.d, at(y)),
        "cudnnSoftmaxForward");
}

void CudnnLayers::logSoftmaxForward(DevicePtr x, DevicePtr y, int rows, int cols) {
  TensorDesc d(dnn_, rows, cols, 1, 1);
  check(dnn_.softmaxForward(handle_, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, &kOne, d.d, at(x), &kZero, d.d,
                            at(y)),
        "cudnnSoftmaxForward(LOG)");
}

void CudnnLayers::logSoftmaxBackward(DevicePtr y, DevicePtr dy, DevicePtr dx, int rows, int cols) {
  TensorDesc d(dnn_, rows, cols, 1, 1);
  check(dnn_.softmaxBackward(handle_, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, &kOne, d.d, at(y), d.d, at(dy),
                             &kZero, d.d, at(dx)),
        "cudnnSoftmaxBackward(LOG)");
}

// cuBLAS is column-major: a row-major [r, c] matrix is its column-major transpose (c x r, ld c).
void CudnnLayers::linearForward(DevicePtr x, DevicePtr weight, DevicePtr bias, DevicePtr y, int batch, int in,
                                int out) {
  // yᵀ (out x batch) = W (out x in) · xᵀ (in x batch); W is the transpose of its column-major view.
  check(blas_.sgemm(blasHandle_, CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, &kOne, static_cast<float *>(at(weight)), in,
                    static_cast<float *>(at(x)), in, &kZero, static_cast<float *>(at(y)), out),
        "cublasSgemm(linear forward)");
  // + bias ⊗ ones: every row of y gets the bias.
  check(blas_.sger(blasHandle_, out, batch, &kOne, static_cast<float *>(at(bias)), 1,
                   static_cast<float *>(at(ones(batch))), 1, static_cast<float *>(at(y)), out),
        "cublasSger(linear bias)");
}

void CudnnLayers::linearBackwardData(DevicePtr dy, DevicePtr weight, DevicePtr dx, int batch, int in, int out) {
  // dxᵀ (in x batch) = Wᵀ (in x out) · dyᵀ (out x batch).
  check(blas_.sgemm(blasHandle_, CUBLAS_OP_N, CUBLAS_OP_N, in, batch, out, &kOne, static_cast<float *>(at(weight)), in,
                    static_cast<float *>(at(dy)), out, &kZero, static_cast<float *>(at(dx)), in),
        "cublasSgemm(linear backward data)");
}

void CudnnLayers::linearBackwardWeight(DevicePtr dy, DevicePtr x, DevicePtr dweight, int batch, int in, int out) {
  // dWᵀ (in x out) = xᵀ (in x batch) · dy (batch x out).
  check(blas_.sgemm(blasHandle_, CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, &kOne, static_cast<float *>(at(x)), in,
                    static_cast<float *>(at(dy)), out, &kZero, static_cast<float *>(at(dweight)), in),
        "cublasSgemm(linear backward weight)");
}

void CudnnLayers::linearBackwardBias(DevicePtr dy, DevicePtr dbias, int batch, int out) {
  // db (out) = dyᵀ (out x batch) · ones.
  check(blas_.sgemv(blasHandle_, CUBLAS_OP_N, out, batch, &kOne, static_cast<float *>(at(dy)), out,
                    static_cast<float *>(at(ones(batch))), 1, &kZero, static_cast<float *>(at(dbias)), 1),
        "cublasSgemv(linear backward bias)");
}

void CudnnLayers::matmul(DevicePtr a, DevicePtr b, DevicePtr c, int m, int n, int k, cudaDataType inputs,
                         cublasComputeType_t compute) {
  // Row-major C = A·B is column-major Cᵀ (n x m) = Bᵀ (n x k) · Aᵀ (k x m).
  check(blas_.gemmEx(blasHandle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &kOne, at(b), inputs, n, at(a), inputs, k, &kZero,
                     at(c), CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

void CudnnLayers::axpy(DevicePtr x, DevicePtr y, int64_t n, float alpha) {
  check(blas_.saxpy(blasHandle_, int(n), &alpha, static_cast<float *>(at(x)), 1, static_cast<float *>(at(y)), 1),
        "cublasSaxpy");
}

} // namespace tile::reference
