// PTX loading through the driver JIT, with its logs surfaced in errors.
#include "DriverApi.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Hash.h"
#include "tile/runtime/Module.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <utility>

namespace tile::rt {

using detail::api;
using detail::check;

namespace {

// Keeps the PTX of a failed load so the message can give a command that reproduces the failure.
std::string savePTXForRepro(const std::string &ptx, const std::string &kernel) {
  const char *tmp = std::getenv("TMPDIR");
  std::string safe;
  for (char c : kernel) safe += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/tile-" + safe + "-" + hex64(fnv1a64(ptx)) + ".ptx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << ptx;
  return out.good() ? path : std::string();
}

std::string trimmed(const char *buf) {
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

} // namespace

Module Module::loadPTX(const std::string &ptx, const std::string &kernelNameForErrors) {
  detail::ensureContext();
  constexpr unsigned kLogBytes = 16 * 1024;
  static thread_local char errorLog[kLogBytes], infoLog[kLogBytes];
  errorLog[0] = infoLog[0] = '\0';
  // Line info kept (the PTX's .loc directives name the user's DSL lines): what
  // compute-sanitizer and the profilers report; it costs no performance.
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_GENERATE_LINE_INFO};
  void *vals[] = {errorLog, reinterpret_cast<void *>(static_cast<uintptr_t>(kLogBytes)), infoLog,
                  reinterpret_cast<void *>(static_cast<uintptr_t>(kLogBytes)), reinterpret_cast<void *>(uintptr_t(1))};
  Module m;
  m.kernelName_ = kernelNameForErrors;
  CUresult r = api().moduleLoadDataEx(m.mod_.out(), ptx.c_str(), 5, opts, vals);
  if (r == CUDA_SUCCESS) return m;

  (void)m.mod_.release(); // a failed load owns nothing
  std::string log = trimmed(errorLog);
  if (log.empty()) log = trimmed(infoLog);
  std::string msg = "tile: cuModuleLoadDataEx failed for kernel '" + kernelNameForErrors +
                    "': " + detail::resultText(r) + "; JIT log: " + (log.empty() ? "(empty)" : log);
  if (std::string path = savePTXForRepro(ptx, kernelNameForErrors); !path.empty()) {
    CUcontext cur = nullptr;
    (void)api().ctxGetCurrent(&cur);
    std::string arch = "sm_XX"; // only device 0's arch is known without creating more contexts
    if (cur && cur == Context::get(0).handle()) {
      const DeviceInfo &d = Context::get(0).info();
      arch = "sm_" + std::to_string(d.ccMajor) + std::to_string(d.ccMinor);
    }
    msg += "; repro: ptxas -arch=" + arch + " " + path;
  }
  throw Error(msg, r);
}

CUfunction Module::function(const std::string &name, unsigned maxDynamicSharedBytes) const {
  const auto &a = api();
  CUfunction f = nullptr;
  check(a.moduleGetFunction(&f, mod_.get(), name.c_str()), "cuModuleGetFunction",
        "kernel '" + name + "' (module of '" + kernelName_ + "')");
  if (maxDynamicSharedBytes > 0)
    check(
        a.funcSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(maxDynamicSharedBytes)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
        "kernel '" + name + "', " + std::to_string(maxDynamicSharedBytes) + " bytes");
  return f;
}

} // namespace tile::rt
