//===- DriverHandle.h - an owning, move-only handle to a CUDA driver object -===//
// Streams, events, modules, graphs, graph executables and allocations each own one driver object
// that must be released exactly once. DriverHandle<H, Release> holds it and calls Release (a
// function defined where the driver is loaded, runtime/lib) when it is destroyed or replaced, so
// the owning classes need no destructor or move operations of their own.
#pragma once

#include <cuda.h>

#include <utility>

namespace tile::rt {

/// Owns one driver object of handle type H (a pointer-like CUstream, or an integer CUdeviceptr);
/// H{} means none. Release must not throw (destructors call it; its CUresult is dropped, as a
/// failed release at teardown has no one to report to).
template <class H, void (*Release)(H) noexcept> class DriverHandle {
public:
  DriverHandle() = default;
  explicit DriverHandle(H h) : h_(h) {} // takes ownership
  ~DriverHandle() { reset(); }
  DriverHandle(DriverHandle &&o) noexcept : h_(std::exchange(o.h_, H{})) {}
  DriverHandle &operator=(DriverHandle &&o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, H{});
    }
    return *this;
  }
  DriverHandle(const DriverHandle &) = delete;
  DriverHandle &operator=(const DriverHandle &) = delete;

  H get() const { return h_; }
  explicit operator bool() const { return h_ != H{}; }
  /// Where a create call writes the new handle (cuStreamCreate(&h, ...)): releases the old one first.
  H *out() {
    reset();
    return &h_;
  }
  /// Gives the object up without releasing it (to a new owner, or a failed create call's
  /// leftover that is not the caller's to release).
  [[nodiscard]] H release() { return std::exchange(h_, H{}); }
  /// Releases the object now (if any); holds none after.
  void reset() noexcept {
    if (h_ != H{}) Release(std::exchange(h_, H{}));
  }

private:
  H h_{};
};

namespace detail {
// The releases (runtime/lib/Driver.cpp): cuStreamDestroy, cuEventDestroy, cuModuleUnload,
// cuGraphDestroy, cuGraphExecDestroy, cuMemFree, cuMemFreeHost.
void releaseStream(CUstream s) noexcept;
void releaseEvent(CUevent e) noexcept;
void releaseModule(CUmodule m) noexcept;
void releaseGraph(CUgraph g) noexcept;
void releaseGraphExec(CUgraphExec e) noexcept;
void releaseDeviceMemory(CUdeviceptr p) noexcept;
void releaseHostMemory(void *p) noexcept;
} // namespace detail

using StreamHandle = DriverHandle<CUstream, detail::releaseStream>;
using EventHandle = DriverHandle<CUevent, detail::releaseEvent>;
using ModuleHandle = DriverHandle<CUmodule, detail::releaseModule>;
using GraphHandle = DriverHandle<CUgraph, detail::releaseGraph>;
using GraphExecHandle = DriverHandle<CUgraphExec, detail::releaseGraphExec>;
using DeviceMemoryHandle = DriverHandle<CUdeviceptr, detail::releaseDeviceMemory>;
using HostMemoryHandle = DriverHandle<void *, detail::releaseHostMemory>;

} // namespace tile::rt
