//===- TuneTable.h - tuned choices baked into a build ---------------------===//
// An AOT build can carry the autotuner's choices measured on the target GPU, so that
// its first launches need no benchmarking. A table is text, one choice a line:
//   <kernel> TAB <space> TAB <device name, or *> TAB <key> TAB <config>
//   matmul_f16	e0,t0,fast	NVIDIA H200	4096,4096,4096	BM=128,BN=128,BK=32,warps=4
// ('#' starts a comment line). The autotuner consults the tables before its disk entries;
// a table's config that is not one of the kernel's candidates is ignored.
//
// Baking, step by step (docs/runtime.md):
//   1. run the workload on the target GPU (tuned entries land in $TILE_CACHE_DIR);
//   2. `tile-autotune-table [--cpp] <cache dir>` prints the table (or a C++ file that
//      registers it at start-up: add it to the executable's sources);
//   3. or point TILE_AUTOTUNE_TABLE=<table file> at the text at run time.
#pragma once

#include "tile/runtime/Autotune.h"

#include <optional>
#include <string>
#include <string_view>

namespace tile::rt {

/// Adds a table's lines; throws rt::Error naming `origin` and the line when one is
/// malformed. Returns true (for `static const bool registered = addTuneTable(...)`).
bool addTuneTable(std::string_view text, std::string_view origin = "baked autotune table");
/// The baked config of (kernel, space, device, key): a line naming this device wins over
/// a '*' line. Loads $TILE_AUTOTUNE_TABLE on first call.
std::optional<TuneConfig> bakedTuneConfig(std::string_view kernel, std::string_view space, std::string_view device,
                                          const TuneKey &key);
/// Forgets every table (tests).
void clearTuneTables();

/// The table of every tuned entry stored in `cacheDir` (sorted lines; corrupt entries are
/// skipped with one line on stderr).
std::string exportTuneTable(const std::string &cacheDir);
/// A C++ source registering `table` at start-up (compile it into the executable).
std::string tuneTableSource(std::string_view table);

} // namespace tile::rt
