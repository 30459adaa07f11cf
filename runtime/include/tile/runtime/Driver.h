// Loading the CUDA driver (libcuda.so.1, dlopen'ed: never linked) and querying it.
#pragma once

#include <cstddef>
#include <string>

namespace tile::rt {

// True when libcuda loads, every entry point resolves, cuInit succeeds and at least one device is
// visible. Otherwise false and *whyNot gets a one-line reason ("libcuda.so.1 not found (...)",
// "driver init failed: ...", "no CUDA device visible"). Probed once per process; cheap afterwards.
bool gpuAvailable(std::string *whyNot = nullptr);

// cuDriverGetVersion, e.g. 13000 for CUDA 13.0; 0 when libcuda could not be loaded at all.
int driverVersion();

// Number of visible devices; 0 when !gpuAvailable().
int deviceCount();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  size_t totalMem = 0;
  // Opt-in maximum (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN): the most a kernel may use
  // after raising CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, which is what a compiler budgets with.
  int maxSharedPerBlock = 0;
};

} // namespace tile::rt
