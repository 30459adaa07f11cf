//===- gen_test_kernels_aot.cpp - precompile test/kernels for the GPU tests ===//
//   gen_test_kernels_aot <output stem> [sm]
#include "AotWriter.h"

#include "../kernels/PlantedBugKernels.h"
#include "../kernels/AtomicKernels.h"
#include "../kernels/MathKernels.h"
#include "../kernels/TestKernels.h"
#include "tile/kernels/Matmul.h"

using namespace tile;
using namespace tile::testing;

int main(int argc, char **argv) {
  return aot::stubLibraryMain(argc, argv, "tile::aot_test", "test_kernels_aot.h", [](aot::AotWriter &w) {
    w.add({&transposeKernel(),
           "transpose",
           {"in", "out", "m", "n", "BM", "BN"},
           aot::standardVariants(transposeKernel(), {{32, 32}}, {4})});
    w.add({&rowStatsKernel(),
           "row_stats",
           {"in", "sums", "maxima", "argmaxes", "m", "n", "BM", "BN"},
           aot::standardVariants(rowStatsKernel(), {{16, 128}, {1, 1024}}, {4, 4})});
    // Rank 3: the [4,128,4] of the reported race, every axis of [8,32,16], 8 warps on
    // [2,4,256] and [16,16,16] (warps along the reduced axis), one warp.
    w.add({&reduce3dKernel(),
           "reduce3d",
           {"in", "sums", "maxima", "argmaxes", "d0", "d1", "d2", "D0", "D1", "D2", "AXIS"},
           aot::standardVariants(reduce3dKernel(),
                                 {{4, 128, 4, 1},
                                  {8, 32, 16, 0},
                                  {8, 32, 16, 1},
                                  {8, 32, 16, 2},
                                  {2, 4, 256, 2},
                                  {16, 16, 16, 0},
                                  {16, 16, 16, 1},
                                  {1, 64, 2, 1}},
                                 {4, 4, 4, 4, 8, 8, 8, 1})});
    // The library matmul (FMA path) for each input type, with and without epilogues.
    const std::vector<std::string> mm = {"a",        "b",        "c",        "bias",     "m",        "n",        "k",
                                         "strideAm", "strideAk", "strideBk", "strideBn", "strideCm", "strideCn", "BM",
                                         "BN",       "BK",       "GROUP_M",  "EPILOGUE", "TF32"};
    w.add({&kernels::matmulKernel<float>(), "matmul_f32", mm,
           aot::standardVariants(kernels::matmulKernel<float>(),
                                 {{32, 32, 8, 4, 0, 0}, {32, 32, 8, 4, 2, 0}, {32, 32, 8, 4, 0, 1}}, {4, 4, 4})});
    // Tensor cores: with unit inner strides first (cp.async rings + ldmatrix), then general
    // strides (no vector access, so operands go through shared memory without cp.async).
    const std::vector<size_t> unitStrides = {8, 10, 12}; // strideAk, strideBn, strideCn
    w.add({&kernels::matmulKernel<f16>(), "matmul_f16", mm,
           aot::standardVariants(kernels::matmulKernel<f16>(),
                                 {{64, 64, 16, 8, 1, 0}, {16, 16, 16, 1, 0, 0}, {128, 128, 32, 8, 0, 0}}, {4, 1, 8},
                                 unitStrides)});
    w.add({&kernels::matmulKernel<bf16>(), "matmul_bf16", mm,
           aot::standardVariants(kernels::matmulKernel<bf16>(), {{64, 64, 16, 8, 2, 0}, {128, 128, 32, 8, 2, 0}},
                                 {4, 8}, unitStrides)});
    w.add({&colMinKernel(),
           "col_min",
           {"in", "minima", "m", "n", "BM", "BN"},
           aot::standardVariants(colMinKernel(), {{64, 32}}, {4})});
    w.add({&histogramKernel(),
           "histogram",
           {"values", "bins", "n", "BLOCK"},
           aot::standardVariants(histogramKernel(), {{1024}}, {4})});
    w.add({&halfScaleKernel(),
           "half_scale",
           {"x", "y", "z", "scale", "n", "BLOCK"},
           aot::standardVariants(halfScaleKernel(), {{1024}}, {4})});
    w.add({&smallFloatFmaKernel(),
           "small_float_fma",
           {"a", "b", "c", "y", "z", "n", "BLOCK"},
           aot::standardVariants(smallFloatFmaKernel(), {{1024}}, {4})});
    w.add({&fastExp2Kernel(),
           "fast_exp2",
           {"x", "fast", "exact", "n", "BLOCK"},
           aot::standardVariants(fastExp2Kernel(), {{1024}}, {4})});
    // Every math function on f32, f16, bf16 and f64 (math_gpu_tests.cpp).
    auto addMath = [&](const auto &kernel, const char *name) {
      w.add({&kernel, name, {"x", "y", "out", "n", "BLOCK"}, aot::standardVariants(kernel, {{256}}, {4})});
    };
    addMath(mathFunctionsKernel<float>(), "math_functions_f32");
    addMath(mathFunctionsKernel<f16>(), "math_functions_f16");
    addMath(mathFunctionsKernel<bf16>(), "math_functions_bf16");
    addMath(mathFunctionsKernel<double>(), "math_functions_f64");
    // Every atomic, a spin lock, a ticket counter (atomic_gpu_tests.cpp).
    auto addAtomics = [&](const auto &kernel, const char *name) {
      w.add({&kernel,
             name,
             {"values", "tables", "olds", "n", "K", "BLOCK"},
             aot::standardVariants(kernel, {{128}}, {4})});
    };
    addAtomics(atomicKindsKernel<int32_t>(), "atomic_kinds_i32");
    addAtomics(atomicKindsKernel<int64_t>(), "atomic_kinds_i64");
    addAtomics(atomicKindsKernel<float>(), "atomic_kinds_f32");
    addAtomics(atomicKindsKernel<double>(), "atomic_kinds_f64");
    w.add({&spinLockKernel(),
           "spin_lock",
           {"lock", "counter", "acquired", "tries"},
           aot::standardVariants(spinLockKernel(), {{}}, {4})});
    w.add({&ticketKernel(),
           "ticket_counter",
           {"counter", "tickets", "rows", "values", "maximum", "BLOCK"},
           aot::standardVariants(ticketKernel(), {{64}}, {4})});
    w.add({&loopBranchKernel(),
           "loop_branch",
           {"x", "out", "n", "reps", "BLOCK"},
           aot::standardVariants(loopBranchKernel(), {{256}, {32}}, {4, 4})});
    // Tensor descriptors: blocks at any offset (f32: masked loads and stores; atomic adds, on
    // sm_90a TMA reduce-adds), and the descriptor matmul (f16: TMA copies into the wgmma rings on sm_90a).
    w.add({&descriptorBlocksKernel(),
           "descriptor_blocks",
           {"src", "dst", "out", "ldo", "dm", "dn", "BM", "BN"},
           aot::standardVariants(descriptorBlocksKernel(), {{16, 32}, {64, 64}}, {4, 4})});
    w.add({&descriptorAddsKernel(),
           "descriptor_adds",
           {"src", "dst", "dm", "dn", "BM", "BN"},
           aot::standardVariants(descriptorAddsKernel(), {{16, 32}, {64, 64}}, {4, 4})});
    w.add({&descriptorMatmulKernel(),
           "descriptor_matmul",
           {"a", "b", "c", "m", "n", "kk", "BM", "BN", "BK"},
           aot::standardVariants(descriptorMatmulKernel(), {{64, 64, 32}, {128, 128, 64}, {128, 256, 64}}, {4, 8, 8})});
    // For planted_oob_store (compute-sanitizer must name its DSL line), not for the gtests.
    w.add({&plantedOutOfBoundsStoreKernel(),
           "planted_oob_store",
           {"y", "n", "BLOCK"},
           aot::standardVariants(plantedOutOfBoundsStoreKernel(), {{256}}, {4})});
  });
}
