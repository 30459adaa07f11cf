//===- AotWriter.h - emit PTX and typed launch stubs for chosen variants --===//
// Used at build time by gen_kernels_aot: compiles each listed specialisation of a
// DSL kernel and writes a header + source whose functions launch them through the
// runtime alone (tile::rt::launchAot), for executables that must not need LLVM/MLIR.
#pragma once

#include "tile/tile.h"

#include <functional>
#include <string>
#include <vector>

namespace tile::aot {

struct KernelEntry {
  const KernelBase *kernel;
  std::string stubName;                ///< C++ function name of the launch stub
  std::vector<std::string> paramNames; ///< one per kernel parameter
  std::vector<Specialization> variants;
};

class AotWriter {
public:
  /// sm/ptxVersion: the target of every variant (ptxVersion 0: the oldest PTX that
  /// knows the sm, so that older drivers still load it).
  AotWriter(std::string cppNamespace, int sm, int ptxVersion);

  void add(KernelEntry entry);
  /// Also define `const tile::rt::AotKernel *<functionName>(const char *name)` in the
  /// namespace: the kernel compiled under that kernel name (binary search), or null.
  void emitLookup(std::string functionName) { lookup_ = std::move(functionName); }
  /// No typed launch stubs: launches find their kernel through the lookup.
  void omitStubs() { stubs_ = false; }
  /// Writes <stem>.h and <stem>.cpp; returns the number of variants compiled.
  int write(const std::string &stem, const std::string &headerInclude) const;

private:
  std::string ns_;
  int sm_, ptxVersion_;
  std::vector<KernelEntry> entries_;
  std::string lookup_;
  bool stubs_ = true;
};

/// The divisibility variants worth shipping for a list of constant choices: for each,
/// every pointer and integer 16-divisible, then pointers only, then nothing; each first
/// with the integer parameters at indices `unitParams` equal to 1 (when given).
std::vector<Specialization> standardVariants(const KernelBase &kernel,
                                             const std::vector<std::vector<int64_t>> &constChoices,
                                             const std::vector<int> &numWarps,
                                             const std::vector<size_t> &unitParams = {});

/// The main() of a generator of kernels with typed launch stubs (test/, bench/), called as
/// `<program> <output stem> [sm]`: `add` puts the kernels into a writer for namespace `ns`,
/// which writes <stem>.h (named `header` in its own #include) and <stem>.cpp. Returns the exit
/// status: 2 on a usage error, 1 on an error (printed), 0 after printing the variant count.
int stubLibraryMain(int argc, char **argv, const char *ns, const char *header,
                    const std::function<void(AotWriter &)> &add);

} // namespace tile::aot
