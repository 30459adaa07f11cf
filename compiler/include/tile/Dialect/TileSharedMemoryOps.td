//===- TileSharedMemoryOps.td - shared memory, async copies, barriers -*- tablegen -*-===//
// The ops the GPU passes introduce: shared-memory buffers and their views, cp.async and TMA copies
// into them, mbarriers, wgmma and warp specialisation. Included by TileOps.td (one generated
// op list); the traced program's ops are there.
#ifndef TILE_SHARED_MEMORY_OPS_TD
#define TILE_SHARED_MEMORY_OPS_TD

//===----------------------------------------------------------------------===//
// Shared memory as IR: buffers, copies into them (cp.async), barriers.
//===----------------------------------------------------------------------===//

def Tile_SharedMemory : Resource<"::mlir::tile::SharedMemoryResource">;

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [MemoryEffects<[MemAlloc<Tile_SharedMemory>]>]> {
  let summary = "a buffer in shared memory, optionally filled from a tensor";
  let description = [{
    The buffer lives until its last use; `tile-allocate-shared` places it (attribute
    `tile.offset`, bytes from the dynamic shared-memory base, 1024-byte aligned) and may
    give its space to buffers whose lifetimes do not overlap. With `src`, every thread
    writes its registers of `src` into the buffer; `round_tf32` (f32 only) rounds each to
    tf32 first (to nearest, ties away from zero), for a wgmma that reads the buffer as tf32
    (the tensor cores would truncate); a TMA copy replacing the write rounds instead.
    ```mlir
    %m = tile.local_alloc %a : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %ring = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #shared>
    %t = tile.local_alloc %x {round_tf32} : (tensor<128x32xf32, #blocked>) -> !tile.memdesc<128x32xf32, #nvmma>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$src, UnitAttr:$round_tf32);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [MemoryEffects<[MemRead<Tile_SharedMemory>]>]> {
  let summary = "read a shared-memory buffer, or a window of it, into a tensor";
  let description = [{
    Each thread reads the elements its result layout gives it; into `#tile.dot_operand`
    of 16-bit elements this is `ldmatrix` (`.trans` for b). With `offsets`, the result is
    the window of its shape starting there (each offset a multiple of the window's extent,
    so that the window's coordinates only add bits): how a dot is split along K.
    ```mlir
    %a = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #tile.dot_operand<opIdx = 0, parent = #mma>>
    %k1 = tile.local_load %m {offsets = array<i64: 0, 16>} : !tile.memdesc<64x32xf16, #shared> -> tensor<64x16xf16, #dot_a>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src, OptionalAttr<DenseI64ArrayAttr>:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "write a tensor into a shared-memory buffer";
  let description = [{
    ```mlir
    tile.local_store %a, %m : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_MemDescType:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_MemDescIndexOp : Tile_Op<"memdesc_index", [Pure]> {
  let summary = "one buffer of a ring of shared-memory buffers";
  let description = [{
    Buffer `index` (0 <= index < the leading dimension) of `src`: a view, no data moves.
    ```mlir
    %s = tile.memdesc_index %ring[%i] : !tile.memdesc<3x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src, I32:$index);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = "$src `[` $index `]` attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_MemDescTransOp : Tile_Op<"memdesc_trans", [Pure]> {
  let summary = "a shared-memory buffer viewed with its two dimensions swapped";
  let description = [{
    Element (i, j) of the result is element (j, i) of `src`: a view, no data moves. The
    layout says the same bytes in the other order: `#tile.nvmma_shared` flips
    `transposed`, `#tile.swizzled_shared` reverses `order`. This is how a dot operand b
    that arrives as its transpose [N, K] (K contiguous) reaches wgmma K-major.
    ```mlir
    %bt = tile.memdesc_trans %m : !tile.memdesc<256x32xf32, #tile.nvmma_shared<swizzle = 128>> -> !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The type of `src` viewed transposed.
    static MemDescType transposedType(MemDescType src);
  }];
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [MemoryEffects<[MemRead, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "start copying global memory into a shared-memory buffer (cp.async)";
  let description = [{
    Element i of the buffer receives `*ptrs[i]`, or zero where `mask` is false. The copy
    is asynchronous: it belongs to the group the next `tile.async_commit_group` closes,
    and its data may be read only after a `tile.async_wait` has retired that group (and a
    barrier, for other threads' copies). Each thread copies the elements its pointer
    layout gives it, `tile.vec` of them per instruction (4, 8 or 16 bytes).
    ```mlir
    tile.async_copy %ptrs, %buf, %mask : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>, tensor<64x32xi1, #blocked>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Tile_PtrType]>:$ptrs, Tile_MemDescType:$dst, Optional<RankedTensorOf<[I1]>>:$mask);
  let assemblyFormat = "$ptrs `,` $dst (`,` $mask^)? attr-dict `:` type($ptrs) `,` type($dst) (`,` type($mask)^)?";
  let hasVerifier = 1;
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "close the group of asynchronous copies started since the last commit";
  let description = [{
    ```mlir
    tile.async_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "wait until at most `pending` groups of this thread's copies are in flight";
  let description = [{
    ```mlir
    tile.async_wait {pending = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
}

def Tile_WarpGroupDotOp : Tile_Op<"warpgroup_dot", [MemoryEffects<[MemRead<Tile_SharedMemory>]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product on Hopper's warpgroup tensor cores (wgmma): b from shared memory, a from shared memory or registers";
  let description = [{
    `tile.dot` as tile-accelerate-matmul rewrites it for sm_90a: b [K, N] is a buffer in
    `#tile.nvmma_shared` layout, read by `wgmma.mma_async` through a matrix descriptor;
    a [M, K] is such a buffer too, or (f16/bf16 only) a tensor in registers in
    `#tile.dot_operand<opIdx = 0, parent = P>` with P the result's layout (wgmma's "RS"
    form: each warp's 16-row part of a 64-row slab in the fragments mma.sync m16n8k16 reads).
    acc and the result are f32 in `#tile.mma` with warpsPerCTA = [W, 1]
    (each group of four warps owns 64-row slabs). f16/bf16 operands in buffers may lie K-major
    (a untransposed, b transposed) or MN-major; f32 operands are multiplied as tf32
    (the tensor cores read the f32 bits and ignore the 13 low ones) and must both be
    K-major buffers. Each warpgroup issues one m64nNk16 (tf32: m64nNk8) per 64-row slab and K
    step, in increasing k, commits them as one group, then waits until at most
    `pendings` groups are in flight. With pendings = 0
    the result is final; with more (tile-pipeline's K loops keep one group in flight)
    it may still be being written: only a later warpgroup_dot accumulating into it or a
    `tile.warpgroup_dot_wait` may use it, and the operand buffers (and a's registers) stay
    in use until then.
    ```mlir
    %d = tile.warpgroup_dot %a, %b, %acc : !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>> * !tile.memdesc<64x256xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
    // a in registers (attention's P · V):
    %o = tile.warpgroup_dot %p, %v, %acc : tensor<128x64xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>> * !tile.memdesc<64x128xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x128xf32, #tile.mma<warpsPerCTA = [8, 1]>>
    ```
    A buffer operand's type is printed without its `!tile.memdesc` prefix.
  }];
  let arguments = (ins AnyTypeOf<[Tile_MemDescType, Tile_Tensor]>:$a, Tile_MemDescType:$b, Tile_Tensor:$acc,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntNonNegative]>, "0">:$pendings);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` custom<BufferOrTensor>(type($a)) `*` type($b) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether a is a register tensor (wgmma's RS form) rather than a buffer.
    bool hasRegisterA() { return ::llvm::isa<::mlir::RankedTensorType>(getA().getType()); }
  }];
}

def Tile_WarpGroupDotWaitOp : Tile_Op<"warpgroup_dot_wait", [AllTypesMatch<["inputs", "outputs"]>,
    MemoryEffects<[MemRead<Tile_SharedMemory>]>]> {
  let summary = "wait until at most `pendings` wgmma groups are in flight; their results are then final";
  let description = [{
    The results are the inputs (accumulators of asynchronous `tile.warpgroup_dot`s),
    threaded through the wait so that nothing reads them before it.
    ```mlir
    %final = tile.warpgroup_dot_wait %acc {pendings = 0 : i32} : tensor<128x256xf32, #mma>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$inputs, ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let results = (outs Variadic<Tile_Tensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
}

def Tile_FenceAsyncSharedOp : Tile_Op<"fence_async_shared", [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "order this thread's shared-memory writes before the async proxy's reads (fence.proxy.async)";
  let description = [{
    wgmma and TMA stores read shared memory through the async proxy; ordinary stores and
    completed cp.async copies write it through the generic proxy. The writer fences, then
    a barrier publishes the writes to the other threads. `tile-insert-barriers` puts one
    before every barrier that follows writes to a `#tile.nvmma_shared` buffer.
    ```mlir
    tile.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

// TMA copies on mbarriers (tile-pipeline, sm_90a). A ring of mbarriers is a
// !tile.memdesc<Sx1x1xi64, #tile.swizzled_shared<...>> (one 8-byte barrier per stage); `bar`
// operands are one stage of it, !tile.memdesc<1x1xi64, ...>. The verifiers check both shapes,
// and counts within the mbarrier's 20-bit arrival and transaction counters.
def Tile_InitBarriersOp : Tile_Op<"init_barriers", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "thread 0 initialises every mbarrier of a ring to expect `count` arrivals per phase";
  let description = [{
    Followed by a `tile.barrier` before any thread waits on them. A TMA ring's barriers
    expect one arrival (the `tile.barrier_expect`); the ring that tells a warp-specialised
    producer that a slot is free expects one `tile.barrier_arrive` per consumer warp.
    ```mlir
    tile.init_barriers %bars : !tile.memdesc<4x1x1xi64, #shared>
    tile.init_barriers %empty {count = 8 : i32} : !tile.memdesc<4x1x1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$bars, DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositive]>, "1">:$count);
  let assemblyFormat = "$bars attr-dict `:` type($bars)";
  let hasVerifier = 1;
}

def Tile_InvalidateBarriersOp : Tile_Op<"invalidate_barriers", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "thread 0 invalidates every mbarrier of a ring, so its memory may be reused";
  let description = [{
    ```mlir
    tile.invalidate_barriers %bars : !tile.memdesc<4x1x1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$bars);
  let assemblyFormat = "$bars attr-dict `:` type($bars)";
  let hasVerifier = 1;
}

def Tile_AsyncTmaLoadOp : Tile_Op<"async_tma_load", [MemoryEffects<[MemRead, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "start copying a block of a tensor descriptor into shared memory (cp.async.bulk.tensor)";
  let description = [{
    Where `pred` holds, thread 0 announces the block's bytes to mbarrier `bar`
    (`mbarrier.arrive.expect_tx`) and the tensor memory accelerator copies the block at
    `coords` (outermost first) of `desc` into `dst`, an `#tile.nvmma_shared` buffer: one box
    per column group of the layout's swizzle width. Elements outside the tensor arrive as
    zeros. The data may be read once `tile.barrier_wait` on `bar` returns.
    ```mlir
    tile.async_tma_load %desc[%m, %k] -> %buf, %bar, %pred : !tile.tensordesc<f16, 2>, !tile.memdesc<128x64xf16, #nvmma>, !tile.memdesc<1x1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$coords, Tile_MemDescType:$dst,
                       Tile_MemDescType:$bar, I1:$pred);
  let assemblyFormat = "$desc `[` $coords `]` `->` $dst `,` $bar `,` $pred attr-dict `:` type($desc) `,` type($dst) `,` type($bar)";
  let hasVerifier = 1;
}

def Tile_AsyncTmaStoreOp : Tile_Op<"async_tma_store", [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite]>]> {
  let summary = "copy a shared-memory buffer to a block of a tensor descriptor (cp.async.bulk.tensor)";
  let description = [{
    Thread 0 has the tensor memory accelerator copy `src`, an `#tile.nvmma_shared` buffer,
    to the block at `coords` (outermost first) of `desc`: one box per column group of the
    layout's swizzle width; elements outside the tensor are not written. The copy reads the
    buffer asynchronously: `tile.async_tma_store_wait` (thread 0), then a barrier, frees it
    (tile-insert-barriers puts them where the buffer is next written, and at the kernel's
    end); the writes to global memory complete asynchronously, as a store's do. Every
    thread's writes of `src` must precede it, fenced for the async proxy
    (tile-insert-barriers puts the fence and barrier there). With `add`, the copy
    adds the buffer to the block atomically instead (cp.reduce.async.bulk.tensor .add:
    each element one relaxed device-scope add, as tile.atomic_rmw add's).
    ```mlir
    tile.async_tma_store %buf -> %desc[%m, %n] : !tile.memdesc<128x256xf16, #nvmma>, !tile.tensordesc<f16, 2>
    tile.async_tma_store add %acc -> %dq[%r, %c] : !tile.memdesc<128x64xf32, #nvmma>, !tile.tensordesc<f32, 2>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src, Tile_TensorDescType:$desc, Variadic<I32>:$coords, UnitAttr:$add);
  let assemblyFormat = "(`add` $add^)? $src `->` $desc `[` $coords `]` attr-dict `:` type($src) `,` type($desc)";
  let hasVerifier = 1;
}

def Tile_AsyncTmaStoreWaitOp : Tile_Op<"async_tma_store_wait",
    [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "thread 0 waits until its tile.async_tma_store copies have read their buffers";
  let description = [{
    `cp.async.bulk.wait_group.read 0` on the thread that issued the copies: after it (and a
    barrier) the buffers may be written again. tile-insert-barriers puts one before the
    barrier that frees a buffer a copy may still read, deferred until then so that thread 0
    does not stall on the copy, and before the kernel's end.
    ```mlir
    tile.async_tma_store_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierExpectOp : Tile_Op<"barrier_expect", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "where `pred` holds, thread 0 arrives on mbarrier `bar` expecting `bytes` of copies";
  let description = [{
    ```mlir
    tile.barrier_expect %bar, %pred {bytes = 24576 : i32} : !tile.memdesc<1x1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$bar, I1:$pred, ConfinedAttr<I32Attr, [IntPositive]>:$bytes);
  let assemblyFormat = "$bar `,` $pred attr-dict `:` type($bar)";
  let hasVerifier = 1;
}

def Tile_BarrierWaitOp : Tile_Op<"barrier_wait", [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "every thread waits until phase `phase` (0 or 1) of mbarrier `bar` completed";
  let description = [{
    The copies that phase counted are then visible to the waiting thread.
    ```mlir
    tile.barrier_wait %bar, %phase : !tile.memdesc<1x1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$bar, I32:$phase);
  let assemblyFormat = "$bar `,` $phase attr-dict `:` type($bar)";
  let hasVerifier = 1;
}

def Tile_BarrierArriveOp : Tile_Op<"barrier_arrive", [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "where `pred` holds, each warp arrives once on mbarrier `bar` (its lane 0)";
  let description = [{
    With release semantics: what the warp did before (its wgmmas' reads of a ring slot,
    retired by a `tile.warpgroup_dot_wait`) is ordered before the phase completes for the
    thread that waits on it. A warp-specialised K loop's consumers free a slot so.
    ```mlir
    tile.barrier_arrive %bar, %pred : !tile.memdesc<1x1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$bar, I1:$pred);
  let assemblyFormat = "$bar `,` $pred attr-dict `:` type($bar)";
  let hasVerifier = 1;
}

// Turns among a warp-specialised program's consumer warpgroups (FlashAttention-3's ping-pong):
// warpgroup w waits for its turn on named barrier 2 + w and passes it on to w + 1 (mod groups),
// so the groups issue their wgmmas in turn and one's softmax runs during the other's wgmmas.
// Every pass is taken: the last warpgroup skips the pass after the last turn.
class Tile_TurnOp<string mnemonic> : Tile_Op<mnemonic, [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_TurnWaitOp : Tile_TurnOp<"turn_wait"> {
  let summary = "each consumer warpgroup (or only warpgroup `only`) waits until its turn was passed to it";
  let description = [{
    Warpgroup w = thread id / 128 of a `tile.warp_specialize` op's consumers waits on named
    barrier 2 + w (`bar.sync`, 256 threads: its own and the passing warpgroup's). Made by
    tile-warp-specialize around the wgmmas of a loop whose dots wait within the iteration.
    ```mlir
    tile.turn_wait {groups = 2 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<2>]>:$groups, OptionalAttr<I32Attr>:$only);
}

def Tile_TurnPassOp : Tile_TurnOp<"turn_pass"> {
  let summary = "each consumer warpgroup (or only warpgroup `only`) passes the turn to the next";
  let description = [{
    Warpgroup w arrives on named barrier 2 + (w + 1) mod groups (`bar.arrive`, 256 threads)
    without waiting. Where `skip` holds, the last warpgroup passes nothing: the turns are over
    (its last turn, or no turns at all), and a pass nobody takes would stay on the barrier.
    The last warpgroup passes once before the first turn (`only`), so the first goes first.
    ```mlir
    tile.turn_pass %none {groups = 2 : i32, only = 1 : i32}
    tile.turn_pass {groups = 2 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<2>]>:$groups, OptionalAttr<I32Attr>:$only,
                       Optional<I1>:$skip);
  let assemblyFormat = "($skip^)? attr-dict";
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [RecursiveMemoryEffects, NoTerminator, SingleBlock]> {
  let summary = "a producer warp and `consumer_warps` consumer warps run different code";
  let description = [{
    The program runs `consumer_warps` + 4 warps. Warps 0 .. consumer_warps - 1 run the
    `consumers` region: their thread ids are the program's, so tensors keep their layouts,
    and a `tile.barrier` among them synchronises only them (a named barrier). The last four
    warps form the producer warpgroup; its first warp runs the `producer` region, where one
    thread, the warpgroup's first, issues what "thread 0" issues elsewhere (TMA copies and
    their expect_tx). The producer region holds no tensors. Where the register counts are
    set, each side resizes its register file first (setmaxnreg): the producer gives registers
    back, the consumers take them. Made by tile-pipeline for a `tile.warp_specialize` loop.
    ```mlir
    tile.warp_specialize producer { ... } consumers { ... } {consumer_warps = 8 : i32,
        producer_registers = 40 : i32, consumer_registers = 232 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$consumer_warps,
                       DefaultValuedAttr<I32Attr, "0">:$producer_registers,
                       DefaultValuedAttr<I32Attr, "0">:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumers);
  let assemblyFormat = "`producer` $producer `consumers` $consumers attr-dict";
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead<Tile_SharedMemory>, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "every thread of the program waits here (bar.sync 0)";
  let description = [{
    Inserted by `tile-insert-barriers` between shared-memory accesses of different
    threads that could otherwise race. In a `tile.warp_specialize` op's consumers region,
    only the consumer warps wait (`bar.sync 1, 32 * consumer_warps`).
    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif
