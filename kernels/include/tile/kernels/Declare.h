//===- Declare.h - the form of a library kernel declaration ---------------===//
// A library kernel is declared once, in one header of tile/kernels/, as a struct:
//
//   struct VectorAdd {
//     static constexpr const char *name = "vector_add";             // a C identifier
//     static constexpr auto body = [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n,
//                                     Const<int> BLOCK) { ... };     // the DSL program
//     static constexpr std::array params{"x", "y", "z", "n", "BLOCK"};
//     static std::vector<Variant> variants();   // every (Const values, warps) launch() uses
//     static void launch(Launcher &, Address x, Address y, Address z, int64_t n,
//                        CUstream stream = nullptr);   // shapes -> checks, policy, launchKernel
//   };
//   TILE_LIBRARY_KERNEL(VectorAdd);
//
// Optional: `static constexpr std::array unitParams{"strideAk", ...}`, names of integer
// parameters usually equal to 1 (unit strides: contiguous accesses); gen_kernels_aot then
// also compiles each variant with those specialised to 1 (tile/Spec.h, ArgSpec::one).
// Optional: `static constexpr std::array factFreeParams{"heads", "group_size"}`, names of
// integer parameters whose divisibility no specialisation assumes. A specialisation serves a
// launch only where every fact it assumed holds, so an integer that is often not a multiple of
// 16 (a head count, a grouped-query group size of 1) would otherwise hold every other argument
// to the slower specialisations: descriptors without 16-divisible extents (no TMA stores),
// pointers without their alignment.
//
// The build greps the TILE_LIBRARY_KERNEL lines of tile/kernels/*.h into AllKernels.h
// (`using AllKernels = KernelList<...>`), from which gen_kernels_aot compiles every
// variant ahead of time and Registry.h lists the kernels for tools. Adding a kernel is
// adding (or extending) one header.
//
// Including this header does not odr-use the DSL: a declaration's body is traced only
// where dslKernel<D>() is called (DslLauncher, the AOT generator, tools), so runtime-only
// executables include declarations and launch them through AotLauncher.
#pragma once

#include "tile/kernels/Common.h"
#include "tile/kernels/Launcher.h"
#include "tile/tile.h"

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tile::kernels {

/// One launch configuration a declaration's launcher can ask for: the values of its
/// Const parameters (in parameter order) and the warps. gen_kernels_aot compiles each
/// with every divisibility level (aot::standardVariants).
struct Variant {
  std::vector<int64_t> consts;
  int numWarps = 4;
  /// Compile only the fastest specialisation: the declaration's unitParams equal to 1 and
  /// every other integer and pointer 16-divisible (a tile too large for the general code,
  /// which the launcher only picks when those facts hold).
  bool unitOnly = false;
  /// Buffers per software-pipelined load (Specialization::numStages): 0 = the compiler's
  /// default. Part of the variant: a launch asks for the same count.
  int numStages = 0;
};

/// Whether parameter `i` of declaration D is one of its factFreeParams.
template <class D> bool isFactFreeParam(size_t i) {
  if constexpr (requires { D::factFreeParams; })
    for (const char *p : D::factFreeParams)
      if (std::string_view(p) == D::params[i]) return true;
  return false;
}

/// Warps (and pipeline stages, 0 = the compiler's default) of a launch: an int converts,
/// so `launchKernel<D>(l, grid, 4, ...)` reads as before.
struct KernelWarps {
  KernelWarps(int numWarps, int numStages = 0) : numWarps(numWarps), numStages(numStages) {}
  int numWarps, numStages;
};

/// The list of declarations (AllKernels.h defines the library's).
template <class... D> struct KernelList {
  static constexpr size_t size = sizeof...(D);
  /// Calls f.template operator()<D>() for each declaration in order.
  template <class F> static void forEach(F &&f) { (f.template operator()<D>(), ...); }
};

namespace detail {
template <class D> using BodyType = std::remove_cvref_t<decltype(D::body)>;
template <class D> using BodyParams = typename tile::detail::LambdaArgs<BodyType<D>>::Tuple;
template <class D> constexpr size_t kArity = std::tuple_size_v<BodyParams<D>>;

template <class T> struct StorageOf;
template <class... P> struct StorageOf<std::tuple<P...>> {
  using type = std::tuple<typename tile::detail::ParamTraits<P>::Storage...>;
};

/// Whether launch argument A can bind kernel parameter P (the rule tile::Kernel::launch applies).
template <class P, class A> constexpr bool argFits() { return tile::detail::bindable<P, std::remove_cvref_t<A>>(); }
template <class D, class... A, size_t... I> constexpr bool argsFit(std::index_sequence<I...>) {
  return (argFits<std::tuple_element_t<I, BodyParams<D>>, A>() && ...);
}
} // namespace detail

/// True when launchKernel<D>(..., args...) compiles: one argument per parameter of D's
/// body, each convertible to its parameter.
template <class D, class... A>
concept LaunchArgsFor =
    sizeof...(A) == detail::kArity<D> && detail::argsFit<D, A...>(std::make_index_sequence<sizeof...(A)>());

/// The typed launch: builds the specialisation (parameter kinds from D's body, div16 and
/// unit facts from the values, Const values) and the launch ABI's parameter array exactly
/// as tile::Kernel<F>::launch does, and hands them to `launcher`. Launching an empty grid
/// is the caller's business (launchers return early).
template <class D, class... A>
void launchKernel(Launcher &launcher, Grid grid, KernelWarps warps, CUstream stream, const A &...args) {
  static_assert(sizeof...(A) == detail::kArity<D>, "launchKernel: one argument per kernel parameter");
  // An argument that does not fit is reported by bindArg, naming its index and types.
  using Params = detail::BodyParams<D>;
  constexpr size_t N = detail::kArity<D>;
  typename detail::StorageOf<Params>::type storage;
  Specialization spec;
  spec.numWarps = warps.numWarps;
  spec.numStages = warps.numStages;
  spec.args.resize(N);
  std::array<void *, N + 1> ptrs{};
  [&]<size_t... I>(std::index_sequence<I...>) {
    (tile::detail::bindArg<std::tuple_element_t<I, Params>, I>(args, spec.args[I], std::get<I>(storage)), ...);
    size_t k = 0;
    ((tile::detail::ParamTraits<std::tuple_element_t<I, Params>>::kind != ArgKind::Const
          ? (void)(ptrs[k++] = &std::get<I>(storage))
          : (void)0),
     ...);
  }(std::make_index_sequence<N>());
  launcher.launch(D::name, spec, rt::Dim3{grid.x, grid.y, grid.z}, ptrs.data(), stream);
}

/// The DSL kernel of a declaration (traced from its body on first compile). Odr-uses the
/// DSL: only for code that links tile_dsl.
template <class D> using DslKernel = tile::Kernel<detail::BodyType<D>>;
template <class D> const DslKernel<D> &dslKernel() {
  static const DslKernel<D> k = tile::kernel(D::name, D::body);
  return k;
}

namespace detail {
template <class D> consteval bool checkDeclaration() {
  static_assert(std::is_convertible_v<decltype(D::name), const char *>,
                "a library kernel declares `static constexpr const char *name`");
  static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(D::params)>> == kArity<D>,
                "a library kernel's `params` names every parameter of its body");
  static_assert(std::is_same_v<decltype(D::variants()), std::vector<Variant>>,
                "a library kernel declares `static std::vector<Variant> variants()`");
  return true;
}
} // namespace detail

} // namespace tile::kernels

/// Marks a declaration as a library kernel (the build greps these lines, one per kernel,
/// at the start of a line in tile/kernels/*.h) and checks its form. Use at namespace
/// scope in tile::kernels, after the struct, with a semicolon.
#define TILE_LIBRARY_KERNEL(Decl)                                                                                      \
  static_assert(::tile::kernels::detail::checkDeclaration<Decl>(), "library kernel " #Decl)
