//===- tile-env-doc.cpp - docs/environment.md from the TILE_* registry ----===//
// Prints the registry of TILE_* environment variables (runtime/lib/EnvRegistry.cpp) as
// Markdown; with --check FILE, exits 1 when FILE differs (the ctest env_doc_up_to_date).
//   tile-env-doc > docs/environment.md
//   tile-env-doc --check docs/environment.md
#include "tile/runtime/EnvRegistry.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

int main(int argc, char **argv) {
  std::string doc = tile::rt::envRegistryMarkdown();
  if (argc == 1) {
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return 0;
  }
  if (argc != 3 || std::strcmp(argv[1], "--check") != 0) {
    std::fprintf(stderr, "usage: tile-env-doc [--check FILE]\n");
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (in && text.str() == doc) return 0;
  std::fprintf(stderr, "tile-env-doc: %s is %s: regenerate it with `tile-env-doc > %s`\n", argv[2],
               in ? "stale (runtime/lib/EnvRegistry.cpp changed)" : "missing", argv[2]);
  return 1;
}
