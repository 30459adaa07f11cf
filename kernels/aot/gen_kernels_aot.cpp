//===- gen_kernels_aot.cpp - precompile the kernel library for the GPU machine ===//
//   gen_kernels_aot <output stem> [sm] [ptx-version]
// Writes <stem>.h / <stem>.cpp: the PTX of every variant every library kernel's launcher
// can ask for (each declaration's variants(), with the standard divisibility fan-out)
// and tile::aot::findLibraryKernel, the lookup AotLauncher launches through; the PTX
// also as files under <stem>_ptx/ (<kernel name>_<variant index>.ptx).
#include "AotDeclared.h"

#include "tile/kernels/AllKernels.h"

int main(int argc, char **argv) {
  return tile::aot::declaredKernelsMain<tile::kernels::AllKernels>(argc, argv, "tile::aot", "kernels_aot.h",
                                                                   "findLibraryKernel", /*stubs=*/false);
}
