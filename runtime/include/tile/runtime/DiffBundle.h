//===- DiffBundle.h - cases for GPU-vs-CPU-executor differential testing --===//
// The GPU machine has no LLVM, so the CPU executor cannot run there. Instead the build
// machine runs each kernel (library kernels and random programs) on the CPU executor,
// and writes a bundle: the compiled kernel (its record), its launch, its inputs and the CPU
// executor's outputs. The GPU machine replays every case with the runtime alone and compares.
#pragma once

#include "tile/Spec.h"
#include "tile/runtime/CompiledKernel.h"
#include "tile/runtime/Launch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tile::rt {

/// How to compare the elements of an output buffer.
enum class DiffElem : uint8_t { F32, F16, BF16, F64, I8, I32, I64 };

struct DiffArg {
  ArgKind kind = ArgKind::I32;
  DiffElem elem = DiffElem::F32; ///< buffers: element type
  int64_t scalar = 0;            ///< I32/I64 value; F16/BF16 bits; I1 0 or 1
  float f32 = 0;                 ///< F32 value
  std::vector<uint8_t> input;    ///< buffers: contents before the launch
  std::vector<uint8_t> expected; ///< buffers the kernel writes: the CPU executor's result
  /// Optional, per element of `expected`: the error bound is tolerance * errorScale[i]
  /// (absolute) instead of a relative norm — for programs whose cancellations make a
  /// norm meaningless (random programs give the magnitude of each result's terms).
  std::vector<double> errorScale;
  /// Desc: the argument whose buffer is its base (an earlier Ptr), its shape and strides.
  int descBase = -1;
  std::vector<int64_t> descShape, descStrides;
};

struct DiffCase {
  std::string name;      ///< e.g. "softmax 37x1025" or "random#123"
  uint64_t seed = 0;     ///< replays the case where it came from a generator
  CompiledKernel kernel; ///< the code under test and its launch metadata
  Dim3 grid;
  double tolerance = 1e-5;   ///< float outputs: max ‖gpu − cpu‖/‖cpu‖; integers compare exactly
  std::vector<DiffArg> args; ///< one per non-Const kernel parameter, in order
};

/// Writes/reads the bundle (binary, versioned, checksummed). read throws Error with a
/// one-line cause for a missing, truncated or corrupt file.
void writeDiffBundle(const std::string &path, const std::vector<DiffCase> &cases);
std::vector<DiffCase> readDiffBundle(const std::string &path);

/// The outcome of one output buffer's comparison.
struct DiffResult {
  bool ok = true;
  double error = 0;   ///< relative error (floats) or mismatching elements (integers)
  std::string detail; ///< first mismatch, for the failure message
};

/// Compares `actual` with `expected` as elements of `elem`. A NaN where the CPU
/// executor has none fails.
DiffResult compareOutputs(DiffElem elem, const std::vector<uint8_t> &expected, const std::vector<uint8_t> &actual,
                          double tolerance, const std::vector<double> &errorScale = {});

} // namespace tile::rt
