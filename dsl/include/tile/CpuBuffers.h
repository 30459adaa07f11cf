//===- CpuBuffers.h - host buffers the CPU executor's checking mode knows --===//
// Pointer arguments of a CPU launch are host addresses; in checking mode
// (LaunchOptions::check, TILE_CPU_CHECK=1) every access must fall inside a registered
// buffer, and bytes registered uninitialised must be written before read.
#ifndef TILE_CPUBUFFERS_H
#define TILE_CPUBUFFERS_H

#include <cstddef>

namespace tile::cpu {

void registerBuffer(const void *p, size_t bytes, bool initialized = true);
void unregisterBuffer(const void *p);
/// Records that the host wrote [p, p + bytes) of a registered buffer.
void markInitialized(const void *p, size_t bytes);

/// Registers a buffer for the scope.
class ScopedBuffer {
public:
  ScopedBuffer(const void *p, size_t bytes, bool initialized = true) : p_(p) { registerBuffer(p, bytes, initialized); }
  ~ScopedBuffer() { unregisterBuffer(p_); }
  ScopedBuffer(const ScopedBuffer &) = delete;
  ScopedBuffer &operator=(const ScopedBuffer &) = delete;

private:
  const void *p_;
};

} // namespace tile::cpu

#endif
