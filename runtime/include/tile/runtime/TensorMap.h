// TMA tensor maps (CUtensorMap): what a kernel's cp.async.bulk.tensor copies read to move a box of
// a global tensor into shared memory (Hopper's tensor memory accelerator). Encoded on the host by the
// driver's cuTensorMapEncodeTiled and passed to the kernel as a 128-byte parameter.
//
//   rt::TensorMapRequest r{.param = "a", .base = a, .type = rt::TensorMapType::F16,
//                          .shape = {m, k}, .strides = {k, 1}, .box = {128, 64}, .swizzleBytes = 128};
//   const rt::TensorMap &map = rt::encodeTensorMap(r);   // cached per request
//
// Shapes, strides and boxes are listed outermost dimension first (row-major, as the DSL's tensors);
// strides are in elements and the innermost must be 1. Boxes that reach past the tensor's edge are
// zero-filled by the hardware. The constraints (checkTensorMap) are checked before the driver is called,
// so a bad request is a one-line tile::ArgumentError naming the parameter, never a driver error code.
#pragma once

#include "tile/runtime/CompiledKernel.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tile::rt {

struct TensorMapRequest {
  std::string param;    ///< the kernel parameter it is for: named by every error
  CUdeviceptr base = 0; ///< 16-byte aligned
  TensorMapType type = TensorMapType::F32;
  std::vector<int64_t> shape;   ///< 1 to 5 dimensions, outermost first
  std::vector<int64_t> strides; ///< elements; innermost 1, the others multiples of 16 bytes
  std::vector<int32_t> box;     ///< elements copied per dimension, each 1..256
  int swizzleBytes = 0;         ///< 0, 32, 64 or 128 (#tile.nvmma_shared's swizzle); the box's
                                ///< innermost extent must fit in it
  bool operator==(const TensorMapRequest &) const = default;
};

/// CUtensorMap's bytes, with its alignment (a kernel parameter of 128 bytes, 64-aligned).
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};
static_assert(sizeof(TensorMap) == sizeof(CUtensorMap), "TensorMap mirrors CUtensorMap");

/// Empty when the request satisfies TMA's constraints; else one line naming the parameter and the
/// rule broken ("tensor map 'a': stride 1 is 200 bytes, not a multiple of 16").
std::string checkTensorMap(const TensorMapRequest &r);

/// The encoded map for `r`, from a per-process cache (the same request returns the same object).
/// Throws tile::ArgumentError for a request checkTensorMap refuses, rt::Error without a GPU or when
/// the driver refuses it.
const TensorMap &encodeTensorMap(const TensorMapRequest &r);

} // namespace tile::rt
