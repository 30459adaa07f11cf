//===- TileAttrs.td - layouts and enums ----------------------*- tablegen -*-===//
#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "tile/Dialect/TileDialect.td"
include "tile/Dialect/TileInterfaces.td"
include "mlir/IR/TensorEncoding.td"
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
    I32EnumAttrCase<"IEEE", 0, "IEEE">, I32EnumAttrCase<"TF32", 1, "TF32">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_InputPrecisionAttr : EnumAttr<Tile_Dialect, Tile_InputPrecision, "input_precision"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "what tile.atomic_rmw does to memory", [
    I32EnumAttrCase<"Add", 0, "add">, I32EnumAttrCase<"Max", 1, "max">, I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"And", 3, "and">, I32EnumAttrCase<"Or", 4, "or">, I32EnumAttrCase<"Xor", 5, "xor">,
    I32EnumAttrCase<"Xchg", 6, "xchg">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic_kind"> {
  let assemblyFormat = "$value";
}

/// Triton's `sem`: the memory order of an atomic.
def Tile_MemSem : I32EnumAttr<"MemSem", "memory order of an atomic", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">, I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">, I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemSemAttr : EnumAttr<Tile_Dialect, Tile_MemSem, "mem_sem"> {
  let assemblyFormat = "`<` $value `>`";
}

/// Triton's `scope`: which threads an atomic's order is promised to.
def Tile_MemScope : I32EnumAttr<"MemScope", "the threads an atomic orders against", [
    I32EnumAttrCase<"Cta", 0, "cta">, I32EnumAttrCase<"Gpu", 1, "gpu">, I32EnumAttrCase<"Sys", 2, "sys">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemScopeAttr : EnumAttr<Tile_Dialect, Tile_MemScope, "mem_scope"> {
  let assemblyFormat = "`<` $value `>`";
}

/// A layout of registers, lanes and warps: its linear layout comes from toLinearLayout
/// (TileInterfaces.td), which every lowering pattern asks instead of the attribute class.
/// On a tensor type it checks the tensor fits (verifyEncoding: rank, power-of-two shape, ...).
class Tile_DistributedLayout<string name, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, !listconcat([DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>,
                                               DeclareAttrInterfaceMethods<VerifiableTensorEncoding>], traits)>;

def Tile_BlockedLayout : Tile_DistributedLayout<"BlockedLayout"> {
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
}

def Tile_SliceLayout : Tile_DistributedLayout<"SliceLayout"> {
  let mnemonic = "slice";
  let summary = "layout of a tensor obtained by removing one dimension of a parent layout";
  let description = [{
    The result of reducing a tensor with distributed layout P (any: blocked, mma, a
    slice, ...) along dimension `dim`, and the source of expanding it back: each thread
    holds the elements whose remaining coordinates it held in P. As a linear layout: P's
    for the shape with extent 1 along `dim`, that output dropped; registers that only
    moved along `dim` are dropped, lanes and warps that did become replicas.
    Example: `#tile.slice<dim = 1, parent = #blocked>`, `#tile.slice<dim = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>`.
  }];
  let parameters = (ins "unsigned":$dim, "DistributedLayoutInterface":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaLayout : Tile_DistributedLayout<"MmaLayout"> {
  let mnemonic = "mma";
  let summary = "accumulator fragments of mma.sync (version 2) tiled over warps";
  let description = [{
    A 2-D f32 tensor held as mma.sync's accumulators: `warpsPerCTA = [wm, wn]` warps tile
    it in 16 x 8 instruction tiles (warp w covers M tile w % wm and N tile w / wm), each
    repeated to cover the shape (tile/Layout/MmaLayouts.h gives the exact fragment map).
    Chosen by tile-accelerate-matmul for a `tile.dot` of f16/bf16 (or f32 with TF32
    input precision: m16n8k8) on sm_80 and newer.
    `#tile.mma<warpsPerCTA = [2, 2]>`
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = "`<` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_DotOperandLayout : Tile_DistributedLayout<"DotOperandLayout"> {
  let mnemonic = "dot_operand";
  let summary = "mma.sync's operand fragments for the accumulator layout `parent`";
  let description = [{
    Operand `opIdx` (0: a [M, K], 1: b [K, N]) of a dot whose result has layout `parent`,
    in the registers mma.sync takes them: m16n8k16 for 16-bit elements (two per 32-bit
    register), m16n8k8 for f32 elements rounded to tf32 (one per register); warps along
    the other dimension hold copies.
    `#tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>`
  }];
  let parameters = (ins "unsigned":$opIdx, "MmaLayoutAttr":$parent);
  let assemblyFormat = "`<` `opIdx` `=` $opIdx `,` `parent` `=` $parent `>`";
}

def Tile_LinearLayout : Tile_DistributedLayout<"LinearLayout"> {
  let mnemonic = "linear";
  let summary = "any distribution given by its linear layout's bases";
  let description = [{
    The linear layout written out: one basis (a coordinate per tensor dimension) per bit
    of the register, lane and warp index; the coordinate an index holds is the XOR of the
    bases of its set bits (tile/Layout/LinearLayout.h). Always 5 lane bases (32 lanes);
    `warp` has log2(warps) bases. A zero basis replicates. On a tensor every coordinate
    must lie inside the shape and every element must be held by some thread.
    `#tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]]>`
    (mma.sync's 16 x 8 accumulator tile, two warps along M).
  }];
  // Bases stored flat, `numDims` (the tensor's rank) coordinates each.
  let parameters = (ins "unsigned":$numDims, ArrayRefParameter<"int32_t">:$registerBases,
                        ArrayRefParameter<"int32_t">:$laneBases, ArrayRefParameter<"int32_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The bases of "register", "lane" or "warp", one vector of getRank() coordinates each.
    std::vector<std::vector<int32_t>> getBasesOf(::llvm::StringRef inDim) const;
  }];
}

def Tile_SwizzledSharedLayout : AttrDef<Tile_Dialect, "SwizzledSharedLayout"> {
  let mnemonic = "swizzled_shared";
  let summary = "a 2-D tile in shared memory, rows XOR-swizzled in vec-element chunks";
  let description = [{
    Row-major (`order = [1, 0]`: dimension 1 contiguous) with `vec`-element chunks of each
    row permuted: element (r, c) is at offset
    `r * C + (((c / vec) ^ ((r / perPhase) % maxPhase)) * vec) + c % vec`.
    With 16-byte chunks and `perPhase * maxPhase` rows covering the 128-byte bank cycle,
    the eight row addresses of an `ldmatrix` 8x8 block fall in eight different bank groups.
    Triton's `#ttg.swizzled_shared`; `maxPhase = 1` is no swizzle. Buffers with a leading
    pipeline-stage dimension repeat the tile.
    `#tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>`
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_NvmmaSharedLayout : AttrDef<Tile_Dialect, "NvmmaSharedLayout"> {
  let mnemonic = "nvmma_shared";
  let summary = "a 2-D tile in shared memory as Hopper's wgmma and TMA read it";
  let description = [{
    Row-major (dimension 1 contiguous) in column groups of `swizzle` bytes: group g holds
    columns [g W, (g + 1) W) of every row, W = swizzle / element bytes, rows of W elements
    one after another; the groups follow each other. Within a group the 16-byte chunks of
    row r are XORed with the row's phase as the hardware's 128/64/32-byte swizzle modes
    (Swizzle<3|2|1, 4, 3>) do: chunk ^ ((r / (128 / swizzle)) % (swizzle / 16)). This is
    the canonical layout of a wgmma operand (K-major for a [M, K] tile, MN-major for a
    [K, N] tile) and of a TMA box with that swizzle; buffers start 1024-byte aligned.
    `transposed`: dimension 0 is the contiguous one, element (r, c) of an [R, C] tile
    sits where element (c, r) of the untransposed [C, R] tile would: what
    `tile.memdesc_trans` makes of a buffer, so a [K, N] operand b stored as [N, K]
    rows is K-major (wgmma's only order for tf32 operands).
    Triton's `#ttg.nvmma_shared`. `#tile.nvmma_shared<swizzle = 128>`,
    `#tile.nvmma_shared<swizzle = 128, transposed = true>`
  }];
  let parameters = (ins "unsigned":$swizzle, DefaultValuedParameter<"bool", "false">:$transposed);
  let assemblyFormat = "`<` `swizzle` `=` $swizzle (`,` `transposed` `=` $transposed^)? `>`";
  let genVerifyDecl = 1;
}

def Tile_TmaElementType : I32EnumAttr<"TmaElementType", "element type of a TMA map (rt::TensorMapType)", [
    I32EnumAttrCase<"U8", 0, "u8">, I32EnumAttrCase<"I32", 1, "i32">, I32EnumAttrCase<"F16", 2, "f16">,
    I32EnumAttrCase<"BF16", 3, "bf16">, I32EnumAttrCase<"F32", 4, "f32">, I32EnumAttrCase<"TF32", 5, "tf32">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_TmaMap : AttrDef<Tile_Dialect, "TmaMap"> {
  let mnemonic = "tma_map";
  let summary = "the TMA map a launch encodes for one tensor-descriptor parameter";
  let description = [{
    Recorded on the module (`tile.tma_maps`, one per descriptor copied by the tensor memory
    accelerator) by tile-pipeline and tile-tma-stores (Transforms/TmaRecord.cpp); the compiler
    driver (lib/Compiler.cpp) turns each into an rt::TmaParam of the launch metadata, and the
    launch encodes the map into the parameter's first 128 bytes.
    `arg`: the kernel argument's index. `type`: the map's element type, rt::TensorMapType's
    values in order (`tf32`: f32 that the copy rounds to tf32). `swizzle`: the bytes of the
    shared-memory swizzle (0, 32, 64 or 128). `box`: what one copy moves, outermost first (its
    rank is the map's); the innermost extent spans at most the swizzle.
    `#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [64, 64]>`
  }];
  let parameters = (ins "unsigned":$arg, EnumParameter<Tile_TmaElementType>:$type, "unsigned":$swizzle,
                        ArrayRefParameter<"int32_t">:$box);
  let assemblyFormat = [{
    `<` `arg` `=` $arg `,` `type` `=` $type `,` `swizzle` `=` $swizzle `,` `box` `=` `[` $box `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one element of the map's type.
    unsigned getElementBytes() const;
  }];
}

#endif
