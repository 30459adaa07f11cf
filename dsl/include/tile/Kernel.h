//===- Kernel.h - defining, specialising, compiling and launching kernels -===//
// Included by tile.h. Kernel<F> maps a kernel lambda's parameter types onto the launch ABI;
// tracing, compilation and caching live in dsl/lib (KernelBase). The pieces have headers of
// their own, all included here: Launch.h (Grid, Executor, LaunchOptions, DeviceAddress),
// CpuBuffers.h (the CPU executor's checked buffers), KernelBase.h (ParamDesc,
// CompileRequest/Result, KernelBase), ParamTraits.h and LaunchArgs.h (argument binding).
#ifndef TILE_KERNEL_H
#define TILE_KERNEL_H

#include "tile/CpuBuffers.h"
#include "tile/KernelBase.h"
#include "tile/Launch.h"
#include "tile/LaunchArgs.h"
#include "tile/ParamTraits.h"
#include "tile/Spec.h"
#include "tile/Value.h"

#include <array>
#include <cstddef>
#include <source_location>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tile {

/// A DSL kernel. F is the kernel lambda; its parameter types (Ptr<T>, I32, I64, F32,
/// Const<int>) define the launch signature.
template <class F> class Kernel : public KernelBase {
  using Params = typename detail::LambdaArgs<F>::Tuple;
  static constexpr size_t N = std::tuple_size_v<Params>;

  template <size_t... I> static std::vector<ParamDesc> describe(std::index_sequence<I...>) {
    return {ParamDesc{detail::ParamTraits<std::tuple_element_t<I, Params>>::kind,
                      detail::ParamTraits<std::tuple_element_t<I, Params>>::dtype,
                      detail::paramRank<std::tuple_element_t<I, Params>>()}...};
  }
  template <size_t... I> static Body wrap(F fn, std::index_sequence<I...>) {
    return [fn](const std::vector<Value> &args, const Specialization &spec) {
      fn(detail::makeParam<std::tuple_element_t<I, Params>>(args[I], spec.args[I])...);
    };
  }

public:
  Kernel(std::string name, F fn, std::source_location loc)
      : KernelBase(std::move(name), describe(std::make_index_sequence<N>()),
                   wrap(std::move(fn), std::make_index_sequence<N>()), loc) {}

  /// Launch on `grid` programs; arguments follow the kernel's parameters.
  template <class... A> void launch(Grid grid, const A &...args) const { launch(grid, LaunchOptions{}, args...); }

  template <class... A> void launch(Grid grid, const LaunchOptions &opts, const A &...args) const {
    static_assert(sizeof...(A) == N, "launch() needs one argument per kernel parameter");
    if constexpr (sizeof...(A) == N) { // else only the assertion above is reported
      Specialization spec;
      spec.numWarps = opts.numWarps;
      spec.numStages = opts.numStages;
      Storage storage;
      std::array<void *, N + 1> ptrs{};
      bindAll(storage, spec, ptrs, std::make_index_sequence<N>(), args...);
      launchSpecialized(grid, opts, spec, ptrs.data());
    }
  }

  /// The specialisation these launch arguments select (no launch).
  template <class... A> Specialization specialize(int numWarps, const A &...args) const {
    static_assert(sizeof...(A) == N, "one argument per kernel parameter");
    Specialization spec;
    spec.numWarps = numWarps;
    spec.args.resize(N);
    Storage storage;
    std::array<void *, N + 1> ptrs{};
    bindAll(storage, spec, ptrs, std::make_index_sequence<N>(), args...);
    return spec;
  }

private:
  template <class T> struct StorageOf;
  template <class... P> struct StorageOf<std::tuple<P...>> {
    using type = std::tuple<typename detail::ParamTraits<P>::Storage...>;
  };
  using Storage = typename StorageOf<Params>::type;

  template <size_t... I, class... A>
  static void bindAll(Storage &storage, Specialization &spec, std::array<void *, N + 1> &ptrs,
                      std::index_sequence<I...>, const A &...args) {
    spec.args.resize(N);
    (detail::bindArg<std::tuple_element_t<I, Params>, I>(args, spec.args[I], std::get<I>(storage)), ...);
    size_t k = 0;
    ((detail::ParamTraits<std::tuple_element_t<I, Params>>::kind != ArgKind::Const
          ? (void)(ptrs[k++] = &std::get<I>(storage))
          : (void)0),
     ...);
  }
};

/// Define a kernel. The lambda is traced lazily, once per specialisation.
template <class F>
Kernel<F> kernel(std::string name, F fn, std::source_location loc = std::source_location::current()) {
  return Kernel<F>(std::move(name), std::move(fn), loc);
}

} // namespace tile

#endif
