//===- TileAttrs.td - layouts and enums ----------------------*- tablegen -*-===//
#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "tile/Dialect/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">, I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">, I32EnumAttrCase<"ArgMax", 3, "argmax">,
    I32EnumAttrCase<"ArgMin", 4, "argmin">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "$value";
}

def Tile_InputPrecision : I32EnumAttr<"InputPrecision", "how tile.dot multiplies f32 inputs", [
    I32EnumAttrCase<"IEEE", 0, "ieee">, I32EnumAttrCase<"TF32", 1, "tf32">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_InputPrecisionAttr : EnumAttr<Tile_Dialect, Tile_InputPrecision, "input_precision"> {
  let assemblyFormat = "$value";
}

def Tile_BlockedLayout : AttrDef<Tile_Dialect, "BlockedLayout"> {
  let mnemonic = "blocked";
  let summary = "distribution of a tensor over registers, lanes and warps";
  let description = [{
    Each thread owns `sizePerThread[d]` consecutive elements along dimension d; a warp
    spans `threadsPerWarp[d]` threads and the block `warpsPerCTA[d]` warps along d. The
    pattern repeats to cover larger shapes and wraps (replicates) for smaller ones.
    `order` lists dimensions fastest first. Example, 1-D with 16-byte f32 accesses on 4 warps:
    `#tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>`
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,` `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getSizePerThread().size(); }
    unsigned getNumWarps() const;
  }];
}

def Tile_SliceLayout : AttrDef<Tile_Dialect, "SliceLayout"> {
  let mnemonic = "slice";
  let summary = "layout of a tensor obtained by removing one dimension of a parent layout";
  let description = [{
    The result of reducing a tensor with blocked layout P along dimension `dim`: each
    thread holds the elements whose remaining coordinates it held in P.
    Example: `#tile.slice<dim = 1, parent = #blocked>`.
  }];
  let parameters = (ins "unsigned":$dim, "BlockedLayoutAttr":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
}

#endif
