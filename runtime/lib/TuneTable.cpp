//===- TuneTable.cpp - baked autotuning tables ----------------------------===//
#include "tile/runtime/TuneTable.h"

#include "tile/runtime/DiskCache.h"
#include "tile/runtime/EnvRegistry.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/TuneEntry.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

namespace tile::rt {

namespace {
struct BakedLine {
  std::string kernel, space, device;
  TuneKey key;
  TuneConfig config;
};

struct Tables {
  std::mutex mu;
  std::vector<BakedLine> lines;
  bool envLoaded = false;
};
Tables &tables() {
  static Tables t;
  return t;
}

std::vector<std::string_view> splitTabs(std::string_view l) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (size_t tab; (tab = l.find('\t', pos)) != std::string_view::npos; pos = tab + 1)
    out.push_back(l.substr(pos, tab - pos));
  out.push_back(l.substr(pos));
  return out;
}

std::vector<BakedLine> parseTable(std::string_view text, std::string_view origin) {
  std::vector<BakedLine> out;
  size_t lineNo = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineNo;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty() || l[0] == '#') continue;
    auto bad = [&](const std::string &why) {
      return Error("tile: " + std::string(origin) + " line " + std::to_string(lineNo) + ": " + why);
    };
    std::vector<std::string_view> f = splitTabs(l);
    if (f.size() != 5) throw bad("expected 5 tab-separated fields (kernel, space, device, key, config)");
    // The key and config go through the entry parser: one grammar for both.
    std::string text2 = "tile-autotune v1\nkernel x\nspace x\ndevice x\ncode x\nkey " + std::string(f[3]) +
                        "\nconfig " + std::string(f[4]) + "\nms -1\n";
    std::string why;
    std::optional<TuneEntry> e = decodeTuneEntry(text2, &why);
    if (!e) throw bad(why);
    if (f[0].empty() || f[2].empty()) throw bad("empty kernel or device");
    out.push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]), e->key, e->config});
  }
  return out;
}

void loadEnvTableLocked(Tables &t) {
  if (t.envLoaded) return;
  t.envLoaded = true;
  const char *path = readEnv("TILE_AUTOTUNE_TABLE");
  if (!path || !*path) return;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(std::string("tile: TILE_AUTOTUNE_TABLE names ") + path + ", which cannot be read");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<BakedLine> lines = parseTable(text, std::string("TILE_AUTOTUNE_TABLE file ") + path);
  t.lines.insert(t.lines.end(), lines.begin(), lines.end());
}
} // namespace

bool addTuneTable(std::string_view text, std::string_view origin) {
  std::vector<BakedLine> lines = parseTable(text, origin);
  Tables &t = tables();
  std::lock_guard<std::mutex> lock(t.mu);
  t.lines.insert(t.lines.end(), lines.begin(), lines.end());
  return true;
}

std::optional<TuneConfig> bakedTuneConfig(std::string_view kernel, std::string_view space, std::string_view device,
                                          const TuneKey &key) {
  Tables &t = tables();
  std::lock_guard<std::mutex> lock(t.mu);
  loadEnvTableLocked(t);
  const BakedLine *any = nullptr;
  for (const BakedLine &l : t.lines) {
    if (l.kernel != kernel || l.space != space || l.key != key) continue;
    if (l.device == device) return l.config;
    if (l.device == "*" && !any) any = &l;
  }
  if (any) return any->config;
  return std::nullopt;
}

void clearTuneTables() {
  Tables &t = tables();
  std::lock_guard<std::mutex> lock(t.mu);
  t.lines.clear();
  t.envLoaded = false;
}

std::string exportTuneTable(const std::string &cacheDir) {
  namespace fs = std::filesystem;
  std::vector<std::string> lines;
  DiskCache cache(cacheDir);
  std::error_code ec;
  for (const fs::directory_entry &f : fs::directory_iterator(cacheDir, ec)) {
    std::string name = f.path().filename().string();
    if (name.rfind(kTuneEntryPrefix, 0) != 0 || f.path().extension() != ".tile") continue;
    std::optional<std::string> payload = cache.load(f.path().stem().string());
    if (!payload) continue; // DiskCache reported a corrupt one
    std::string why;
    std::optional<TuneEntry> e = decodeTuneEntry(*payload, &why);
    if (!e) {
      std::fprintf(stderr, "tile: skipping %s: %s\n", f.path().c_str(), why.c_str());
      continue;
    }
    lines.push_back(e->kernel + "\t" + e->space + "\t" + e->device + "\t" + tuneKeyString(e->key) + "\t" +
                    e->config.str() + "\n");
  }
  std::sort(lines.begin(), lines.end());
  std::string out = "# kernel\tspace\tdevice\tkey\tconfig  (tile autotune table, from " + cacheDir + ")\n";
  for (const std::string &l : lines) out += l;
  return out;
}

std::string tuneTableSource(std::string_view table) {
  // A raw string whose delimiter cannot occur in the table (it has no ')' followed by it).
  return "// Generated by tile-autotune-table: the autotuner's choices, registered at start-up.\n"
         "#include \"tile/runtime/TuneTable.h\"\n\n"
         "namespace {\n"
         "const bool kTileAutotuneTableRegistered = tile::rt::addTuneTable(R\"tiletable(" +
         std::string(table) +
         ")tiletable\", \"baked autotune table\");\n"
         "} // namespace\n";
}

} // namespace tile::rt
