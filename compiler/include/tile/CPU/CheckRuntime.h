//===- CheckRuntime.h - the runtime of the CPU executor's checking mode ---===//
// Free of MLIR/LLVM. Registered host buffers, each with a shadow of which bytes were ever
// written, and the callback checking-mode code calls before each active memory access.
// The first refused access of a program instance is recorded in the thread's context;
// the launcher turns it into a tile::ProgramError after the instance returns.
#ifndef TILE_CPU_CHECKRUNTIME_H
#define TILE_CPU_CHECKRUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tile::cpu::check {

/// [begin, begin + bytes) is valid memory; `initialized`: may be read before written.
void addRegion(const void *begin, size_t bytes, bool initialized);
/// Forgets the region starting at `begin` (no-op if none).
void removeRegion(const void *begin);
/// Marks bytes as written (e.g. after the host filled a registered buffer).
void markWritten(const void *begin, size_t bytes);

/// What is being run on this thread, for the message of a refused access.
struct Context {
  std::string kernel;
  const std::vector<std::string> *sites = nullptr;
  unsigned pid[3] = {0, 0, 0};
  bool failed = false;
  std::string message; ///< one line, set by the first refused access
};
/// Installs `ctx` as the calling thread's context for its lifetime.
class ContextScope {
public:
  explicit ContextScope(Context &ctx);
  ~ContextScope();
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;

private:
  Context *prev_;
};

} // namespace tile::cpu::check

/// Called by checking-mode code for every lane of every load/store/atomic: kind 0 load,
/// 1 store, 2 atomic; `element` is the row-major index in the op's tensor. Returns 1 when
/// the access may go ahead, 0 when it is inactive or refused (then it is recorded).
extern "C" int32_t tile_cpu_check(int64_t addr, int64_t bytes, int32_t kind, int32_t site, int64_t element,
                                  int32_t active);

#endif
