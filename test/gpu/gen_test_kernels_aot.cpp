//===- gen_test_kernels_aot.cpp - precompile test/kernels for the GPU tests ===//
//   gen_test_kernels_aot <output stem> [sm]
#include "AotWriter.h"

#include "../kernels/TestKernels.h"

#include <cstdio>
#include <cstdlib>

using namespace tile;
using namespace tile::testing;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <output stem> [sm]\n", argv[0]);
    return 2;
  }
  try {
    aot::AotWriter w("tile::aot_test", argc > 2 ? std::atoi(argv[2]) : 90, 0);
    w.add({&transposeKernel(), "transpose", {"in", "out", "m", "n", "BM", "BN"},
           aot::standardVariants(transposeKernel(), {{32, 32}}, {4})});
    w.add({&rowStatsKernel(), "row_stats", {"in", "sums", "maxima", "argmaxes", "m", "n", "BM", "BN"},
           aot::standardVariants(rowStatsKernel(), {{16, 128}, {1, 1024}}, {4, 4})});
    w.add({&colMinKernel(), "col_min", {"in", "minima", "m", "n", "BM", "BN"},
           aot::standardVariants(colMinKernel(), {{64, 32}}, {4})});
    w.add({&histogramKernel(), "histogram", {"values", "bins", "n", "BLOCK"},
           aot::standardVariants(histogramKernel(), {{1024}}, {4})});
    w.add({&halfScaleKernel(), "half_scale", {"x", "y", "z", "scale", "n", "BLOCK"},
           aot::standardVariants(halfScaleKernel(), {{1024}}, {4})});
    w.add({&loopBranchKernel(), "loop_branch", {"x", "out", "n", "reps", "BLOCK"},
           aot::standardVariants(loopBranchKernel(), {{256}, {32}}, {4, 4})});
    std::printf("gen_test_kernels_aot: %d variants\n", w.write(argv[1], "test_kernels_aot.h"));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
