//===- TileOps.td - tile dialect operations ------------------*- tablegen -*-===//
#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/Dialect/TileDialect.td"
include "tile/Dialect/TileTypes.td"
include "tile/Dialect/TileAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpBase.td"

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program along a launch-grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id x : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs along a launch-grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 0 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "the 1-D tensor [start, start+1, ..., end-1]";
  let description = [{
    ```mlir
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"element type matches", "result", "src", "::mlir::getElementTypeOrSelf($_self)">]> {
  let summary = "a tensor whose every element is the scalar operand";
  let description = [{
    ```mlir
    %t = tile.splat %x : tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Elem:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a dimension of size 1";
  let description = [{
    ```mlir
    %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "repeat size-1 dimensions to a larger shape";
  let description = [{
    ```mlir
    %b = tile.broadcast %e : tensor<64x1xi32> -> tensor<64x128xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, Elementwise, SameOperandsAndResultShape,
    AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element offsets";
  let description = [{
    Offsets count elements of the pointee type, as in C.
    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "load from global memory, with an optional mask and fill value";
  let description = [{
    Elements whose mask is false are not read; they take `other` (0 when absent).
    A load the DSL made from a tensor descriptor block also carries the descriptor and the
    block's first coordinates (`box %desc[%offsets]`): its pointers and mask are that block's
    elements and bounds, so any executor may run it as the masked load it is, and
    tile-pipeline may copy it with TMA instead (sm_90a).
    ```mlir
    %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask, Optional<Tile_Any>:$other,
                       Optional<Tile_TensorDescType>:$desc, Variadic<I32>:$descOffsets);
  let results = (outs Tile_Any:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? (`box` $desc^ `[` $descOffsets `]` `of` type($desc))? attr-dict `:` type($ptr) (`,` type($mask)^)? (`,` type($other)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$ptr, "::mlir::Value":$mask, "::mlir::Value":$other), [{
      build($_builder, $_state, result, ptr, mask, other, ::mlir::Value(), ::mlir::ValueRange());
    }]>
  ];
}

def Tile_DescriptorBaseOp : Tile_Op<"descriptor_base", [Pure]> {
  let summary = "the base address of a tensor descriptor";
  let description = [{
    ```mlir
    %p = tile.descriptor_base %desc : !tile.tensordesc<f16, 2> -> !tile.ptr<f16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc);
  let results = (outs Tile_PtrType:$result);
  let assemblyFormat = "$desc attr-dict `:` type($desc) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DescriptorDimOp : Tile_Op<"descriptor_dim", [Pure]> {
  let summary = "one extent or stride (elements) of a tensor descriptor";
  let description = [{
    `stride = false`: the extent of dimension `dim`; `stride = true`: its stride. Strides
    of all but the innermost dimension are multiples of 16 bytes (the launch checks it).
    ```mlir
    %n = tile.descriptor_dim %desc {dim = 0 : i32, stride = false} : !tile.tensordesc<f16, 2>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, ConfinedAttr<I32Attr, [IntNonNegative]>:$dim, BoolAttr:$stride);
  let results = (outs I32:$result);
  let assemblyFormat = "$desc attr-dict `:` type($desc)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [AttrSizedOperandSegments, MemoryEffects<[MemWrite]>]> {
  let summary = "store to global memory where the optional mask is true";
  let description = [{
    A store the DSL made of a tensor descriptor block also carries the descriptor and the
    block's first coordinates (`box %desc[%offsets]`), as a load does: any executor may run
    it as the masked store it is, and tile-tma-stores may copy it with TMA instead (sm_90a).
    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
    tile.store %q, %b, %in box %desc[%r, %c] of !tile.tensordesc<f16, 2> : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xf16>, tensor<64x64xi1>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Any:$value, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_TensorDescType>:$desc, Variadic<I32>:$descOffsets);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? (`box` $desc^ `[` $descOffsets `]` `of` type($desc))? attr-dict `:` type($ptr) `,` type($value) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$value, "::mlir::Value":$mask), [{
      build($_builder, $_state, ptr, value, mask, ::mlir::Value(), ::mlir::ValueRange());
    }]>
  ];
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [AttrSizedOperandSegments, AllTypesMatch<["value", "result"]>,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read-modify-write of global memory, returning the old values";
  let description = [{
    Where the optional mask is true, one atomic per element: `add` (integers and floats),
    `max`/`min` (signed integers; floats as maxnum/minnum: a NaN operand loses), `and`/`or`/
    `xor` (integers), `xchg` (any). `sem` is the memory order (Triton's: relaxed, acquire,
    release, acq_rel; default relaxed), `scope` the threads it orders against (cta, gpu, sys;
    default gpu). Masked-off elements return 0.
    An add the DSL made of a tensor descriptor block carries the descriptor and the block's
    first coordinates (`box %desc[%offsets]`), as a store does: any executor may run it as
    the masked atomic add it is, and tile-tma-stores may have the tensor memory accelerator
    add the block instead (cp.reduce.async.bulk.tensor, sm_90a) when its old values are unused.
    ```mlir
    %old = tile.atomic_rmw add %p, %v, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
    %o = tile.atomic_rmw add %q, %b, %in box %desc[%r, %c] of !tile.tensordesc<f32, 2> : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>, tensor<64x64xi1>
    %m = tile.atomic_rmw max %p, %v {sem = #tile.mem_sem<acq_rel>, scope = #tile.mem_scope<sys>} : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_PtrLike:$ptr, Tile_Any:$value, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_TensorDescType>:$desc, Variadic<I32>:$descOffsets,
                       DefaultValuedAttr<Tile_MemSemAttr, "::mlir::tile::MemSem::Relaxed">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr, "::mlir::tile::MemScope::Gpu">:$scope);
  let results = (outs Tile_Any:$result);
  let assemblyFormat = [{
    $kind $ptr `,` $value (`,` $mask^)? (`box` $desc^ `[` $descOffsets `]` `of` type($desc))? attr-dict `:` type($ptr) `,` type($value) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::tile::AtomicKind":$kind, "::mlir::Type":$result, "::mlir::Value":$ptr,
                   "::mlir::Value":$value, "::mlir::Value":$mask), [{
      build($_builder, $_state, result, kind, ptr, value, mask, ::mlir::Value(), ::mlir::ValueRange(),
            ::mlir::tile::MemSem::Relaxed, ::mlir::tile::MemScope::Gpu);
    }]>
  ];
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [AllTypesMatch<["cmp", "value", "result"]>,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic compare-and-swap of global memory, returning the old values";
  let description = [{
    Per element where the optional mask is true: if memory holds `cmp` (bit for bit), it
    becomes `value`; the old contents come back either way (0 where masked off). Integers
    and floats of 32 or 64 bits. `sem` and `scope` as tile.atomic_rmw's.
    ```mlir
    %old = tile.atomic_cas %p, %cmp, %v : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Any:$cmp, Tile_Any:$value, Optional<Tile_BoolLike>:$mask,
                       DefaultValuedAttr<Tile_MemSemAttr, "::mlir::tile::MemSem::Relaxed">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr, "::mlir::tile::MemScope::Gpu">:$scope);
  let results = (outs Tile_Any:$result);
  let assemblyFormat = [{
    $ptr `,` $cmp `,` $value (`,` $mask^)? attr-dict `:` type($ptr) `,` type($value) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "combine the elements of a tensor along one axis";
  let description = [{
    The result drops `axis` from the shape (a scalar for a 1-D operand). `argmax`/`argmin`
    return i32 indices along the axis; ties go to the smallest index.
    Order on the GPU: each thread combines its own elements in increasing index, then
    lanes in a butterfly, then warps in increasing warp index. On the CPU executor:
    along the last dimension element j goes to vector lane j mod w (w: the largest power
    of two <= 16 dividing the length), each lane combines in increasing index, then lanes
    in a halving tree; along other dimensions in increasing index. Sums may therefore
    differ between executors by rounding (about n * 2^-24 of the sum of magnitudes);
    max/min propagate NaN on both, and argmax/argmin ties go to the smallest index.
    ```mlir
    %m = tile.reduce max %x {axis = 0 : i32} : tensor<1024xf32> -> f32
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Any:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product with accumulation: a [M, K] times b [K, N] plus acc [M, N]";
  let description = [{
    Triton's `tl.dot`. `a` and `b` have one element type: f16 or bf16 (products exact in
    f32, accumulated in f32), or f32 with `input_precision` `IEEE` (the default: one f32
    fused multiply-add per product, in increasing k, starting from `acc`) or `TF32` (each
    input rounded to tf32 first, to nearest: ties away from zero as `cvt.rna.tf32.f32`, or to
    even where Hopper's TMA copies round a wgmma's operands; tensor cores may then accumulate
    in another order). `acc` and the result are f32.
    ```mlir
    %c = tile.dot %a, %b, %acc : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
    %d = tile.dot %x, %y, %acc {input_precision = #tile.input_precision<TF32>} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc,
                       DefaultValuedAttr<Tile_InputPrecisionAttr, "::mlir::tile::InputPrecision::IEEE">:$input_precision);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` type($a) `*` type($b) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    Result dimension i is source dimension `order[i]` (numpy's `transpose(x, order)`).
    On the GPU a permutation of the layout: no data moves until a consumer wants another.
    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "view a tensor's elements in row-major order with another shape";
  let description = [{
    Element i of the source in row-major order is element i of the result in row-major
    order (numpy's `reshape`); the element count is unchanged.
    ```mlir
    %r = tile.reshape %x : tensor<8x16xf32> -> tensor<4x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
    SameOperandsAndResultElementType]> {
  let summary = "move tensor elements between thread layouts";
  let description = [{
    Inserted by layout assignment where two layouts meet; lowered through shared memory.
    Folds: a conversion to the layout its operand has is the operand, and one of a
    conversion back to that conversion's source is the source; canonicalises a conversion
    of a conversion into one conversion of the first's operand.
    ```mlir
    %c = tile.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

include "tile/Dialect/TileSharedMemoryOps.td"

#endif
