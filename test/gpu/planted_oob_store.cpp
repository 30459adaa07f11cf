//===- planted_oob_store.cpp - launch the planted out-of-bounds store once -===//
// Run by gpu-check.sh under compute-sanitizer memcheck, which must report an invalid global
// write at the DSL line marked PLANTED-OOB-STORE in test/kernels/PlantedBugKernels.h. Without
// the tool the 4 stray bytes land in the allocation's padding and nothing is noticed: that is
// why it is a check of the tool chain (line info), not a gtest.
#include "test_kernels_aot.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

#include <cstdio>
#include <exception>
#include <string>

int main() {
  std::string why;
  if (!tile::rt::gpuAvailable(&why)) {
    std::fprintf(stderr, "planted_oob_store: no GPU: %s\n", why.c_str());
    return 2;
  }
  try {
    const int n = 1000, block = 256; // 4 programs; the last one's mask admits y[1000]
    tile::rt::DeviceBuffer y(n * sizeof(float));
    tile::aot_test::planted_oob_store(tile::rt::AotLaunchConfig{tile::rt::Dim3{(n + block) / block, 1, 1}, 4, nullptr},
                                      y.ptr(), n, block);
    tile::rt::Context::get().synchronize();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "planted_oob_store: %s\n", e.what());
    return 1;
  }
  std::printf("planted_oob_store: launched (only compute-sanitizer sees the stray write)\n");
  return 0;
}
