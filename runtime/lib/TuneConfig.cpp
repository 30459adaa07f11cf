//===- TuneConfig.cpp - candidate configurations and shape keys as text ---===//
#include "tile/runtime/Autotune.h"

#include "tile/Error.h"

#include <cctype>
#include <charconv>
#include <stdexcept>

namespace tile::rt {

namespace {
bool parseInt(std::string_view s, int64_t &out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}
bool validName(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}
} // namespace

const int64_t *TuneConfig::find(std::string_view name) const {
  for (const auto &[n, v] : consts)
    if (n == name) return &v;
  return nullptr;
}

int64_t TuneConfig::operator[](std::string_view name) const {
  if (const int64_t *v = find(name)) return *v;
  throw ArgumentError("tile: tuning config " + str() + " sets no constant '" + std::string(name) + "'");
}

std::string TuneConfig::str() const {
  std::string s;
  for (const auto &[n, v] : consts) s += n + "=" + std::to_string(v) + ",";
  s += "warps=" + std::to_string(numWarps);
  if (numStages != 0) s += ",stages=" + std::to_string(numStages);
  return s;
}

std::optional<TuneConfig> TuneConfig::parse(std::string_view text) {
  TuneConfig c;
  bool warps = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view name = item.substr(0, eq);
    int64_t v = 0;
    if (!validName(name) || !parseInt(item.substr(eq + 1), v)) return std::nullopt;
    if (name == "warps") {
      if (warps || v < 1 || v > 32) return std::nullopt;
      c.numWarps = int(v), warps = true;
    } else if (name == "stages") {
      if (!warps || v < 0 || v > 64) return std::nullopt; // str() writes stages after warps
      c.numStages = int(v);
    } else {
      if (warps || c.find(name)) return std::nullopt; // constants come first, once each
      c.consts.emplace_back(std::string(name), v);
    }
    if (end == text.size()) break;
  }
  if (!warps) return std::nullopt;
  return c;
}

int64_t nextPow2(int64_t v) {
  int64_t p = 1;
  while (p < v && p < (int64_t(1) << 62)) p <<= 1;
  return p;
}

std::string tuneKeyString(const TuneKey &key) {
  std::string s;
  for (size_t i = 0; i < key.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(key[i]);
  }
  return s;
}

const char *tuneSourceName(TuneSource s) {
  switch (s) {
  case TuneSource::None: return "none";
  case TuneSource::Memory: return "memory";
  case TuneSource::Baked: return "baked table";
  case TuneSource::Disk: return "disk";
  case TuneSource::Benchmark: return "benchmark";
  case TuneSource::Default: return "default (nothing measured)";
  }
  return "?";
}

} // namespace tile::rt
