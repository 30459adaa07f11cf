// On-disk cache of compiled artefacts (PTX + metadata), keyed by a hex digest (see Hash.h).
#pragma once

#include <optional>
#include <string>

namespace tile::rt {

// Entry file <dir>/<key>.tile:
//   "tile-cache v1 <key> <payload-bytes> <fnv1a64-hex-of-payload>\n" followed by the payload.
// Any mismatch means corrupt. Writers never leave a partial entry (temp file + fsync + rename), so
// concurrent processes sharing a directory are safe.
class DiskCache {
public:
  // dir == "": defaultDir().
  explicit DiskCache(std::string dir);
  // $TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile, else ~/.cache/tile.
  static std::string defaultDir();
  // A cache on defaultDir(), read when first used.
  static DiskCache &global();

  const std::string &dir() const { return dir_; }
  std::string pathFor(const std::string &key) const; // throws Error for keys that are not [A-Za-z0-9_.-]+

  // nullopt on a miss, when forceRecompile(), or on a corrupt entry; the latter prints one line
  // "tile: cache entry <path> is corrupt (<why>); <action>" to stderr and deletes the entry.
  std::optional<std::string> load(const std::string &key);
  // The same; `action` says what the caller does instead (the autotuner: "re-tuning").
  std::optional<std::string> load(const std::string &key, const char *action);
  // Atomic. The cache is an optimisation, so a failure to write throws nothing: the first one
  // for a directory prints one line to stderr ("tile: cannot write cache entry <path> (<why>);
  // keeping ... in memory"), and from then on this process keeps that directory's entries in
  // memory (load() finds them there), silently: a read-only, missing or full cache directory
  // costs one warning, not one per kernel.
  void store(const std::string &key, const std::string &payload);
  // Whether an earlier write to `dir` failed in this process (its entries now live in memory).
  static bool inMemoryOnly(const std::string &dir);

  // Env TILE_FORCE_RECOMPILE=1: load() always misses (entries are still written).
  static bool forceRecompile();

private:
  std::string dir_;
};

} // namespace tile::rt
