//===- tile-opt.cpp - mlir-opt with the tile dialect and passes -----------===//
// Every tile op parses and prints here, and every tile pass runs alone, e.g.
//   tile-opt --tile-assign-layouts="num-warps=4" kernel.mlir
// Behaves like a tool: --help shows MLIR's driver options and the passes, not the hundreds of
// LLVM backend options the linked NVPTX/X86 targets register; a bad flag or a missing input
// is a one-line error and a non-zero exit.
#include "tile/Compiler.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace cl = llvm::cl;

/// The options registered so far are LLVM's and MLIR's static ones (codegen, backends,
/// debugging: hundreds, from the linked NVPTX and host targets). Hides them from --help
/// (they stay accepted); the driver's and the passes' options registered after this show.
static void hideStaticOptions() {
  static const llvm::StringRef keep[] = {"help", "help-hidden", "help-list", "version"};
  for (auto &entry : cl::getRegisteredOptions())
    if (!llvm::is_contained(keep, entry.first)) entry.second->setHiddenFlag(cl::ReallyHidden);
}

/// -debug and -debug-only=<DEBUG_TYPE,...>, as mlir-opt has them where LLVM is built with
/// asserts. A release LLVM (Debian's) registers neither and compiles its own LLVM_DEBUG out, so
/// tile-opt registers them itself: accepted everywhere, and printing the passes' LLVM_DEBUG
/// lines wherever this project is compiled without NDEBUG (the sanitizer build), since those
/// lines test llvm::DebugFlag and llvm::isCurrentDebugType, which every libLLVM exports.
struct DebugOptions {
  cl::opt<bool> all{"debug", cl::desc("Print every pass's LLVM_DEBUG output (builds without NDEBUG)")};
  cl::list<std::string> only{"debug-only", cl::CommaSeparated, cl::value_desc("pass arguments"),
                             cl::desc("Print the LLVM_DEBUG output of these DEBUG_TYPEs only, e.g. "
                                      "tile-allocate-shared,convert-tile-to-llvm (builds without NDEBUG)")};

  /// Where NDEBUG compiled LLVM_DEBUG out of this build, there is nothing to turn on.
  void apply() {
#ifndef NDEBUG
    if (!all && only.empty()) return;
    llvm::DebugFlag = true;
    std::vector<const char *> types;
    for (const std::string &t : only) types.push_back(t.c_str());
    if (!types.empty()) llvm::setCurrentDebugTypes(types.data(), unsigned(types.size()));
#endif
  }
};

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tile::compiler::registerDialects(registry);
  tile::compiler::registerPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  hideStaticOptions();
  std::optional<DebugOptions> debugOptions;
  if (!cl::getRegisteredOptions().count("debug-only")) debugOptions.emplace();
  std::string header = mlir::registerCLIOptions("tile-opt: the tile dialect's optimizer driver\n", registry);
  auto [input, output] = mlir::parseCLIOptions(argc, argv, header);
  if (debugOptions) debugOptions->apply();
  if (input != "-" && !llvm::sys::fs::exists(input)) {
    llvm::errs() << "tile-opt: cannot open input file '" << input << "': no such file\n";
    return 1;
  }
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
