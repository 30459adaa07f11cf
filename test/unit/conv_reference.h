//===- conv_reference.h - 3x3 convolution (stride 1, pad 1) in float64 ---===//
// The oracle of the CPU convolution tests: forward with bias, data, weight and bias
// gradients, by the definition (NCHW, weights [cout, cin, 3, 3]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tile::cputest {

using std::size_t;

struct ConvShape {
  int64_t n, cin, h, w, cout;
};

struct ConvReference {
  std::vector<double> y, dx, dw, db;
};

inline ConvReference convReference(const ConvShape &c, const std::vector<float> &x, const std::vector<float> &wt,
                                   const std::vector<float> &bias, const std::vector<float> &dy) {
  ConvReference r{std::vector<double>(dy.size()), std::vector<double>(x.size(), 0.0),
                  std::vector<double>(wt.size(), 0.0), std::vector<double>(bias.size(), 0.0)};
  auto at = [&](int64_t b, int64_t ch, int64_t channels, int64_t i, int64_t j) {
    return size_t(((b * channels + ch) * c.h + i) * c.w + j);
  };
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t co = 0; co < c.cout; ++co)
      for (int64_t i = 0; i < c.h; ++i)
        for (int64_t j = 0; j < c.w; ++j) {
          const size_t o = at(b, co, c.cout, i, j);
          double s = bias[size_t(co)], g = dy[o];
          r.db[size_t(co)] += g;
          for (int64_t ci = 0; ci < c.cin; ++ci)
            for (int64_t kh = 0; kh < 3; ++kh)
              for (int64_t kw = 0; kw < 3; ++kw) {
                int64_t ii = i + kh - 1, jj = j + kw - 1;
                if (ii < 0 || ii >= c.h || jj < 0 || jj >= c.w) continue;
                const size_t wi = size_t(((co * c.cin + ci) * 3 + kh) * 3 + kw), xi = at(b, ci, c.cin, ii, jj);
                s += double(x[xi]) * wt[wi];
                r.dx[xi] += g * wt[wi];
                r.dw[wi] += g * x[xi];
              }
          r.y[o] = s;
        }
  return r;
}

} // namespace tile::cputest
