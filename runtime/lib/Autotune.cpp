//===- Autotune.cpp - choosing, measuring and remembering configurations --===//
#include "tile/runtime/Autotune.h"

#include "tile/Error.h"

#include "tile/runtime/Context.h"
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/EnvRegistry.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Stream.h"
#include "tile/runtime/TuneEntry.h"
#include "tile/runtime/TuneTable.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace tile::rt {

namespace {
bool verboseEnv() {
  const char *v = readEnv("TILE_AUTOTUNE_VERBOSE");
  return v && *v && std::strcmp(v, "0") != 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One line for any exception a candidate throws (rt::Error's are one line already).
std::string oneLine(const char *what) {
  std::string s = what;
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}
} // namespace

std::vector<double> timeInterleaved(const std::vector<std::function<void()>> &runs, CUstream stream,
                                    const AutotuneOptions &o) {
  const size_t n = runs.size();
  // Warm-up (the first run loads the module, and JIT-compiles where there is a JIT), then
  // one timed run each sizes its repeats to the budget.
  std::vector<int> perRound(n);
  constexpr int kRounds = 5;
  for (size_t i = 0; i < n; ++i) {
    for (int w = 0; w < std::max(1, o.warmupRuns); ++w) runs[i]();
    Event start, stop;
    start.record(stream);
    runs[i]();
    stop.record(stream);
    stop.synchronize();
    double one = std::max(1e-3, double(stop.elapsedMs(start)));
    int repeats = std::clamp(int(o.budgetMs / one), std::max(1, o.minRepeats), std::max(o.minRepeats, o.maxRepeats));
    perRound[i] = std::max(1, (repeats + kRounds - 1) / kRounds);
  }
  std::vector<std::vector<double>> ms(n);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::vector<Event>> starts(n), stops(n);
    for (size_t i = 0; i < n; ++i) {
      starts[i].resize(perRound[i]);
      stops[i].resize(perRound[i]);
      for (int r = 0; r < perRound[i]; ++r) {
        starts[i][r].record(stream);
        runs[i]();
        stops[i][r].record(stream);
      }
    }
    stops[n - 1].back().synchronize();
    for (size_t i = 0; i < n; ++i)
      for (int r = 0; r < perRound[i]; ++r) ms[i].push_back(stops[i][r].elapsedMs(starts[i][r]));
  }
  std::vector<double> medians(n);
  for (size_t i = 0; i < n; ++i) medians[i] = median(ms[i]);
  return medians;
}

Autotuner::Autotuner(std::string kernel, std::string space, std::vector<TuneConfig> configs, std::string codeId,
                     AutotuneOptions options)
    : kernel_(std::move(kernel)), space_(std::move(space)), codeId_(std::move(codeId)), configs_(std::move(configs)),
      options_(std::move(options)) {
  if (configs_.empty()) throw ArgumentError("tile: autotuner of " + kernel_ + " has no candidate configs");
  if (options_.defaultConfig >= configs_.size())
    throw ArgumentError("tile: autotuner of " + kernel_ + ": default config " + std::to_string(options_.defaultConfig) +
                        " of " + std::to_string(configs_.size()));
  for (size_t i = 0; i < configs_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (configs_[i] == configs_[j])
        throw ArgumentError("tile: autotuner of " + kernel_ + " lists " + configs_[i].str() + " twice");
}

Autotuner::~Autotuner() = default;

TuneSource Autotuner::lastSource() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

int Autotuner::benchmarks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return benchmarks_;
}

std::string Autotuner::describe(const TuneKey &key, const std::string &device) const {
  return kernel_ + " [" + space_ + "] key (" + tuneKeyString(key) + ") on " + device;
}

std::string Autotuner::entryPath(const TuneKey &key, const std::string &device) const {
  TuneEntry id{kernel_, space_, device, codeId_, key, {}, -1};
  return DiskCache(options_.cacheDir).pathFor(tuneEntryCacheKey(id));
}

std::optional<Autotuner::Decided> Autotuner::fromDisk(const TuneKey &key, const std::string &device, bool verbose) {
  TuneEntry id{kernel_, space_, device, codeId_, key, {}, -1};
  DiskCache cache(options_.cacheDir);
  const std::string cacheKey = tuneEntryCacheKey(id);
  std::optional<std::string> payload = cache.load(cacheKey, "re-tuning"); // a corrupt file: one line, deleted
  if (!payload) return std::nullopt;
  std::string why;
  std::optional<TuneEntry> e = decodeTuneEntry(*payload, &why);
  if (e && !e->sameSlot(id))
    why = "it is for " + e->kernel + " [" + e->space + "] key (" + tuneKeyString(e->key) + ") on " + e->device +
          ", code " + e->codeId;
  size_t index = configs_.size();
  if (e && why.empty()) {
    index = size_t(std::find(configs_.begin(), configs_.end(), e->config) - configs_.begin());
    if (index == configs_.size()) why = "its config " + e->config.str() + " is not a candidate";
  }
  if (!why.empty()) {
    // Foreign or stale: ignored (and overwritten by the re-tuned choice).
    std::fprintf(stderr, "tile: autotune entry %s ignored (%s); re-tuning\n", cache.pathFor(cacheKey).c_str(),
                 why.c_str());
    return std::nullopt;
  }
  if (verbose)
    std::fprintf(stderr, "tile autotune: %s: %s from %s\n", describe(key, device).c_str(), e->config.str().c_str(),
                 cache.pathFor(cacheKey).c_str());
  return Decided{index, e->ms};
}

Autotuner::Decided Autotuner::benchmark(const TuneKey &key, const std::string &device, const RunCandidate &run,
                                        CUstream stream, bool verbose) {
  if (verbose)
    std::fprintf(stderr, "tile autotune: %s: timing %zu candidates\n", describe(key, device).c_str(), configs_.size());
  std::optional<Decided> best;
  std::string reasons;
  auto consider = [&](size_t i, double ms) {
    if (verbose) std::fprintf(stderr, "tile autotune:   %-40s %10.4f ms\n", configs_[i].str().c_str(), ms);
    if (!best || ms < best->ms) best = Decided{i, ms};
  };
  // A candidate that cannot run here (too much shared memory, no AOT variant, a compile
  // error) throws on its first run: it is left out, with the reason. A compiler bug (InternalError)
  // is not such a reason: it propagates with its report.
  std::vector<size_t> runnable;
  std::vector<std::function<void()>> runs;
  for (size_t i = 0; i < configs_.size(); ++i) {
    const TuneConfig &c = configs_[i];
    auto once = [this, &run, &c, stream] {
      if (options_.beforeEachRun) options_.beforeEachRun();
      run(c, stream);
    };
    try {
      if (options_.timer) {
        consider(i, options_.timer(once, stream));
        continue;
      }
      once();
      runnable.push_back(i);
      runs.push_back(once);
    } catch (const InternalError &) {
      throw; // a compiler bug, not a candidate that does not fit: the user must see its report
    } catch (const std::exception &e) {
      std::string why = oneLine(e.what());
      if (verbose) std::fprintf(stderr, "tile autotune:   %-40s skipped: %s\n", c.str().c_str(), why.c_str());
      reasons += "; " + c.str() + ": " + why;
    }
  }
  if (!runs.empty()) {
    std::vector<double> ms = timeInterleaved(runs, stream, options_);
    for (size_t j = 0; j < runnable.size(); ++j) consider(runnable[j], ms[j]);
  }
  if (!best) throw Error("tile: autotuning " + describe(key, device) + ": no candidate ran" + reasons);
  if (verbose)
    std::fprintf(stderr, "tile autotune: %s: chose %s (%.4f ms)\n", describe(key, device).c_str(),
                 configs_[best->index].str().c_str(), best->ms);
  ++benchmarks_;
  return *best;
}

const TuneConfig &Autotuner::choose(const TuneKey &key, const RunCandidate &run, CUstream stream, bool onGpu) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!onGpu) {
    // Nothing to measure: the CPU executor's time says nothing about a GPU's.
    if (!defaultNoted_ && verboseEnv())
      std::fprintf(stderr, "tile autotune: %s [%s]: no GPU, using the default %s\n", kernel_.c_str(), space_.c_str(),
                   configs_[options_.defaultConfig].str().c_str());
    defaultNoted_ = true;
    last_ = TuneSource::Default;
    return configs_[options_.defaultConfig];
  }
  if (auto it = chosen_.find(key); it != chosen_.end()) {
    last_ = TuneSource::Memory;
    return configs_[it->second];
  }
  const bool verbose = verboseEnv();
  const std::string device = !options_.deviceName.empty() ? options_.deviceName : Context::get().info().name;
  size_t index = configs_.size();
  if (configs_.size() == 1) {
    index = 0, last_ = TuneSource::Default; // nothing to choose between
  } else if (std::optional<TuneConfig> baked = bakedTuneConfig(kernel_, space_, device, key)) {
    index = size_t(std::find(configs_.begin(), configs_.end(), *baked) - configs_.begin());
    if (index < configs_.size() && verbose)
      std::fprintf(stderr, "tile autotune: %s: %s from the baked table\n", describe(key, device).c_str(),
                   baked->str().c_str());
    if (index == configs_.size() && verbose)
      std::fprintf(stderr, "tile autotune: %s: baked %s is not a candidate; ignored\n", describe(key, device).c_str(),
                   baked->str().c_str());
    last_ = TuneSource::Baked;
  }
  if (index == configs_.size() && options_.useDiskCache)
    if (std::optional<Decided> d = fromDisk(key, device, verbose)) index = d->index, last_ = TuneSource::Disk;
  if (index == configs_.size()) {
    Decided d = benchmark(key, device, run, stream, verbose);
    index = d.index, last_ = TuneSource::Benchmark;
    if (options_.useDiskCache) {
      TuneEntry e{kernel_, space_, device, codeId_, key, configs_[index], d.ms};
      DiskCache(options_.cacheDir).store(tuneEntryCacheKey(e), encodeTuneEntry(e));
    }
  }
  chosen_[key] = index;
  return configs_[index];
}

void Autotuner::launch(const TuneKey &key, const RunCandidate &run, CUstream stream, bool onGpu) {
  const TuneConfig &c = choose(key, run, stream, onGpu);
  run(c, stream);
}

} // namespace tile::rt
