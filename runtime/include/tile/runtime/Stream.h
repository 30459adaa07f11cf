// Streams and events, RAII.
#pragma once

#include "tile/runtime/DriverHandle.h"

#include <cuda.h>

namespace tile::rt {

class Event;

class Stream {
public:
  Stream();                        // CU_STREAM_DEFAULT: ordered with the legacy default stream
  explicit Stream(unsigned flags); // e.g. CU_STREAM_NON_BLOCKING
  /// With a scheduling priority (cuStreamCreateWithPriority): where blocks of several streams'
  /// kernels wait for room on the GPU, the higher priority's go first. A graph captured from the
  /// stream keeps it on each kernel node (GraphExec instantiates with node priorities).
  Stream(unsigned flags, int priority);

  CUstream handle() const { return s_.get(); }
  void synchronize();
  /// Work enqueued on this stream from now on starts after `e`'s last record completes
  /// (cuStreamWaitEvent). Inside a capture this is how a second stream forks from, or joins,
  /// the captured one.
  void waitFor(const Event &e);

private:
  StreamHandle s_;
};

/// The context's stream priorities (cuCtxGetStreamPriorityRange). Lower numbers run first:
/// `highest` <= `lowest` (e.g. -5 and 0); both 0 where the device has none.
struct StreamPriorities {
  int lowest = 0, highest = 0;
};
StreamPriorities streamPriorities();

class Event {
public:
  Event(); // CU_EVENT_DEFAULT: timing enabled
  explicit Event(unsigned flags);

  CUevent handle() const { return e_.get(); }
  void record(CUstream s = nullptr);
  // Milliseconds from `start` to this event; both must have been recorded and this one completed.
  float elapsedMs(const Event &start) const;
  void synchronize();

private:
  EventHandle e_;
};

} // namespace tile::rt
