// RUN: tile-opt %s -split-input-file --tile-cpu-expand-small-floats | FileCheck %s

// f32 -> f16: integer rounding on the f32 bits (nearest even: the kept bit is added),
// the denormal path through one f32 add of the magic 0.5; the result is its 16 bits.
// CHECK-LABEL: func.func @trunc_f32_f16
// CHECK-SAME: -> vector<16xi16>
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: arith.shrui
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: %[[R:.*]] = arith.trunci {{.*}} : vector<16xi32> to vector<16xi16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]] : vector<16xi16>
func.func @trunc_f32_f16(%x: vector<16xf32>) -> vector<16xf16> {
  %h = arith.truncf %x : vector<16xf32> to vector<16xf16>
  return %h : vector<16xf16>
}

// -----

// f64 -> bf16 rounds once, from the f64 bits (no detour through f32).
// CHECK-LABEL: func.func @trunc_f64_bf16
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: %[[R:.*]] = arith.trunci {{.*}} : i64 to i16
// CHECK: return %[[R]] : i16
func.func @trunc_f64_bf16(%x: f64) -> bf16 {
  %h = arith.truncf %x : f64 to bf16
  return %h : bf16
}

// -----

// f16 -> f32 is exact: shifts and a rebias, denormals through an exact int -> float.
// CHECK-LABEL: func.func @ext_f16_f32
// CHECK-SAME: (%[[H:.*]]: vector<8xi16>)
// CHECK-NOT: arith.extf
// CHECK: arith.extui %[[H]] : vector<8xi16> to vector<8xi32>
// CHECK: arith.sitofp {{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.bitcast {{.*}} : vector<8xi32> to vector<8xf32>
func.func @ext_f16_f32(%h: vector<8xf16>) -> vector<8xf32> {
  %x = arith.extf %h : vector<8xf16> to vector<8xf32>
  return %x : vector<8xf32>
}

// -----

// bf16 shares f32's exponent: no denormal special case.
// CHECK-LABEL: func.func @ext_bf16_f32
// CHECK-NOT: arith.sitofp
// CHECK: arith.shli
// CHECK-NOT: arith.extf
func.func @ext_bf16_f32(%h: bf16) -> f32 {
  %x = arith.extf %h : bf16 to f32
  return %x : f32
}

// -----

// Arithmetic on f16 is computed in f32, rounded back by integer code.
// CHECK-LABEL: func.func @add_f16
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK-NOT: arith.addf {{.*}} : vector<4xf16>
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
func.func @add_f16(%a: vector<4xf16>, %b: vector<4xf16>) -> vector<4xf16> {
  %c = arith.addf %a, %b : vector<4xf16>
  return %c : vector<4xf16>
}

// -----

// i64 -> bf16 keeps a sticky bit when the magnitude needs more than 53 bits; bf16 -> i32
// goes through f32, which holds every bf16 exactly.
// CHECK-LABEL: func.func @int_conversions
// CHECK: arith.uitofp {{.*}} : i64 to f64
// CHECK: arith.fptosi {{.*}} : f32 to i32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
func.func @int_conversions(%i: i64, %h: bf16) -> (bf16, i32) {
  %a = arith.sitofp %i : i64 to bf16
  %b = arith.fptosi %h : bf16 to i32
  return %a, %b : bf16, i32
}

