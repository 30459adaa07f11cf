// GPU == CPU executor: replays every case of the differential bundle (library kernels and
// random programs, run on the CPU executor on the build machine, which wrote their PTX,
// inputs and outputs) on the GPU with the runtime alone, and compares the outputs.
// Bundle: $TILE_DIFF_BUNDLE, else diff.bundle next to this executable.
#include "tile/TensorDescAbi.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/DiffBundle.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Launch.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Module.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

using namespace tile;
using namespace tile::rt;

namespace {

std::string bundlePath() {
  if (const char *p = std::getenv("TILE_DIFF_BUNDLE")) return p;
  return (std::filesystem::canonical("/proc/self/exe").parent_path() / "diff.bundle").string();
}

/// Runs one case on the GPU; returns "" when every output matches, else what differed.
std::string replay(const DiffCase &c) {
  const CompiledKernel &k = c.kernel;
  Module module = Module::loadPTX(k.ptx, k.name);
  CUfunction fn = module.function(k.name, k.meta.sharedBytes > 48 * 1024 ? k.meta.sharedBytes : 0);
  std::vector<DeviceBuffer> buffers(c.args.size());
  std::vector<CUdeviceptr> addresses(c.args.size());
  std::vector<int32_t> i32(c.args.size());
  std::vector<int64_t> i64(c.args.size());
  std::vector<float> f32(c.args.size());
  std::vector<uint16_t> bits16(c.args.size());
  std::vector<uint8_t> bools(c.args.size());
  std::vector<TensorDescParam> descs(c.args.size());
  std::vector<void *> params;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const DiffArg &a = c.args[i];
    switch (a.kind) {
    case ArgKind::Ptr:
      buffers[i] = DeviceBuffer(std::max<size_t>(a.input.size(), 16));
      if (!a.input.empty()) buffers[i].copyFromHost(a.input.data(), a.input.size());
      addresses[i] = buffers[i].ptr();
      params.push_back(&addresses[i]);
      break;
    case ArgKind::I32: i32[i] = static_cast<int32_t>(a.scalar), params.push_back(&i32[i]); break;
    case ArgKind::I64: i64[i] = a.scalar, params.push_back(&i64[i]); break;
    case ArgKind::F32: f32[i] = a.f32, params.push_back(&f32[i]); break;
    case ArgKind::F16:
    case ArgKind::BF16: bits16[i] = static_cast<uint16_t>(a.scalar), params.push_back(&bits16[i]); break;
    case ArgKind::I1: bools[i] = static_cast<uint8_t>(a.scalar), params.push_back(&bools[i]); break;
    case ArgKind::Const: break;
    case ArgKind::Desc: {
      // Over the device copy of an earlier buffer argument; the launch encodes its TMA map.
      if (a.descBase < 0 || size_t(a.descBase) >= i || c.args[a.descBase].kind != ArgKind::Ptr)
        return "arg " + std::to_string(i) + ": a descriptor without an earlier buffer";
      TensorDescArg d;
      d.base = addresses[a.descBase];
      d.rank = int(a.descShape.size());
      for (size_t k2 = 0; k2 < a.descShape.size() && k2 < size_t(kMaxDescRank); ++k2) d.shape[k2] = a.descShape[k2];
      for (size_t k2 = 0; k2 < a.descStrides.size() && k2 < size_t(kMaxDescRank); ++k2)
        d.strides[k2] = a.descStrides[k2];
      descs[i] = toTensorDescParam(d);
      params.push_back(&descs[i]);
      break;
    }
    }
  }
  launch(fn, c.grid, k.meta, nullptr, params.data(), k.name.c_str());
  Context::get().synchronize();
  std::string failures;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const DiffArg &a = c.args[i];
    if (a.kind != ArgKind::Ptr || a.expected.empty()) continue;
    std::vector<uint8_t> got(a.expected.size());
    buffers[i].copyToHost(got.data(), got.size());
    DiffResult r = compareOutputs(a.elem, a.expected, got, c.tolerance, a.errorScale);
    if (!r.ok) failures += "arg " + std::to_string(i) + ": " + r.detail + "; ";
  }
  return failures;
}

} // namespace

TEST(GpuVsCpuExecutor, EveryCaseOfTheBundle) {
  std::string why;
  if (!gpuAvailable(&why)) GTEST_SKIP() << why;
  std::string path = bundlePath();
  std::vector<DiffCase> cases = readDiffBundle(path);
  ASSERT_FALSE(cases.empty()) << path << " holds no cases";
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, std::pair<int, int>> byKind; // "random" / kernel name -> passed, failed
  int failed = 0;
  // TILE_DIFF_FILTER=<text>: only the cases whose name holds it (a short run under compute-sanitizer).
  if (const char *only = std::getenv("TILE_DIFF_FILTER"))
    std::erase_if(cases, [&](const DiffCase &c) { return c.name.find(only) == std::string::npos; });
  ASSERT_FALSE(cases.empty()) << "no case matches TILE_DIFF_FILTER";
  for (const DiffCase &c : cases) {
    std::string kind = c.name.substr(0, c.name.find_first_of(" #"));
    std::string err;
    try {
      err = replay(c);
    } catch (const std::exception &e) { err = e.what(); }
    auto &[pass, fail] = byKind[kind];
    if (err.empty()) {
      ++pass;
    } else {
      ++fail;
      ++failed;
      ADD_FAILURE() << c.name << " (seed " << c.seed << "): " << err;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (auto &[kind, counts] : byKind)
    std::printf("diff %-16s %5d passed, %d failed\n", kind.c_str(), counts.first, counts.second);
  std::printf("diff: %zu cases against the CPU executor in %.1f s: %zu passed, %d failed\n", cases.size(), s,
              cases.size() - failed, failed);
  EXPECT_EQ(failed, 0);
}
