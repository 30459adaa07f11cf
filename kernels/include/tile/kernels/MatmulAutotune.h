//===- MatmulAutotune.h - the library matmul with a measured tile choice ---===//
// Opt-in: launchMatmulAutotuned<T> is Matmul<T>::launch with the tile (BM, BN, BK, warps)
// chosen by rt::Autotuner among the tiles the declaration compiles for the launch's path
// (Matmul<T>::variants() with this epilogue and tf32: the AOT-compiled ones on the GPU
// machine), instead of the library's fixed policy. The shape class is (m, n, k) rounded
// up to powers of two; divisibility (whether the large unit-stride tiles may run), the
// epilogue and tf32 select the candidate set (the tuner's space). On the CPU executor
// nothing is measured: the library's own choice runs (Matmul<T>::launch).
//
//   tk::launchMatmulAutotuned<tile::f16>(launcher, {.a = a, .b = b, .c = c, .m = m, .n = n, .k = k, .strideAm = k,
//                                                   .strideAk = 1, .strideBk = n, .strideBn = 1, .strideCm = n,
//                                                   .strideCn = 1});
//   TILE_AUTOTUNE_VERBOSE=1 prints each candidate's time and the choice.
#pragma once

#include "tile/kernels/Matmul.h"
#include "tile/runtime/Autotune.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tile::kernels {

namespace detail {
inline rt::TuneConfig matmulTuneConfig(const MatmulConfig &c) {
  return {{{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}}, c.numWarps, c.numStages};
}
inline MatmulConfig matmulConfigOf(const rt::TuneConfig &c) {
  return {int(c["BM"]), int(c["BN"]), int(c["BK"]), c.numWarps, c.numStages};
}

/// The tuner's space: what selects the candidate tiles and their code.
inline std::string matmulTuneSpace(MatmulEpilogue epilogue, bool tf32, bool fastest) {
  return "e" + std::to_string(int(epilogue)) + ",t" + std::to_string(tf32 ? 1 : 0) + (fastest ? ",fast" : ",general");
}

/// The candidates of one path: every tile Matmul<T> declares for this epilogue and tf32
/// (its Const values {BM, BN, BK, GROUP_M, EPILOGUE, TF32}), the unit-stride-only ones
/// only where their facts hold; in declaration order, without repeats.
template <class T> std::vector<rt::TuneConfig> matmulTuneConfigs(MatmulEpilogue epilogue, bool tf32, bool fastest) {
  std::vector<rt::TuneConfig> out;
  for (const Variant &v : Matmul<T>::variants()) {
    if (v.consts.size() != 6 || v.consts[4] != int(epilogue) || v.consts[5] != (tf32 ? 1 : 0)) continue;
    if (v.unitOnly && !fastest) continue;
    rt::TuneConfig c =
        matmulTuneConfig({int(v.consts[0]), int(v.consts[1]), int(v.consts[2]), v.numWarps, v.numStages});
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  // The descriptor kernel's tiles (Matmul::launch runs MatmulTma for them): row-major only.
  if constexpr (!std::is_same_v<T, float>)
    if (fastest)
      for (const Variant &v : MatmulTma<T>::variants()) {
        // (Warp-specialised tiles are not candidates yet: a TuneConfig names no loop option.)
        if (v.consts[4] != int(epilogue) || v.consts[5]) continue;
        rt::TuneConfig c =
            matmulTuneConfig({int(v.consts[0]), int(v.consts[1]), int(v.consts[2]), v.numWarps, v.numStages});
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      }
  return out;
}
} // namespace detail

/// A new tuner for Matmul<T> on one path (tests and tools: a private cache directory, an
/// empty memory). `launcher` supplies the code identity the disk entries are keyed by.
template <class T>
std::unique_ptr<rt::Autotuner> makeMatmulAutotuner(const Launcher &launcher, MatmulEpilogue epilogue, bool tf32,
                                                   bool fastest, rt::AutotuneOptions options = {}) {
  return std::make_unique<rt::Autotuner>(Matmul<T>::name, detail::matmulTuneSpace(epilogue, tf32, fastest),
                                         detail::matmulTuneConfigs<T>(epilogue, tf32, fastest),
                                         launcher.codeIdentity(Matmul<T>::name), std::move(options));
}

/// The process-wide tuner of Matmul<T> for one path and launcher code identity.
template <class T>
rt::Autotuner &matmulAutotuner(const Launcher &launcher, MatmulEpilogue epilogue, bool tf32, bool fastest) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<rt::Autotuner>> tuners;
  const std::string code = launcher.codeIdentity(Matmul<T>::name);
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<rt::Autotuner> &t = tuners[detail::matmulTuneSpace(epilogue, tf32, fastest) + "|" + code];
  if (!t) t = makeMatmulAutotuner<T>(launcher, epilogue, tf32, fastest);
  return *t;
}

/// The shape class of a matmul launch: (m, n, k) rounded up to powers of two.
inline rt::TuneKey matmulTuneKey(int64_t m, int64_t n, int64_t k) {
  return {rt::nextPow2(m), rt::nextPow2(n), rt::nextPow2(k)};
}

/// Matmul<T>::launch (same arguments, checks and results) with the tile chosen by
/// measurement on the GPU: the first launch of a shape class times every candidate on
/// these buffers (C is overwritten, which the result then overwrites again), later ones
/// reuse the choice (memory, then disk). `tuner`: null = matmulAutotuner<T>(...); else
/// one made by makeMatmulAutotuner<T> for this launch's path (epilogue, tf32, fastest
/// facts), which is checked.
template <class T>
void launchMatmulAutotuned(Launcher &l, const MatmulProblem &p, CUstream stream = nullptr,
                           rt::Autotuner *tuner = nullptr) {
  // The CPU executor: no measurement; the declared default is the library's own policy.
  // Empty or invalid problems: launch() checks and returns or throws as usual.
  if (l.hostMemory() || p.m <= 0 || p.n <= 0 || p.k <= 0) return Matmul<T>::launch(l, p, stream);
  // The same facts as the launch policy's (MatmulProblem.h): the unitOnly tiles are candidates
  // exactly where the policy may pick them.
  const bool fastest = detail::matmulFastestFacts(p);
  rt::Autotuner &t = tuner ? *tuner : matmulAutotuner<T>(l, p.epilogue, p.tf32, fastest);
  if (tuner && tuner->space() != detail::matmulTuneSpace(p.epilogue, p.tf32, fastest))
    fail(Matmul<T>::name, "autotuner of space [" + tuner->space() + "] given a launch of space [" +
                              detail::matmulTuneSpace(p.epilogue, p.tf32, fastest) + "]");
  t.launch(
      matmulTuneKey(p.m, p.n, p.k),
      [&](const rt::TuneConfig &cfg, CUstream s) {
        const MatmulConfig tile = detail::matmulConfigOf(cfg);
        Matmul<T>::launch(l, p, s, &tile);
      },
      stream, /*onGpu=*/true);
}

} // namespace tile::kernels
