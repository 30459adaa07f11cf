//===- cpu_random_kernels.h - random valid DSL programs with references ---===//
// makeRandomCase(seed) builds one random kernel from a seed: a DAG of f32 operations on
// [BM, BN] tiles of an m x n problem, or [BP, BM, BN] tiles of p x m x n (rank 3), ragged
// edges masked: elementwise chains (+ - * / maximum minimum exp abs neg), comparisons with
// where, broadcasts of rows (along n) and columns (along m), reductions along any axis
// (sum, max, min, argmax) broadcast back,
// loops with a carried tile and branches on a scalar argument, in0 read as blocks of its
// tensor descriptor (a third of its loads) and then, unsplit, half the results stored through
// out's; half of them store the
// result in two masked stores split at a column constant by one of < <= > >= == != (the
// comparisons a store mask can hold). It comes with random
// inputs and the expected outputs from a naive float64 evaluation of the same DAG, so
// the case can run on any executor: the CPU executor here, the GPU for differential
// testing. Reductions act within the program's tile (as the kernel does); comparisons
// only look at inputs and constants, so float32 and float64 take the same branches.
#pragma once

#include "tile/tile.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tile::randomkernels {

struct Program; // the DAG (cpu_random_kernels.cpp)

struct RandomCase {
  uint64_t seed = 0;
  std::shared_ptr<const Program> program;
  std::shared_ptr<const KernelBase> kernel; ///< a tile::Kernel<F>; launch through launch()
  int p = 1, m = 1, n = 1, bp = 1, bm = 1, bn = 1, trips = 0, flag = 0; ///< p = bp = 1: rank 2
  float scalar = 0;
  Grid grid;
  /// in0, in1, in2 (p x m x n, row-major), row (n), col (m).
  std::vector<std::vector<float>> inputs;
  std::vector<double> expected;     ///< out: p x m x n
  std::vector<double> expectedRows; ///< out2: per row (p x m), the sum of out over the first column tile
  /// Per element, the same DAG evaluated on absolute values (|a + b| -> |a| + |b|, ...):
  /// float32 rounding moves an element by at most a small multiple of 2^-24 times this,
  /// whatever cancellation the program does. Check |out - expected| <= tol * magnitude.
  std::vector<double> magnitude, magnitudeRows;

  /// Pseudo-code of the program, for failure messages.
  std::string describe() const;
  /// The specialisation a launch selects when every pointer is 16-byte aligned (or none
  /// is): to compile the same variant ahead of time for the GPU.
  Specialization specialization(int numWarps = 4, bool alignedPointers = true) const;
  /// Launches with `opts` (any executor); `out`, `out2` are p x m x n and p x m floats (host
  /// pointers for the CPU executor, device addresses for the GPU).
  void launch(const LaunchOptions &opts, const void *in0, const void *in1, const void *in2, const void *row,
              const void *col, void *out, void *out2) const;
  /// The kernel's rank-`rank` descriptor argument (2 or 3) of in0 or out at `base`: the
  /// p x m x n (or m x n) tensor where the program reads (and maybe stores) through
  /// descriptors, else a valid one-element one.
  TensorDescArg descriptor(const void *base, int rank) const;
};

/// The same seed always gives the same case.
RandomCase makeRandomCase(uint64_t seed);

} // namespace tile::randomkernels
