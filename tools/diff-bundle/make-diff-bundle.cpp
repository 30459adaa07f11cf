//===- make-diff-bundle.cpp - cases for GPU == CPU executor testing -------===//
//   make-diff-bundle <out.bundle> [random programs (default 1000)] [seed]
// Every library and test kernel on random shapes (ragged edges, sizes 1 and 2^k±1), run
// on the CPU executor; the GPU machine replays them (test/gpu/diff_gpu_tests.cpp).
#include "CaseBuilder.h"

#include "../../test/kernels/TestKernels.h"
#include "../../test/kernels/TmaMatmulKernels.h"
#include "../../test/unit/cpu_random_kernels.h"
#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Softmax.h"
#include "tile/kernels/Registry.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace tile;
using namespace tile::diff;
using rt::DiffElem;

namespace {

std::vector<float> randomFloats(size_t n, std::mt19937_64 &rng, float lo = -3.f, float hi = 3.f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = d(rng);
  return v;
}

int pick(std::mt19937_64 &rng, std::initializer_list<int> choices) {
  return *(choices.begin() + rng() % choices.size());
}

void libraryCases(std::vector<rt::DiffCase> &out, std::mt19937_64 &rng) {
  using namespace tile::kernels;
  for (int n : {1, 2, 15, 16, 17, 1023, 1024, 1025, 65537, pick(rng, {3000, 77777, 123457})}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    int block = ElementwiseConfig::block;
    out.push_back(makeCase(
        vectorAddKernel(), "vector_add " + std::to_string(n), seed, {cdiv(n, block)}, ElementwiseConfig::numWarps,
        {Buffer::of(randomFloats(n, r), DiffElem::F32), Buffer::of(randomFloats(n, r), DiffElem::F32),
         Buffer::poisoned(n * 4, DiffElem::F32), Scalar{n}, Constant{block}},
        1e-7));
  }
  for (int cols : {1, 2, 3, 17, 127, 128, 129, 1000, 1024, 1025, 4095, 4096, 4097, 16383, 16384}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    int rows = 1 + int(r() % 9);
    int stride = cols + int(r() % 2) * 3; // sometimes a stride that is not a multiple of 16
    RowConfig cfg = softmaxConfig(cols);
    auto x = randomFloats(size_t(rows) * stride, r, -8.f, 8.f);
    out.push_back(makeCase(softmaxKernel(), "softmax " + std::to_string(rows) + "x" + std::to_string(cols), seed,
                           {rows}, cfg.numWarps,
                           {Buffer::poisoned(size_t(rows) * stride * 4, DiffElem::F32), Buffer::of(x, DiffElem::F32),
                            Scalar{stride}, Scalar{stride}, Scalar{cols}, Constant{cfg.block}},
                           1e-5));
    RowConfig ln = layerNormConfig(cols);
    auto w = randomFloats(cols, r, 0.5f, 1.5f), b = randomFloats(cols, r);
    // Rows centred away from zero: the mean of zero-centred data cancels, and its relative
    // error then measures the summation order (which the executors choose differently),
    // not the kernel.
    for (float &v : x) v += 3.0f;
    out.push_back(makeCase(
        layerNormForwardKernel(), "layernorm_fwd " + std::to_string(rows) + "x" + std::to_string(cols), seed, {rows},
        ln.numWarps,
        {Buffer::of(x, DiffElem::F32), Buffer::poisoned(x.size() * 4, DiffElem::F32), Buffer::of(w, DiffElem::F32),
         Buffer::of(b, DiffElem::F32), Buffer::poisoned(rows * 4, DiffElem::F32),
         Buffer::poisoned(rows * 4, DiffElem::F32), Scalar{stride}, Scalar{cols}, Float{1e-5f}, Constant{ln.block}},
        1e-5));
  }
}

void testKernelCases(std::vector<rt::DiffCase> &out, std::mt19937_64 &rng) {
  using namespace tile::testing;
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {33, 31}, {100, 7}, {65, 129}}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    auto x = randomFloats(size_t(m) * n, r);
    std::string shape = std::to_string(m) + "x" + std::to_string(n);
    out.push_back(makeCase(transposeKernel(), "transpose " + shape, seed, {cdiv(m, 32), cdiv(n, 32)}, 4,
                           {Buffer::of(x, DiffElem::F32), Buffer::poisoned(x.size() * 4, DiffElem::F32), Scalar{m},
                            Scalar{n}, Constant{32}, Constant{32}},
                           0));
    if (n <= 128)
      out.push_back(makeCase(rowStatsKernel(), "row_stats " + shape, seed, {cdiv(m, 16)}, 4,
                             {Buffer::of(x, DiffElem::F32), Buffer::poisoned(m * 4, DiffElem::F32),
                              Buffer::poisoned(m * 4, DiffElem::F32), Buffer::poisoned(m * 4, DiffElem::I32), Scalar{m},
                              Scalar{n}, Constant{16}, Constant{128}},
                             1e-5));
    if (m <= 64)
      out.push_back(makeCase(colMinKernel(), "col_min " + shape, seed, {cdiv(n, 32)}, 4,
                             {Buffer::of(x, DiffElem::F32), Buffer::poisoned(n * 4, DiffElem::F32), Scalar{m},
                              Scalar{n}, Constant{64}, Constant{32}},
                             0));
  }
  // Rank-3 reductions on every axis, warps across the reduced axis included.
  struct R3 {
    int d0, d1, d2, b0, b1, b2, axis, warps;
  };
  for (R3 c : std::vector<R3>{{4, 128, 4, 4, 128, 4, 1, 4},
                              {7, 30, 9, 8, 32, 16, 0, 4},
                              {8, 32, 16, 8, 32, 16, 1, 4},
                              {8, 31, 16, 8, 32, 16, 2, 4},
                              {2, 3, 200, 2, 4, 256, 2, 8},
                              {16, 16, 16, 16, 16, 16, 0, 8}}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    const int kept = (c.d0 * c.d1 * c.d2) / (c.axis == 0 ? c.d0 : c.axis == 1 ? c.d1 : c.d2);
    out.push_back(makeCase(reduce3dKernel(),
                           "reduce3d " + std::to_string(c.d0) + "x" + std::to_string(c.d1) + "x" +
                               std::to_string(c.d2) + " axis " + std::to_string(c.axis),
                           seed, {1}, c.warps,
                           {Buffer::of(randomFloats(size_t(c.d0) * c.d1 * c.d2, r), DiffElem::F32),
                            Buffer::poisoned(kept * 4, DiffElem::F32), Buffer::poisoned(kept * 4, DiffElem::F32),
                            Buffer::poisoned(kept * 4, DiffElem::I32), Scalar{c.d0}, Scalar{c.d1}, Scalar{c.d2},
                            Constant{c.b0}, Constant{c.b1}, Constant{c.b2}, Constant{c.axis}},
                           1e-5));
  }
  // The library matmul: f32 (exact FMA and TF32), f16 and bf16 (tensor cores on sm_80+),
  // ragged shapes, B transposed through strides, fused epilogues.
  struct Mm {
    int m, n, k, bm, bn, bk, group, epilogue, tf32, warps;
    bool transB;
  };
  for (Mm c : std::vector<Mm>{{100, 77, 45, 32, 32, 8, 4, 0, 0, 4, false},
                              {64, 64, 64, 32, 32, 8, 4, 2, 1, 4, true},
                              {130, 70, 33, 64, 64, 16, 8, 1, 0, 4, false},
                              {16, 300, 100, 16, 16, 16, 1, 2, 0, 1, true},
                              // the library's tensor-core tile: 3-stage cp.async rings, ragged K
                              {390, 260, 77, 128, 128, 32, 8, 1, 0, 8, false},
                              {257, 129, 200, 128, 128, 32, 8, 0, 0, 8, true},
                              {256, 384, 96, 128, 128, 32, 8, 2, 0, 4, false}}) {
    for (int type = 0; type < 3; ++type) { // f32, f16, bf16
      // f32 runs on CUDA cores, whose library tile is 32 x 32 x 8
      if (type == 0 && (c.bk == 16 || c.bm >= 128)) continue;
      uint64_t seed = rng();
      std::mt19937_64 r(seed);
      auto a = randomFloats(size_t(c.m) * c.k, r), b = randomFloats(size_t(c.k) * c.n, r), bias = randomFloats(c.n, r);
      auto elem = type == 0 ? DiffElem::F32 : type == 1 ? DiffElem::F16 : DiffElem::BF16;
      auto input = [&](const std::vector<float> &v) {
        if (type == 0) return Buffer::of(v, elem);
        std::vector<uint16_t> bits;
        for (float x : v) bits.push_back(type == 1 ? halfBits(x) : bf16Bits(x));
        return Buffer::of(bits, elem);
      };
      const int sbk = c.transB ? 1 : c.n, sbn = c.transB ? c.k : 1;
      std::vector<Arg> args = {input(a),
                               input(b),
                               Buffer::poisoned(size_t(c.m) * c.n * 4, DiffElem::F32),
                               Buffer::of(bias, DiffElem::F32),
                               Scalar{c.m},
                               Scalar{c.n},
                               Scalar{c.k},
                               Scalar{c.k},
                               Scalar{1},
                               Scalar{sbk},
                               Scalar{sbn},
                               Scalar{c.n},
                               Scalar{1},
                               Constant{c.bm},
                               Constant{c.bn},
                               Constant{c.bk},
                               Constant{c.group},
                               Constant{c.epilogue},
                               Constant{type == 0 ? c.tf32 : 0}};
      const KernelBase &kernel = type == 0   ? static_cast<const KernelBase &>(kernels::matmulKernel<float>())
                                 : type == 1 ? static_cast<const KernelBase &>(kernels::matmulKernel<f16>())
                                             : static_cast<const KernelBase &>(kernels::matmulKernel<bf16>());
      std::string name = std::string("matmul_") +
                         (type == 0   ? (c.tf32 ? "tf32 " : "f32 ")
                          : type == 1 ? "f16 "
                                      : "bf16 ") +
                         std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
      // Tensor cores accumulate in another order than the CPU's fma chain.
      out.push_back(makeCase(kernel, name, seed, {cdiv(c.m, c.bm) * cdiv(c.n, c.bn)}, c.warps, std::move(args), 1e-5));
    }
  }
  // The strided-batched matmul (TF32, f16, bf16 on tensor cores): 3 ragged problems,
  // B per problem or broadcast (batch stride 0), a bias row per problem, relu.
  for (int type = 0; type < 3; ++type)
    for (bool broadcastB : {false, true}) {
      const int batch = 3, m = 100, n = 77, k = 45;
      uint64_t seed = rng();
      std::mt19937_64 r(seed);
      const int bProblems = broadcastB ? 1 : batch;
      auto a = randomFloats(size_t(batch) * m * k, r), b = randomFloats(size_t(bProblems) * k * n, r);
      auto bias = randomFloats(size_t(batch) * n, r);
      auto elem = type == 0 ? DiffElem::F32 : type == 1 ? DiffElem::F16 : DiffElem::BF16;
      auto input = [&](const std::vector<float> &v) {
        if (type == 0) return Buffer::of(v, elem);
        std::vector<uint16_t> bits;
        for (float x : v) bits.push_back(type == 1 ? halfBits(x) : bf16Bits(x));
        return Buffer::of(bits, elem);
      };
      std::vector<Arg> args = {input(a),
                               input(b),
                               Buffer::poisoned(size_t(batch) * m * n * 4, DiffElem::F32),
                               Buffer::of(bias, DiffElem::F32),
                               Scalar{m},
                               Scalar{n},
                               Scalar{k},
                               Scalar{int64_t(m) * k},
                               Scalar{k},
                               Scalar{1},
                               Scalar{broadcastB ? 0 : int64_t(k) * n},
                               Scalar{n},
                               Scalar{1},
                               Scalar{int64_t(m) * n},
                               Scalar{n},
                               Scalar{1},
                               Scalar{n},
                               Constant{64},
                               Constant{64},
                               Constant{32},
                               Constant{8},
                               Constant{int(kernels::MatmulEpilogue::BiasRelu)},
                               Constant{type == 0 ? 1 : 0}};
      const KernelBase &kernel =
          type == 0   ? static_cast<const KernelBase &>(kernels::dslKernel<kernels::BatchedMatmulF32>())
          : type == 1 ? static_cast<const KernelBase &>(kernels::dslKernel<kernels::BatchedMatmulF16>())
                      : static_cast<const KernelBase &>(kernels::dslKernel<kernels::BatchedMatmulBF16>());
      std::string name = std::string("batched_matmul_") +
                         (type == 0   ? "tf32 "
                          : type == 1 ? "f16 "
                                      : "bf16 ") +
                         "3x100x77x45" + (broadcastB ? " broadcast B" : "");
      out.push_back(makeCase(kernel, name, seed, {cdiv(m, 64) * cdiv(n, 64), batch}, 4, std::move(args), 1e-5));
    }
  // The descriptor matmul (MatmulTma's tile: TMA copies into wgmma rings on sm_90a): B row-major
  // (f16) or transposed (f16 and TF32, read K-major), on a grid of tiles, persistent on 2
  // programs (copies running ahead across tiles), warp-specialised (a producer warp issues the
  // copies: K loops shorter and longer than the 4-deep ring) on a grid of tiles or persistent on 2
  // programs (the producer running into the next tile's blocks), ragged M and N. The C
  // block is stored by TMA where C's extents are multiples of 16 (from the seventh, clipped at C's
  // edges), else by masked stores.
  struct Tma {
    int type, schedule, m, n, k, bm, bn, bk, warps, epilogue;
  }; // type: 0 f16, 1 f16 bT, 2 tf32 bT
  constexpr int kGrid = 0, kPersistent = 1, kWarpSpecialized = 2, kPersistentWarpSpecialized = 3;
  for (Tma c : std::vector<Tma>{{0, kGrid, 200, 136, 96, 128, 128, 64, 4, 1},
                                {0, kPersistent, 300, 264, 128, 128, 128, 64, 8, 2},
                                {1, kGrid, 130, 72, 64, 64, 64, 64, 4, 0},
                                {1, kPersistent, 260, 200, 192, 128, 128, 64, 8, 1},
                                {2, kGrid, 150, 100, 68, 128, 128, 32, 4, 2},
                                {2, kPersistent, 300, 264, 96, 128, 128, 32, 8, 1},
                                {0, kGrid, 208, 144, 96, 128, 128, 64, 4, 2},
                                {0, kPersistent, 304, 272, 128, 128, 128, 64, 8, 1},
                                {1, kGrid, 144, 80, 64, 64, 64, 64, 4, 1},
                                {1, kPersistent, 272, 208, 192, 128, 128, 64, 8, 2},
                                {2, kGrid, 160, 112, 64, 128, 128, 32, 4, 1},
                                {2, kPersistent, 304, 272, 96, 128, 128, 32, 8, 2},
                                {0, kWarpSpecialized, 200, 136, 600, 128, 128, 64, 4, 1},
                                {0, kWarpSpecialized, 304, 272, 128, 128, 256, 64, 8, 2},
                                {1, kWarpSpecialized, 260, 200, 1000, 128, 128, 64, 8, 0},
                                {1, kWarpSpecialized, 144, 80, 64, 64, 64, 64, 4, 1},
                                {2, kWarpSpecialized, 150, 100, 300, 128, 128, 32, 8, 2},
                                {2, kWarpSpecialized, 160, 112, 64, 128, 256, 32, 8, 0},
                                {0, kPersistentWarpSpecialized, 300, 264, 200, 128, 128, 64, 8, 1},
                                {1, kPersistentWarpSpecialized, 272, 208, 64, 128, 128, 64, 4, 2},
                                {2, kPersistentWarpSpecialized, 304, 272, 300, 128, 128, 32, 8, 0}}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    const bool bt = c.type > 0, tf32 = c.type == 2;
    const auto elem = tf32 ? DiffElem::F32 : DiffElem::F16;
    auto input = [&](const std::vector<float> &v) {
      if (tf32) return Buffer::of(v, elem);
      std::vector<uint16_t> bits;
      for (float x : v) bits.push_back(halfBits(x));
      return Buffer::of(bits, elem);
    };
    auto a = randomFloats(size_t(c.m) * c.k, r), b = randomFloats(size_t(c.k) * c.n, r), bias = randomFloats(c.n, r);
    std::vector<Arg> args = {input(a),
                             input(b),
                             Buffer::poisoned(size_t(c.m) * c.n * (tf32 ? 4 : 2), elem),
                             Buffer::of(bias, DiffElem::F32),
                             Descriptor{0, {c.m, c.k}, {c.k, 1}},
                             bt ? Descriptor{1, {c.n, c.k}, {c.k, 1}} : Descriptor{1, {c.k, c.n}, {c.n, 1}},
                             Descriptor{2, {c.m, c.n}, {c.n, 1}},
                             Scalar{c.m},
                             Scalar{c.n},
                             Scalar{c.k},
                             Constant{c.bm},
                             Constant{c.bn},
                             Constant{c.bk},
                             Constant{c.schedule},
                             Constant{c.epilogue}};
    const KernelBase &kernel =
        tf32 ? static_cast<const KernelBase &>(testing::tmaMatmulOverBuffersKernel<float, float, true>())
        : bt ? static_cast<const KernelBase &>(testing::tmaMatmulOverBuffersKernel<f16, f16, true>())
             : static_cast<const KernelBase &>(testing::tmaMatmulOverBuffersKernel<f16, f16, false>());
    const int tiles = cdiv(c.m, c.bm) * cdiv(c.n, c.bn);
    const char *schedule = c.schedule == kPersistent                  ? " persistent "
                           : c.schedule == kWarpSpecialized           ? " ws "
                           : c.schedule == kPersistentWarpSpecialized ? " persistent ws "
                                                                      : " ";
    std::string name = std::string(kernel.name()) + schedule + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                       std::to_string(c.k);
    // f16 C: one rounding of the f32 sum (2^-11), whose order the tensor cores choose. TF32: the
    // TMA copies round to nearest with ties to even, the CPU executor (as cvt.rna) ties away from
    // zero; the one in 2^13 inputs on a tie moves its products by 2^-10, about 1.5e-5 of ||C||
    // at these sizes (seen: 1.4e-5 on an H100).
    out.push_back(
        makeCase(kernel, name, seed, {c.schedule % 2 ? 2 : tiles}, c.warps, std::move(args), tf32 ? 1e-4 : 1e-3));
  }
  for (int flag : {0, 1}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    int n = 300 + int(r() % 1000);
    out.push_back(makeCase(scalarArgsKernel(), "scalar_args " + std::to_string(n), seed, {cdiv(n, 256)}, 4,
                           {Buffer::of(randomFloats(n, r), DiffElem::F32), Buffer::poisoned(n * 4, DiffElem::F32),
                            Float{1.3f}, Float{-2.7f}, Scalar{flag}, Scalar{n}, Constant{256}},
                           1e-6));
  }
  for (int n : {1, 1000, 4097}) {
    uint64_t seed = rng();
    std::mt19937_64 r(seed);
    std::vector<int32_t> values(n);
    for (int32_t &v : values) v = int32_t(r() % 37);
    out.push_back(makeCase(histogramKernel(), "histogram " + std::to_string(n), seed, {cdiv(n, 1024)}, 4,
                           {Buffer::of(values, DiffElem::I32),
                            Buffer::of(std::vector<int32_t>(37, 0), DiffElem::I32, true), Scalar{n}, Constant{1024}},
                           0));
    auto xs = randomFloats(n, r);
    std::vector<float> x2(xs);
    out.push_back(makeCase(loopBranchKernel(), "loop_branch " + std::to_string(n), seed, {cdiv(n, 256)}, 4,
                           {Buffer::of(x2, DiffElem::F32), Buffer::poisoned(n * 4, DiffElem::F32), Scalar{n},
                            Scalar{int64_t(r() % 7)}, Constant{256}},
                           1e-6));
    std::vector<uint16_t> halves[3];
    for (auto &h : halves)
      for (float v : randomFloats(n, r)) h.push_back(tile::halfBits(8.f * v));
    out.push_back(makeCase(smallFloatFmaKernel(), "small_float_fma " + std::to_string(n), seed, {cdiv(n, 1024)}, 4,
                           {Buffer::of(halves[0], DiffElem::F16), Buffer::of(halves[1], DiffElem::F16),
                            Buffer::of(halves[2], DiffElem::F16), Buffer::poisoned(n * 2, DiffElem::F16),
                            Buffer::poisoned(n * 2, DiffElem::BF16), Scalar{n}, Constant{1024}},
                           0));
  }
}

/// Random programs: the CPU executor's outputs are what the GPU must reproduce, within
/// per-element bounds from the magnitudes of each result's terms (cancellation makes a
/// norm meaningless): twice the bound each executor meets against float64 in the tests.
/// The case's descriptor argument `which`, over the buffer of the argument it describes.
Descriptor descriptor(const randomkernels::RandomCase &c, randomkernels::RandomCase::Desc which) {
  TensorDescArg d = c.descriptor(which, nullptr);
  return Descriptor{size_t(randomkernels::RandomCase::descriptorBase(which)),
                    std::vector<int64_t>(d.shape, d.shape + d.rank),
                    std::vector<int64_t>(d.strides, d.strides + d.rank)};
}

void randomCases(std::vector<rt::DiffCase> &out, std::mt19937_64 &rng, int count) {
  constexpr double kBound = 2 * randomkernels::kTolerance;
  for (int i = 0; i < count; ++i) {
    uint64_t seed = rng();
    randomkernels::RandomCase c = randomkernels::makeRandomCase(seed);
    auto floats = [](const std::vector<float> &v) { return Buffer::of(v, DiffElem::F32); };
    std::vector<Arg> args = {floats(c.inputs[0]),
                             floats(c.inputs[1]),
                             floats(c.inputs[2]),
                             floats(c.inputs[3]),
                             floats(c.inputs[4]),
                             c.outZeroed() ? floats(std::vector<float>(c.expected.size(), 0.f))
                                           : Buffer::poisoned(c.expected.size() * 4, DiffElem::F32),
                             Buffer::poisoned(c.expectedRows.size() * 4, DiffElem::F32),
                             Buffer::of(c.in2Half, DiffElem::F16),
                             Scalar{c.m},
                             Scalar{c.n},
                             Scalar{c.p},
                             Scalar{c.trips},
                             Scalar{c.flag},
                             Float{c.scalar}};
    for (randomkernels::RandomCase::Desc which : randomkernels::RandomCase::kDescriptors)
      args.push_back(descriptor(c, which));
    for (int tile : {c.bm, c.bn, c.bp}) args.push_back(Constant{tile});
    rt::DiffCase d = makeCase(*c.kernel, "random#" + std::to_string(i), seed, c.grid, 4, std::move(args), kBound);
    d.args[5].errorScale = c.magnitude;
    d.args[6].errorScale = c.magnitudeRows;
    out.push_back(std::move(d));
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <out.bundle> [random programs] [seed]\n", argv[0]);
    return 2;
  }
  uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : std::random_device{}();
  auto start = std::chrono::steady_clock::now();
  try {
    std::mt19937_64 rng(seed);
    std::vector<rt::DiffCase> cases;
    libraryCases(cases, rng);
    testKernelCases(cases, rng);
    randomCases(cases, rng, argc > 2 ? std::atoi(argv[2]) : 1000);
    rt::writeDiffBundle(argv[1], cases);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("make-diff-bundle: %zu cases (seed %llu) in %.1f s -> %s\n", cases.size(),
                static_cast<unsigned long long>(seed), s, argv[1]);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "make-diff-bundle (seed %llu): %s\n", static_cast<unsigned long long>(seed), e.what());
    return 1;
  }
  return 0;
}
