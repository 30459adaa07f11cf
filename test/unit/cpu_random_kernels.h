//===- cpu_random_kernels.h - random valid DSL programs with references ---===//
// makeRandomCase(seed) builds one random kernel from a seed: a DAG of f32 operations on
// [BM, BN] tiles of an m x n problem, or [BP, BM, BN] tiles of p x m x n (rank 3), ragged
// edges masked: elementwise chains (+ - * / maximum minimum exp abs neg, the math library:
// cpu_random_math.h), comparisons with
// where, broadcasts of rows (along n) and columns (along m), reductions along any axis
// (sum, max, min, argmax) broadcast back,
// loops with a carried tile and branches on a scalar argument, attention blocks (an online
// softmax over key blocks: cpu_random_attention.h); leaves read through tensor
// descriptors of every rank and of f32 and f16 (in0 as blocks of its descriptor of the
// program's rank or of a rank-4 view, in2 through an f16 copy's, the row and column vectors
// through rank-1 descriptors) and then, unsplit, half the results stored through out's (most
// rank-2 ones with extents of multiples of 16 and 8-row tiles: TMA stores on sm_90a); half
// of them store the
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
  std::shared_ptr<const KernelBase> kernel;                             ///< a tile::Kernel<F>; launch through launch()
  int p = 1, m = 1, n = 1, bp = 1, bm = 1, bn = 1, trips = 0, flag = 0; ///< p = bp = 1: rank 2
  float scalar = 0;
  Grid grid;
  /// in0, in1, in2 (p x m x n, row-major), row (n), col (m).
  std::vector<std::vector<float>> inputs;
  std::vector<uint16_t> in2Half;    ///< in2 in f16 (exact: in2 is on a grid of quarters), read through h2 / h3
  std::vector<double> expected;     ///< out: p x m x n
  std::vector<double> expectedRows; ///< out2: per row (p x m), the sum of out over the first column tile
  /// Per element, the same DAG evaluated on absolute values (|a + b| -> |a| + |b|, ...):
  /// float32 rounding moves an element by at most a small multiple of 2^-24 times this,
  /// whatever cancellation the program does. Check |out - expected| <= tol * magnitude.
  std::vector<double> magnitude, magnitudeRows;

  /// Pseudo-code of the program, for failure messages.
  std::string describe() const;
  /// Whether out must start at zero (its blocks are added, not stored); else it starts poisoned.
  bool outZeroed() const;
  /// The specialisation a launch selects when every pointer is 16-byte aligned (or none
  /// is): to compile the same variant ahead of time for the GPU.
  Specialization specialization(int numWarps = 4, bool alignedPointers = true) const;
  /// Launches with `opts` (any executor); `out`, `out2` are p x m x n and p x m floats (host
  /// pointers for the CPU executor, device addresses for the GPU), `in2Half` in2Half's data.
  void launch(const LaunchOptions &opts, const void *in0, const void *in1, const void *in2, const void *row,
              const void *col, void *out, void *out2, const void *in2Half) const;
  /// The kernel's descriptor arguments, in parameter order: in0 and out of rank 2 and 3, the
  /// row and column vectors (rank 1), in0 as [1, p, m, n] (rank 4), in2's f16 copy of rank 2 and 3.
  enum class Desc { In0R2, In0R3, OutR2, OutR3, Row, Col, In0R4, In2HalfR2, In2HalfR3 };
  static constexpr Desc kDescriptors[] = {Desc::In0R2, Desc::In0R3, Desc::OutR2,     Desc::OutR3,    Desc::Row,
                                          Desc::Col,   Desc::In0R4, Desc::In2HalfR2, Desc::In2HalfR3};
  /// The kernel argument whose buffer a descriptor describes: 0 in0, 3 row, 4 col, 5 out, 7 in2Half.
  static int descriptorBase(Desc which);
  /// Descriptor `which` over `base`: the tensor where the program reads (or stores) through
  /// it, else a valid one-element one.
  TensorDescArg descriptor(Desc which, const void *base) const;
};

/// What a correct executor meets: |out - expected| <= kTolerance * magnitude (about 1000
/// float32 roundings of the largest intermediate; the attention block's magnitudes are its
/// error bound over this).
constexpr double kTolerance = 1.0 / (1 << 14);

/// The same seed always gives the same case.
RandomCase makeRandomCase(uint64_t seed);

} // namespace tile::randomkernels
