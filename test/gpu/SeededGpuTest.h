//===- SeededGpuTest.h - the GPU tests' fixture: skip without a GPU, seeded inputs ===//
// Skips (with the reason) where no GPU is usable, seeds gen_ freshly each run or from
// TILE_TEST_SEED, and prints the seed to replay when anything failed.
#pragma once

#include "tile/runtime/Context.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace tile::testing {

class SeededGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!tile::rt::gpuAvailable(&why)) GTEST_SKIP() << why;
    const char *fixed = std::getenv("TILE_TEST_SEED");
    seed_ = fixed ? static_cast<uint32_t>(std::strtoul(fixed, nullptr, 10)) : std::random_device{}();
    gen_.seed(seed_);
  }
  void TearDown() override {
    if (HasFailure()) std::printf("seed %u (replay with TILE_TEST_SEED=%u)\n", seed_, seed_);
  }

  uint32_t seed_ = 0;
  std::mt19937 gen_;
};

} // namespace tile::testing
