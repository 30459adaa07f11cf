//===- TensorDescAbi.h - how a tensor descriptor travels to a kernel -------===//
// A kernel parameter tile::TensorDesc<T, R> is one TensorDescParam, passed by value: on the GPU as
// a `byval` grid-constant parameter (the kernel reads it in place, and cp.async.bulk.tensor reads
// the TMA map at its start), on the CPU executor by address. Header-only and free of CUDA, MLIR
// and LLVM: the DSL's launch templates, the AOT stubs, the runtime and the compiler (which mirrors
// this layout in the LLVM struct it reads) all include it.
//
// The launch fills base, shape and strides from the caller's tile::TensorDescArg and checks them
// (checkTensorDesc); rt::launch writes `map` where the compiled kernel copies through TMA
// (LaunchMetadata::tma), and leaves it zero where the kernel computes addresses itself.
#ifndef TILE_TENSORDESCABI_H
#define TILE_TENSORDESCABI_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <string>

namespace tile {

/// Tensor descriptors have 1 to kMaxDescRank dimensions.
inline constexpr int kMaxDescRank = 4;

struct alignas(64) TensorDescParam {
  unsigned char map[128];        ///< a CUtensorMap, or zeros
  uint64_t base;                 ///< address of element (0, ..., 0)
  int32_t shape[kMaxDescRank];   ///< outermost first; unused dimensions 1
  int32_t strides[kMaxDescRank]; ///< elements, outermost first; the innermost used one is 1
};
static_assert(offsetof(TensorDescParam, base) == 128 && offsetof(TensorDescParam, shape) == 136 &&
                  offsetof(TensorDescParam, strides) == 136 + 4 * kMaxDescRank && sizeof(TensorDescParam) == 192,
              "the compiler's LLVM struct for a descriptor parameter mirrors this layout");

/// What a caller passes for a TensorDesc<T, R> parameter: a tensor in global memory (host memory
/// on the CPU executor), dimensions outermost first, strides in elements.
///   kernel.launch(grid, tile::TensorDescArg{a.ptr(), {m, k}, {k, 1}}, ...);
struct TensorDescArg {
  uint64_t base = 0;
  int rank = 0;
  int64_t shape[kMaxDescRank] = {};
  int64_t strides[kMaxDescRank] = {};

  TensorDescArg() = default;
  template <class P>
  TensorDescArg(P base, std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides)
      : base(address(base)), rank(int(shape.size())) {
    int i = 0;
    for (int64_t v : shape)
      if (i < kMaxDescRank) this->shape[i++] = v;
    i = 0;
    for (int64_t v : strides)
      if (i < kMaxDescRank) this->strides[i++] = v;
    if (strides.size() != shape.size()) rank = -1; // reported by checkTensorDesc
    if (shape.size() > size_t(kMaxDescRank)) rank = -2;
  }

private:
  template <class P> static uint64_t address(P p) {
    if constexpr (requires { p.ptr(); }) return static_cast<uint64_t>(p.ptr());
    else if constexpr (std::is_pointer_v<P>) return reinterpret_cast<uint64_t>(p);
    else return static_cast<uint64_t>(p);
  }
};

/// Empty when `d` is a valid descriptor of `rank` dimensions of `elemBytes`-byte elements, else one
/// line naming `who` and the rule broken. The rules are TMA's, on every executor, so that a kernel
/// behaves the same wherever it runs: the base 16-byte aligned, the innermost stride 1, the other
/// strides positive multiples of 16 bytes; extents from 1; and every element's offset an int32 (the
/// fallback's address arithmetic is 32-bit, as the rest of the DSL's).
inline std::string checkTensorDesc(const std::string &who, const TensorDescArg &d, int rank, int elemBytes) {
  const std::string w = who + ": ";
  if (d.rank == -1) return w + "shape and strides need one entry per dimension";
  if (d.rank != rank)
    return w + "the kernel takes a rank-" + std::to_string(rank) + " descriptor, the argument has " +
           (d.rank == -2 ? "more than " + std::to_string(kMaxDescRank) : std::to_string(d.rank)) + " dimensions";
  if (d.base % 16) return w + "base address " + std::to_string(d.base) + " is not 16-byte aligned";
  if (d.strides[rank - 1] != 1) return w + "the innermost stride must be 1, got " + std::to_string(d.strides[rank - 1]);
  int64_t last = 0;
  for (int i = 0; i < rank; ++i) {
    if (d.shape[i] < 1 || d.shape[i] > INT32_MAX)
      return w + "dimension " + std::to_string(i) + " has extent " + std::to_string(d.shape[i]) + " (1..2^31-1)";
    if (i + 1 < rank && (d.strides[i] < 1 || (d.strides[i] * elemBytes) % 16))
      return w + "stride " + std::to_string(i) + " is " + std::to_string(d.strides[i] * elemBytes) +
             " bytes, not a positive multiple of 16";
    if (d.strides[i] > INT32_MAX) return w + "stride " + std::to_string(i) + " exceeds int32";
    last += (d.shape[i] - 1) * d.strides[i];
    if (last > INT32_MAX) return w + "elements lie beyond int32 offsets from the base";
  }
  return {};
}

/// The parameter for a checked descriptor (its map zero until rt::launch encodes one).
inline TensorDescParam toTensorDescParam(const TensorDescArg &d) {
  TensorDescParam p{};
  p.base = d.base;
  for (int i = 0; i < kMaxDescRank; ++i) {
    p.shape[i] = i < d.rank ? int32_t(d.shape[i]) : 1;
    p.strides[i] = i < d.rank ? int32_t(d.strides[i]) : 0;
  }
  return p;
}

} // namespace tile

#endif
