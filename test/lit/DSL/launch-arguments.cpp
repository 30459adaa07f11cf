// A launch's C++ arguments are checked against the kernel's parameters when the launch
// compiles: a wrong count or kind is a compile error whose "required from here" names the
// launch line, and whose first line names the argument's index (from 0), the parameter's
// type and the argument's type (a float, a plain integer or a double * passed for a
// Ptr<float> used to become an address silently).
// RUN: not %tile-cxx-syntax -DCASE=1 %s 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: not %tile-cxx-syntax -DCASE=2 %s 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not %tile-cxx-syntax -DCASE=3 %s 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: not %tile-cxx-syntax -DCASE=4 %s 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: not %tile-cxx-syntax -DCASE=5 %s 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not %tile-cxx-syntax -DCASE=6 %s 2>&1 | FileCheck %s --check-prefix=DESC
// RUN: not %tile-cxx-syntax -DCASE=7 %s 2>&1 | FileCheck %s --check-prefix=POINTEE
// RUN: not %tile-cxx-syntax -DCASE=8 %s 2>&1 | FileCheck %s --check-prefix=LITERAL
// RUN: not %tile-cxx-syntax -DCASE=9 %s 2>&1 | FileCheck %s --check-prefix=DEVPTR
// RUN: not %tile-cxx-syntax -DCASE=10 %s 2>&1 | FileCheck %s --check-prefix=ARRAY2D
// RUN: %tile-cxx-syntax -DCASE=0 %s
#include "tile/tile.h"

using namespace tile;

/// Like tile::rt::DeviceBuffer, whose header needs cuda.h: a buffer with ptr().
struct Buffer {
  unsigned long long ptr() const { return 0x10000; }
};

void launches(float *x, float f, double *dp, uint64_t u, unsigned long long cu, const void *v) {
  auto k = kernel("k", [](Ptr<float> p, I32 n, Const<int> B) {
    (void)p;
    (void)n;
    (void)B;
  });
  auto m = kernel("m", [](Ptr<float> a, I32 n, Ptr<float> b) {
    (void)a;
    (void)n;
    (void)b;
  });
  auto d = kernel("d", [](TensorDesc<float, 2> t) { (void)t; });
  float arr[16] = {};
  const float carr[16] = {};
  float grid2d[4][4] = {};
  (void)f, (void)dp, (void)u, (void)cu, (void)v, (void)arr, (void)carr, (void)grid2d;
#if CASE == 0
  // Every accepted form of a Ptr<float> argument compiles.
  Buffer buf;
  k.launch({1}, x, 64, 128);                                   // a float *
  k.launch({1}, LaunchOptions{}, (const float *)nullptr, 64L, 128u);
  m.launch({1}, arr, 64, carr);                                // C arrays: their first elements
  m.launch({1}, v, 64, nullptr);                               // an untyped address, null
  m.launch({1}, DeviceAddress(u), 64, DeviceAddress(cu));      // integer addresses, explicitly
  m.launch({1}, buf, 64, x);                                   // a device buffer
  d.launch({1}, TensorDescArg{x, {16, 16}, {16, 1}});
#elif CASE == 1
  // FEW: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // FEW: error: static assertion failed: launch() needs one argument per kernel parameter
  k.launch({1}, x, 64);
#elif CASE == 2
  // MANY: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // MANY: error: static assertion failed: launch() needs one argument per kernel parameter
  k.launch({1}, x, 64, 128, 7);
#elif CASE == 3
  // PTR-NOT: error:
  // PTR: In instantiation of {{.*}}tile::detail::LaunchArgumentMismatch<0, tile::Ptr<float>, float>
  // PTR: launch-arguments.cpp:[[@LINE+3]]:{{[0-9]+}}:   required from here
  // PTR: error: static assertion failed: launch argument does not fit its kernel parameter (see LaunchArgumentMismatch<argument index from 0, parameter type, argument type> above): a Ptr<T> takes a T *, a void *, a tile::DeviceAddress or a buffer with ptr()
  // PTR-NOT: error:
  k.launch({1}, f, 64, 128);
#elif CASE == 4
  // CONST: In instantiation of {{.*}}LaunchArgumentMismatch<2, tile::Const<int>, double>
  // CONST: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // CONST: error: static assertion failed: launch argument does not fit {{.*}}: a Const<T> takes an integer
  k.launch({1}, x, 64, 0.5);
#elif CASE == 6
  // DESC: In instantiation of {{.*}}LaunchArgumentMismatch<0, tile::TensorDesc<float, 2>, float*>
  // DESC: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // DESC: error: static assertion failed: launch argument does not fit {{.*}}: a TensorDesc<T, R> takes a tile::TensorDescArg
  d.launch({1}, x);
#elif CASE == 5
  // INT: In instantiation of {{.*}}LaunchArgumentMismatch<1, tile::I32, float*>
  // INT: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // INT: error: static assertion failed: launch argument does not fit {{.*}}: a scalar parameter takes a number
  k.launch({1}, x, &f, 128);
#elif CASE == 7
  // A double * for a Ptr<float> would read every element wrong.
  // POINTEE-NOT: error:
  // POINTEE: In instantiation of {{.*}}tile::detail::LaunchArgumentMismatch<2, tile::Ptr<float>, double*>
  // POINTEE: launch-arguments.cpp:[[@LINE+3]]:{{[0-9]+}}:   required from here
  // POINTEE: error: static assertion failed: launch argument does not fit {{.*}}: a Ptr<T> takes a T * or a void *, not a pointer to another element type
  // POINTEE-NOT: error:
  m.launch({1}, x, 64, dp);
#elif CASE == 8
  // A count in a pointer's place would be a wild address.
  // LITERAL-NOT: error:
  // LITERAL: In instantiation of {{.*}}tile::detail::LaunchArgumentMismatch<0, tile::Ptr<float>, int>
  // LITERAL: launch-arguments.cpp:[[@LINE+3]]:{{[0-9]+}}:   required from here
  // LITERAL: error: static assertion failed: launch argument does not fit {{.*}}: a Ptr<T> takes no plain integer; pass a device address as tile::DeviceAddress(address)
  // LITERAL-NOT: error:
  m.launch({1}, 4096, 64, x);
#elif CASE == 9
  // An integer holding an address (a CUdeviceptr, a uint64_t) is wrapped explicitly too.
  // DEVPTR: In instantiation of {{.*}}LaunchArgumentMismatch<0, tile::Ptr<float>, long long unsigned int>
  // DEVPTR: a Ptr<T> takes no plain integer
  // DEVPTR: In instantiation of {{.*}}LaunchArgumentMismatch<2, tile::Ptr<float>, long unsigned int>
  // DEVPTR: a Ptr<T> takes no plain integer
  m.launch({1}, cu, 64, u);
#elif CASE == 10
  // A 2-D array decays to a pointer to rows, not to floats.
  // ARRAY2D: In instantiation of {{.*}}LaunchArgumentMismatch<0, tile::Ptr<float>, float (*)[4]>
  // ARRAY2D: error: static assertion failed: launch argument does not fit {{.*}}not a pointer to another element type
  m.launch({1}, grid2d, 64, x);
#endif
}
