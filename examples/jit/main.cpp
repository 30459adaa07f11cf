// A row softmax in the tile DSL, compiled on first launch: on the GPU when there is one, else on
// the CPU executor. Prints the relative error against a float64 softmax; exits 1 above 1e-5.
#include "../common/softmax_check.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"
#include "tile/tile.h"

#include <cstdio>

using namespace tile;

// One program per row; BLOCK >= n columns, the tail masked (-inf, so it adds nothing).
auto rowSoftmax = tile::kernel("row_softmax", [](Ptr<float> x, Ptr<float> y, I32 n, Const<int> BLOCK) {
  Value cols = arange(0, BLOCK);
  Value mask = cols < n;
  Value offs = program_id(0) * n + cols;
  Value row = load(x + offs, mask, -INFINITY);
  Value e = exp(row - max(row, 0));
  store(y + offs, e / sum(e, 0), mask);
});

int main() {
  const int rows = 37, n = 200, block = 256;
  std::vector<float> x = example::randomInputs(rows * n), y(rows * n, NAN);
  const bool gpu = rt::gpuAvailable();
  if (gpu) {
    rt::DeviceBuffer dx = rt::DeviceBuffer::fromHost(x), dy(y.size() * sizeof(float));
    rowSoftmax.launch({rows}, dx, dy, n, block);
    y = dy.toHost<float>(y.size());
  } else {
    // No GPU: the CPU executor runs the same kernel on host memory.
    rowSoftmax.launch({rows}, LaunchOptions{.executor = Executor::CPU}, x.data(), y.data(), n, block);
  }
  double rel = example::softmaxRelativeError(x, y, rows, n);
  bool ok = rel <= 1e-5; // NaN fails too
  std::printf("softmax_jit on %s: %d x %d, relative error %.2e: %s\n", gpu ? "the GPU" : "the CPU executor", rows, n,
              rel, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
