//===- cpu_random_math.h - the math library in the random programs --------===//
// The functions of tile/Math.h as nodes of cpu_random_kernels' DAG: each with its DSL
// expression, its float64 value and its magnitude (the scale of the error bound: an error
// of at most kTolerance · magnitude). A function of slope at most L on its (clamped) domain
// maps an operand's magnitude m to L · m, plus |v| or 1 for its own rounding, more for the
// approximate ones (fast_tanh's 2^-11 is 16 over the tolerance's 2^-14). Domains are
// clamped where the function is steep or unbounded (tan, pow, the logs and square roots),
// fast_sin and fast_cos to [-4, 4] (their bound holds on [-100π, 100π]). Discontinuous
// functions (floor, ..., the predicates) take leaves only, exact on both sides, so float32
// and float64 round the same values.
#pragma once

#include "tile/tile.h"

#include <algorithm>
#include <cmath>

namespace tile::randomkernels {

struct RandomMathFn {
  const char *name;
  bool leafOnly, binary;
  Value (*build)(Value a, Value b);
  /// x, m: the operand's value and magnitude (y, mb: the second's); sets v and r.
  void (*reference)(double x, double m, double y, double mb, double &v, double &r);
};

inline const RandomMathFn kRandomMathFns[] = {
    {"sin", false, false, [](Value a, Value) { return sin(a); },
     [](double x, double m, double, double, double &v, double &r) { v = std::sin(x), r = m + 1; }},
    {"cos", false, false, [](Value a, Value) { return cos(a); },
     [](double x, double m, double, double, double &v, double &r) { v = std::cos(x), r = m + 1; }},
    {"tan(clamp(x, -1, 1))", false, false, [](Value a, Value) { return tan(clamp(a, -1.0f, 1.0f)); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::tan(std::clamp(x, -1.0, 1.0)), r = 4 * m + 2;
     }},
    {"tanh", false, false, [](Value a, Value) { return tanh(a); },
     [](double x, double m, double, double, double &v, double &r) { v = std::tanh(x), r = m + 1; }},
    {"erf", false, false, [](Value a, Value) { return erf(a); },
     [](double x, double m, double, double, double &v, double &r) { v = std::erf(x), r = 2 * m + 1; }},
    {"sigmoid", false, false, [](Value a, Value) { return sigmoid(a); },
     [](double x, double m, double, double, double &v, double &r) { v = 1 / (1 + std::exp(-x)), r = m + 1; }},
    {"exp2(min(x, 4))", false, false, [](Value a, Value) { return exp2(minimum(a, 4.0f)); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::exp2(std::min(x, 4.0)), r = v * (1 + m);
     }},
    {"expm1(min(x, 4))", false, false, [](Value a, Value) { return expm1(minimum(a, 4.0f)); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::expm1(std::min(x, 4.0)), r = (v + 1) * (1 + m);
     }},
    {"fast_exp(min(x, 4))", false, false, [](Value a, Value) { return fast_exp(minimum(a, 4.0f)); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::exp(std::min(x, 4.0)), r = v * (1 + m + std::fabs(x));
     }},
    {"log(|x| + 1)", false, false, [](Value a, Value) { return log(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) { v = std::log(std::fabs(x) + 1), r = m + v + 1; }},
    {"log2(|x| + 1)", false, false, [](Value a, Value) { return log2(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::log2(std::fabs(x) + 1), r = 2 * m + v + 1;
     }},
    {"log1p(|x|)", false, false, [](Value a, Value) { return log1p(abs(a)); },
     [](double x, double m, double, double, double &v, double &r) { v = std::log1p(std::fabs(x)), r = m + v; }},
    {"fast_log2(|x| + 1)", false, false, [](Value a, Value) { return fast_log2(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::log2(std::fabs(x) + 1), r = 2 * m + v + 1;
     }},
    {"fast_log(|x| + 1)", false, false, [](Value a, Value) { return fast_log(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) { v = std::log(std::fabs(x) + 1), r = m + v + 1; }},
    {"sqrt(|x| + 1)", false, false, [](Value a, Value) { return sqrt(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) { v = std::sqrt(std::fabs(x) + 1), r = m + v; }},
    {"fast_sqrt(|x| + 1)", false, false, [](Value a, Value) { return fast_sqrt(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) { v = std::sqrt(std::fabs(x) + 1), r = m + v; }},
    {"rsqrt(|x| + 1)", false, false, [](Value a, Value) { return rsqrt(abs(a) + 1.0f); },
     [](double x, double m, double, double, double &v, double &r) { v = 1 / std::sqrt(std::fabs(x) + 1), r = m + 1; }},
    {"pow(min(|x|, 4) + 1, 1.5)", false, false, [](Value a, Value) { return pow(minimum(abs(a), 4.0f) + 1.0f, 1.5f); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::pow(std::min(std::fabs(x), 4.0) + 1, 1.5), r = 4 * m + v;
     }},
    {"fast_tanh", false, false, [](Value a, Value) { return fast_tanh(a); },
     [](double x, double m, double, double, double &v, double &r) { v = std::tanh(x), r = m + 16; }},
    {"fast_sin(clamp(x, -4, 4))", false, false, [](Value a, Value) { return fast_sin(clamp(a, -4.0f, 4.0f)); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::sin(std::clamp(x, -4.0, 4.0)), r = m + 1;
     }},
    {"fast_cos(clamp(x, -4, 4))", false, false, [](Value a, Value) { return fast_cos(clamp(a, -4.0f, 4.0f)); },
     [](double x, double m, double, double, double &v, double &r) {
       v = std::cos(std::clamp(x, -4.0, 4.0)), r = m + 1;
     }},
    {"fdiv(a, |b| + 1)", false, true, [](Value a, Value b) { return fdiv(a, abs(b) + 1.0f); },
     [](double x, double m, double y, double mb, double &v, double &r) {
       const double d = std::fabs(y) + 1; // as a / (|b| + 1), and 2 ulp
       v = x / d, r = (m + std::fabs(v) * (mb + d)) / d + 2 * std::fabs(v);
     }},
    {"div_rn(a, |b| + 1)", false, true, [](Value a, Value b) { return div_rn(a, abs(b) + 1.0f); },
     [](double x, double m, double y, double mb, double &v, double &r) {
       const double d = std::fabs(y) + 1; // as a / (|b| + 1)
       v = x / d, r = (m + std::fabs(v) * (mb + d)) / d;
     }},
    {"floor", true, false, [](Value a, Value) { return floor(a); },
     [](double x, double, double, double, double &v, double &r) { v = std::floor(x), r = std::fabs(v); }},
    {"ceil", true, false, [](Value a, Value) { return ceil(a); },
     [](double x, double, double, double, double &v, double &r) { v = std::ceil(x), r = std::fabs(v); }},
    {"trunc", true, false, [](Value a, Value) { return trunc(a); },
     [](double x, double, double, double, double &v, double &r) { v = std::trunc(x), r = std::fabs(v); }},
    {"rint", true, false, [](Value a, Value) { return rint(a); },
     [](double x, double, double, double, double &v, double &r) { v = std::nearbyint(x), r = std::fabs(v); }},
    {"round", true, false, [](Value a, Value) { return round(a); },
     [](double x, double, double, double, double &v, double &r) { v = std::round(x), r = std::fabs(v); }},
    {"signbit(x) | isnan(x) | isinf(x)", true, false,
     [](Value a, Value) { return cast(signbit(a) | isnan(a) | isinf(a), DType::f32); },
     [](double x, double, double, double, double &v, double &r) {
       v = std::signbit(x) || std::isnan(x) || std::isinf(x) ? 1 : 0, r = v;
     }},
};
constexpr int kRandomMathFnCount = int(std::size(kRandomMathFns));

} // namespace tile::randomkernels
