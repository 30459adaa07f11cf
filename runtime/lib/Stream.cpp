// Streams and events.
#include "DriverApi.h"

#include "tile/runtime/Stream.h"

namespace tile::rt {

using detail::api;
using detail::check;

Stream::Stream() : Stream(CU_STREAM_DEFAULT) {}

Stream::Stream(unsigned flags) {
  detail::ensureContext();
  check(api().streamCreate(s_.out(), flags), "cuStreamCreate");
}

Stream::Stream(unsigned flags, int priority) {
  detail::ensureContext();
  check(api().streamCreateWithPriority(s_.out(), flags, priority), "cuStreamCreateWithPriority");
}

StreamPriorities streamPriorities() {
  detail::ensureContext();
  StreamPriorities p;
  check(api().ctxGetStreamPriorityRange(&p.lowest, &p.highest), "cuCtxGetStreamPriorityRange");
  return p;
}

void Stream::synchronize() { check(api().streamSynchronize(s_.get()), "cuStreamSynchronize"); }

void Stream::waitFor(const Event &e) { check(api().streamWaitEvent(s_.get(), e.handle(), 0), "cuStreamWaitEvent"); }

Event::Event() : Event(CU_EVENT_DEFAULT) {}

Event::Event(unsigned flags) {
  detail::ensureContext();
  check(api().eventCreate(e_.out(), flags), "cuEventCreate");
}

void Event::record(CUstream s) { check(api().eventRecord(e_.get(), s), "cuEventRecord"); }

float Event::elapsedMs(const Event &start) const {
  float ms = 0;
  check(api().eventElapsedTime(&ms, start.e_.get(), e_.get()), "cuEventElapsedTime");
  return ms;
}

void Event::synchronize() { check(api().eventSynchronize(e_.get()), "cuEventSynchronize"); }

} // namespace tile::rt
