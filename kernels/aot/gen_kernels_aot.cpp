//===- gen_kernels_aot.cpp - precompile the kernel library for the GPU machine ===//
//   gen_kernels_aot <output stem> [sm] [ptx-version]
// Writes <stem>.h / <stem>.cpp: PTX of every variant the library's launch policy
// (tile/kernels/Policy.h) can ask for, and typed launch stubs in tile::aot.
#include "AotWriter.h"

#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Policy.h"
#include "tile/kernels/Softmax.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace tile;
using namespace tile::kernels;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <output stem> [sm] [ptx-version]\n", argv[0]);
    return 2;
  }
  int sm = argc > 2 ? std::atoi(argv[2]) : 90;
  int ptx = argc > 3 ? std::atoi(argv[3]) : 0;
  auto start = std::chrono::steady_clock::now();
  try {
    aot::AotWriter writer("tile::aot", sm, ptx);

    writer.add({&vectorAddKernel(), "vector_add", {"x", "y", "z", "n", "BLOCK"},
                aot::standardVariants(vectorAddKernel(), {{ElementwiseConfig::block}}, {ElementwiseConfig::numWarps})});

    std::vector<std::vector<int64_t>> softmaxBlocks, layerNormBlocks;
    std::vector<int> softmaxWarps, layerNormWarps;
    for (int64_t n = 1; n <= kMaxRowBlock; n *= 2) {
      softmaxBlocks.push_back({softmaxConfig(n).block});
      softmaxWarps.push_back(softmaxConfig(n).numWarps);
      if (n <= 4096) {
        layerNormBlocks.push_back({layerNormConfig(n).block});
        layerNormWarps.push_back(layerNormConfig(n).numWarps);
      }
    }
    writer.add({&softmaxKernel(), "softmax", {"out", "in", "out_row_stride", "in_row_stride", "n_cols", "BLOCK"},
                aot::standardVariants(softmaxKernel(), softmaxBlocks, softmaxWarps)});
    writer.add({&layerNormForwardKernel(), "layernorm_fwd",
                {"x", "y", "w", "b", "mean", "rstd", "row_stride", "n", "eps", "BLOCK"},
                aot::standardVariants(layerNormForwardKernel(), layerNormBlocks, layerNormWarps)});

    // Matmul (bench/ and the model): (BM, BN, BK, GROUP_M, EPILOGUE, TF32) per input type.
    const std::vector<std::string> mm = {"a", "b", "c", "bias", "m", "n", "k", "strideAm", "strideAk", "strideBk",
                                         "strideBn", "strideCm", "strideCn", "BM", "BN", "BK", "GROUP_M", "EPILOGUE",
                                         "TF32"};
    for (const auto &[kernel, name] : std::vector<std::pair<const KernelBase *, const char *>>{
             {&matmulKernel<f16>(), "matmul_f16"}, {&matmulKernel<bf16>(), "matmul_bf16"}})
      writer.add({kernel, name, mm, aot::standardVariants(*kernel, {{kMatmulTensorCore.bm, kMatmulTensorCore.bn,
                                                                       kMatmulTensorCore.bk, 8, 0, 0}},
                                                          {kMatmulTensorCore.numWarps})});
    writer.add({&matmulKernel<float>(), "matmul_f32", mm,
                aot::standardVariants(matmulKernel<float>(),
                                      {{kMatmulCudaCore.bm, kMatmulCudaCore.bn, kMatmulCudaCore.bk, 8, 0, 0},
                                       {kMatmulCudaCore.bm, kMatmulCudaCore.bn, kMatmulCudaCore.bk, 8, 0, 1}},
                                      {kMatmulCudaCore.numWarps, kMatmulCudaCore.numWarps})});

    int count = writer.write(argv[1], "kernels_aot.h");
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("gen_kernels_aot: %d variants for sm_%d in %.2f s\n", count, sm, s);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
