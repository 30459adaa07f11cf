// Device and pinned host memory, RAII.
#pragma once

#include "tile/runtime/DriverHandle.h"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tile::rt {

// Device allocation in the current context (the primary context of device 0 if the thread has none).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes); // 0 bytes allocates nothing and leaves ptr() == 0
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CUdeviceptr ptr() const { return ptr_.get(); }
  size_t bytes() const { return bytes_; }

  // s == nullptr: synchronous copy. Otherwise queued on s; keep the host memory alive (and pinned, for
  // real overlap) until s is synchronised. Copying more than bytes() throws Error.
  void copyFromHost(const void *src, size_t bytes, CUstream s = nullptr);
  void copyToHost(void *dst, size_t bytes, CUstream s = nullptr) const;
  // cuMemsetD8 over the whole buffer; used to poison outputs before a kernel runs.
  void fillBytes(uint8_t value);

  template <class T> static DeviceBuffer fromHost(const std::vector<T> &v) {
    static_assert(std::is_trivially_copyable_v<T>);
    DeviceBuffer b(v.size() * sizeof(T));
    if (!v.empty()) b.copyFromHost(v.data(), v.size() * sizeof(T));
    return b;
  }
  template <class T> std::vector<T> toHost(size_t count) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> v(count);
    if (count) copyToHost(v.data(), count * sizeof(T));
    return v;
  }

private:
  DeviceMemoryHandle ptr_;
  size_t bytes_ = 0;
};

// Page-locked host memory (cuMemHostAlloc): needed for truly asynchronous copies.
class PinnedHostBuffer {
public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(size_t bytes, unsigned flags = 0); // flags: CU_MEMHOSTALLOC_*
  PinnedHostBuffer(PinnedHostBuffer &&other) noexcept;
  PinnedHostBuffer &operator=(PinnedHostBuffer &&other) noexcept;
  PinnedHostBuffer(const PinnedHostBuffer &) = delete;
  PinnedHostBuffer &operator=(const PinnedHostBuffer &) = delete;

  void *data() const { return ptr_.get(); }
  size_t bytes() const { return bytes_; }
  template <class T> T *as() const { return static_cast<T *>(ptr_.get()); }

private:
  HostMemoryHandle ptr_;
  size_t bytes_ = 0;
};

// Asynchronous device-to-device copy on `stream` (nullptr: the legacy default stream).
void copyDeviceToDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream = nullptr);

// Asynchronous copies between host memory and any device address (a buffer's start or not) on
// `stream`: cuMemcpyHtoDAsync / cuMemcpyDtoHAsync, so they can be captured into a CUDA graph. The
// host memory must stay valid until the stream has reached the copy, and be pinned
// (PinnedHostBuffer) for the copy to be a direct DMA (and for a captured copy to replay).
void copyHostToDeviceAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
void copyDeviceToHostAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);

} // namespace tile::rt
