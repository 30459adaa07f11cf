// GPU-only ops are a feature gap of the CPU executor, not a compiler bug: the diagnostic
// starts with "unsupported: ", which the CPU compiler turns into tile::UnsupportedError at
// the op's source line (instead of "internal compiler error").
// RUN: tile-opt %s -split-input-file --tile-lower-to-cpu -verify-diagnostics

func.func @barrier(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{unsupported: 'tile.barrier' is not supported by the CPU executor}}
  tile.barrier
  return
}

// -----

func.func @fence(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{unsupported: 'tile.fence_async_shared' is not supported by the CPU executor}}
  tile.fence_async_shared
  return
}
