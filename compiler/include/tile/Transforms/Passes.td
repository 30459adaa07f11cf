//===- Passes.td - tile compiler passes ----------------------*- tablegen -*-===//
#ifndef TILE_PASSES_TD
#define TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Distribute every tensor over registers, lanes and warps";
  let description = [{
    Gives each tensor a `#tile.blocked` layout (one per rank, sized from the largest
    tensor of that rank, `num-warps` warps, and the widest vector access the memory
    operations allow), reduction results a `#tile.slice` of their operand's layout, dots
    the CUDA-core layouts (the result in the accumulator's layout, the operands holding
    whole rows / columns of K), and inserts `tile.convert_layout` where two layouts meet.
    Records the warps as the kernel's `tile.num_warps`. The passes after it refine:
    tile-coalesce, tile-accelerate-matmul, tile-remove-layout-conversions.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", /*default=*/"0",
           "warps per program; 0 = the kernel's tile.num_warps attribute (else 4)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileCoalesce : Pass<"tile-coalesce", "mlir::ModuleOp"> {
  let summary = "Order and vector width of every global memory access";
  let description = [{
    A rank >= 2 `tile.load` / `tile.store` whose addresses allow wider accesses along
    another dimension than its layout's fastest (a transposed store) gets a blocked layout
    of its own with that dimension fastest; its value and operands are converted (the
    conversions of its addresses and mask are then rebuilt by
    tile-remove-layout-conversions). Then, from the contiguity, divisibility and constancy
    facts of the address and mask operands (axis analysis, seeded by the kernel's
    `tile.divisibility` argument attributes) and the layout's elements per thread,
    annotates each `tile.load`, `tile.store` and `tile.atomic_rmw` with `tile.vec`: how
    many consecutive elements one thread accesses with a single instruction (up to 16
    bytes).
  }];
}

def TileAccelerateMatmul : Pass<"tile-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "Move the dots that fit onto tensor cores (mma.sync)";
  let description = [{
    A `tile.dot` of f16/bf16 operands on sm_80+ (the module's `tile.target`) whose tile
    holds whole m16n8k16 instruction tiles for every warp gets the `#tile.mma` result
    layout and `#tile.dot_operand` operands, converted from what they were; a K loop
    carrying the accumulator carries it in the mma layout. The loads producing the
    operands get layouts fitted to their own shape where their addresses can be rebuilt.
    Other dots keep assign-layouts' CUDA-core layouts.
  }];
}

def TileRemoveLayoutConversions : Pass<"tile-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Rematerialise, fold and propagate layout conversions away";
  let description = [{
    Conversions of cheap values (ranges, splats, constants, arith, addptr, broadcast,
    expand_dims over those) become the value recomputed in the wanted layout;
    conversion chains fold; an elementwise op whose converted operands all come from one
    blocked or slice layout runs in that layout when that saves conversions.
  }];
}

def TileOptimizeDotOperands : Pass<"tile-optimize-dot-operands", "mlir::ModuleOp"> {
  let summary = "Stage tensor-core dot operands through swizzled shared memory";
  let description = [{
    A `tile.convert_layout` of a 16-bit (or tf32) tensor into `#tile.dot_operand`
    becomes a `tile.local_alloc` into a `#tile.swizzled_shared` buffer (the swizzle that
    keeps ldmatrix's eight 16-byte row reads in eight bank groups) and a `tile.local_load`
    from it, which lowers to `ldmatrix` (`.trans` for b; 32-bit loads for tf32). Then a
    dot reading both operands from buffers is split into one dot per instruction-wide K
    slice, each reading a window of the buffers just before it.
    ```mlir
    %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
    // becomes
    %m = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %a = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #dot_a>
    ```
  }];
}

def TilePipeline : Pass<"tile-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline a loop's dot operand loads with cp.async over num_stages buffers";
  let description = [{
    In an `scf.for` whose iterations load tiles only to stage them for a dot
    (`tile.load` → `tile.local_alloc` → `tile.local_load`), with addresses and masks that
    depend on the induction variable and values from outside the loop only, each such
    load becomes a `tile.async_copy` into a ring of `num-stages` buffers issued
    `num-stages - 1` iterations ahead: a prologue issues the first copies, each iteration
    waits for its stage (`tile.async_wait`), reads it, and issues the copy for iteration
    i + num-stages - 1 (masked off past the end, which zero-fills). Loads whose
    `other` is not zero, or whose accesses are narrower than 4 bytes, stay as they are.
    On sm_90a descriptor blocks read only by warpgroup dots are TMA copies on an mbarrier
    per slot instead (across tiles for the K loop of a persistent tile loop). The phases:
    compiler/lib/Transforms/Pipeliner/ (Pipeliner.h). Loops that tile-warp-specialize
    split before have no loads left to pipeline.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", /*default=*/"0",
           "buffers per pipelined load; 0 = the kernel's tile.num_stages attribute (else 3); 1 = off">
  ];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Split a TMA-fed wgmma K loop into a producer warp and consumer warps (sm_90a)";
  let description = [{
    Runs just before tile-pipeline. A loop marked `tile.warp_specialize` that tile-pipeline
    would pipeline with TMA copies only and warpgroup dots kept in flight, at the kernel's
    top level after only register work (or the K loop of such a persistent tile loop), is
    split into a `tile.warp_specialize` op. Its producer region (an extra warpgroup) runs the
    loop's trips issuing only the copies: iteration g waits on slot g % S of an `empty`
    mbarrier ring, then arms the `full` ring and starts the TMA copies. Its consumers region
    (the kernel's num_warps, layouts unchanged) holds the loop and the rest of the kernel: each
    iteration waits on the `full` ring, reads the slot, and once the previous iteration's
    wgmmas retired every warp arrives on that slot's `empty` mbarrier.
    ```mlir
    scf.for %k = ... { %a = tile.load ... box %d[...]; %m = tile.local_alloc %a ...;
                       tile.warpgroup_dot %m, ... } {tile.warp_specialize}
    // becomes
    tile.warp_specialize producer {
      scf.for %k = ... { tile.barrier_wait %empty[g % S] ...; tile.barrier_expect ...;
                         tile.async_tma_load %d[...] ... }
    } consumers {
      scf.for %k = ... { tile.barrier_wait %full[g % S] ...; tile.warpgroup_dot ...;
                         tile.barrier_arrive %empty[(g - 1) % S] ... }
      ...
    }
    ```
    Any other loop, marked or not, is left as it is (tile-pipeline pipelines it); so is
    everything below sm_80. Pipeliner/WarpSpecialize.cpp's file comment has the details.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", /*default=*/"0",
           "ring slots; as tile-pipeline's option (0 = the kernel's tile.num_stages, else the pipeliner's default; 1 = off)">
  ];
}

def TileTmaStores : Pass<"tile-tma-stores", "mlir::ModuleOp"> {
  let summary = "Store descriptor blocks through the tensor memory accelerator (sm_90a)";
  let description = [{
    On sm_90a a `tile.store` of a 2-D descriptor block (`box %desc[%offsets]`, the desc a
    kernel parameter whose extents are multiples of 16 bytes by its `tile.divisibility`:
    TMA clips a stored box only at that granularity) of f16, bf16 or f32 whose tile fills
    whole swizzle rows of 8-row atoms becomes `scf.if` (the block starts inside the
    tensor): the value, computed in the layout its elementwise chain starts in (a matmul's
    accumulator; the conversion into the store's layout is skipped), written into a
    `#tile.nvmma_shared` buffer (`tile.local_alloc`), then `tile.async_tma_store` of the
    buffer to the block; else the masked store as it was, its conversion moved after the
    chain. The box and swizzle go on the module for the launch (as tile-pipeline's TMA
    loads). The block's elements outside the tensor are not written, as the masked store
    did not write them. Stores it does not copy (a descriptor already copied with another
    box, extents not known to be 16-byte multiples) stay masked stores; their conversion
    moves past a narrowing cast (fewer bytes through shared memory).
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAllocateShared : Pass<"tile-allocate-shared", "mlir::ModuleOp"> {
  let summary = "Place shared-memory buffers and scratch by liveness";
  let description = [{
    Every `tile.local_alloc` (live from its definition to its last use, a use inside a
    loop keeping it live for the whole loop) and every op's scratch (layout conversions,
    reshapes, reductions across warps: live only at the op) gets a byte offset in the
    kernel's dynamic shared memory — `tile.offset` / `tile.scratch_offset` — such that
    buffers live at the same time never overlap; others reuse the space. Buffers are
    aligned to 1024 bytes (what 128-byte swizzles need), scratch to 16. The module gets
    `tile.shared_bytes`.
  }];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "mlir::ModuleOp"> {
  let summary = "Insert the barriers that shared-memory accesses of different threads need";
  let description = [{
    Walks each kernel in program order tracking the shared-memory byte ranges read and
    written since the last barrier; before an op whose accesses overlap one of them with
    a write on either side, inserts `tile.barrier`. Asynchronous copies count as writes
    from the `tile.async_wait` that retires them. Loops are walked twice, so accesses of
    one iteration are checked against the next; both branches of an `scf.if` are merged.
    Ops with scratch (layout conversions, reductions) fence their own write→read inside.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower laid-out tile IR to the LLVM and NVVM dialects";
  let description = [{
    Each tensor becomes the scalars its layout gives one thread (a 1:N type
    conversion); tile ops become per-thread LLVM/NVVM code: thread coordinates from
    `nvvm.read.ptx.sreg.tid.x`, vector loads/stores guarded by their masks, warp shuffles
    and shared memory for reductions and layout conversions. Then `scf` → `cf` and
    `func`/`arith`/`math`/`cf` → `llvm`, math functions as calls into libdevice
    (`__nv_expf`, ...). The kernel becomes an `llvm.func` with `nvvm.kernel`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect", "::mlir::scf::SCFDialect"];
}

def TileLowerToCPU : Pass<"tile-lower-to-cpu", "mlir::ModuleOp"> {
  let summary = "Lower layout-free tile IR to vector/scf/memref code for the CPU executor";
  let description = [{
    Replaces each kernel (`func.func` with `tile.kernel`) by a function that runs one
    program instance: `@k(args..., pid_x, pid_y, pid_z, nprog_x, nprog_y, nprog_z)`, with
    `!tile.ptr<T>` passed as an i64 host address. Tensors are processed in chunks of
    `chunk` elements along their last dimension (1-D vectors): a tensor op with a single
    user in the same block is fused into that user's chunk loop; cheap values (splats,
    ranges, integer index arithmetic) are recomputed wherever they are used; every other
    tensor is materialised in a stack buffer (`memref.alloca`). Loads and stores whose
    addresses the axis analysis proves contiguous along the last dimension become
    `llvm.intr.masked.load/store`, others masked gather/scatter; atomics become one
    `llvm.atomicrmw` per active element. `tile.dot`: operands converted once to f32 row-major
    buffers (tf32 rounding there), then per row and column chunk a k loop of vector fmas in
    increasing k from the accumulator (the GPU FMA path's order, bit for bit); `tile.trans`:
    permuted chunk indices or gathers; `tile.reshape`: a view of a row-major buffer. Reductions: see TileOps.td and the CPU executor
    notes (lane-parallel partials, then a halving tree). With `check`, every active
    memory access first calls `tile_cpu_check` (the checking mode's runtime).
    ```mlir
    func.func @k(%x: !tile.ptr<f32>) attributes {tile.kernel} { ... }
    // becomes
    func.func @k(%x: i64, %pidx: i32, ..., %nz: i32) { scf.for ... vector.load ... }
    ```
  }];
  let options = [
    Option<"chunk", "chunk", "int", /*default=*/"16", "elements per vector chunk (a power of two)">,
    Option<"check", "check", "bool", /*default=*/"false",
           "call tile_cpu_check before every active load/store/atomic element">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::func::FuncDialect"];
}

def TileCpuExpandSmallFloats : Pass<"tile-cpu-expand-small-floats", "mlir::ModuleOp"> {
  let summary = "Compute f16/bf16 in f32 and convert them with integer code (CPU executor)";
  let description = [{
    Runs on the CPU executor's lowered code, before the LLVM dialect, so that no f16 or
    bf16 type reaches LLVM: its x86 backend would otherwise call soft-float helpers that a
    host may lack (`__truncsfbf2`, `__extendhfsf2`, ...) or use host instructions that
    flush denormals, and its InstCombine makes float operations (`llvm.fabs`) of integer
    code on a bfloat's bits. Arithmetic on f16/bf16 is emulated in f32 (one rounding back,
    exact for + - * /); `arith.extf`/`arith.truncf` to and from f16/bf16 (from f32 or
    f64), `sitofp`/`uitofp` to them, `fptosi`/`fptoui` from them and `math.absf` become
    integer code with PTX's semantics (`cvt.rn`: round to nearest even directly from the
    source type, denormals kept, overflow to infinity, NaN to a quiet NaN); an atomic add
    of them, a compare-and-swap loop on their bits. What is left only moves f16/bf16
    values (memory, gathers, vectors, selects, loops, arguments) and moves their bits:
    every f16/bf16 type becomes i16. Any other op on them is an error.
    ```mlir
    %h = arith.truncf %x : vector<16xf32> to vector<16xf16>
    // becomes bitcasts, shifts, adds and selects on vector<16xi32>, then
    %h = arith.trunci %r : vector<16xi32> to vector<16xi16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

#endif
