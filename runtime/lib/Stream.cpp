// Streams and events.
#include "DriverApi.h"

#include "tile/runtime/Stream.h"

#include <utility>

namespace tile::rt {

using detail::api;
using detail::check;

Stream::Stream() : Stream(CU_STREAM_DEFAULT) {}

Stream::Stream(unsigned flags) {
  detail::ensureContext();
  check(api().streamCreate(&s_, flags), "cuStreamCreate");
}

Stream::Stream(unsigned flags, int priority) {
  detail::ensureContext();
  check(api().streamCreateWithPriority(&s_, flags, priority), "cuStreamCreateWithPriority");
}

StreamPriorities streamPriorities() {
  detail::ensureContext();
  StreamPriorities p;
  check(api().ctxGetStreamPriorityRange(&p.lowest, &p.highest), "cuCtxGetStreamPriorityRange");
  return p;
}

Stream::~Stream() {
  if (s_) (void)api().streamDestroy(s_);
}

Stream::Stream(Stream &&o) noexcept : s_(std::exchange(o.s_, nullptr)) {}

Stream &Stream::operator=(Stream &&o) noexcept {
  if (this != &o) {
    if (s_) (void)api().streamDestroy(s_);
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

void Stream::synchronize() { check(api().streamSynchronize(s_), "cuStreamSynchronize"); }

void Stream::waitFor(const Event &e) { check(api().streamWaitEvent(s_, e.handle(), 0), "cuStreamWaitEvent"); }

Event::Event() : Event(CU_EVENT_DEFAULT) {}

Event::Event(unsigned flags) {
  detail::ensureContext();
  check(api().eventCreate(&e_, flags), "cuEventCreate");
}

Event::~Event() {
  if (e_) (void)api().eventDestroy(e_);
}

Event::Event(Event &&o) noexcept : e_(std::exchange(o.e_, nullptr)) {}

Event &Event::operator=(Event &&o) noexcept {
  if (this != &o) {
    if (e_) (void)api().eventDestroy(e_);
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}

void Event::record(CUstream s) { check(api().eventRecord(e_, s), "cuEventRecord"); }

float Event::elapsedMs(const Event &start) const {
  float ms = 0;
  check(api().eventElapsedTime(&ms, start.e_, e_), "cuEventElapsedTime");
  return ms;
}

void Event::synchronize() { check(api().eventSynchronize(e_), "cuEventSynchronize"); }

} // namespace tile::rt
