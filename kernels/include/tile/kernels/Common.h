//===- Common.h - helpers shared by the library kernels' launchers --------===//
// Runtime-only (no MLIR, no DSL tracing): the shape-level launchers of the kernel
// declarations validate their arguments with these, in one-line messages built only on
// failure (the checks run on every launch).
#pragma once

#include "tile/Error.h"
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tile::kernels {

constexpr int64_t nextPowerOf2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

/// Row-wise kernels: the block (a power of two) and warps one row's program uses.
struct RowConfig {
  int block;
  int numWarps;
};

constexpr int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Kernels index with int32 (row * stride + col): launchers reject what would overflow
/// instead of silently reading the wrong memory.
constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();

/// A pointer argument of a shape-level launcher: a device address (CUdeviceptr), a host
/// address (the CPU executor's pointers are host memory) or anything with ptr()
/// (tile::rt::DeviceBuffer).
class Address {
public:
  Address(unsigned long long a) : a_(a) {}
  Address(unsigned long a) : a_(a) {}
  Address(const void *p) : a_(reinterpret_cast<uint64_t>(p)) {}
  Address(std::nullptr_t) : a_(0) {}
  template <class B>
    requires requires(const B &b) { b.ptr(); }
  Address(const B &b) : a_(static_cast<uint64_t>(b.ptr())) {}
  /// The address (the name tile::detail::deviceAddress looks for).
  uint64_t ptr() const { return a_; }
  /// The address `elements` elements of T further on.
  template <class T> Address plus(int64_t elements) const { return Address(a_ + elements * int64_t(sizeof(T))); }

private:
  uint64_t a_;
};

/// tile::ArgumentError("<kernel>: <what>"); messages are one line.
[[noreturn]] inline void fail(const char *kernel, const std::string &what) {
  throw tile::ArgumentError(std::string(kernel) + ": " + what);
}

inline std::string num(int64_t v) { return std::to_string(v); }

/// `what` = v must lie in [lo, hi].
inline void checkRange(const char *kernel, const char *what, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    fail(kernel, std::string(what) + " = " + num(v) + " is outside [" + num(lo) + ", " + num(hi) + "]");
}

/// A tensor of `elements` elements (the product of its extents) indexed with int32.
inline void checkElements(const char *kernel, const char *what, int64_t elements) {
  if (elements > kMaxI32)
    fail(kernel, std::string(what) + " has " + num(elements) + " elements, beyond the kernel's int32 indexing");
}

/// Elementwise kernels over n elements, `block` per program: the grid (0: launch
/// nothing). The last program's offsets reach grid * block - 1, which must fit int32.
inline int64_t elementwiseGrid(const char *kernel, int64_t n, int block) {
  if (n < 0 || n > kMaxI32 - block + 1) fail(kernel, "n = " + num(n) + " is outside [0, 2^31 - " + num(block) + "]");
  return ceilDiv(n, block);
}

/// Row kernels: one program per row, every row inside int32 index range.
inline void checkRows(const char *kernel, int64_t rows, int64_t cols, int64_t stride, const char *strideName) {
  if (rows < 0) fail(kernel, "rows = " + num(rows) + " is negative");
  if (cols < 1) fail(kernel, "cols = " + num(cols) + " must be >= 1");
  if (stride < cols)
    fail(kernel, std::string(strideName) + " = " + num(stride) + " is smaller than cols = " + num(cols));
  if (rows > kMaxI32) fail(kernel, "rows = " + num(rows) + " exceeds the grid limit 2^31-1");
  if (rows > 0 && (stride > kMaxI32 || (rows - 1) * stride + cols > kMaxI32))
    fail(kernel, "rows * " + std::string(strideName) + " = " + num(rows) + " * " + num(stride) +
                     " exceeds the kernel's int32 indexing");
}

} // namespace tile::kernels
