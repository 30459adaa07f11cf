//===- gen_bench_kernels_aot.cpp - precompile bench/RooflineKernels.h -===//
//   gen_bench_kernels_aot <output stem> [sm]
#include "AotWriter.h"

#include "RooflineKernels.h"

#include <cstdio>
#include <cstdlib>

using namespace tile;
using namespace tile::bench;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <output stem> [sm]\n", argv[0]);
    return 2;
  }
  try {
    aot::AotWriter w("tile::aot_bench", argc > 2 ? std::atoi(argv[2]) : 90, 0);
    w.add({&roofEmptyKernel(), "roof_empty", {"out"}, aot::standardVariants(roofEmptyKernel(), {{}}, {1})});
    // 64 x 64 f32 accumulators on 4 warps (32 per thread), K = 8: 256 FFMA per thread per dot.
    w.add({&roofDotF32Kernel(), "roof_dot_f32", {"in", "out", "iters", "BM", "BN", "BK", "UNROLL"},
           aot::standardVariants(roofDotF32Kernel(), {{64, 64, 8, 16}}, {4})});
    // 64 x 64 accumulators on 4 warps (mma.sync m16n8k8 tiles), K = 8: each dot is one mma per tile.
    w.add({&roofDotTf32Kernel(), "roof_dot_tf32", {"in", "out", "iters", "BM", "BN", "BK", "UNROLL"},
           aot::standardVariants(roofDotTf32Kernel(), {{64, 64, 8, 16}}, {4})});
    std::printf("gen_bench_kernels_aot: %d variants\n", w.write(argv[1], "bench_kernels_aot.h"));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
