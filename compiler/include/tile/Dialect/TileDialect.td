//===- TileDialect.td - the tile dialect ---------------------*- tablegen -*-===//
// Block-level tensor programs: one program instance per launch-grid block.
#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Block-level tensor programs compiled to GPU kernels";
  let description = [{
    A tile program describes what one block of the launch grid computes, on tensors whose
    shapes are compile-time constants. Elementwise arithmetic uses the `arith` and `math`
    dialects on ranked tensors; control flow uses `scf`. The tile dialect adds what those
    dialects lack: program ids, pointer arithmetic, masked memory access, reductions, and
    (after layout assignment) the distribution of tensor elements over threads.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // The attributes passes hand each other (tile.kernel, tile.num_warps, tile.vec,
  // tile.launch_warps, tile.tma_maps, ...): checked where they are parsed or set
  // (lib/Dialect/DiscardableAttrs.cpp).
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []> : Op<Tile_Dialect, mnemonic, traits>;

#endif
