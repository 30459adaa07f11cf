//===- Report.h - one row per shape: ours against its anchor, with the GPU's state ----===//
#pragma once

#include "GpuClocks.h"

#include "tile/runtime/Driver.h"

#include <string>
#include <vector>

namespace tile::bench {

/// One shape's interleaved comparison.
struct AnchorRow {
  std::string what;                           ///< "matmul f16 4096^3", "conv conv2 fwd b1024 tf32"
  std::string anchor;                         ///< the anchor library ("cuBLAS", "cuDNN")
  double flops = 0;                           ///< per launch
  double oursUs = 0, anchorUs = 0, altUs = 0; ///< medians; altUs: cuBLASLt's best algorithm (0: none)
  double ratio = 0, ratioLo = 0, ratioHi = 0; ///< anchor/ours per round: median, quartiles (> 1: ours faster)
  double ratioBest = 0;                       ///< against the faster of cuBLAS and cuBLASLt's best, per round
  double relError = 0;                        ///< ‖ours − anchor‖ / ‖anchor‖ on the same inputs
  double peakTflops = 0;                      ///< the dense tensor-core peak for the precision (0: unknown)
  GpuSample before, after;
  GpuWindow during;
};

/// The dense tensor-core peak (TFLOP/s) of `d` for f16/bf16 (tf32 false) or TF32: the datasheet's for
/// H100/H200 (SXM 989.4 / 494.7, PCIe 756 / 378, NVL 835.5 / 417.8), else SMs x max SM clock x
/// Hopper's per-SM rate on sm_90, else 0. *source says which.
double peakTflops(const rt::DeviceInfo &d, bool tf32, std::string *source);

/// The row's detail line ("anchor-detail ...": every number, for the log).
void printDetail(const AnchorRow &r);
/// The compact table (lines starting "anchor "), the one gpu-check.sh's summary shows.
void printTable(const std::vector<AnchorRow> &rows);

} // namespace tile::bench
