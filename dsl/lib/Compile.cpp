//===- Compile.cpp - KernelBase::compile: pipeline behind the disk cache ---===//
// The cache key covers everything that decides the PTX (DESIGN.md): the canonical tile IR
// (printed without locations), the specialisation, the compiler build, the LLVM version,
// the target and the options. The payload is a small text header followed by the PTX.
#include "KernelImpl.h"
#include "State.h"

#include "tile/Pipeline.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Hash.h"

#include <charconv>
#include <optional>

namespace tile {

using namespace detail;

namespace {

constexpr std::string_view kPayloadMagic = "tile-ptx v1\n";

struct CachedKernel {
  unsigned sharedBytes = 0;
  unsigned numWarps = 4;
  std::string target;
  std::string ptx;
};

std::string encodePayload(const CachedKernel &k) {
  return std::string(kPayloadMagic) + "shared " + std::to_string(k.sharedBytes) + "\nwarps " +
         std::to_string(k.numWarps) + "\ntarget " + k.target + "\n\n" + k.ptx;
}

/// Reads one "<field> <value>\n" line at `pos`; advances pos.
std::optional<std::string_view> field(std::string_view s, size_t &pos, std::string_view name) {
  if (s.substr(pos, name.size()) != name || s.substr(pos + name.size(), 1) != " ") return std::nullopt;
  size_t start = pos + name.size() + 1, end = s.find('\n', start);
  if (end == std::string_view::npos) return std::nullopt;
  pos = end + 1;
  return s.substr(start, end - start);
}

std::optional<unsigned> number(std::string_view v) {
  unsigned n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || v.empty()) return std::nullopt;
  return n;
}

/// A malformed payload is a miss (the entry gets overwritten), never an error.
std::optional<CachedKernel> decodePayload(std::string_view s) {
  if (s.substr(0, kPayloadMagic.size()) != kPayloadMagic) return std::nullopt;
  size_t pos = kPayloadMagic.size();
  auto sh = field(s, pos, "shared"), wa = field(s, pos, "warps"), ta = field(s, pos, "target");
  if (!sh || !wa || !ta || s.substr(pos, 1) != "\n") return std::nullopt;
  auto shn = number(*sh), wan = number(*wa);
  if (!shn || !wan || *wan == 0) return std::nullopt;
  CachedKernel k{*shn, *wan, std::string(*ta), std::string(s.substr(pos + 1))};
  if (k.ptx.empty()) return std::nullopt;
  return k;
}

} // namespace

CompileResult KernelBase::compile(const Specialization &spec, const CompileRequest &req) const {
  // sm 0 means "this machine's GPU"; without one chooseTarget falls back to sm_90.
  // Where a driver is present, the PTX version is capped by what it can JIT.
  int sm = req.sm, driver = 0;
  if (rt::gpuAvailable()) {
    driver = rt::driverVersion();
    if (sm == 0) {
      const rt::DeviceInfo &info = rt::Context::get().info();
      sm = info.ccMajor * 10 + info.ccMinor;
    }
  }
  compiler::Target target = compiler::chooseTarget(sm, req.ptxVersion, driver);

  std::lock_guard<std::recursive_mutex> lock(compilerMutex()); // outlives `module`
  auto module = impl_->traceModule(spec);
  std::string canonical = printModule(*module, /*debugInfo=*/false);

  CompileResult r;
  r.kernelName = impl_->name;
  r.target = target.str();
  if (req.keepStages) r.tileIR = canonical;

  std::string key = rt::digest(canonical + "\nspec:" + spec.str() + "\nbuild:" + compiler::compilerBuildId() +
                               "\nllvm:" + compiler::llvmVersionString() + "\ntarget:" + target.str() +
                               "\nopts:payload-v1");
  // keepStages needs the intermediate IRs, which only a real run produces.
  bool readCache = req.useDiskCache && !req.keepStages && !rt::DiskCache::forceRecompile();
  if (readCache) {
    if (auto payload = rt::DiskCache::global().load(key)) {
      if (auto k = decodePayload(*payload)) {
        r.ptx = std::move(k->ptx);
        r.sharedBytes = k->sharedBytes;
        r.numWarps = k->numWarps;
        r.fromDiskCache = true;
        return r;
      }
    }
  }

  compiler::PipelineOptions popts;
  popts.target = target;
  popts.keepStages = req.keepStages;
  compiler::PipelineResult p = compiler::runPipeline(*module, popts);
  r.ptx = std::move(p.ptx);
  r.sharedBytes = p.sharedBytes;
  r.numWarps = p.numWarps;
  if (req.keepStages) {
    r.optimizedIR = std::move(p.optimizedIR);
    r.llvmIR = std::move(p.llvmIR);
  }
  if (req.useDiskCache) rt::DiskCache::global().store(key, encodePayload({r.sharedBytes, r.numWarps, r.target, r.ptx}));
  return r;
}

} // namespace tile
