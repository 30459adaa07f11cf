//===- Launch.h - the grid, the executor and the options of a launch ------===//
#ifndef TILE_LAUNCH_H
#define TILE_LAUNCH_H

#include <cstdint>

namespace tile {

struct Grid {
  unsigned x = 1, y = 1, z = 1;
  Grid(int64_t gx = 1, int64_t gy = 1, int64_t gz = 1)
      : x(static_cast<unsigned>(gx)), y(static_cast<unsigned>(gy)), z(static_cast<unsigned>(gz)) {}
};

/// Which executor runs a launch. Auto: the GPU when one is usable, else the CPU executor
/// (the same kernel compiled for this host); env TILE_EXECUTOR=cpu|gpu overrides Auto.
/// On the CPU, pointer arguments are host addresses, the launch is synchronous (the
/// stream is ignored) and runs every program id in turn (TILE_CPU_THREADS=n: n threads).
enum class Executor : uint8_t { Auto, GPU, CPU };

struct LaunchOptions {
  int numWarps = 4;
  /// Buffers per software-pipelined load of a K loop (cp.async rings on sm_80+; Triton's
  /// num_stages): 0 = the compiler's default (3), 1 = no pipelining. The CPU executor
  /// ignores it. Part of the specialisation (and so of the cache key).
  int numStages = 0;
  void *stream = nullptr; ///< a CUstream; null = the default stream
  Executor executor = Executor::Auto;
  /// CPU executor only: check every active load/store/atomic element against the buffers
  /// registered with tile::cpu::registerBuffer (bounds, and reads of never-written
  /// bytes); a bad access throws ProgramError naming the program, element and source
  /// line. Env TILE_CPU_CHECK=1 turns it on for every CPU launch.
  bool check = false;
};

/// The executor a launch with `requested` runs on (resolves Auto as described above).
Executor resolveExecutor(Executor requested);

/// A device address passed explicitly for a Ptr<T> parameter: a CUdeviceptr, or the
/// address of an allocation the caller made some other way. Launches refuse plain integers
/// for pointers (a count passed in a pointer's place would become a wild address), so an
/// address held as an integer is wrapped: `k.launch(grid, tile::DeviceAddress(p), n)`. A
/// tile::rt::DeviceBuffer (anything with ptr()) is passed as it is; on the CPU executor
/// pointers are host addresses, passed as typed pointers (a T * for a Ptr<T>) or void *.
class DeviceAddress {
public:
  explicit constexpr DeviceAddress(uint64_t address) : address_(address) {}
  constexpr uint64_t ptr() const { return address_; }

private:
  uint64_t address_;
};

} // namespace tile

#endif
