//===- tile-opt.cpp - mlir-opt with the tile dialect and passes -----------===//
// Every tile op parses and prints here, and every tile pass runs alone, e.g.
//   tile-opt --tile-assign-layouts="num-warps=4" kernel.mlir
// Behaves like a tool: --help shows MLIR's driver options and the passes, not the hundreds of
// LLVM backend options the linked NVPTX/X86 targets register; a bad flag or a missing input
// is a one-line error and a non-zero exit.
#include "tile/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

/// The options registered so far are LLVM's and MLIR's static ones (codegen, backends,
/// debugging: hundreds, from the linked NVPTX and host targets). Hides them from --help
/// (they stay accepted); the driver's and the passes' options registered after this show.
static void hideStaticOptions() {
  static const llvm::StringRef keep[] = {"help", "help-hidden", "help-list", "version"};
  for (auto &entry : cl::getRegisteredOptions())
    if (!llvm::is_contained(keep, entry.first)) entry.second->setHiddenFlag(cl::ReallyHidden);
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tile::compiler::registerDialects(registry);
  tile::compiler::registerPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  hideStaticOptions();
  std::string header = mlir::registerCLIOptions("tile-opt: the tile dialect's optimizer driver\n", registry);
  auto [input, output] = mlir::parseCLIOptions(argc, argv, header);
  if (input != "-" && !llvm::sys::fs::exists(input)) {
    llvm::errs() << "tile-opt: cannot open input file '" << input << "': no such file\n";
    return 1;
  }
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
