// The row softmax of kernels.h, compiled ahead of time (softmax_aot_aot.h: the typed stub
// aot::row_softmax), launched through the runtime alone. Without a GPU it exits 77 (skipped).
#include "../common/softmax_check.h"
#include "softmax_aot_aot.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

#include <cstdio>
#include <string>

int main() {
  std::string why;
  if (!tile::rt::gpuAvailable(&why)) {
    std::printf("softmax_aot: skipped, no GPU (%s)\n", why.c_str());
    return 77;
  }
  const int rows = 37, n = 200;
  std::vector<float> x = example::randomInputs(rows * n);
  auto dx = tile::rt::DeviceBuffer::fromHost(x);
  tile::rt::DeviceBuffer dy(x.size() * sizeof(float));
  dy.fillBytes(0xff); // NaN: a row the kernel misses fails the check
  aot::row_softmax({tile::rt::Dim3{rows, 1, 1}, 4, nullptr}, dx.ptr(), dy.ptr(), n, 256);
  std::vector<float> y = dy.toHost<float>(x.size());
  double rel = example::softmaxRelativeError(x, y, rows, n);
  bool ok = rel <= 1e-5;
  std::printf("softmax_aot on the GPU: %d x %d, relative error %.2e: %s\n", rows, n, rel, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
