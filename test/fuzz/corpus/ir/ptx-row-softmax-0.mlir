func.func @softmax(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %in: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %ncols: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pid = tile.program_id 0 : i32
  %row = arith.muli %pid, %ncols : i32
  %inrow = tile.addptr %in, %row : !tile.ptr<f32>, i32
  %outrow = tile.addptr %out, %row : !tile.ptr<f32>, i32
  %cols = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %ns = tile.splat %ncols : tensor<2048xi32>
  %mask = arith.cmpi slt, %cols, %ns : tensor<2048xi32>
  %ips = tile.splat %inrow : tensor<2048x!tile.ptr<f32>>
  %ip = tile.addptr %ips, %cols : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2048xf32>
  %x = tile.load %ip, %mask, %ninf : tensor<2048x!tile.ptr<f32>>, tensor<2048xi1>, tensor<2048xf32> -> tensor<2048xf32>
  %m = tile.reduce max %x {axis = 0 : i32} : tensor<2048xf32> -> f32
  %ms = tile.splat %m : tensor<2048xf32>
  %d = arith.subf %x, %ms : tensor<2048xf32>
  %e = math.exp %d : tensor<2048xf32>
  %s = tile.reduce sum %e {axis = 0 : i32} : tensor<2048xf32> -> f32
  %ss = tile.splat %s : tensor<2048xf32>
  %y = arith.divf %e, %ss : tensor<2048xf32>
  %ops = tile.splat %outrow : tensor<2048x!tile.ptr<f32>>
  %op = tile.addptr %ops, %cols : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  tile.store %op, %y, %mask : tensor<2048x!tile.ptr<f32>>, tensor<2048xf32>, tensor<2048xi1>
  return
}
