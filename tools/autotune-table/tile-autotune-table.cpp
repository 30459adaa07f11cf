//===- tile-autotune-table.cpp - bake the autotuner's choices -------------===//
//   tile-autotune-table [--cpp] [cache dir]
// Prints every tuned choice stored in the cache directory (default: $TILE_CACHE_DIR, else
// ~/.cache/tile) as a table (tile/runtime/TuneTable.h), or with --cpp as a C++ source that
// registers it at start-up: add that file to an executable's sources, or point
// TILE_AUTOTUNE_TABLE at the table text, and its first launches need no measuring.
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/TuneTable.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

int main(int argc, char **argv) {
  bool cpp = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cpp")) cpp = true;
    else if (argv[i][0] != '-' && dir.empty()) dir = argv[i];
    else {
      std::fprintf(stderr, "usage: %s [--cpp] [cache dir]\n", argv[0]);
      return 2;
    }
  }
  try {
    if (dir.empty()) dir = tile::rt::DiskCache::defaultDir();
    std::string table = tile::rt::exportTuneTable(dir);
    std::fputs(cpp ? tile::rt::tuneTableSource(table).c_str() : table.c_str(), stdout);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tile-autotune-table: %s\n", e.what());
    return 1;
  }
  return 0;
}
