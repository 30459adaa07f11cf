//===- MathKernels.h - every function of tile/Math.h on one input ----------===//
// math_functions_<type>: out[f · n + i] = function f (test/common/MathReference.h's order)
// of x[i] (and y[i]: pow's exponent, the divisor), predicates as 1 or 0. Run by the CPU
// tests (cpu_math_tests.cpp) and, compiled ahead of time, by the GPU tests.
#pragma once

#include "tile/tile.h"

#include "../common/MathReference.h"

namespace tile::testing {

inline Value applyMathFn(testutil::MathFn f, Value x, Value y, DType elem) {
  using F = testutil::MathFn;
  switch (f) {
  case F::Exp: return exp(x);
  case F::Exp2: return exp2(x);
  case F::Expm1: return expm1(x);
  case F::Log: return log(x);
  case F::Log2: return log2(x);
  case F::Log1p: return log1p(x);
  case F::Rsqrt: return rsqrt(x);
  case F::Sin: return sin(x);
  case F::Cos: return cos(x);
  case F::Tan: return tan(x);
  case F::Tanh: return tanh(x);
  case F::Erf: return erf(x);
  case F::Pow: return pow(x, y);
  case F::Sigmoid: return sigmoid(x);
  case F::Sqrt: return sqrt_rn(x);
  case F::DivRn: return div_rn(x, y);
  case F::Floor: return floor(x);
  case F::Ceil: return ceil(x);
  case F::Trunc: return trunc(x);
  case F::Rint: return rint(x);
  case F::Round: return round(x);
  case F::Clamp: return clamp(x, testutil::kClampLo, testutil::kClampHi);
  case F::IsNan: return cast(isnan(x), elem);
  case F::IsInf: return cast(isinf(x), elem);
  case F::Signbit: return cast(signbit(x), elem);
  case F::FastExp2: return fast_exp2(x);
  case F::FastExp: return fast_exp(x);
  case F::FastLog2: return fast_log2(x);
  case F::FastLog: return fast_log(x);
  case F::FastSqrt: return fast_sqrt(x);
  case F::FastTanh: return fast_tanh(x);
  case F::FastSin: return fast_sin(x);
  case F::FastCos: return fast_cos(x);
  case F::Fdiv: return fdiv(x, y);
  case F::Count: break;
  }
  return x;
}

template <class T> const auto &mathFunctionsKernel() {
  static const auto k =
      tile::kernel(std::is_same_v<T, float> ? "math_functions_f32"
                   : std::is_same_v<T, f16> ? "math_functions_f16"
                                            : "math_functions_f64",
                   [](Ptr<T> x, Ptr<T> y, Ptr<T> out, I32 n, Const<int> BLOCK) {
                     Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
                     Value mask = offs < n;
                     Value a = load(x + offs, mask), b = load(y + offs, mask);
                     for (int f = 0; f < testutil::kMathFns; ++f)
                       store(out + f * n + offs, applyMathFn(testutil::MathFn(f), a, b, DTypeOf<T>::value), mask);
                   });
  return k;
}

} // namespace tile::testing
