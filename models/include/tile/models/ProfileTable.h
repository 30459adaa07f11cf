// The per-kernel profile of one step, as a table (plain C++: the host-side library).
#pragma once

#include <string>
#include <vector>

namespace tile::models {

/// One kernel launch of a profiled step and how long it ran.
struct KernelTime {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1};
  double ms = 0;
};

/// `title`, then one row per launch in launch order (index, kernel, grid, ms, share of the sum),
/// the sum, and the same times grouped by kernel name, largest first. Ends in a newline.
std::string kernelTimeTable(const std::vector<KernelTime> &launches, const std::string &title);

} // namespace tile::models
