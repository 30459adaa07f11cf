// tile-opt accepts LLVM's -debug and -debug-only like mlir-opt, although Debian's release
// LLVM does not register them (tile-opt does): the passes' LLVM_DEBUG lines print in builds of
// this project without NDEBUG (the sanitizer build); in a release build the flags do nothing.
// RUN: tile-opt -debug-only=tile-allocate-shared,convert-tile-to-llvm %s | FileCheck %s
// RUN: tile-opt -debug %s | FileCheck %s
// CHECK: func.func @empty
func.func @empty() {
  return
}
