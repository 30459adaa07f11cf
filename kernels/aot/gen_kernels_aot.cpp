//===- gen_kernels_aot.cpp - precompile the kernel library for the GPU machine ===//
//   gen_kernels_aot <output stem> [sm] [ptx-version]
// Writes <stem>.h / <stem>.cpp: the PTX of every variant every library kernel's launcher
// can ask for (each declaration's variants(), with the standard divisibility fan-out)
// and tile::aot::findLibraryKernel, the lookup AotLauncher launches through; the PTX
// also as files under <stem>_ptx/ (<kernel name>_<variant index>.ptx).
#include "AotWriter.h"

#include "tile/kernels/AllKernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

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
    writer.omitStubs();
    writer.emitLookup("findLibraryKernel");
    AllKernels::forEach([&]<class D>() {
      const KernelBase &kernel = dslKernel<D>();
      size_t numConsts = 0;
      for (const ParamDesc &p : kernel.params()) numConsts += p.kind == ArgKind::Const;
      // A declaration may name integer parameters that are usually 1 (unit strides).
      std::vector<size_t> units;
      if constexpr (requires { D::unitParams; })
        for (const char *u : D::unitParams) {
          auto at = std::find_if(D::params.begin(), D::params.end(), [&](const char *p) { return std::string(p) == u; });
          if (at == D::params.end()) throw std::invalid_argument(std::string(D::name) + ": unit parameter '" + u + "' is not a parameter");
          units.push_back(size_t(at - D::params.begin()));
        }
      std::vector<Specialization> specs;
      for (const Variant &v : D::variants()) {
        if (v.consts.size() != numConsts)
          throw std::invalid_argument(std::string(D::name) + ": a variant gives " + std::to_string(v.consts.size()) +
                                      " constants for " + std::to_string(numConsts) + " Const parameters");
        for (Specialization s : aot::standardVariants(kernel, {v.consts}, {v.numWarps}, units)) {
          s.numStages = v.numStages;
          bool fastest = std::all_of(units.begin(), units.end(), [&](size_t i) { return s.args[i].one; }) &&
                         std::all_of(s.args.begin(), s.args.end(), [](const ArgSpec &a) {
                           return a.one || a.div16 || a.kind == ArgKind::Const || carriesNoFacts(a.kind);
                         });
          if (!v.unitOnly || fastest) specs.push_back(s);
        }
      }
      writer.add({&kernel, D::name, std::vector<std::string>(D::params.begin(), D::params.end()), std::move(specs)});
    });
    int count = writer.write(argv[1], "kernels_aot.h");
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("gen_kernels_aot: %zu kernels, %d variants for sm_%d in %.2f s\n", AllKernels::size, count, sm, s);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
