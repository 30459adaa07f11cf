//===- cpu_test_util.h - shared helpers of the CPU executor tests --------===//
// Seeds (printed on failure, TILE_TEST_SEED=<n> replays), poisoned outputs (NaN bytes),
// error against float64 references where NaN never passes (relative to the result, or to
// the magnitudes that entered each sum: closeToMagnitude), launch options.
#pragma once

#include "tile/tile.h"
#include "../common/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tile::cputest {

using namespace tile::testutil; // poison, closeTo, half/bfloat16 conversions

inline LaunchOptions cpuOptions(int numWarps = 4, bool check = false) {
  LaunchOptions o;
  o.numWarps = numWarps;
  o.executor = Executor::CPU;
  o.check = check;
  return o;
}

/// v with every element's sign dropped. A float64 reference evaluated on it gives the sums
/// of the terms' absolute values: the magnitudes that bound a sum's rounding, whatever the
/// cancellation (closeToMagnitude).
template <class T> std::vector<T> absolute(std::vector<T> v) {
  for (T &x : v) x = std::fabs(x);
  return v;
}

/// A seeded generator; the fixture prints the seed of a failing test.
class Seeded : public ::testing::Test {
protected:
  void SetUp() override {
    const char *fixed = std::getenv("TILE_TEST_SEED");
    seed_ = fixed ? std::strtoull(fixed, nullptr, 10) : std::random_device{}();
    gen_.seed(seed_);
  }
  void TearDown() override {
    if (HasFailure())
      std::printf("seed %llu (replay with TILE_TEST_SEED=%llu)\n", static_cast<unsigned long long>(seed_),
                  static_cast<unsigned long long>(seed_));
  }
  int64_t uniformInt(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(gen_); }
  std::vector<float> randomFloats(size_t n, float lo = -4.f, float hi = 4.f) {
    std::vector<float> v(n);
    for (float &x : v) x = uniform(lo, hi);
    return v;
  }

  uint64_t seed_ = 0;
  std::mt19937_64 gen_;
};

} // namespace tile::cputest
