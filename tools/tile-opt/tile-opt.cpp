//===- tile-opt.cpp - mlir-opt with the tile dialect and passes -----------===//
// Every tile op parses and prints here, and every tile pass runs alone, e.g.
//   tile-opt --tile-assign-layouts="num-warps=4" kernel.mlir
#include "tile/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tile::compiler::registerDialects(registry);
  tile::compiler::registerPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
