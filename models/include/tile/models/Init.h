// Seeded initialisation and shuffling with the project's own generator, so that a seed gives the
// same parameters and the same batches on every machine and executor.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tile::models {

// xoshiro256** (Blackman & Vigna), its state filled from the seed by splitmix64.
class Rng {
public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  // Uniform in [0, 1): the top 24 bits, so every value is exactly representable.
  float uniform();
  // Uniform in [lo, hi) (never hi itself, also after float rounding). Requires lo < hi.
  float uniform(float lo, float hi);
  // Uniform integer in [0, n) without modulo bias. Requires n > 0.
  uint64_t below(uint64_t n);

private:
  uint64_t s_[4];
};

// Each element uniform in [lo, hi), drawn in order.
void fillUniform(Rng &rng, std::span<float> out, float lo, float hi);

// PyTorch's kaiming_uniform_ bound: sqrt(6 / ((1 + a^2) * fanIn)); a = sqrt(5) (nn.Conv2d /
// nn.Linear's default) gives 1/sqrt(fanIn).
double kaimingUniformBound(int64_t fanIn, double a);

// fan_in of a conv2d weight [out, in, kh, kw] (in*kh*kw) and of a linear weight [out, in] (in).
inline int64_t convFanIn(int64_t inChannels, int64_t kh, int64_t kw) { return inChannels * kh * kw; }
inline int64_t linearFanIn(int64_t inFeatures) { return inFeatures; }

// PyTorch's default init of nn.Conv2d / nn.Linear: weight ~ kaiming_uniform(a=sqrt(5)), i.e.
// U(-1/sqrt(fanIn), 1/sqrt(fanIn)), then bias ~ U(-1/sqrt(fanIn), 1/sqrt(fanIn)); weight drawn
// first, as PyTorch does (the values differ from PyTorch's, whose generator is not ours).
void initWeightAndBias(Rng &rng, std::span<float> weight, std::span<float> bias, int64_t fanIn);

// nn.BatchNorm2d's init: gamma = 1, beta = 0.
void initBatchNorm(std::span<float> gamma, std::span<float> beta);

// The order of the n samples in epoch `epoch`: a Fisher-Yates shuffle of 0..n-1 with an Rng
// seeded from (seed, epoch). Same (seed, epoch), same order.
std::vector<int64_t> shuffledIndices(int64_t n, uint64_t seed, int64_t epoch);

} // namespace tile::models
