//===- CheckRuntime.cpp - registered buffers and the checking callback ----===//
// Checking mode runs one thread, but registration may come from any: one mutex guards
// the region map. The shadow keeps one bit per byte: written (or registered as
// initialised) or not.
#include "tile/CPU/CheckRuntime.h"

#include <cinttypes>
#include <cstdio>
#include <iterator>
#include <map>
#include <mutex>

namespace tile::cpu::check {
namespace {

struct Region {
  size_t bytes = 0;
  std::vector<bool> written;
};

std::mutex &regionMutex() {
  static std::mutex mu;
  return mu;
}
std::map<uintptr_t, Region> &regions() {
  static std::map<uintptr_t, Region> r;
  return r;
}
thread_local Context *current = nullptr;

/// The region containing [addr, addr + bytes), or null. `near` gets the closest region
/// starting at or below addr (to say how far out of bounds an access is).
Region *find(uintptr_t addr, size_t bytes, std::map<uintptr_t, Region>::iterator *near) {
  auto &map = regions();
  auto it = map.upper_bound(addr);
  if (it == map.begin()) {
    *near = map.end();
    return nullptr;
  }
  --it;
  *near = it;
  if (addr + bytes > it->first + it->second.bytes) return nullptr;
  return &it->second;
}

const char *kindName(int32_t kind) { return kind == 0 ? "load" : kind == 1 ? "store" : "atomic"; }

} // namespace

void addRegion(const void *begin, size_t bytes, bool initialized) {
  std::lock_guard<std::mutex> lock(regionMutex());
  Region r;
  r.bytes = bytes;
  r.written.assign(bytes, initialized);
  regions()[reinterpret_cast<uintptr_t>(begin)] = std::move(r);
}

void removeRegion(const void *begin) {
  std::lock_guard<std::mutex> lock(regionMutex());
  regions().erase(reinterpret_cast<uintptr_t>(begin));
}

void markWritten(const void *begin, size_t bytes) {
  std::lock_guard<std::mutex> lock(regionMutex());
  uintptr_t a = reinterpret_cast<uintptr_t>(begin);
  std::map<uintptr_t, Region>::iterator near;
  if (Region *r = find(a, bytes, &near))
    for (size_t i = 0; i < bytes; ++i) r->written[a - near->first + i] = true;
}

ContextScope::ContextScope(Context &ctx) : prev_(current) { current = &ctx; }
ContextScope::~ContextScope() { current = prev_; }

} // namespace tile::cpu::check

using namespace tile::cpu::check;

extern "C" int32_t tile_cpu_check(int64_t addr, int64_t bytes, int32_t kind, int32_t site, int64_t element,
                                  int32_t active) {
  if (!active) return 0;
  Context *ctx = current;
  if (!ctx) return 1;
  if (ctx->failed) return 0; // the program is already lost: perform nothing more
  std::lock_guard<std::mutex> lock(regionMutex());
  uintptr_t a = static_cast<uintptr_t>(addr);
  size_t n = static_cast<size_t>(bytes);
  std::map<uintptr_t, Region>::iterator near;
  Region *r = find(a, n, &near);
  std::string what, detail;
  if (!r) {
    char buf[160];
    if (near != regions().end() && a >= near->first)
      std::snprintf(buf, sizeof buf, "; it ends %" PRIu64 " bytes past the %zu-byte buffer at 0x%" PRIxPTR,
                    static_cast<uint64_t>(a + n - (near->first + near->second.bytes)), near->second.bytes, near->first);
    else std::snprintf(buf, sizeof buf, "; no registered buffer holds it");
    what = std::string("out-of-bounds ") + kindName(kind);
    detail = buf;
  } else {
    size_t off = a - near->first;
    if (kind != 1)
      for (size_t i = 0; i < n && what.empty(); ++i)
        if (!r->written[off + i]) what = std::string("read of uninitialised memory by ") + kindName(kind);
    if (what.empty()) {
      if (kind != 0)
        for (size_t i = 0; i < n; ++i) r->written[off + i] = true;
      return 1;
    }
  }
  // Sites are "file:line:col\top-name" (Memory.cpp); the location leads, as in every ProgramError.
  std::string location = "<unknown location>", opName = "memory op";
  if (ctx->sites && site >= 0 && static_cast<size_t>(site) < ctx->sites->size()) {
    const std::string &s = (*ctx->sites)[static_cast<size_t>(site)];
    size_t tab = s.find('\t');
    location = s.substr(0, tab);
    if (tab != std::string::npos) opName = s.substr(tab + 1);
  }
  char tail[256];
  std::snprintf(tail, sizeof tail, " of %" PRId64 " bytes at 0x%" PRIx64 " by program (%u, %u, %u), element %" PRId64,
                bytes, static_cast<uint64_t>(addr), ctx->pid[0], ctx->pid[1], ctx->pid[2], element);
  ctx->failed = true;
  ctx->message = location + ": error: " + opName + ": " + what + tail + detail + " (kernel '" + ctx->kernel +
                 "', CPU checking mode)";
  return 0;
}
