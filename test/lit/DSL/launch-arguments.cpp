// A launch's C++ arguments are checked against the kernel's parameters when the launch
// compiles: a wrong count or kind is a compile error whose "required from here" names the
// launch line (a float passed for a pointer used to become an address silently).
// RUN: not %tile-cxx-syntax -DCASE=1 %s 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: not %tile-cxx-syntax -DCASE=2 %s 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not %tile-cxx-syntax -DCASE=3 %s 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: not %tile-cxx-syntax -DCASE=4 %s 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: not %tile-cxx-syntax -DCASE=5 %s 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not %tile-cxx-syntax -DCASE=6 %s 2>&1 | FileCheck %s --check-prefix=DESC
// RUN: %tile-cxx-syntax -DCASE=0 %s
#include "tile/tile.h"

using namespace tile;

void launches(uint64_t x, float f) {
  auto k = kernel("k", [](Ptr<float> p, I32 n, Const<int> B) {
    (void)p;
    (void)n;
    (void)B;
  });
  auto d = kernel("d", [](TensorDesc<float, 2> t) { (void)t; });
#if CASE == 0
  k.launch({1}, x, 64, 128);                       // the right arguments compile
  k.launch({1}, LaunchOptions{}, (float *)nullptr, 64L, 128u);
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
  // PTR: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // PTR: error: static assertion failed: launch argument of the wrong kind: a Ptr<T> parameter takes a device address
  k.launch({1}, f, 64, 128);
#elif CASE == 4
  // CONST: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // CONST: error: static assertion failed: launch argument of the wrong kind: {{.*}} Const<T> an integer
  k.launch({1}, x, 64, 0.5);
#elif CASE == 6
  // DESC: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // DESC: error: static assertion failed: launch argument of the wrong kind: {{.*}} TensorDesc<T, R> a tile::TensorDescArg
  d.launch({1}, x);
#elif CASE == 5
  // INT: launch-arguments.cpp:[[@LINE+2]]:{{[0-9]+}}:   required from here
  // INT: error: static assertion failed: launch argument of the wrong kind
  k.launch({1}, x, &f, 128);
#endif
}
