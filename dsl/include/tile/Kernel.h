//===- Kernel.h - defining, specialising, compiling and launching kernels -===//
// Included by tile.h. The templates here only map C++ launch arguments onto the
// launch ABI; tracing, compilation and caching live in dsl/lib (KernelBase).
#ifndef TILE_KERNEL_H
#define TILE_KERNEL_H

#include "tile/Error.h"
#include "tile/HalfBits.h"
#include "tile/Spec.h"
#include "tile/TensorDescAbi.h"
#include "tile/runtime/CompiledKernel.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tile {

struct Grid {
  unsigned x = 1, y = 1, z = 1;
  Grid(int64_t gx = 1, int64_t gy = 1, int64_t gz = 1)
      : x(static_cast<unsigned>(gx)), y(static_cast<unsigned>(gy)), z(static_cast<unsigned>(gz)) {}
};

/// Which executor runs a launch. Auto: the GPU when one is usable, else the CPU executor
/// (the same kernel compiled for this host); env TILE_EXECUTOR=cpu|gpu overrides Auto.
/// On the CPU, pointer arguments are host addresses, the launch is synchronous (the
/// stream is ignored) and runs every program id in turn (TILE_CPU_THREADS=n: n threads).
enum class Executor : uint8_t { Auto, GPU, CPU };

struct LaunchOptions {
  int numWarps = 4;
  /// Buffers per software-pipelined load of a K loop (cp.async rings on sm_80+; Triton's
  /// num_stages): 0 = the compiler's default (3), 1 = no pipelining. The CPU executor
  /// ignores it. Part of the specialisation (and so of the cache key).
  int numStages = 0;
  void *stream = nullptr; ///< a CUstream; null = the default stream
  Executor executor = Executor::Auto;
  /// CPU executor only: check every active load/store/atomic element against the buffers
  /// registered with tile::cpu::registerBuffer (bounds, and reads of never-written
  /// bytes); a bad access throws ProgramError naming the program, element and source
  /// line. Env TILE_CPU_CHECK=1 turns it on for every CPU launch.
  bool check = false;
};

/// The executor a launch with `requested` runs on (resolves Auto as described above).
Executor resolveExecutor(Executor requested);

/// Host memory the CPU executor's checking mode knows about. Pointer arguments of a CPU
/// launch are host addresses; in checking mode every access must fall inside a
/// registered buffer, and bytes registered uninitialised must be written before read.
namespace cpu {
void registerBuffer(const void *p, size_t bytes, bool initialized = true);
void unregisterBuffer(const void *p);
/// Records that the host wrote [p, p + bytes) of a registered buffer.
void markInitialized(const void *p, size_t bytes);

/// Registers a buffer for the scope.
class ScopedBuffer {
public:
  ScopedBuffer(const void *p, size_t bytes, bool initialized = true) : p_(p) { registerBuffer(p, bytes, initialized); }
  ~ScopedBuffer() { unregisterBuffer(p_); }
  ScopedBuffer(const ScopedBuffer &) = delete;
  ScopedBuffer &operator=(const ScopedBuffer &) = delete;

private:
  const void *p_;
};
} // namespace cpu

/// One kernel parameter as the launch ABI and the tracer see it.
struct ParamDesc {
  ArgKind kind;
  DType dtype;  ///< pointee for Ptr and Desc, value type for scalars, i64 for Const
  int rank = 0; ///< Desc: its dimensions
};

/// One specialisation compiled: the record the launch paths, the disk cache and the AOT writer
/// use, and (with CompileRequest::keepStages) every stage's text for tools and tests.
struct CompileResult {
  rt::CompiledKernel kernel;
  std::string tileIR;       ///< as traced from the DSL
  std::string optimizedIR;  ///< after the tile passes (layouts assigned)
  std::string llvmIR;       ///< after libdevice linking and optimisation
  bool fromDiskCache = false;
};

/// What the compiler is asked to produce.
struct CompileRequest {
  int sm = 0;          ///< 0: the current GPU's, else 90 (no GPU)
  int ptxVersion = 0;  ///< 0: the highest both the driver and LLVM know
  bool useDiskCache = true;
  bool keepStages = false; ///< fill the stage texts of CompileResult (else only its kernel)
};

/// Type-erased kernel: name, parameters and the traced body.
class KernelBase {
public:
  using Body = std::function<void(const std::vector<Value> &args, const Specialization &spec)>;
  KernelBase(std::string name, std::vector<ParamDesc> params, Body body, std::source_location loc);

  const std::string &name() const;
  const std::vector<ParamDesc> &params() const;

  /// The tile IR of one specialisation, as traced (throws ProgramError on a bad program).
  std::string trace(const Specialization &spec) const;
  /// Compile one specialisation through the whole pipeline (uses the on-disk cache).
  CompileResult compile(const Specialization &spec, const CompileRequest &req = {}) const;
  /// Launch with ABI-level arguments: `params` points at each non-Const argument value.
  void launchSpecialized(Grid grid, const LaunchOptions &opts, const Specialization &spec,
                         void **params) const;

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  /// The CPU executor's launch (dsl/lib/CpuLaunch.cpp): pointer arguments are host addresses.
  void launchCpu(Grid grid, const LaunchOptions &opts, const Specialization &spec, void **params) const;
};

/// A device address passed explicitly for a Ptr<T> parameter: a CUdeviceptr, or the
/// address of an allocation the caller made some other way. Launches refuse plain integers
/// for pointers (a count passed in a pointer's place would become a wild address), so an
/// address held as an integer is wrapped: `k.launch(grid, tile::DeviceAddress(p), n)`. A
/// tile::rt::DeviceBuffer (anything with ptr()) is passed as it is; on the CPU executor
/// pointers are host addresses, passed as typed pointers (a T * for a Ptr<T>) or void *.
class DeviceAddress {
public:
  explicit constexpr DeviceAddress(uint64_t address) : address_(address) {}
  constexpr uint64_t ptr() const { return address_; }

private:
  uint64_t address_;
};

namespace detail {
template <class P> struct ParamTraits;
template <class T, int R> struct ParamTraits<TensorDesc<T, R>> {
  static constexpr ArgKind kind = ArgKind::Desc;
  static constexpr DType dtype = DTypeOf<T>::value;
  static constexpr int rank = R;
  using Storage = TensorDescParam;
};
template <class P> constexpr int paramRank() {
  if constexpr (requires { ParamTraits<P>::rank; }) return ParamTraits<P>::rank;
  else return 0;
}
template <class T> struct ParamTraits<Ptr<T>> {
  static constexpr ArgKind kind = ArgKind::Ptr;
  using Element = T; ///< what a host pointer passed for it must point to
  static constexpr DType dtype = DTypeOf<T>::value;
  using Storage = uint64_t;
};
template <> struct ParamTraits<I32> {
  static constexpr ArgKind kind = ArgKind::I32;
  static constexpr DType dtype = DType::i32;
  using Storage = int32_t;
};
template <> struct ParamTraits<I64> {
  static constexpr ArgKind kind = ArgKind::I64;
  static constexpr DType dtype = DType::i64;
  using Storage = int64_t;
};
template <> struct ParamTraits<F32> {
  static constexpr ArgKind kind = ArgKind::F32;
  static constexpr DType dtype = DType::f32;
  using Storage = float;
};
template <> struct ParamTraits<F16> {
  static constexpr ArgKind kind = ArgKind::F16;
  static constexpr DType dtype = DType::f16;
  using Storage = uint16_t; ///< the IEEE half bits
};
template <> struct ParamTraits<BF16> {
  static constexpr ArgKind kind = ArgKind::BF16;
  static constexpr DType dtype = DType::bf16;
  using Storage = uint16_t; ///< the bfloat16 bits
};
template <> struct ParamTraits<I1> {
  static constexpr ArgKind kind = ArgKind::I1;
  static constexpr DType dtype = DType::i1;
  using Storage = uint8_t; ///< 0 or 1 (a one-byte kernel parameter)
};
template <class T> struct ParamTraits<Const<T>> {
  static constexpr ArgKind kind = ArgKind::Const;
  static constexpr DType dtype = DType::i64;
  using Storage = int64_t;
};

template <class F> struct LambdaArgs : LambdaArgs<decltype(&F::operator())> {};
template <class C, class R, class... A> struct LambdaArgs<R (C::*)(A...) const> {
  using Tuple = std::tuple<std::decay_t<A>...>;
};
template <class C, class R, class... A> struct LambdaArgs<R (C::*)(A...)> {
  using Tuple = std::tuple<std::decay_t<A>...>;
};

/// What a launch argument of C++ type A binds as: A decayed (a C array `float a[16]` is the
/// `float *` to its first element, as in a call to a function taking a pointer).
template <class A> using LaunchArg = std::decay_t<A>;

/// A device address from whatever the caller passes for a pointer (one that bindable allows):
/// a host pointer, null, or an object with ptr() (tile::DeviceAddress, tile::rt::DeviceBuffer).
template <class A> uint64_t deviceAddress(const A &a) {
  if constexpr (requires { a.ptr(); }) return static_cast<uint64_t>(a.ptr());
  else if constexpr (std::is_pointer_v<A>) return reinterpret_cast<uint64_t>(a);
  else {
    static_assert(std::is_null_pointer_v<A>, "deviceAddress: not an address");
    return 0;
  }
}

/// Why launch argument A (decayed) cannot bind parameter P, or Fits.
enum class Misfit { Fits, PointeeType, PlainInteger, NotAnAddress, NotADescriptor, NotAnInteger, NotANumber };

template <class P, class A> constexpr Misfit misfit() {
  constexpr ArgKind k = ParamTraits<P>::kind;
  if constexpr (k == ArgKind::Ptr) {
    // A typed host pointer must point to the parameter's element type (a double * for a
    // Ptr<float> would read every element wrong); void * is an address whose type the
    // caller erased on purpose. A plain integer is refused (4096 for a Ptr<float> became a
    // wild address): a device address is passed as tile::DeviceAddress(x) or a buffer.
    using T = typename ParamTraits<P>::Element;
    if constexpr (requires(const A &a) { a.ptr(); }) return Misfit::Fits;
    else if constexpr (std::is_null_pointer_v<A>) return Misfit::Fits;
    else if constexpr (std::is_pointer_v<A>) {
      using U = std::remove_cv_t<std::remove_pointer_t<A>>;
      return std::is_same_v<U, T> || std::is_void_v<U> ? Misfit::Fits : Misfit::PointeeType;
    } else if constexpr (std::is_integral_v<A> || std::is_enum_v<A>) return Misfit::PlainInteger;
    else return Misfit::NotAnAddress;
  } else if constexpr (k == ArgKind::Desc) {
    return std::is_same_v<A, TensorDescArg> ? Misfit::Fits : Misfit::NotADescriptor;
  } else if constexpr (k == ArgKind::Const) {
    return std::is_integral_v<A> || std::is_enum_v<A> ? Misfit::Fits : Misfit::NotAnInteger;
  } else if constexpr (k == ArgKind::F16 || k == ArgKind::BF16) {
    return std::is_arithmetic_v<A> || std::is_same_v<A, f16> || std::is_same_v<A, bf16> ? Misfit::Fits
                                                                                         : Misfit::NotANumber;
  } else if constexpr (k == ArgKind::F32) {
    return std::is_arithmetic_v<A> ? Misfit::Fits : Misfit::NotANumber;
  } else { // I32, I64, I1
    return std::is_arithmetic_v<A> || std::is_enum_v<A> ? Misfit::Fits : Misfit::NotANumber;
  }
}

/// Whether a C++ launch argument of type A can bind parameter P. Checked at compile time
/// so that, say, a float passed for a Ptr<T> is an error at the launch line, not an address.
template <class P, class A> constexpr bool bindable() { return misfit<P, LaunchArg<A>>() == Misfit::Fits; }

/// Instantiated only for a launch argument that cannot bind its parameter, so that the
/// compiler's first line, "In instantiation of 'struct tile::detail::LaunchArgumentMismatch<
/// 2, tile::Ptr<float>, double*>'", names the argument (its index, from 0), the kernel's
/// parameter type and the argument's type; a static_assert message cannot hold them. Exactly
/// one assertion below fails, saying what the parameter takes.
template <size_t Index, class Param, class Arg> struct LaunchArgumentMismatch {
  static constexpr Misfit why = misfit<Param, Arg>();
#define TILE_MISMATCH "launch argument does not fit its kernel parameter (see LaunchArgumentMismatch<argument index " \
                      "from 0, parameter type, argument type> above): "
  static_assert(why != Misfit::PointeeType, TILE_MISMATCH "a Ptr<T> takes a T * or a void *, not a pointer to "
                                                          "another element type");
  static_assert(why != Misfit::PlainInteger, TILE_MISMATCH "a Ptr<T> takes no plain integer; pass a device address "
                                                           "as tile::DeviceAddress(address)");
  static_assert(why != Misfit::NotAnAddress, TILE_MISMATCH "a Ptr<T> takes a T *, a void *, a tile::DeviceAddress "
                                                           "or a buffer with ptr()");
  static_assert(why != Misfit::NotADescriptor, TILE_MISMATCH "a TensorDesc<T, R> takes a tile::TensorDescArg");
  static_assert(why != Misfit::NotAnInteger, TILE_MISMATCH "a Const<T> takes an integer");
  static_assert(why != Misfit::NotANumber, TILE_MISMATCH "a scalar parameter takes a number");
#undef TILE_MISMATCH
};

/// bindArg for an argument that fits (A is not an array).
template <class P, size_t Index, class A>
void bindFitting(const A &a, ArgSpec &spec, typename ParamTraits<P>::Storage &out) {
  spec.kind = ParamTraits<P>::kind;
  if constexpr (ParamTraits<P>::kind == ArgKind::Desc) {
    constexpr DType t = ParamTraits<P>::dtype;
    const int bytes = t == DType::f64 || t == DType::i64 ? 8 : t == DType::f32 || t == DType::i32 ? 4
                      : t == DType::f16 || t == DType::bf16 || t == DType::i16 ? 2 : 1;
    const std::string who = "argument " + std::to_string(Index) + " (a TensorDesc)";
    if (std::string why = checkTensorDesc(who, a, ParamTraits<P>::rank, bytes); !why.empty())
      throw ArgumentError(why);
    out = toTensorDescParam(a);
    spec.div16 = true; // every extent a multiple of 16: masks along any dimension hold in runs of 16
    for (int d = 0; d < a.rank; ++d) spec.div16 = spec.div16 && a.shape[d] % 16 == 0;
  } else if constexpr (ParamTraits<P>::kind == ArgKind::Ptr) {
    out = deviceAddress(a);
    spec.div16 = isDiv16(out);
  } else if constexpr (ParamTraits<P>::kind == ArgKind::Const) {
    out = static_cast<int64_t>(a);
    spec.constValue = out;
  } else if constexpr (ParamTraits<P>::kind == ArgKind::F32) {
    out = static_cast<float>(a);
  } else if constexpr (ParamTraits<P>::kind == ArgKind::F16 || ParamTraits<P>::kind == ArgKind::BF16) {
    if constexpr (std::is_same_v<A, f16> || std::is_same_v<A, bf16>) out = a.bits;
    else out = ParamTraits<P>::kind == ArgKind::F16 ? tile::halfBits(static_cast<float>(a)) : tile::bf16Bits(static_cast<float>(a));
  } else if constexpr (ParamTraits<P>::kind == ArgKind::I1) {
    out = static_cast<bool>(a) ? 1 : 0;
  } else {
    out = static_cast<typename ParamTraits<P>::Storage>(a);
    spec.div16 = out % 16 == 0;
    spec.one = out == 1;
  }
}

/// Converts launch argument `a` (number Index, from 0) for parameter P: fills the spec entry
/// and the storage. An argument that does not fit is a compile error naming it (above).
template <class P, size_t Index, class A>
void bindArg(const A &a, ArgSpec &spec, typename ParamTraits<P>::Storage &out) {
  if constexpr (!bindable<P, A>()) {
    (void)LaunchArgumentMismatch<Index, P, LaunchArg<A>>{};
  } else if constexpr (std::is_array_v<A>) {
    bindArg<P, Index>(static_cast<const std::remove_extent_t<A> *>(a), spec, out);
  } else {
    bindFitting<P, Index>(a, spec, out);
  }
}

template <class P> P makeParam(const Value &v, const ArgSpec &spec) {
  if constexpr (ParamTraits<P>::kind == ArgKind::Const) return P(static_cast<typename ParamTraits<P>::Storage>(spec.constValue));
  else return P(v);
}
} // namespace detail

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
