//===- Autotune.h - Triton's @autotune for DSL kernels --------------------===//
// A kernel launched through tile::Autotuned picks its Const values, warps and stages per
// shape class by measuring candidates on the GPU (rt::Autotuner: CUDA events, median,
// the choice kept in memory and in the compiled-kernel cache directory; on the CPU
// executor the default candidate, unmeasured). Example:
//
//   auto add = tile::kernel("add", [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n, Const<int> BLOCK) {...});
//   auto tuned = tile::autotune(add, {"BLOCK"},                  // the kernel's Const parameters, in order
//                               {{{{"BLOCK", 256}}, 2}, {{{"BLOCK", 1024}}, 4}, {{{"BLOCK", 4096}}, 8, 3}},
//                               tile::keyOnPow2({3}));           // shape class: n rounded up to 2^k
//   tuned.launch([&](const tile::TuneConfig &c) { return tile::Grid(cdiv(n, c["BLOCK"])); },
//                x, y, z, n, /*BLOCK: tuned*/ 0);
//
// The values passed for tuned Consts are placeholders (each candidate's replace them);
// Consts a config does not set keep the value passed. LaunchOptions::numWarps and
// numStages come from the config. Set TILE_AUTOTUNE_VERBOSE=1 to see the timings.
#ifndef TILE_AUTOTUNE_H
#define TILE_AUTOTUNE_H

#include "tile/Error.h"
#include "tile/tile.h"
#include "tile/runtime/Autotune.h"
#include "tile/runtime/Hash.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tile {

using rt::AutotuneOptions;
using rt::TuneConfig;
using rt::TuneKey;

/// The compiler's build id (a hash of compiler/ sources): what JIT-compiled code depends on.
std::string compilerBuildId();

/// A launch's shape class from its arguments: args[i] is launch argument i as an integer
/// (integers and Consts their value, pointers their address, floats 0).
using TuneKeyFn = std::function<TuneKey(const std::vector<int64_t> &args)>;
/// key = the arguments at these parameter indices (Triton's key=['n', ...]).
inline TuneKeyFn keyOn(std::vector<size_t> indices) {
  return [indices](const std::vector<int64_t> &args) {
    TuneKey k;
    for (size_t i : indices) k.push_back(args.at(i));
    return k;
  };
}
/// The same, each rounded up to a power of two: one tuning per size bucket.
inline TuneKeyFn keyOnPow2(std::vector<size_t> indices) {
  return [indices](const std::vector<int64_t> &args) {
    TuneKey k;
    for (size_t i : indices) k.push_back(rt::nextPow2(args.at(i)));
    return k;
  };
}

template <class F> class Autotuned {
  using Params = typename detail::LambdaArgs<F>::Tuple;
  static constexpr size_t N = std::tuple_size_v<Params>;
  template <size_t I>
  static constexpr bool isConst = detail::ParamTraits<std::tuple_element_t<I, Params>>::kind == ArgKind::Const;

public:
  /// constNames: a name for each Const parameter of the kernel, in parameter order (what
  /// configs refer to). configs: the candidates (the first is the default, used unmeasured
  /// on the CPU, unless options.defaultConfig says otherwise).
  Autotuned(Kernel<F> kernel, std::vector<std::string> constNames, std::vector<TuneConfig> configs, TuneKeyFn key,
            AutotuneOptions options = {})
      : kernel_(std::move(kernel)), configs_(std::move(configs)), key_(std::move(key)), options_(std::move(options)),
        state_(std::make_shared<State>()) {
    std::vector<size_t> constParams;
    for (size_t i = 0; i < N; ++i)
      if (kernel_.params()[i].kind == ArgKind::Const) constParams.push_back(i);
    if (constNames.size() != constParams.size())
      throw ArgumentError("tile::Autotuned(" + kernel_.name() + "): " + std::to_string(constNames.size()) +
                          " names for " + std::to_string(constParams.size()) + " Const parameters");
    constName_.assign(N, "");
    for (size_t j = 0; j < constParams.size(); ++j) constName_[constParams[j]] = constNames[j];
    for (const TuneConfig &c : configs_)
      for (const auto &[name, value] : c.consts)
        if (std::find(constNames.begin(), constNames.end(), name) == constNames.end())
          throw ArgumentError("tile::Autotuned(" + kernel_.name() + "): config " + c.str() + " sets '" + name +
                              "', which names no Const parameter");
  }

  template <class G, class... A> void launch(G grid, const A &...args) { launch(grid, LaunchOptions{}, args...); }

  /// grid: a tile::Grid, or a function of the config returning one. args: one per kernel
  /// parameter, as for Kernel::launch.
  template <class G, class... A> void launch(G grid, const LaunchOptions &opts, const A &...args) {
    static_assert(sizeof...(A) == N, "Autotuned::launch needs one argument per kernel parameter");
    const bool onGpu = resolveExecutor(opts.executor) == Executor::GPU;
    rt::Autotuner &tuner = tunerFor(opts, args...);
    auto run = [&](const TuneConfig &c, CUstream stream) {
      LaunchOptions o = opts;
      o.numWarps = c.numWarps;
      o.numStages = c.numStages;
      o.stream = stream;
      Grid g;
      if constexpr (std::is_invocable_v<G, const TuneConfig &>) g = Grid(grid(c));
      else g = Grid(grid);
      launchWith(c, g, o, std::make_index_sequence<N>(), args...);
    };
    tuner.launch(key_(integerArgs(args...)), run, static_cast<CUstream>(opts.stream), onGpu);
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->last = &tuner;
  }

  /// The tuner that served the last launch (null before one): its choices and counters.
  const rt::Autotuner *lastTuner() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->last;
  }
  /// Keys benchmarked so far, over every specialisation.
  int benchmarks() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    int n = 0;
    for (const auto &[space, t] : state_->tuners) n += t->benchmarks();
    return n;
  }

private:
  struct State {
    std::mutex mu;
    std::map<std::string, std::unique_ptr<rt::Autotuner>> tuners; ///< one per specialisation class
    const rt::Autotuner *last = nullptr;
  };

  template <size_t I, class A> auto tunedArg(const TuneConfig &c, const A &a) const {
    if constexpr (isConst<I>) {
      const int64_t *v = c.find(constName_[I]);
      return v ? *v : static_cast<int64_t>(a);
    } else {
      return std::cref(a);
    }
  }
  template <size_t... I, class... A>
  void launchWith(const TuneConfig &c, Grid g, const LaunchOptions &o, std::index_sequence<I...>,
                  const A &...args) const {
    kernel_.launch(g, o, unwrap(tunedArg<I>(c, args))...);
  }
  static int64_t unwrap(int64_t v) { return v; }
  template <class T> static const T &unwrap(std::reference_wrapper<const T> r) { return r.get(); }

  template <class... A> static std::vector<int64_t> integerArgs(const A &...args) {
    std::vector<int64_t> v;
    auto one = [&v](const auto &a) {
      using R = std::remove_cvref_t<decltype(a)>;
      if constexpr (std::is_integral_v<R> || std::is_enum_v<R>) v.push_back(static_cast<int64_t>(a));
      else if constexpr (std::is_pointer_v<R> || requires { a.ptr(); })
        v.push_back(static_cast<int64_t>(detail::deviceAddress(a)));
      else v.push_back(0);
    };
    (one(args), ...);
    return v;
  }

  /// The tuner of this launch's specialisation class: the specialisation with the tuned
  /// constants and the warps blanked (divisibility facts and the other constants select
  /// different code, so they are tuned apart, as Triton keys by specialisation).
  template <class... A> rt::Autotuner &tunerFor(const LaunchOptions &opts, const A &...args) {
    Specialization s = kernel_.specialize(0, args...);
    for (size_t i = 0; i < N; ++i)
      if (!constName_[i].empty()) s.args[i].constValue = 0;
    std::string space = s.str();
    std::lock_guard<std::mutex> lock(state_->mu);
    std::unique_ptr<rt::Autotuner> &t = state_->tuners[space];
    if (!t) t = std::make_unique<rt::Autotuner>(kernel_.name(), space, configs_, codeId(opts, args...), options_);
    return *t;
  }

  /// The compiler build and the kernel's program (traced with the default config): a new
  /// compiler or a changed kernel body is tuned again.
  template <class... A> std::string codeId(const LaunchOptions &, const A &...args) const {
    const TuneConfig &c = configs_.at(options_.defaultConfig);
    std::string ir;
    try {
      Specialization s = [&]<size_t... I>(std::index_sequence<I...>) {
        return kernel_.specialize(c.numWarps, unwrap(tunedArg<I>(c, args))...);
      }(std::make_index_sequence<N>());
      s.numStages = c.numStages;
      ir = kernel_.trace(s);
    } catch (const std::exception &) {
      // The default candidate does not trace: key by the compiler alone (tuning reports it).
    }
    return "jit-" + compilerBuildId() + "-" + rt::digest(ir);
  }

  Kernel<F> kernel_;
  std::vector<std::string> constName_; ///< per parameter: its name for configs ("" unless Const)
  std::vector<TuneConfig> configs_;
  TuneKeyFn key_;
  AutotuneOptions options_;
  std::shared_ptr<State> state_;
};

/// Autotuned's constructor with F deduced: `auto tuned = tile::autotune(kernel, {"BLOCK"}, configs, key);`.
template <class F>
Autotuned<F> autotune(const Kernel<F> &kernel, std::vector<std::string> constNames, std::vector<TuneConfig> configs,
                      TuneKeyFn key, AutotuneOptions options = {}) {
  return Autotuned<F>(kernel, std::move(constNames), std::move(configs), std::move(key), std::move(options));
}

} // namespace tile

#endif
