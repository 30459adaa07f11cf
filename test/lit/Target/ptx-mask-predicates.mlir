// A mask compared against a 16-divisible bound stays constant over aligned groups of
// consecutive offsets only where its outcome flips between c - 1 and c (slt, sge): there the
// store is vectorised. With sle / sgt (flip between c and c + 1) and eq / ne (flip at both) a
// group of 4 can straddle the flip, so each element keeps its own predicate: `offs <= n` with
// n a multiple of 16 once stored offs n + 1 through a 16-byte vector (found by gpu-check's
// planted out-of-bounds store).
// RUN: sed 's/PRED/slt/' %s | tilec /dev/stdin --stage=ptx | FileCheck %s --check-prefix=VECTOR
// RUN: sed 's/PRED/sge/' %s | tilec /dev/stdin --stage=ptx | FileCheck %s --check-prefix=VECTOR
// RUN: sed 's/PRED/sle/' %s | tilec /dev/stdin --stage=ptx | FileCheck %s --check-prefix=SCALAR
// RUN: sed 's/PRED/sgt/' %s | tilec /dev/stdin --stage=ptx | FileCheck %s --check-prefix=SCALAR
// RUN: sed 's/PRED/eq/' %s | tilec /dev/stdin --stage=ptx | FileCheck %s --check-prefix=SCALAR
// RUN: sed 's/PRED/ne/' %s | tilec /dev/stdin --stage=ptx | FileCheck %s --check-prefix=SCALAR

// VECTOR: st.global.v4.b32
// SCALAR-COUNT-4: st.global.b32
// SCALAR-NOT: st.global.v
func.func @mask_predicate(%y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c512 = arith.constant 512 : i32
  %base = arith.muli %pid, %c512 : i32
  %bs = tile.splat %base : tensor<512xi32>
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %offs = arith.addi %bs, %r : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi PRED, %offs, %ns : tensor<512xi32>
  %one = arith.constant dense<1.0> : tensor<512xf32>
  %ys = tile.splat %y : tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %one, %m : tensor<512x!tile.ptr<f32>>, tensor<512xf32>, tensor<512xi1>
  return
}
