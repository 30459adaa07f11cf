// Shared by the examples: random inputs and the relative error of a row softmax against float64.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace example {

inline std::vector<float> randomInputs(size_t count) {
  std::vector<float> x(count);
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> dist(0.f, 3.f);
  for (float &v : x) v = dist(rng);
  return x;
}

/// ||y - softmax(x)|| / ||softmax(x)|| over rows of n columns, softmax in float64 (NaN if y holds NaN).
inline double softmaxRelativeError(const std::vector<float> &x, const std::vector<float> &y, int rows, int n) {
  double err = 0, norm = 0;
  for (int r = 0; r < rows; ++r) {
    const float *xr = &x[size_t(r) * n];
    double m = *std::max_element(xr, xr + n), s = 0;
    for (int c = 0; c < n; ++c) s += std::exp(double(xr[c]) - m);
    for (int c = 0; c < n; ++c) {
      double ref = std::exp(double(xr[c]) - m) / s, d = y[size_t(r) * n + c] - ref;
      err += d * d;
      norm += ref * ref;
    }
  }
  return std::sqrt(err / norm);
}

} // namespace example
