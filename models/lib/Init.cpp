// Deterministic generator, PyTorch-style default initialisation, per-epoch shuffles.
#include "tile/models/Init.h"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace tile::models {

namespace {

uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

} // namespace

Rng::Rng(uint64_t seed) {
  // splitmix64 never yields four zero words, the one state xoshiro must avoid.
  for (uint64_t &w : s_) w = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

float Rng::uniform() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }

float Rng::uniform(float lo, float hi) {
  float r = lo + (hi - lo) * uniform();
  // lo + (hi-lo)*u can round up to hi when u is just below 1. Never contracted to an FMA (this
  // file is built with -ffp-contract=off): the same seed gives the same bits on every host.
  return r < hi ? r : std::nextafter(hi, lo);
}

uint64_t Rng::below(uint64_t n) {
  // Rejection of the top partial range: values >= threshold are uniform modulo n.
  const uint64_t threshold = (0 - n) % n; // 2^64 mod n
  for (;;) {
    uint64_t r = next();
    if (r >= threshold) return r % n;
  }
}

void fillUniform(Rng &rng, std::span<float> out, float lo, float hi) {
  for (float &x : out) x = rng.uniform(lo, hi);
}

double kaimingUniformBound(int64_t fanIn, double a) {
  if (fanIn <= 0) throw std::invalid_argument("kaimingUniformBound: fan_in " + std::to_string(fanIn) + " <= 0");
  return std::sqrt(6.0 / ((1.0 + a * a) * static_cast<double>(fanIn)));
}

void initWeightAndBias(Rng &rng, std::span<float> weight, std::span<float> bias, int64_t fanIn) {
  const float w = static_cast<float>(kaimingUniformBound(fanIn, std::sqrt(5.0)));
  fillUniform(rng, weight, -w, w);
  const float b = static_cast<float>(1.0 / std::sqrt(static_cast<double>(fanIn)));
  fillUniform(rng, bias, -b, b);
}

void initBatchNorm(std::span<float> gamma, std::span<float> beta) {
  for (float &g : gamma) g = 1.0f;
  for (float &b : beta) b = 0.0f;
}

std::vector<int64_t> shuffledIndices(int64_t n, uint64_t seed, int64_t epoch) {
  if (n < 0) throw std::invalid_argument("shuffledIndices: n " + std::to_string(n) + " < 0");
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  // Seed and epoch are mixed, not added: (seed 0, epoch 1) and (seed 1, epoch 0) must differ. The
  // constant also keeps this stream apart from an initialisation Rng built from the bare seed.
  uint64_t mix = seed ^ 0x53485546464c4500ull; // "SHUFFLE"
  Rng rng(splitmix64(mix) ^ static_cast<uint64_t>(epoch));
  for (int64_t i = n - 1; i > 0; --i) std::swap(idx[i], idx[rng.below(static_cast<uint64_t>(i) + 1)]);
  return idx;
}

} // namespace tile::models
