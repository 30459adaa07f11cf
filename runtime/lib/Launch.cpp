// Kernel launch with a descriptive error.
#include "DriverApi.h"

#include "tile/runtime/Launch.h"

#include <string>

namespace tile::rt {

void launch(CUfunction f, Dim3 grid, Dim3 block, unsigned sharedBytes, CUstream stream, void **params,
            const char *kernelName) {
  CUresult r = detail::api().launchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, sharedBytes,
                                          stream, params, nullptr);
  if (r == CUDA_SUCCESS) return;
  auto d3 = [](Dim3 d) {
    std::string s = "(";  // built with += : GCC 12 warns (-Wrestrict, falsely) on "(" + std::string
    s += std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
    return s += ")";
  };
  detail::check(r, "cuLaunchKernel",
                "kernel '" + std::string(kernelName ? kernelName : "<unnamed>") + "' grid=" + d3(grid) +
                    " block=" + d3(block) + " shared=" + std::to_string(sharedBytes));
}

void launch(CUfunction f, Dim3 grid, const LaunchMetadata &meta, CUstream stream, void **params,
            const char *kernelName) {
  launch(f, grid, Dim3{32 * meta.numWarps, 1, 1}, meta.sharedBytes, stream, params, kernelName);
}

} // namespace tile::rt
