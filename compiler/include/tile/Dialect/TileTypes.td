//===- TileTypes.td - tile dialect types ---------------------*- tablegen -*-===//
#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "tile/Dialect/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_PtrType : TypeDef<Tile_Dialect, "Ptr"> {
  let mnemonic = "ptr";
  let summary = "pointer to elements in global memory";
  let description = [{
    A pointer into global device memory whose pointee is a scalar element type.
    Example: `!tile.ptr<f32>`. Tensors of pointers (`tensor<128x!tile.ptr<f32>>`) address
    one element per tensor element.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let genVerifyDecl = 1;
}

// Element types the DSL supports.
def Tile_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Tile_Elem : AnyTypeOf<[Tile_Float, Tile_Int, Tile_PtrType]>;
def Tile_Tensor : RankedTensorOf<[Tile_Float, Tile_Int, Tile_PtrType]>;
def Tile_Any : AnyTypeOf<[Tile_Elem, Tile_Tensor]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, RankedTensorOf<[Tile_Int]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PtrType, RankedTensorOf<[Tile_PtrType]>]>;

#endif
