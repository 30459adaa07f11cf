//===- Math.h - the DSL's math library (Triton's tl.math) ------------------===//
// Elementwise functions on tile values, broadcasting like the operators. Floating-point
// functions take f16, bf16, f32 or f64: f16/bf16 are computed in f32 and rounded back once,
// f64 in f64. Included by tile/tile.h.
//
// Three kinds, with each function's accuracy in docs/dsl.md ("Math functions"), tested
// against float64 on both executors:
//  - exact: the correctly rounded result, bit for bit the same on the GPU and the CPU
//    executor (floor, ceil, trunc, rint, round, sqrt, div_rn, fma, clamp, the predicates);
//  - accurate: within a few units in the last place (ulp), CUDA's libdevice on the GPU and
//    the C library on the CPU (exp, exp2, log, log2, log1p, expm1, rsqrt, sin, cos, tan,
//    tanh, erf, pow, sigmoid);
//  - fast_*: the GPU's approximate instructions (one MUFU each, Triton's defaults and nvcc's
//    --use_fast_math), f32 only (f64 computes the accurate function). Subnormal inputs and
//    results read as zero (`.ftz`) on both executors, which otherwise compute accurately.
#ifndef TILE_MATH_H
#define TILE_MATH_H

#include "tile/Value.h"

namespace tile {

// Accurate (libdevice on the GPU, the C library on the CPU).
Value exp(Operand x, SrcLoc loc = SrcLoc::current());
Value exp2(Operand x, SrcLoc loc = SrcLoc::current());
Value expm1(Operand x, SrcLoc loc = SrcLoc::current()); ///< e^x - 1, accurate near 0
Value log(Operand x, SrcLoc loc = SrcLoc::current());
Value log2(Operand x, SrcLoc loc = SrcLoc::current());
Value log1p(Operand x, SrcLoc loc = SrcLoc::current()); ///< log(1 + x), accurate near 0
/// 1 / sqrt(x): the GPU's rsqrt.approx.f32 (CUDA's rsqrtf, 2 ulp) for f32.
Value rsqrt(Operand x, SrcLoc loc = SrcLoc::current());
Value sin(Operand x, SrcLoc loc = SrcLoc::current());
Value cos(Operand x, SrcLoc loc = SrcLoc::current());
Value tan(Operand x, SrcLoc loc = SrcLoc::current());
Value tanh(Operand x, SrcLoc loc = SrcLoc::current());
Value erf(Operand x, SrcLoc loc = SrcLoc::current());
/// x^y (C's pow: pow(x, 0) = 1 for any x, a negative x to a non-integer power is NaN).
Value pow(Operand x, Operand y, SrcLoc loc = SrcLoc::current());
/// 1 / (1 + e^-x) (Triton's tl.sigmoid).
Value sigmoid(Operand x, SrcLoc loc = SrcLoc::current());

// Exact: the same bits on every executor.
/// The correctly rounded square root (sqrt.rn on the GPU; Triton's sqrt_rn).
Value sqrt(Operand x, SrcLoc loc = SrcLoc::current());
Value sqrt_rn(Operand x, SrcLoc loc = SrcLoc::current()); ///< sqrt, under Triton's name
/// a / b rounded to nearest even (what operator/ does on floats; Triton's div_rn).
Value div_rn(Operand a, Operand b, SrcLoc loc = SrcLoc::current());
Value floor(Operand x, SrcLoc loc = SrcLoc::current());
Value ceil(Operand x, SrcLoc loc = SrcLoc::current());
Value trunc(Operand x, SrcLoc loc = SrcLoc::current()); ///< towards zero
Value rint(Operand x, SrcLoc loc = SrcLoc::current());  ///< the nearest integer, ties to even
Value round(Operand x, SrcLoc loc = SrcLoc::current()); ///< the nearest integer, ties away from zero (C's round)
/// minimum(maximum(x, lo), hi) (Triton's tl.clamp): floats (NaN propagates, as maximum's) or
/// integers (signed).
Value clamp(Operand x, Operand lo, Operand hi, SrcLoc loc = SrcLoc::current());
/// i1 predicates on floats.
Value isnan(Operand x, SrcLoc loc = SrcLoc::current());
Value isinf(Operand x, SrcLoc loc = SrcLoc::current());
Value signbit(Operand x, SrcLoc loc = SrcLoc::current()); ///< true for -0.0 and negative NaNs too

// Fast (approximate) f32 functions; bounds in docs/dsl.md.
/// 2^x by ex2.approx.ftz.f32: relative error below 2^-21 (2 ulp), results under 2^-126
/// flushed to +0. One MUFU.EX2 where exp2 adds a fix-up around it (+11% on the d64 attention
/// forward): for softmax-like uses whose results are probabilities.
Value fast_exp2(Operand x, SrcLoc loc = SrcLoc::current());
Value fast_exp(Operand x, SrcLoc loc = SrcLoc::current());  ///< fast_exp2(x · log2 e), Triton's tl.exp
Value fast_log2(Operand x, SrcLoc loc = SrcLoc::current()); ///< lg2.approx.ftz.f32
Value fast_log(Operand x, SrcLoc loc = SrcLoc::current());  ///< fast_log2(x) · ln 2, Triton's tl.log
Value fast_sqrt(Operand x, SrcLoc loc = SrcLoc::current()); ///< sqrt.approx.ftz.f32, Triton's tl.sqrt
Value fast_tanh(Operand x, SrcLoc loc = SrcLoc::current()); ///< tanh.approx.f32 (relative error ~2^-11)
Value fast_sin(Operand x, SrcLoc loc = SrcLoc::current());  ///< sin.approx.ftz.f32, Triton's tl.sin
Value fast_cos(Operand x, SrcLoc loc = SrcLoc::current());  ///< cos.approx.ftz.f32, Triton's tl.cos
/// a / b by div.full.f32 (2 ulp over the full range; Triton's fdiv(ieee_rounding=False)).
Value fdiv(Operand a, Operand b, SrcLoc loc = SrcLoc::current());

// Integers.
/// The high half of the unsigned product of two i32 (or i64) values (Triton's umulhi).
Value umulhi(Operand a, Operand b, SrcLoc loc = SrcLoc::current());
/// ceil(a / b) for integer tensors with a >= 0, b > 0: (a + b - 1) / b (Triton's cdiv).
Value cdiv(Operand a, Operand b, SrcLoc loc = SrcLoc::current());

} // namespace tile

#endif
