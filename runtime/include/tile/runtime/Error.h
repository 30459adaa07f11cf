// tile::rt::Error: the one exception type the runtime throws (a tile::RuntimeError).
#pragma once

#include "tile/Error.h"

#include <cuda.h>

#include <stdexcept>
#include <string>

namespace tile::rt {

// Messages are always a single line (embedded newlines, e.g. from a JIT log, are folded into
// " | ") so that a failure shows up intact in test logs and one-line CLI diagnostics.
class Error : public RuntimeError {
public:
  explicit Error(const std::string &message, CUresult code = CUDA_SUCCESS);
  // The driver's result for failed driver calls; CUDA_SUCCESS for errors detected by the runtime itself.
  CUresult code() const noexcept { return code_; }

private:
  CUresult code_;
};

} // namespace tile::rt
