// Device and pinned host allocations and copies.
#include "DriverApi.h"

#include "tile/runtime/Error.h"
#include "tile/runtime/Memory.h"

#include <utility>

namespace tile::rt {

using detail::api;
using detail::check;

namespace {
void checkSize(size_t want, size_t have, const char *what) {
  if (want > have)
    throw Error(std::string("tile: ") + what + " of " + std::to_string(want) + " bytes exceeds the buffer's " +
                std::to_string(have) + " bytes");
}
} // namespace

DeviceBuffer::DeviceBuffer(size_t bytes) {
  if (bytes == 0) return; // cuMemAlloc rejects 0; an empty buffer is still useful (e.g. empty tensors)
  detail::ensureContext();
  check(api().memAlloc(ptr_.out(), bytes), "cuMemAlloc", "allocating " + std::to_string(bytes) + " bytes");
  bytes_ = bytes;
}

// The handle releases the allocation; the size moves with it.
DeviceBuffer::DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(std::move(o.ptr_)), bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
  ptr_ = std::move(o.ptr_);
  bytes_ = std::exchange(o.bytes_, 0);
  return *this;
}

void DeviceBuffer::copyFromHost(const void *src, size_t bytes, CUstream s) {
  checkSize(bytes, bytes_, "copyFromHost");
  if (bytes == 0) return;
  std::string what = std::to_string(bytes) + " bytes host->device";
  if (s) check(api().memcpyHtoDAsync(ptr_.get(), src, bytes, s), "cuMemcpyHtoDAsync", what);
  else check(api().memcpyHtoD(ptr_.get(), src, bytes), "cuMemcpyHtoD", what);
}

void DeviceBuffer::copyToHost(void *dst, size_t bytes, CUstream s) const {
  checkSize(bytes, bytes_, "copyToHost");
  if (bytes == 0) return;
  std::string what = std::to_string(bytes) + " bytes device->host";
  if (s) check(api().memcpyDtoHAsync(dst, ptr_.get(), bytes, s), "cuMemcpyDtoHAsync", what);
  else check(api().memcpyDtoH(dst, ptr_.get(), bytes), "cuMemcpyDtoH", what);
}

void DeviceBuffer::fillBytes(uint8_t value) {
  if (bytes_ == 0) return;
  check(api().memsetD8(ptr_.get(), value, bytes_), "cuMemsetD8", std::to_string(bytes_) + " bytes");
}

PinnedHostBuffer::PinnedHostBuffer(size_t bytes, unsigned flags) {
  if (bytes == 0) return;
  detail::ensureContext(); // pinned memory belongs to a context
  check(api().memHostAlloc(ptr_.out(), bytes, flags), "cuMemHostAlloc",
        "allocating " + std::to_string(bytes) + " bytes");
  bytes_ = bytes;
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer &&o) noexcept
    : ptr_(std::move(o.ptr_)), bytes_(std::exchange(o.bytes_, 0)) {}

PinnedHostBuffer &PinnedHostBuffer::operator=(PinnedHostBuffer &&o) noexcept {
  ptr_ = std::move(o.ptr_);
  bytes_ = std::exchange(o.bytes_, 0);
  return *this;
}

void copyDeviceToDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  if (bytes == 0) return;
  check(api().memcpyDtoDAsync(dst, src, bytes, stream), "cuMemcpyDtoDAsync",
        std::to_string(bytes) + " bytes device->device");
}

void copyHostToDeviceAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream) {
  if (bytes == 0) return;
  check(api().memcpyHtoDAsync(dst, src, bytes, stream), "cuMemcpyHtoDAsync",
        std::to_string(bytes) + " bytes host->device");
}

void copyDeviceToHostAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  if (bytes == 0) return;
  check(api().memcpyDtoHAsync(dst, src, bytes, stream), "cuMemcpyDtoHAsync",
        std::to_string(bytes) + " bytes device->host");
}

} // namespace tile::rt
