// The primary context of a device, shared process-wide.
#pragma once

#include "tile/runtime/Driver.h"

#include <cuda.h>

namespace tile::rt {

// Retains the device's primary context (the one the CUDA runtime, PyTorch and cuBLAS also use, so
// pointers interoperate) and releases it in the destructor, which runs at process exit.
class Context {
public:
  // Created on first use. Makes the context current on the calling thread if that thread has none.
  // Throws Error with a one-line cause if there is no usable GPU or `ordinal` is out of range.
  static Context &get(int ordinal = 0);

  CUcontext handle() const { return ctx_; }
  const DeviceInfo &info() const { return info_; }
  void synchronize();
  void makeCurrent(); // binds this context to the calling thread (cuCtxSetCurrent)

  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

private:
  explicit Context(int ordinal);
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  DeviceInfo info_;
};

} // namespace tile::rt
