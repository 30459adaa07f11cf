//===- LaunchArgs.h - binding C++ launch arguments to kernel parameters ---===//
// Checked at compile time: an argument that cannot bind its parameter (a float for a
// Ptr<T>, a double * for a Ptr<float>) is an error at the launch line naming it.
#ifndef TILE_LAUNCHARGS_H
#define TILE_LAUNCHARGS_H

#include "tile/Error.h"
#include "tile/HalfBits.h"
#include "tile/ParamTraits.h"
#include "tile/Spec.h"
#include "tile/TensorDescAbi.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tile::detail {

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
#define TILE_MISMATCH                                                                                                  \
  "launch argument does not fit its kernel parameter (see LaunchArgumentMismatch<argument index "                      \
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
    const int bytes = t == DType::f64 || t == DType::i64                       ? 8
                      : t == DType::f32 || t == DType::i32                     ? 4
                      : t == DType::f16 || t == DType::bf16 || t == DType::i16 ? 2
                                                                               : 1;
    const std::string who = "argument " + std::to_string(Index) + " (a TensorDesc)";
    if (std::string why = checkTensorDesc(who, a, ParamTraits<P>::rank, bytes); !why.empty()) throw ArgumentError(why);
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
    else
      out = ParamTraits<P>::kind == ArgKind::F16 ? tile::halfBits(static_cast<float>(a))
                                                 : tile::bf16Bits(static_cast<float>(a));
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

} // namespace tile::detail

#endif
