//===- DriverHandle.cpp - the releases of the driver objects DriverHandle owns -===//
#include "DriverApi.h"

#include "tile/runtime/DriverHandle.h"

namespace tile::rt::detail {

// Results are dropped: a release runs in destructors, where a failure (a context already torn
// down at exit) has no caller to report to.
void releaseStream(CUstream s) noexcept { (void)api().streamDestroy(s); }
void releaseEvent(CUevent e) noexcept { (void)api().eventDestroy(e); }
void releaseModule(CUmodule m) noexcept { (void)api().moduleUnload(m); }
void releaseGraph(CUgraph g) noexcept { (void)api().graphDestroy(g); }
void releaseGraphExec(CUgraphExec e) noexcept { (void)api().graphExecDestroy(e); }
void releaseDeviceMemory(CUdeviceptr p) noexcept { (void)api().memFree(p); }
void releaseHostMemory(void *p) noexcept { (void)api().memFreeHost(p); }

} // namespace tile::rt::detail
