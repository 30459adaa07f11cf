// Private: the driver entry points, resolved at run time, and the error-check helper.
#pragma once

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "tile_runtime resolves the legacy-default-stream entry points; do not build it with per-thread default stream"
#endif

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>
#include <string_view>

namespace tile::rt::detail {

// (field, driver symbol, CUDA version whose typedef we use). Each typedef comes from cudaTypedefs.h and
// Driver.cpp static_asserts that it is the very signature cuda.h maps the plain name to, so no
// signature is guessed. Every symbol is requested for min(driver version, CUDA_VERSION); between the
// oldest driver we accept (12.0) and these headers none of these entry points changed signature.
// cuCtxSynchronize did (13.0 added a context argument) and is resolved separately; cuGraphExecUpdate
// changed at 12.0 itself (the result-info struct), so every accepted driver gives that one.
// cuGraphInstantiateWithFlags is requested by its own name: cuda.h maps cuGraphInstantiate to it.
#define TILE_RT_DRIVER_ENTRY_POINTS(X)                                                                                 \
  X(getErrorName, cuGetErrorName, 6000)                                                                                \
  X(getErrorString, cuGetErrorString, 6000)                                                                            \
  X(init, cuInit, 2000)                                                                                                \
  X(deviceGetCount, cuDeviceGetCount, 2000)                                                                            \
  X(deviceGet, cuDeviceGet, 2000)                                                                                      \
  X(deviceGetName, cuDeviceGetName, 2000)                                                                              \
  X(deviceGetAttribute, cuDeviceGetAttribute, 2000)                                                                    \
  X(deviceTotalMem, cuDeviceTotalMem, 3020)                                                                            \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain, 7000)                                                                  \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease, 11000)                                                               \
  X(ctxSetCurrent, cuCtxSetCurrent, 4000)                                                                              \
  X(ctxGetCurrent, cuCtxGetCurrent, 4000)                                                                              \
  X(ctxPushCurrent, cuCtxPushCurrent, 4000)                                                                            \
  X(ctxPopCurrent, cuCtxPopCurrent, 4000)                                                                              \
  X(memAlloc, cuMemAlloc, 3020)                                                                                        \
  X(memFree, cuMemFree, 3020)                                                                                          \
  X(memHostAlloc, cuMemHostAlloc, 2020)                                                                                \
  X(memFreeHost, cuMemFreeHost, 2000)                                                                                  \
  X(memcpyHtoD, cuMemcpyHtoD, 3020)                                                                                    \
  X(memcpyDtoH, cuMemcpyDtoH, 3020)                                                                                    \
  X(memcpyHtoDAsync, cuMemcpyHtoDAsync, 3020)                                                                          \
  X(memcpyDtoHAsync, cuMemcpyDtoHAsync, 3020)                                                                          \
  X(memcpyDtoDAsync, cuMemcpyDtoDAsync, 3020)                                                                          \
  X(memsetD8, cuMemsetD8, 3020)                                                                                        \
  X(streamCreate, cuStreamCreate, 2000)                                                                                \
  X(streamCreateWithPriority, cuStreamCreateWithPriority, 5050)                                                        \
  X(ctxGetStreamPriorityRange, cuCtxGetStreamPriorityRange, 5050)                                                      \
  X(streamDestroy, cuStreamDestroy, 4000)                                                                              \
  X(streamSynchronize, cuStreamSynchronize, 2000)                                                                      \
  X(streamWaitEvent, cuStreamWaitEvent, 3020)                                                                          \
  X(eventCreate, cuEventCreate, 2000)                                                                                  \
  X(eventDestroy, cuEventDestroy, 4000)                                                                                \
  X(eventRecord, cuEventRecord, 2000)                                                                                  \
  X(eventSynchronize, cuEventSynchronize, 2000)                                                                        \
  X(eventElapsedTime, cuEventElapsedTime, 2000) /* v12080: same sig */                                                 \
  X(moduleLoadDataEx, cuModuleLoadDataEx, 2010)                                                                        \
  X(moduleUnload, cuModuleUnload, 2000)                                                                                \
  X(moduleGetFunction, cuModuleGetFunction, 2000)                                                                      \
  X(funcSetAttribute, cuFuncSetAttribute, 9000)                                                                        \
  X(launchKernel, cuLaunchKernel, 4000)                                                                                \
  X(streamBeginCapture, cuStreamBeginCapture, 10010) /* cuda.h: _v2 */                                                 \
  X(streamEndCapture, cuStreamEndCapture, 10000)                                                                       \
  X(streamIsCapturing, cuStreamIsCapturing, 10000)                                                                     \
  X(graphInstantiate, cuGraphInstantiateWithFlags, 11040)                                                              \
  X(graphLaunch, cuGraphLaunch, 10000)                                                                                 \
  X(graphExecUpdate, cuGraphExecUpdate, 12000) /* cuda.h: _v2 */                                                       \
  X(graphExecDestroy, cuGraphExecDestroy, 10000)                                                                       \
  X(graphDestroy, cuGraphDestroy, 10000)                                                                               \
  X(graphGetNodes, cuGraphGetNodes, 10000)                                                                             \
  X(tensorMapEncodeTiled, cuTensorMapEncodeTiled, 12000)

struct Api {
  int driverVersion = 0; // cuDriverGetVersion
  int abiVersion = 0;    // min(driverVersion, CUDA_VERSION): the version every symbol was requested for
#define TILE_RT_FIELD(field, sym, ver) PFN_##sym##_v##ver field = nullptr;
  TILE_RT_DRIVER_ENTRY_POINTS(TILE_RT_FIELD)
#undef TILE_RT_FIELD
  // Exactly one is set, depending on abiVersion (see the comment above).
  PFN_cuCtxSynchronize_v13000 ctxSynchronize13 = nullptr;
  PFN_cuCtxSynchronize_v2000 ctxSynchronize2 = nullptr;
};

// The resolved driver, or throws Error("tile: no usable GPU: <reason>").
const Api &api();

// "CUDA_ERROR_X (description)".
std::string resultText(CUresult r);

// Throws Error("tile: <call> failed: <resultText>[ [context]]") unless r == CUDA_SUCCESS.
void check(CUresult r, const char *call, std::string_view context = {});

// Makes device 0's primary context current if the calling thread has no current context, so that
// allocations and module loads work without an explicit Context::get().
void ensureContext();

} // namespace tile::rt::detail
