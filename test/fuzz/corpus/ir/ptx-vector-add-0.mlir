func.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
               %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c1024 = arith.constant 1024 : i32
  %base = arith.muli %pid, %c1024 : i32
  %bs = tile.splat %base : tensor<1024xi32>
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = tile.splat %n : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %zs = tile.splat %z : tensor<1024x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xi1> -> tensor<1024xf32>
  %b = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xi1> -> tensor<1024xf32>
  %c = arith.addf %a, %b : tensor<1024xf32>
  tile.store %zp, %c, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>
  return
}
