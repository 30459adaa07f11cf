// The per-kernel profile table (see ProfileTable.h).
#include "tile/models/ProfileTable.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace tile::models {

namespace {
std::string gridText(const unsigned g[3]) {
  std::string s = std::to_string(g[0]);
  if (g[1] != 1 || g[2] != 1) s += "x" + std::to_string(g[1]);
  if (g[2] != 1) s += "x" + std::to_string(g[2]);
  return s;
}

std::string row(const char *fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}
} // namespace

std::string kernelTimeTable(const std::vector<KernelTime> &launches, const std::string &title) {
  double total = 0;
  for (const KernelTime &k : launches) total += k.ms;
  auto share = [&](double ms) { return total > 0 ? 100 * ms / total : 0.0; };
  std::string s = title + "\n";
  s += row("  %3s  %-28s %-12s %10s %7s\n", "#", "kernel", "grid", "ms", "share");
  for (size_t i = 0; i < launches.size(); ++i) {
    const KernelTime &k = launches[i];
    s += row("  %3zu  %-28s %-12s %10.4f %6.1f%%\n", i + 1, k.kernel.c_str(), gridText(k.grid).c_str(), k.ms,
             share(k.ms));
  }
  s += row("  %3s  %-28s %-12s %10.4f %6.1f%%\n", "", "sum", "", total, total > 0 ? 100.0 : 0.0);

  // By kernel: where a kernel runs several times (both convolutions, the linear layers).
  std::map<std::string, std::pair<int, double>> byName;
  for (const KernelTime &k : launches) {
    auto &[count, ms] = byName[k.kernel];
    ++count;
    ms += k.ms;
  }
  std::vector<std::pair<std::string, std::pair<int, double>>> sorted(byName.begin(), byName.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](auto &a, auto &b) { return a.second.second > b.second.second; });
  s += row("  %-41s %8s %10s %7s\n", "by kernel", "launches", "ms", "share");
  for (auto &[name, v] : sorted)
    s += row("  %-41s %8d %10.4f %6.1f%%\n", name.c_str(), v.first, v.second, share(v.second));
  return s;
}

} // namespace tile::models
