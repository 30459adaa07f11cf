//===- AotDeclared.h - compile kernel declarations ahead of time ----------===//
// The variants a list of kernel declarations (tile/kernels/Declare.h) is compiled in ahead of
// time: each declaration's variants(), with the standard divisibility fan-out and its unit
// parameters. gen_kernels_aot compiles the library's list (AllKernels.h) this way, and the
// generator that tile_add_aot_kernels() (cmake/TileAot.cmake) writes compiles a user's.
#pragma once

#include "AotWriter.h"
#include "tile/kernels/Declare.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace tile::aot {

/// The specialisations declaration D asks to be compiled in.
template <class D> std::vector<Specialization> declaredVariants() {
  const KernelBase &kernel = kernels::dslKernel<D>();
  size_t numConsts = 0;
  for (const ParamDesc &p : kernel.params()) numConsts += p.kind == ArgKind::Const;
  // A declaration may name integer parameters that are usually 1 (unit strides), and ones no
  // specialisation assumes anything of (Declare.h's factFreeParams): each must be a parameter.
  auto indexOf = [](const char *name, const char *role) {
    auto at = std::find_if(D::params.begin(), D::params.end(), [&](const char *p) { return std::string(p) == name; });
    if (at == D::params.end())
      throw std::invalid_argument(std::string(D::name) + ": " + role + " parameter '" + name + "' is not a parameter");
    return size_t(at - D::params.begin());
  };
  std::vector<size_t> units;
  if constexpr (requires { D::unitParams; })
    for (const char *u : D::unitParams) units.push_back(indexOf(u, "unit"));
  if constexpr (requires { D::factFreeParams; })
    for (const char *f : D::factFreeParams) indexOf(f, "fact-free");
  std::vector<Specialization> specs;
  for (const kernels::Variant &v : D::variants()) {
    if (v.consts.size() != numConsts)
      throw std::invalid_argument(std::string(D::name) + ": a variant gives " + std::to_string(v.consts.size()) +
                                  " constants for " + std::to_string(numConsts) + " Const parameters");
    for (Specialization s : standardVariants(kernel, {v.consts}, {v.numWarps}, units)) {
      s.numStages = v.numStages;
      for (size_t i = 0; i < s.args.size(); ++i)
        if (kernels::isFactFreeParam<D>(i)) s.args[i].div16 = s.args[i].one = false;
      bool fastest = std::all_of(units.begin(), units.end(), [&](size_t i) { return s.args[i].one; });
      for (size_t i = 0; i < s.args.size(); ++i) {
        const ArgSpec &a = s.args[i];
        fastest = fastest && (a.one || a.div16 || a.kind == ArgKind::Const || carriesNoFacts(a.kind) ||
                              kernels::isFactFreeParam<D>(i));
      }
      if ((!v.unitOnly || fastest) && std::find(specs.begin(), specs.end(), s) == specs.end()) specs.push_back(s);
    }
  }
  return specs;
}

/// Adds every declaration of `List` (a kernels::KernelList) to the writer, its stub named as the kernel.
template <class List> void addDeclarations(AotWriter &writer) {
  List::forEach([&]<class D>() {
    writer.add({&kernels::dslKernel<D>(), D::name, std::vector<std::string>(D::params.begin(), D::params.end()),
                declaredVariants<D>()});
  });
}

/// The main() of a generator for the declarations of `List`, called as
/// `<program> <output stem> [sm] [ptx-version]`: writes <stem>.h (typed launch stubs in namespace
/// `ns`, and `lookup` when not empty) and <stem>.cpp, which #includes `header`. Returns the exit
/// status: 2 on a usage error, 1 on an error (printed), 0 after printing the variant count.
template <class List>
int declaredKernelsMain(int argc, char **argv, const char *ns, const char *header, const char *lookup, bool stubs) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <output stem> [sm] [ptx-version]\n", argv[0]);
    return 2;
  }
  int sm = argc > 2 ? std::atoi(argv[2]) : 90;
  int ptx = argc > 3 ? std::atoi(argv[3]) : 0;
  auto start = std::chrono::steady_clock::now();
  try {
    AotWriter writer(ns, sm, ptx);
    if (!stubs) writer.omitStubs();
    if (lookup && *lookup) writer.emitLookup(lookup);
    addDeclarations<List>(writer);
    int count = writer.write(argv[1], header);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %zu kernels, %d variants for sm_%d in %.2f s\n", argv[0], List::size, count, sm, s);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}

} // namespace tile::aot
