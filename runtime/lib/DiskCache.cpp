// On-disk artefact cache: checksummed entries, atomic writes, self-healing on corruption.
#include "tile/runtime/DiskCache.h"

#include "tile/runtime/EnvRegistry.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Hash.h"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <vector>

namespace tile::rt {

namespace {

constexpr const char *kMagic = "tile-cache";
constexpr const char *kVersion = "v1";
constexpr size_t kMaxHeader = 512;

std::string env(const char *name) {
  // TILE_* names through the registry (EnvRegistry.h); HOME and XDG_CACHE_HOME directly.
  const char *v = std::string_view(name).starts_with("TILE_") ? readEnv(name) : std::getenv(name);
  return v ? v : "";
}

bool validKey(const std::string &key) {
  if (key.empty() || key.size() > 200 || key[0] == '.') return false;
  for (char c : key)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

bool writeAll(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Returns "" when the entry is well-formed (payload extracted into *payload), else why it is not.
std::string parseEntry(const std::string &data, const std::string &key, std::string *payload) {
  size_t nl = data.find('\n');
  if (nl == std::string::npos || nl > kMaxHeader) return "no header line";
  std::istringstream header(data.substr(0, nl));
  std::vector<std::string> f;
  for (std::string tok; header >> tok;) f.push_back(tok);
  if (f.size() != 5 || f[0] != kMagic) return "bad header";
  if (data.compare(0, nl, f[0] + " " + f[1] + " " + f[2] + " " + f[3] + " " + f[4]) != 0) return "bad header spacing";
  if (f[1] != kVersion) return "unsupported version " + f[1];
  if (f[2] != key) return "header names key " + f[2];
  size_t want = 0;
  auto [end, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), want);
  if (ec != std::errc() || end != f[3].data() + f[3].size()) return "bad payload size";
  size_t have = data.size() - nl - 1;
  if (have != want) return "payload is " + std::to_string(have) + " bytes, header says " + f[3];
  std::string_view body(data.data() + nl + 1, have);
  if (f[4] != hex64(fnv1a64(body))) return "checksum mismatch";
  payload->assign(body);
  return "";
}

// Directories a write failed in, and the entries stored for them since: process-wide, because
// callers (the autotuner) make short-lived DiskCache objects over the same directory.
struct MemoryFallback {
  std::mutex mutex;
  std::map<std::string, std::map<std::string, std::string>> entries; // dir -> key -> payload

  static MemoryFallback &get() {
    static MemoryFallback *m = new MemoryFallback; // never destroyed: usable during exit
    return *m;
  }
};

} // namespace

DiskCache::DiskCache(std::string dir) : dir_(dir.empty() ? defaultDir() : std::move(dir)) {}

std::string DiskCache::defaultDir() {
  if (std::string d = env("TILE_CACHE_DIR"); !d.empty()) return d;
  // XDG says relative values are invalid and must be ignored.
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty() && x[0] == '/') return x + "/tile";
  std::string home = env("HOME");
  if (home.empty())
    if (const passwd *pw = getpwuid(getuid()); pw && pw->pw_dir) home = pw->pw_dir;
  if (!home.empty()) return home + "/.cache/tile";
  return "/tmp/tile-cache-" + std::to_string(getuid());
}

DiskCache &DiskCache::global() {
  static DiskCache cache(defaultDir());
  return cache;
}

bool DiskCache::inMemoryOnly(const std::string &dir) {
  MemoryFallback &m = MemoryFallback::get();
  std::lock_guard<std::mutex> lock(m.mutex);
  return m.entries.count(dir) != 0;
}

bool DiskCache::forceRecompile() { return env("TILE_FORCE_RECOMPILE") == "1"; }

std::string DiskCache::pathFor(const std::string &key) const {
  if (!validKey(key))
    throw Error("tile: invalid disk cache key '" + key + "' (want [A-Za-z0-9_.-]+, not starting with '.')");
  return dir_ + "/" + key + ".tile";
}

std::optional<std::string> DiskCache::load(const std::string &key) { return load(key, "recompiling"); }

std::optional<std::string> DiskCache::load(const std::string &key, const char *action) {
  std::string path = pathFor(key);
  if (forceRecompile()) return std::nullopt;
  {
    MemoryFallback &m = MemoryFallback::get();
    std::lock_guard<std::mutex> lock(m.mutex);
    if (auto d = m.entries.find(dir_); d != m.entries.end()) {
      auto e = d->second.find(key);
      if (e == d->second.end()) return std::nullopt;
      return e->second;
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt; // miss (or unreadable: treated the same, we will just recompile)
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  std::string payload;
  if (std::string why = parseEntry(data, key, &payload); !why.empty()) {
    std::fprintf(stderr, "tile: cache entry %s is corrupt (%s); %s\n", path.c_str(), why.c_str(), action);
    ::unlink(path.c_str());
    return std::nullopt;
  }
  return payload;
}

void DiskCache::store(const std::string &key, const std::string &payload) {
  std::string path = pathFor(key);
  MemoryFallback &memory = MemoryFallback::get();
  {
    std::lock_guard<std::mutex> lock(memory.mutex);
    if (auto d = memory.entries.find(dir_); d != memory.entries.end()) {
      d->second[key] = payload;
      return;
    }
  }
  // Unique per process and call, dot-prefixed so that it is never mistaken for an entry.
  static std::atomic<unsigned> counter{0};
  std::string tmp = dir_ + "/." + key + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  auto fail = [&](const char *step) {
    int err = errno;
    ::unlink(tmp.c_str());
    std::lock_guard<std::mutex> lock(memory.mutex);
    // Another thread may have failed first: then it warned, and this entry joins its map.
    bool first = memory.entries.find(dir_) == memory.entries.end();
    memory.entries[dir_][key] = payload;
    if (first)
      std::fprintf(stderr,
                   "tile: cannot write cache entry %s (%s: %s); keeping compiled kernels in memory for the rest of "
                   "this process\n",
                   path.c_str(), step, std::strerror(err));
  };

  std::error_code ec;
  std::filesystem::create_directories(dir_, ec); // an existing directory is not an error
  std::string header = std::string(kMagic) + " " + kVersion + " " + key + " " + std::to_string(payload.size()) + " " +
                       hex64(fnv1a64(payload)) + "\n";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail("open");
  bool ok = writeAll(fd, header.data(), header.size()) && writeAll(fd, payload.data(), payload.size());
  if (!ok) {
    ::close(fd);
    return fail("write");
  }
  // fsync before rename: otherwise a crash can leave a renamed but empty entry on some file systems.
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("fsync");
  }
  if (::close(fd) != 0) return fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  // Persist the rename itself (best effort).
  if (int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

} // namespace tile::rt
