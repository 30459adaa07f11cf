//===- Report.cpp - the anchors' table and detail lines ----===//
#include "Report.h"

#include <cstdio>

namespace tile::bench {

double peakTflops(const rt::DeviceInfo &d, bool tf32, std::string *source) {
  auto has = [&](const char *s) { return d.name.find(s) != std::string::npos; };
  double f16 = 0;
  if (has("H100") || has("H200")) {
    // NVIDIA's datasheets, dense (half the "with sparsity" figures): SXM at a 1830 MHz boost on 132 SMs.
    f16 = has("PCIe") ? 756.5 : has("NVL") ? 835.5 : 989.4;
    if (source) *source = "datasheet";
  } else if (d.ccMajor == 9 && GpuClocks::get().maxSmMHz() > 0) {
    f16 = 4096.0 * d.smCount * GpuClocks::get().maxSmMHz() * 1e-6; // Hopper: 4096 dense f16 FLOP/clock/SM
    if (source) *source = "SMs x max clock";
  } else if (source) {
    *source = "unknown";
  }
  return tf32 ? f16 / 2 : f16;
}

namespace {

double tflops(double flops, double us) { return us > 0 ? flops / us * 1e-6 : 0; }

std::string clocks(const AnchorRow &r) {
  if (!r.before.ok) return "n/a";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%u>%u>%u %u>%u>%u %u>%u", r.before.smMHz, r.during.minSmMHz, r.after.smMHz,
                r.before.powerMW / 1000, r.during.maxPowerMW / 1000, r.after.powerMW / 1000, r.before.tempC,
                r.after.tempC);
  return buf;
}

} // namespace

void printDetail(const AnchorRow &r) {
  std::printf("anchor-detail %s: ours %.2f us (%.1f TFLOP/s), %s %.2f us (%.1f TFLOP/s)", r.what.c_str(), r.oursUs,
              tflops(r.flops, r.oursUs), r.anchor.c_str(), r.anchorUs, tflops(r.flops, r.anchorUs));
  if (r.altUs > 0) std::printf(", cuBLASLt best %.2f us (%.1f TFLOP/s)", r.altUs, tflops(r.flops, r.altUs));
  std::printf("; %s/ours per round median %.4f [q1 %.4f, q3 %.4f]", r.anchor.c_str(), r.ratio, r.ratioLo, r.ratioHi);
  if (r.altUs > 0) std::printf(", best anchor/ours %.4f", r.ratioBest);
  std::printf("; ratio of medians %.4f; rel err %.2e; before %s, during SM %u-%u MHz max %u W max %u C (%d samples, "
              "limits %s), after %s (limits %s)\n",
              r.anchorUs / r.oursUs, r.relError, sampleText(r.before).c_str(), r.during.minSmMHz, r.during.maxSmMHz,
              r.during.maxPowerMW / 1000, r.during.maxTempC, r.during.samples, reasonsText(r.during.reasons).c_str(),
              sampleText(r.after).c_str(), reasonsText(r.after.reasons).c_str());
}

void printTable(const std::vector<AnchorRow> &rows) {
  std::printf("\nanchor: matmul against cublasGemmEx (default algorithm), conv against cuDNN's fastest found; "
              "ours/a = per-round median of anchor time / ours time (> 1: ours faster), q1-q3 its quartiles; /best: "
              "against the faster of cuBLAS and cuBLASLt's best; SM MHz / W / C before > min or max during > after\n");
  std::printf("anchor %-32s %8s %8s %8s %7s %13s %7s %8s %6s %6s  %-20s %s\n", "shape (TFLOP/s)", "ours", "anchor",
              "Lt best", "ours/a", "q1-q3", "/best", "rel err", "peak", "ours%", "SM MHz W C b>min>a", "limits during");
  for (const AnchorRow &r : rows) {
    char alt[16] = "-", best[16] = "-", peak[16] = "-", pct[16] = "-";
    if (r.altUs > 0) {
      std::snprintf(alt, sizeof alt, "%.1f", tflops(r.flops, r.altUs));
      std::snprintf(best, sizeof best, "%.3f", r.ratioBest);
    }
    if (r.peakTflops > 0) {
      std::snprintf(peak, sizeof peak, "%.0f", r.peakTflops);
      std::snprintf(pct, sizeof pct, "%.1f%%", 100 * tflops(r.flops, r.oursUs) / r.peakTflops);
    }
    char quartiles[32];
    std::snprintf(quartiles, sizeof quartiles, "%.3f-%.3f", r.ratioLo, r.ratioHi);
    std::printf("anchor %-32s %8.1f %8.1f %8s %7.3f %13s %7s %8.1e %6s %6s  %-20s %s\n", r.what.c_str(),
                tflops(r.flops, r.oursUs), tflops(r.flops, r.anchorUs), alt, r.ratio, quartiles, best, r.relError, peak,
                pct, clocks(r).c_str(), reasonsText(r.during.reasons).c_str());
  }
}

} // namespace tile::bench
