// TMA tensor maps: TMA's constraints checked here, encoding by the driver, a per-process cache.
#include "tile/runtime/TensorMap.h"

#include "DriverApi.h"
#include "tile/Error.h"
#include "tile/runtime/Error.h"

#include <map>
#include <memory>
#include <mutex>

namespace tile::rt {

using detail::api;

std::string checkTensorMap(const TensorMapRequest &r) {
  const std::string who = "tensor map '" + r.param + "': ";
  const size_t rank = r.shape.size();
  const int64_t elem = tensorMapElementBytes(r.type);
  if (rank < 1 || rank > 5) return who + "rank " + std::to_string(rank) + " is not 1..5";
  if (r.strides.size() != rank || r.box.size() != rank)
    return who + "shape, strides and box need one entry per dimension (" + std::to_string(rank) + ")";
  if (r.base % 16) return who + "base address " + std::to_string(r.base) + " is not 16-byte aligned";
  if (r.strides.back() != 1) return who + "the innermost stride must be 1, got " + std::to_string(r.strides.back());
  for (size_t d = 0; d < rank; ++d) {
    const std::string dim = "dimension " + std::to_string(d);
    if (r.shape[d] < 1 || r.shape[d] > (int64_t(1) << 32))
      return who + dim + " has extent " + std::to_string(r.shape[d]) + " (1..2^32)";
    if (r.box[d] < 1 || r.box[d] > 256) return who + dim + ": box " + std::to_string(r.box[d]) + " is not 1..256";
    if (d + 1 < rank && ((r.strides[d] * elem) % 16 || r.strides[d] < 1 || r.strides[d] * elem >= (int64_t(1) << 40)))
      return who + "stride " + std::to_string(d) + " is " + std::to_string(r.strides[d] * elem) +
             " bytes, not a positive multiple of 16 below 2^40";
  }
  const int64_t innerBytes = int64_t(r.box.back()) * elem;
  if (innerBytes % 16)
    return who + "the box's innermost extent is " + std::to_string(innerBytes) + " bytes, not a multiple of 16";
  if (r.swizzleBytes != 0 && r.swizzleBytes != 32 && r.swizzleBytes != 64 && r.swizzleBytes != 128)
    return who + "swizzle " + std::to_string(r.swizzleBytes) + " is not 0, 32, 64 or 128 bytes";
  if (r.swizzleBytes && innerBytes > r.swizzleBytes)
    return who + "the box's innermost extent (" + std::to_string(innerBytes) + " bytes) exceeds the " +
           std::to_string(r.swizzleBytes) + "-byte swizzle";
  return {};
}

namespace {

CUtensorMapDataType driverType(TensorMapType t) {
  switch (t) {
  case TensorMapType::U8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case TensorMapType::I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case TensorMapType::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case TensorMapType::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case TensorMapType::F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case TensorMapType::TF32: return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

CUtensorMapSwizzle driverSwizzle(int bytes) {
  return bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
         : bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
         : bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                       : CU_TENSOR_MAP_SWIZZLE_NONE;
}

/// Ordered by every field, for the cache.
struct RequestLess {
  bool operator()(const TensorMapRequest &a, const TensorMapRequest &b) const {
    return std::tie(a.base, a.type, a.shape, a.strides, a.box, a.swizzleBytes, a.param) <
           std::tie(b.base, b.type, b.shape, b.strides, b.box, b.swizzleBytes, b.param);
  }
};

} // namespace

const TensorMap &encodeTensorMap(const TensorMapRequest &r) {
  if (std::string why = checkTensorMap(r); !why.empty()) throw tile::ArgumentError(why);
  static std::mutex mu;
  static std::map<TensorMapRequest, std::unique_ptr<TensorMap>, RequestLess> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(r); it != cache.end()) return *it->second;
  detail::ensureContext();
  // The driver lists dimensions innermost first; strides for dimensions 1.. only, in bytes.
  const size_t rank = r.shape.size();
  const int64_t elem = tensorMapElementBytes(r.type);
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = rank - 1 - i;
    dims[i] = cuuint64_t(r.shape[d]);
    box[i] = cuuint32_t(r.box[d]);
    elementStrides[i] = 1;
    if (i > 0) strides[i - 1] = cuuint64_t(r.strides[d] * elem);
  }
  auto map = std::make_unique<TensorMap>();
  detail::check(api().tensorMapEncodeTiled(reinterpret_cast<CUtensorMap *>(map.get()), driverType(r.type),
                                           cuuint32_t(rank), reinterpret_cast<void *>(r.base), dims, strides, box,
                                           elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, driverSwizzle(r.swizzleBytes),
                                           CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                "cuTensorMapEncodeTiled", "tensor map '" + r.param + "'");
  return *cache.emplace(r, std::move(map)).first->second;
}

} // namespace tile::rt
