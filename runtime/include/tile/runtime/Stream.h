// Streams and events, RAII.
#pragma once

#include <cuda.h>

namespace tile::rt {

class Stream {
 public:
  Stream();                        // CU_STREAM_DEFAULT: ordered with the legacy default stream
  explicit Stream(unsigned flags); // e.g. CU_STREAM_NON_BLOCKING
  ~Stream();
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  CUstream handle() const { return s_; }
  void synchronize();

 private:
  CUstream s_ = nullptr;
};

class Event {
 public:
  Event();                         // CU_EVENT_DEFAULT: timing enabled
  explicit Event(unsigned flags);
  ~Event();
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  CUevent handle() const { return e_; }
  void record(CUstream s = nullptr);
  // Milliseconds from `start` to this event; both must have been recorded and this one completed.
  float elapsedMs(const Event &start) const;
  void synchronize();

 private:
  CUevent e_ = nullptr;
};

} // namespace tile::rt
