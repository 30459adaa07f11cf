// TMA tensor maps encoded by the driver (label gpu; skipped without a GPU): valid requests encode and
// are cached per request; what the driver would refuse is refused first, naming the parameter.
#include "tile/Error.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace tile::rt;

TEST(RuntimeGpuTensorMap, EncodesEveryTypeAndSwizzleAndCachesPerRequest) {
  std::string why;
  if (!gpuAvailable(&why)) GTEST_SKIP() << why;
  DeviceBuffer buf(1 << 22);
  for (TensorMapType type :
       {TensorMapType::F16, TensorMapType::BF16, TensorMapType::F32, TensorMapType::I32, TensorMapType::U8})
    for (int swizzle : {0, 32, 64, 128}) {
      const int elem = tensorMapElementBytes(type);
      const int32_t inner = std::max(16 / elem, (swizzle ? swizzle : 128) / elem);
      TensorMapRequest r{.param = "x",
                         .base = buf.ptr(),
                         .type = type,
                         .shape = {1000, 1024},
                         .strides = {1024, 1},
                         .box = {64, inner},
                         .swizzleBytes = swizzle};
      const TensorMap &map = encodeTensorMap(r);
      EXPECT_TRUE(std::any_of(std::begin(map.bytes), std::end(map.bytes), [](unsigned char b) { return b != 0; }))
          << "type " << int(type) << " swizzle " << swizzle;
      EXPECT_EQ(&encodeTensorMap(r), &map) << "the same request is one cached map";
      r.shape[0] = 999;
      EXPECT_NE(&encodeTensorMap(r), &map) << "another shape is another map";
    }
  // A 3-D box (batched tiles), and a ragged tensor whose last box reaches past the edge.
  TensorMapRequest r3{.param = "y",
                      .base = buf.ptr(),
                      .type = TensorMapType::F16,
                      .shape = {7, 100, 72},
                      .strides = {100 * 72, 72, 1},
                      .box = {1, 64, 64},
                      .swizzleBytes = 128};
  EXPECT_NO_THROW(encodeTensorMap(r3));
}

TEST(RuntimeGpuTensorMap, ARefusedRequestNamesTheParameterAndLeavesTheContextUsable) {
  std::string why;
  if (!gpuAvailable(&why)) GTEST_SKIP() << why;
  DeviceBuffer buf(1 << 20);
  TensorMapRequest r{.param = "weights",
                     .base = buf.ptr() + 8,
                     .type = TensorMapType::F32,
                     .shape = {64, 64},
                     .strides = {64, 1},
                     .box = {32, 32},
                     .swizzleBytes = 128};
  try {
    encodeTensorMap(r);
    ADD_FAILURE() << "a misaligned base was encoded";
  } catch (const tile::ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("tensor map 'weights': base address"), std::string::npos) << e.what();
  }
  r.base = buf.ptr();
  EXPECT_NO_THROW(encodeTensorMap(r));
}
