//===- gen_bench_kernels_aot.cpp - precompile bench/RooflineKernels.h -===//
//   gen_bench_kernels_aot <output stem> [sm]
#include "AotWriter.h"

#include "RooflineKernels.h"

using namespace tile;
using namespace tile::bench;

int main(int argc, char **argv) {
  return aot::stubLibraryMain(argc, argv, "tile::aot_bench", "bench_kernels_aot.h", [](aot::AotWriter &w) {
    w.add({&roofEmptyKernel(), "roof_empty", {"out"}, aot::standardVariants(roofEmptyKernel(), {{}}, {1})});
    // 64 x 64 accumulators on 4 warps, K = 8, 16 dots per iteration: f32 (256 FFMA per thread per
    // dot) and TF32 (mma.sync m16n8k8).
    w.add({&roofDotKernel(),
           "roof_dot",
           {"in", "out", "iters", "BM", "BN", "BK", "UNROLL", "TF32"},
           aot::standardVariants(roofDotKernel(), {{64, 64, 8, 16, 0}, {64, 64, 8, 16, 1}}, {4, 4})});
  });
}
