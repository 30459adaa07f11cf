//===- LayoutSupport.h - checks and helpers shared by the layout files ----===//
// Private to compiler/lib/Layout: the error every LinearLayout operation throws, and
// the power-of-two arithmetic and name lookups its files share.
#ifndef TILE_LIB_LAYOUT_LAYOUTSUPPORT_H
#define TILE_LIB_LAYOUT_LAYOUTSUPPORT_H

#include "tile/Layout/LinearLayout.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace tile::layout::detail {

using Basis = LinearLayout::Basis;
using NamedValues = LinearLayout::NamedValues;

// Output and input sizes are int32, so a dimension has at most 2^30 elements.
constexpr int32_t kMaxDimBits = 30;

[[noreturn]] inline void fail(const std::string &msg) { throw std::invalid_argument("LinearLayout: " + msg); }

inline bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The smallest n with 2^n >= v: log2 of a power of two.
inline int32_t log2Exact(int64_t v) {
  int32_t n = 0;
  while ((int64_t(1) << n) < v) ++n;
  return n;
}

inline std::string quoted(const std::string &s) { return "'" + s + "'"; }

inline bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace tile::layout::detail

#endif
