//===- Autotune.h - pick a kernel's launch configuration by measuring it ---===//
// Triton's @autotune for tile kernels, on the runtime side (no LLVM/MLIR: the AOT
// executables on the GPU machine tune too). A kernel declares candidate configurations
// (values of its Const parameters, warps, pipeline stages) and a shape class (the key: a
// few launch arguments, or a function of them such as power-of-two buckets). The first
// launch of a key on the GPU runs every candidate (warm-up, then repeats timed with CUDA
// events, median) and keeps the fastest: in memory, and on disk in the compiled-kernel
// cache directory (DiskCache: checksummed, written atomically), keyed by kernel, space
// (whatever else selects the code: dtypes, divisibility facts, epilogue), device name,
// and the identity of the compiled code (compiler build id, or the AOT PTX's digest).
// Later launches of the key, in this process or the next, reuse the choice.
//
// Where nothing runs on a GPU (the CPU executor) nothing is measured: the default
// candidate (AutotuneOptions::defaultConfig, the first unless declared) is used.
//
// Env: TILE_AUTOTUNE_VERBOSE=1 prints every candidate's time (or why it was skipped) and
// the choice, and where a choice came from (disk, baked table); TILE_AUTOTUNE_TABLE=<file>
// adds a baked table (TuneTable.h) at first use; TILE_FORCE_RECOMPILE=1 also ignores
// tuned entries on disk (re-tunes).
//
// Generic use (the DSL's tile::Autotuned and kernels/MatmulAutotune.h wrap this):
//   rt::Autotuner tuner("my_kernel", "f16", {cfgA, cfgB}, codeId);
//   tuner.launch({rt::nextPow2(n)}, [&](const rt::TuneConfig &c, CUstream s) { ...launch with c... },
//                stream, /*onGpu=*/true);
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile::rt {

/// One candidate: values of Const parameters by name, warps and pipeline stages.
struct TuneConfig {
  std::vector<std::pair<std::string, int64_t>> consts;
  int numWarps = 4;
  int numStages = 0; ///< 0: the compiler's default (LaunchOptions::numStages)

  /// The value of Const `name`; throws tile::ArgumentError when the config does not set it.
  int64_t operator[](std::string_view name) const;
  const int64_t *find(std::string_view name) const;
  /// Stable text: "BM=128,BN=64,warps=4,stages=3" (stages only when set); parse() reads it.
  std::string str() const;
  static std::optional<TuneConfig> parse(std::string_view text);
  bool operator==(const TuneConfig &) const = default;
};

/// A shape class: the values the kernel declared as its key (Triton's key=[...]).
using TuneKey = std::vector<int64_t>;
/// The smallest power of two >= v (1 for v <= 1): a shape bucket, as in key=[pow2(m), ...].
int64_t nextPow2(int64_t v);
/// "1024,512,64".
std::string tuneKeyString(const TuneKey &key);

/// Where a choice came from.
enum class TuneSource { None, Memory, Baked, Disk, Benchmark, Default };
const char *tuneSourceName(TuneSource s);

/// Times one candidate: milliseconds (the median) of calls of `run` on `stream`. Throws
/// what `run` throws when the candidate cannot run. The default times with CUDA events.
using CandidateTimer = std::function<double(const std::function<void()> &run, CUstream stream)>;

struct AutotuneOptions {
  std::string cacheDir; ///< "": DiskCache::defaultDir() (where compiled kernels are cached)
  bool useDiskCache = true;
  size_t defaultConfig = 0; ///< the candidate used where nothing is measured (CPU executor)
  /// Triton's pre_hook: called before every measured run of a candidate (for kernels that
  /// accumulate into their outputs, to reset them). Not called before the real launch.
  std::function<void()> beforeEachRun;
  /// The measurement: warm-up runs, then repeats until minRepeats and budgetMs are both
  /// reached (at most maxRepeats), median of the event-timed runs.
  int warmupRuns = 2, minRepeats = 5, maxRepeats = 100;
  double budgetMs = 40;
  CandidateTimer timer;   ///< unset: CUDA events, interleaved (timeInterleaved); tests inject their own
  std::string deviceName; ///< "": the current GPU's name (tests set one)
};

/// The default measurement of a tuner's candidates, with CUDA events: the options' warm-up,
/// repeats and budget per candidate, run in 5 interleaved rounds (every candidate a fifth of its repeats
/// per round); the median of each. A GPU's clock drifts as it heats up: timed one after
/// another, the first candidates ran on a cooler, faster GPU (at f16 4096^3 the first-listed
/// tile won, then ran 7% below the library's fixed choice in the same bench run).
std::vector<double> timeInterleaved(const std::vector<std::function<void()>> &runs, CUstream stream,
                                    const AutotuneOptions &o);

class Autotuner {
public:
  using RunCandidate = std::function<void(const TuneConfig &, CUstream)>;

  /// kernel: its name; space: what else selects these candidates' code (a key part the
  /// caller does not tune over); configs: the candidates (not empty); codeId: identity of
  /// the compiled code (a new compiler or new AOT PTX invalidates disk entries).
  Autotuner(std::string kernel, std::string space, std::vector<TuneConfig> configs, std::string codeId,
            AutotuneOptions options = {});
  ~Autotuner();
  Autotuner(const Autotuner &) = delete;
  Autotuner &operator=(const Autotuner &) = delete;

  /// The configuration for `key`. In order: this tuner's memory, a baked table
  /// (TuneTable.h), the disk entry, else on the GPU (`onGpu`) every candidate is run through
  /// `run` on `stream` and timed (a candidate that throws is skipped: too much shared
  /// memory, no AOT variant...; if all throw, throws rt::Error naming each reason);
  /// without a GPU the default candidate. Thread-safe (one tuning at a time).
  const TuneConfig &choose(const TuneKey &key, const RunCandidate &run, CUstream stream, bool onGpu);
  /// choose(), then one launch of the choice (the launch the caller asked for).
  void launch(const TuneKey &key, const RunCandidate &run, CUstream stream, bool onGpu);

  const std::string &kernel() const { return kernel_; }
  const std::string &space() const { return space_; }
  const std::vector<TuneConfig> &configs() const { return configs_; }
  /// Where the last choose() got its answer; how many keys were benchmarked so far.
  TuneSource lastSource() const;
  int benchmarks() const;
  /// The disk entry's path of `key` on device `device` (what choose() reads and writes).
  std::string entryPath(const TuneKey &key, const std::string &device) const;

private:
  struct Decided {
    size_t index;
    double ms; ///< measured (or recorded on disk); < 0 when unknown
  };
  std::optional<Decided> fromDisk(const TuneKey &key, const std::string &device, bool verbose);
  Decided benchmark(const TuneKey &key, const std::string &device, const RunCandidate &run, CUstream stream,
                    bool verbose);
  std::string describe(const TuneKey &key, const std::string &device) const;

  std::string kernel_, space_, codeId_;
  std::vector<TuneConfig> configs_;
  AutotuneOptions options_;
  mutable std::mutex mu_;
  std::map<TuneKey, size_t> chosen_; ///< key -> candidate index (GPU choices)
  bool defaultNoted_ = false;        ///< the CPU fallback was reported (verbose)
  TuneSource last_ = TuneSource::None;
  int benchmarks_ = 0;
};

} // namespace tile::rt
