//===- CaseBuilder.h - one differential case: CPU executor run + GPU PTX --===//
// Runs a kernel on the CPU executor with host buffers and records, for the GPU
// machine, the PTX of the same specialisation, the launch, the inputs and the CPU
// executor's outputs (tile::rt::DiffCase).
#pragma once

#include "tile/runtime/DiffBundle.h"
#include "tile/tile.h"

#include <cstring>
#include <string>
#include <variant>
#include <vector>

namespace tile::diff {

/// A host buffer argument. `output`: the kernel writes it (compared on the GPU).
struct Buffer {
  std::vector<uint8_t> bytes;
  rt::DiffElem elem = rt::DiffElem::F32;
  bool output = false;
  bool initialized = true; ///< false: the kernel must write before it reads (checked on the CPU)

  template <class T> static Buffer of(const std::vector<T> &v, rt::DiffElem elem, bool output = false) {
    Buffer b;
    b.bytes.resize(v.size() * sizeof(T));
    std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
    b.elem = elem;
    b.output = output;
    return b;
  }
  /// An output of `bytes` poisoned with 0xFF (NaN for floats), as the GPU's is.
  static Buffer poisoned(size_t bytes, rt::DiffElem elem) {
    Buffer b;
    b.bytes.assign(std::max<size_t>(bytes, 16), 0xFF);
    b.elem = elem;
    b.output = true;
    b.initialized = false;
    return b;
  }
};

struct Scalar {
  int64_t value;
};
struct Float {
  float value;
};
struct Constant {
  int64_t value;
};
/// A TensorDesc argument over the buffer of argument `baseArg` (an earlier Ptr argument).
struct Descriptor {
  size_t baseArg;
  std::vector<int64_t> shape, strides;
};
using Arg = std::variant<Buffer, Scalar, Float, Constant, Descriptor>;

/// The launch argument of `d` over the buffer at `base`.
TensorDescArg descriptorArg(uint64_t base, const Descriptor &d);

/// Runs `kernel` on the CPU executor (checking mode on) and returns the case the GPU
/// replays. `args` follow the kernel's parameters.
rt::DiffCase makeCase(const KernelBase &kernel, std::string name, uint64_t seed, Grid grid, int numWarps,
                      std::vector<Arg> args, double tolerance);

} // namespace tile::diff
