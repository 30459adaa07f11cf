// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-coalesce | FileCheck %s

// n % 16 == 0 and aligned pointers: the mask is uniform over 4 elements, so 16-byte accesses.
// CHECK-LABEL: func.func @divisible
// CHECK: tile.load {{.*}} {tile.vec = 4 : i32}
// CHECK: tile.store {{.*}} {tile.vec = 4 : i32}
func.func @divisible(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c = arith.constant 1024 : i32
  %b = arith.muli %pid, %c : i32
  %bs = tile.splat %b : tensor<1024xi32>
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = tile.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xi1> -> tensor<1024xf32>
  tile.store %p, %v, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>
  return
}

// -----

// A ragged n may end a vector in the middle: scalar accesses (as Triton does).
// CHECK-LABEL: func.func @ragged
// CHECK: tile.load {{.*}} {tile.vec = 1 : i32}
func.func @ragged(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %ns = tile.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xi1> -> tensor<1024xf32>
  tile.store %p, %v, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>
  return
}

// -----

// Half precision: 8 elements make 16 bytes.
// CHECK-LABEL: func.func @half
// CHECK: tile.load {{.*}} {tile.vec = 8 : i32}
func.func @half(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f16>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %v = tile.load %p : tensor<1024x!tile.ptr<f16>> -> tensor<1024xf16>
  tile.store %p, %v : tensor<1024x!tile.ptr<f16>>, tensor<1024xf16>
  return
}

// -----

// A row stride that is only known at run time breaks contiguity across rows but not
// within a row; an unknown stride alignment limits the vector to one element.
// CHECK-LABEL: func.func @strided_rows
// CHECK: tile.load {{.*}} {tile.vec = 1 : i32}
func.func @strided_rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %row = arith.muli %pid, %stride : i32
  %base = tile.addptr %x, %row : !tile.ptr<f32>, i32
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %xs = tile.splat %base : tensor<512x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %p : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  tile.store %p, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// rows[:, None] * s + cols[None, :] with a row stride s of unknown divisibility: the rows
// (0, 1, 2, ...) are not multiples of anything, so neither is r * s, and a row's first
// address need not be 16-byte aligned: scalar accesses. (The range's divisibility used to
// flow into the expanded dimension and through the product, giving 16-byte vectors at
// misaligned addresses.) With s % 16 == 0 every row starts aligned: 16-byte vectors.
// CHECK-LABEL: func.func @row_stride
// CHECK: tile.load {{.*}} {tile.vec = 1 : i32}
// CHECK-LABEL: func.func @aligned_row_stride
// CHECK: tile.load {{.*}} {tile.vec = 4 : i32}
func.func @row_stride(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %s: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rows = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %cols = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ss = tile.splat %s : tensor<16x1xi32>
  %rs = arith.muli %r2, %ss : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rb, %cb : tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %v = tile.load %p : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  tile.store %p, %v : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}
func.func @aligned_row_stride(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %s: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rows = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %cols = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ss = tile.splat %s : tensor<16x1xi32>
  %rs = arith.muli %r2, %ss : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x64xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rb, %cb : tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %v = tile.load %p : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  tile.store %p, %v : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}

// -----

// A transposed store: out + cols[None, :] * m + rows[:, None] runs contiguously down the
// columns (dimension 0), the load along the rows. The store gets its own layout with
// dimension 0 fastest (4 elements per thread down a column) and 16-byte vectors; the
// value is converted to it (through shared memory) and the addresses and mask are
// recomputed in it.
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: func.func @transposed_store
// CHECK: %[[V:.*]] = tile.load {{.*}} {tile.vec = 4 : i32} : tensor<64x64x!tile.ptr<f32>, #[[ROWS]]>
// CHECK: %[[T:.*]] = tile.convert_layout %[[V]] : tensor<64x64xf32, #[[ROWS]]> -> tensor<64x64xf32, #[[COLS]]>
// CHECK: tile.store %{{.*}}, %[[T]] {tile.vec = 4 : i32} : tensor<64x64x!tile.ptr<f32>, #[[COLS]]>
func.func @transposed_store(%in: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                            %m: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ms = tile.splat %m : tensor<64x1xi32>
  %rm = arith.muli %rows, %ms : tensor<64x1xi32>
  %rmb = tile.broadcast %rm : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %inoff = arith.addi %rmb, %cb : tensor<64x64xi32>
  %pin0 = tile.splat %in : tensor<64x64x!tile.ptr<f32>>
  %pin = tile.addptr %pin0, %inoff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %pin : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %ms2 = tile.splat %m : tensor<1x64xi32>
  %cm = arith.muli %cols, %ms2 : tensor<1x64xi32>
  %cmb = tile.broadcast %cm : tensor<1x64xi32> -> tensor<64x64xi32>
  %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %outoff = arith.addi %cmb, %rb : tensor<64x64xi32>
  %pout0 = tile.splat %out : tensor<64x64x!tile.ptr<f32>>
  %pout = tile.addptr %pout0, %outoff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %pout, %v : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A gather down the columns whose start is not known to be aligned (a convolution's shifted
// pixels: base + rows[:, None] + cols[None, :] * hw with a runtime shift): no dimension allows
// vectors, but dimension 0 runs 64 addresses long, so lanes step along it (coalesced scalar
// accesses) instead of along the rows, hw apart.
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [{{.*}}], order = [0, 1]>
// CHECK-LABEL: func.func @unaligned_runs
// CHECK: tile.load {{.*}} {tile.vec = 1 : i32} : tensor<64x32x!tile.ptr<f32>, #[[COLS]]>
func.func @unaligned_runs(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %shift: i32, %hw: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ss = tile.splat %shift : tensor<64x1xi32>
  %shifted = arith.addi %rows, %ss : tensor<64x1xi32>
  %hws = tile.splat %hw : tensor<1x32xi32>
  %chw = arith.muli %cols, %hws : tensor<1x32xi32>
  %rb = tile.broadcast %shifted : tensor<64x1xi32> -> tensor<64x32xi32>
  %cb = tile.broadcast %chw : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rb, %cb : tensor<64x32xi32>
  %xs = tile.splat %x : tensor<64x32x!tile.ptr<f32>>
  %p = tile.addptr %xs, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %v = tile.load %p : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
  %q = tile.addptr %xs, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  tile.store %q, %v : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xf32>
  return
}

// -----

// The same gather with pixels that cross from one image into the next (rows % hw: nothing
// provable along dimension 0). Without a directive the load keeps the default order (lanes
// along the rows, hw apart); `tile.lanes_along = 0` on the op computing the pointers (the
// DSL's lanes_along) steps lanes down the columns, still scalar (no proven alignment). The
// store through pointers without it keeps the default.
// CHECK-DAG: #[[DEFAULT:blocked[0-9]*]] = #tile.blocked<{{.*}}order = [1, 0]>
// CHECK-DAG: #[[ALONG:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [{{.*}}], order = [0, 1]>
// CHECK-LABEL: func.func @lanes_along
// CHECK: tile.load {{.*}} {tile.vec = 1 : i32} : tensor<64x32x!tile.ptr<f32>, #[[ALONG]]>
// CHECK: tile.load {{.*}} : tensor<64x32x!tile.ptr<f32>, #[[DEFAULT]]>
// CHECK: tile.store {{.*}} : tensor<64x32x!tile.ptr<f32>, #[[DEFAULT]]>
func.func @lanes_along(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %shift: i32, %hw: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ss = tile.splat %shift : tensor<64x1xi32>
  %shifted = arith.addi %rows, %ss : tensor<64x1xi32>
  %hwr = tile.splat %hw : tensor<64x1xi32>
  %pix = arith.remsi %shifted, %hwr : tensor<64x1xi32>
  %hws = tile.splat %hw : tensor<1x32xi32>
  %chw = arith.muli %cols, %hws : tensor<1x32xi32>
  %rb = tile.broadcast %pix : tensor<64x1xi32> -> tensor<64x32xi32>
  %cb = tile.broadcast %chw : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rb, %cb : tensor<64x32xi32>
  %xs = tile.splat %x : tensor<64x32x!tile.ptr<f32>>
  %p = tile.addptr %xs, %off {tile.lanes_along = 0 : i32} : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %v = tile.load %p : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
  %q = tile.addptr %xs, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %w = tile.load %q : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
  %s = arith.addf %v, %w : tensor<64x32xf32>
  tile.store %q, %s : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xf32>
  return
}
