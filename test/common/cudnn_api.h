// cuDNN and cuBLAS loaded at run time: the numerical oracles of the GPU reference tests and the
// anchors bench_anchors times ours against (one table of entry points for both).
//
// The libraries are dlopen'ed by soname (libcudnn.so.9, libcublas.so.13) and their entry points
// resolved into a table typed from the real headers, as the runtime does with libcuda: the
// test binary links neither, so it loads on every machine, and where they cannot be found the
// tests say so in one line (on the GPU machine gpu-check.sh points LD_LIBRARY_PATH at PyTorch's
// copies: cuDNN 9.19, the version of the headers here). Both share the runtime's primary
// context and the legacy default stream with our kernels, so calls are ordered with launches.
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include <initializer_list>
#include <string>

namespace tile::reference {

// X(member, symbol): the entry points used (cuBLAS's are the _v2 symbols its macros name). The
// backend graph API (cudnnBackend*) builds cuDNN's fused attention (cudnn_attention.h).
#define TILE_CUDNN_FUNCTIONS(X)                                                                                        \
  X(create, cudnnCreate)                                                                                               \
  X(destroy, cudnnDestroy)                                                                                             \
  X(getVersion, cudnnGetVersion)                                                                                       \
  X(getErrorString, cudnnGetErrorString)                                                                               \
  X(createTensor, cudnnCreateTensorDescriptor)                                                                         \
  X(setTensor4d, cudnnSetTensor4dDescriptor)                                                                           \
  X(destroyTensor, cudnnDestroyTensorDescriptor)                                                                       \
  X(createFilter, cudnnCreateFilterDescriptor)                                                                         \
  X(setFilter4d, cudnnSetFilter4dDescriptor)                                                                           \
  X(destroyFilter, cudnnDestroyFilterDescriptor)                                                                       \
  X(createConv, cudnnCreateConvolutionDescriptor)                                                                      \
  X(setConv2d, cudnnSetConvolution2dDescriptor)                                                                        \
  X(setConvMathType, cudnnSetConvolutionMathType)                                                                      \
  X(destroyConv, cudnnDestroyConvolutionDescriptor)                                                                    \
  X(findForward, cudnnFindConvolutionForwardAlgorithmEx)                                                               \
  X(findBackwardData, cudnnFindConvolutionBackwardDataAlgorithmEx)                                                     \
  X(findBackwardFilter, cudnnFindConvolutionBackwardFilterAlgorithmEx)                                                 \
  X(convForwardAlgorithms, cudnnGetConvolutionForwardAlgorithm_v7)                                                     \
  X(convForwardWorkspace, cudnnGetConvolutionForwardWorkspaceSize)                                                     \
  X(convForward, cudnnConvolutionForward)                                                                              \
  X(convBackwardDataAlgorithms, cudnnGetConvolutionBackwardDataAlgorithm_v7)                                           \
  X(convBackwardDataWorkspace, cudnnGetConvolutionBackwardDataWorkspaceSize)                                           \
  X(convBackwardData, cudnnConvolutionBackwardData)                                                                    \
  X(convBackwardFilterAlgorithms, cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                       \
  X(convBackwardFilterWorkspace, cudnnGetConvolutionBackwardFilterWorkspaceSize)                                       \
  X(convBackwardFilter, cudnnConvolutionBackwardFilter)                                                                \
  X(convBackwardBias, cudnnConvolutionBackwardBias)                                                                    \
  X(addTensor, cudnnAddTensor)                                                                                         \
  X(batchNormForwardTraining, cudnnBatchNormalizationForwardTraining)                                                  \
  X(batchNormBackward, cudnnBatchNormalizationBackward)                                                                \
  X(createActivation, cudnnCreateActivationDescriptor)                                                                 \
  X(setActivation, cudnnSetActivationDescriptor)                                                                       \
  X(destroyActivation, cudnnDestroyActivationDescriptor)                                                               \
  X(activationForward, cudnnActivationForward)                                                                         \
  X(activationBackward, cudnnActivationBackward)                                                                       \
  X(createPooling, cudnnCreatePoolingDescriptor)                                                                       \
  X(setPooling2d, cudnnSetPooling2dDescriptor)                                                                         \
  X(destroyPooling, cudnnDestroyPoolingDescriptor)                                                                     \
  X(poolingForward, cudnnPoolingForward)                                                                               \
  X(poolingBackward, cudnnPoolingBackward)                                                                             \
  X(softmaxForward, cudnnSoftmaxForward)                                                                               \
  X(softmaxBackward, cudnnSoftmaxBackward)                                                                             \
  X(getLastErrorString, cudnnGetLastErrorString)                                                                       \
  X(backendCreate, cudnnBackendCreateDescriptor)                                                                       \
  X(backendDestroy, cudnnBackendDestroyDescriptor)                                                                     \
  X(backendSet, cudnnBackendSetAttribute)                                                                              \
  X(backendGet, cudnnBackendGetAttribute)                                                                              \
  X(backendFinalize, cudnnBackendFinalize)                                                                             \
  X(backendExecute, cudnnBackendExecute)

#define TILE_CUBLAS_FUNCTIONS(X)                                                                                       \
  X(create, cublasCreate_v2)                                                                                           \
  X(destroy, cublasDestroy_v2)                                                                                         \
  X(getVersion, cublasGetVersion_v2)                                                                                   \
  X(setMathMode, cublasSetMathMode)                                                                                    \
  X(setWorkspace, cublasSetWorkspace_v2)                                                                               \
  X(sgemm, cublasSgemm_v2)                                                                                             \
  X(sgemv, cublasSgemv_v2)                                                                                             \
  X(sger, cublasSger_v2)                                                                                               \
  X(saxpy, cublasSaxpy_v2)

struct CudnnApi {
#define TILE_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
  TILE_CUDNN_FUNCTIONS(TILE_MEMBER)
};
struct CublasApi {
  TILE_CUBLAS_FUNCTIONS(TILE_MEMBER)
#undef TILE_MEMBER
  // cublasGemmEx is overloaded in C++ (its compute type): the C entry point, spelled out.
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                    const void *, cudaDataType, int, const void *, cudaDataType, int, const void *,
                                    void *, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx gemmEx = nullptr;
};

/// The first of `sonames` that dlopen loads (RTLD_LOCAL: its symbols stay out of ours), or nullptr
/// with *why naming each soname tried and dlerror()'s text.
void *openLibrary(std::initializer_list<const char *> sonames, std::string *why);

/// The loaded tables, or nullptr with *why set (the library or a symbol is missing). Loaded
/// once per process; never unloaded.
const CudnnApi *cudnnApi(std::string *why);
const CublasApi *cublasApi(std::string *why);

/// Throws std::runtime_error("<call>: <status text>") unless the status is success.
void check(cudnnStatus_t s, const char *call);
void check(cublasStatus_t s, const char *call);

} // namespace tile::reference
