//===- Passes.td - tile compiler passes ----------------------*- tablegen -*-===//
#ifndef TILE_PASSES_TD
#define TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Distribute every tensor over registers, lanes and warps";
  let description = [{
    Gives each tensor a `#tile.blocked` layout (one per rank, sized from the largest
    tensor of that rank, `num-warps` warps, and the widest vector access the memory
    operations allow), reduction results a `#tile.slice` of their operand's layout, and
    inserts `tile.convert_layout` where two layouts meet. Conversions of cheap producers
    (ranges, splats, constants) are rematerialised in the wanted layout instead.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", /*default=*/"0",
           "warps per program; 0 = the kernel's tile.num_warps attribute (else 4)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileCoalesce : Pass<"tile-coalesce", "mlir::ModuleOp"> {
  let summary = "Choose the vector width of every global memory access";
  let description = [{
    From the contiguity, divisibility and constancy facts of the address and mask
    operands (axis analysis, seeded by the kernel's `tile.divisibility` argument
    attributes) and the layout's elements per thread, annotates each `tile.load`,
    `tile.store` and `tile.atomic_add` with `tile.vec`: how many consecutive elements one
    thread accesses with a single instruction (up to 16 bytes).
  }];
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
    bf16 value reaches LLVM's x86 backend as anything but a load, store, select or
    bitcast: the backend would otherwise call soft-float helpers that a host may lack
    (`__truncsfbf2`, `__extendhfsf2`, ...) or use host instructions that flush denormals.
    Arithmetic on f16/bf16 is emulated in f32 (one rounding back, exact for + - * /);
    `arith.extf`/`arith.truncf` to and from f16/bf16 (from f32 or f64), `sitofp`/`uitofp`
    to them and `fptosi`/`fptoui` from them become integer code with PTX's `cvt.rn`
    semantics: round to nearest even directly from the source type, denormals kept,
    overflow to infinity, NaN to a quiet NaN.
    ```mlir
    %h = arith.truncf %x : vector<16xf32> to vector<16xf16>
    // becomes bitcasts, shifts, adds and selects on vector<16xi32>, then
    %h = arith.bitcast %r16 : vector<16xi16> to vector<16xf16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif
