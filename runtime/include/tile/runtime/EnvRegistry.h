//===- EnvRegistry.h - every TILE_* environment variable, in one table ----===//
// One registry of every TILE_* environment variable the project reads (the library, the tools,
// the tests and the scripts): its name, its meaning, whether it touches the compile cache and
// where it is read. readEnv() is the one way C++ code reads such a variable; the first read
// warns, once, about any TILE_* variable in the environment that the registry does not know
// (a misspelt TILE_CACHE_DRI would otherwise be silently ignored). docs/environment.md is
// generated from this table (tile-env-doc) and a ctest fails when it is stale.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tile::rt {

// Who sets the variable.
enum class EnvAudience {
  User,      // a program using the library
  Developer, // someone debugging the compiler
  Test,      // the test binaries and CI scripts
};

// What the variable does to the on-disk compile cache. No variable is part of the cache key:
// the key covers what decides the code (KernelCacheKey.h); these say what else happens.
enum class EnvCacheEffect {
  None,          // no effect on the compile cache
  ChoosesCache,  // selects the cache directory
  BypassesCache, // compiles read no cached entry while it is set
  NotInKey,      // changes the generated code but is not in the key: clear the cache after changing it
};

struct EnvVar {
  std::string_view name;
  EnvAudience audience;
  EnvCacheEffect cache;
  std::string_view meaning;
  std::string_view readBy; // the files that read it, comma-separated
};

// Every registered variable, in the order of docs/environment.md.
std::span<const EnvVar> envRegistry();
// The entry for `name`, or nullptr.
const EnvVar *findEnvVar(std::string_view name);
// The registered name closest to `name` (edit distance), for "did you mean".
std::string_view closestEnvVar(std::string_view name);

// std::getenv for a registered TILE_* variable (asserted in debug builds). Its first call in a
// process warns on stderr about unknown TILE_* variables (warnUnknownEnvVarsOnce).
const char *readEnv(const char *name);
// One line per TILE_* entry of `environment` (NAME=value strings, nullptr-terminated, as
// `environ`) that the registry does not know, naming the closest known variable.
std::vector<std::string> unknownEnvVarWarnings(const char *const *environment);
// Prints unknownEnvVarWarnings(environ) to stderr, the first time only.
void warnUnknownEnvVarsOnce();

// docs/environment.md: the registry as a Markdown page.
std::string envRegistryMarkdown();

} // namespace tile::rt
