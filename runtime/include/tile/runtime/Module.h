// A loaded PTX module (driver JIT), RAII.
#pragma once

#include "tile/runtime/DriverHandle.h"

#include <cuda.h>

#include <string>

namespace tile::rt {

class Module {
public:
  Module() = default;

  // cuModuleLoadDataEx into the current context (device 0's primary context if none). On failure throws
  // Error naming the kernel, the CUresult, the driver's JIT log (e.g. "PTX too new for driver") and a
  // ptxas repro command for a copy of the PTX written to $TMPDIR (or /tmp).
  static Module loadPTX(const std::string &ptx, const std::string &kernelNameForErrors);

  // cuModuleGetFunction. When maxDynamicSharedBytes > 0 also sets
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (needed above the 48 KiB default).
  CUfunction function(const std::string &name, unsigned maxDynamicSharedBytes = 0) const;

  CUmodule handle() const { return mod_.get(); }

private:
  ModuleHandle mod_;
  std::string kernelName_; // for error messages
};

} // namespace tile::rt
