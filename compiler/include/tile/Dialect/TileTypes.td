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

def Tile_MemDescType : TypeDef<Tile_Dialect, "MemDesc"> {
  let mnemonic = "memdesc";
  let summary = "a buffer in shared memory";
  let description = [{
    A tensor-shaped buffer in the program's shared memory, with a shared layout
    (`#tile.swizzled_shared`) that maps elements to offsets. A leading extra dimension
    makes a ring of buffers (one per pipeline stage); `tile.memdesc_index` selects one.
    Where the buffer lives is decided by `tile-allocate-shared` (attribute `tile.offset`
    on its `tile.local_alloc`).
    `!tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>`
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType, "::mlir::Attribute":$encoding);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumElements() const;
    /// The shape of one buffer (without a leading stage dimension beyond the layout's rank).
    ::llvm::ArrayRef<int64_t> getTileShape() const { return getShape().take_back(2); }
  }];
}

def Tile_TensorDescType : TypeDef<Tile_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "a tensor in global memory: base, shape and strides (a kernel parameter)";
  let description = [{
    A kernel parameter describing a rank-`rank` tensor of `elementType` in global memory,
    passed as one `tile::TensorDescParam` (tile/TensorDescAbi.h): a 128-byte TMA map, the
    base address, then the shape and the strides (int32, outermost first). The launch
    checks what TMA requires (base 16-byte aligned, innermost stride 1, other strides
    multiples of 16 bytes), so the code may assume it. `!tile.tensordesc<f16, 2>`
  }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
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
