// TMA tensor-map requests: every constraint refused in one line naming the parameter, before the
// driver is called (so these run without a GPU).
#include "tile/Error.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/TensorMap.h"

#include <gtest/gtest.h>

using namespace tile::rt;

namespace {

TensorMapRequest valid() {
  return {.param = "a",
          .base = 4096,
          .type = TensorMapType::F16,
          .shape = {1000, 512},
          .strides = {512, 1},
          .box = {128, 64},
          .swizzleBytes = 128};
}

/// checkTensorMap's verdict on `r` after `edit`.
template <class F> std::string verdict(F edit) {
  TensorMapRequest r = valid();
  edit(r);
  return checkTensorMap(r);
}

bool says(const std::string &message, const std::string &needle) {
  return message.find("tensor map 'a': ") == 0 && message.find(needle) != std::string::npos &&
         message.find('\n') == std::string::npos;
}

} // namespace

TEST(TensorMapRequest, AValidRequestPasses) { EXPECT_EQ(checkTensorMap(valid()), ""); }

TEST(TensorMapRequest, EachConstraintIsRefusedNamingTheParameter) {
  EXPECT_TRUE(says(verdict([](auto &r) { r.base = 4104; }), "not 16-byte aligned"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.strides = {100, 1}; }), "stride 0 is 200 bytes"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.strides = {512, 2}; }), "innermost stride must be 1"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.box = {300, 64}; }), "box 300 is not 1..256"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.box = {128, 128}; }), "exceeds the 128-byte swizzle"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.box = {128, 4}; }), "not a multiple of 16"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.swizzleBytes = 96; }), "swizzle 96"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.shape = {1, 2, 3, 4, 5, 6}; }), "rank 6"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.box = {128}; }), "one entry per dimension"));
  EXPECT_TRUE(says(verdict([](auto &r) { r.shape = {0, 512}; }), "dimension 0 has extent 0"));
  // Without a swizzle the inner box is bounded only by the 256-element limit.
  EXPECT_EQ(verdict([](auto &r) { r.swizzleBytes = 0, r.box = {128, 256}; }), "");
}

TEST(TensorMapRequest, RefusedBeforeTheDriverWithAnArgumentError) {
  TensorMapRequest r = valid();
  r.base = 3;
  try {
    encodeTensorMap(r);
    ADD_FAILURE() << "a misaligned base was encoded";
  } catch (const tile::ArgumentError &e) { EXPECT_TRUE(says(e.what(), "not 16-byte aligned")) << e.what(); }
}

TEST(TensorMapRequest, WithoutAGpuEncodingSaysSo) {
  if (gpuAvailable()) GTEST_SKIP() << "a GPU is present: runtime_gpu_tests encodes for real";
  try {
    encodeTensorMap(valid());
    ADD_FAILURE() << "encoded without a GPU";
  } catch (const tile::rt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("no usable GPU"), std::string::npos) << e.what();
  }
}
