//===- TuneEntry.cpp - the autotuner's disk entry payload -----------------===//
#include "tile/runtime/TuneEntry.h"

#include "tile/runtime/Hash.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tile::rt {

namespace {
constexpr std::string_view kMagic = "tile-autotune v1";
constexpr const char *kFields[] = {"kernel", "space", "device", "code", "key", "config", "ms"};

// A value is the rest of its line: keep it on one line.
std::string oneLine(std::string s) {
  for (char &c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

bool parseKey(std::string_view s, TuneKey &out) {
  out.clear();
  if (s.empty()) return true; // a kernel may tune one key for every shape
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find(',', pos);
    if (end == std::string_view::npos) end = s.size();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + pos, s.data() + end, v);
    if (ec != std::errc() || p != s.data() + end || end == pos) return false;
    out.push_back(v);
    pos = end + 1;
    if (end == s.size()) break;
  }
  return true;
}
} // namespace

std::string encodeTuneEntry(const TuneEntry &e) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.6g", e.ms);
  return std::string(kMagic) + "\nkernel " + oneLine(e.kernel) + "\nspace " + oneLine(e.space) + "\ndevice " +
         oneLine(e.device) + "\ncode " + oneLine(e.codeId) + "\nkey " + tuneKeyString(e.key) + "\nconfig " +
         e.config.str() + "\nms " + ms + "\n";
}

std::optional<TuneEntry> decodeTuneEntry(std::string_view text, std::string *why) {
  auto fail = [&](std::string w) -> std::optional<TuneEntry> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return fail("no final newline");
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (lines.empty() || lines[0] != kMagic) return fail("not a tile-autotune v1 entry");
  if (lines.size() != 1 + std::size(kFields)) return fail("expected " + std::to_string(std::size(kFields)) + " fields");
  std::string_view values[std::size(kFields)];
  for (size_t i = 0; i < std::size(kFields); ++i) {
    std::string_view l = lines[i + 1], name = kFields[i];
    if (l.size() < name.size() + 1 || l.substr(0, name.size()) != name || l[name.size()] != ' ')
      return fail("line " + std::to_string(i + 2) + " is not '" + std::string(name) + " ...'");
    values[i] = l.substr(name.size() + 1);
  }
  TuneEntry e;
  e.kernel = values[0], e.space = values[1], e.device = values[2], e.codeId = values[3];
  if (!parseKey(values[4], e.key)) return fail("bad key '" + std::string(values[4]) + "'");
  std::optional<TuneConfig> c = TuneConfig::parse(values[5]);
  if (!c) return fail("bad config '" + std::string(values[5]) + "'");
  e.config = *c;
  std::string ms(values[6]);
  char *end = nullptr;
  e.ms = std::strtod(ms.c_str(), &end);
  if (ms.empty() || *end != '\0') return fail("bad time '" + ms + "'");
  return e;
}

std::string tuneEntryCacheKey(const TuneEntry &e) {
  // Fields joined with a separator none of them contains (oneLine), so that different
  // slots never concatenate to the same text.
  std::string slot = oneLine(e.kernel) + "\n" + oneLine(e.space) + "\n" + oneLine(e.device) + "\n" + oneLine(e.codeId) +
                     "\n" + tuneKeyString(e.key);
  std::string name;
  for (char c : e.kernel.substr(0, 64)) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return std::string(kTuneEntryPrefix) + name + "-" + digest(slot);
}

} // namespace tile::rt
