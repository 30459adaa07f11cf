//===- ParamTraits.h - a kernel parameter type's ABI kind and storage -----===//
// What each parameter type of a kernel lambda (Ptr<T>, I32, ..., Const<T>, TensorDesc<T, R>)
// is to the launch ABI and the tracer: its kind, element type and launch-time storage.
#ifndef TILE_PARAMTRAITS_H
#define TILE_PARAMTRAITS_H

#include "tile/Spec.h"
#include "tile/TensorDescAbi.h"
#include "tile/Types.h"
#include "tile/Value.h"

#include <cstdint>
#include <tuple>
#include <type_traits>

namespace tile::detail {

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

template <class P> P makeParam(const Value &v, const ArgSpec &spec) {
  if constexpr (ParamTraits<P>::kind == ArgKind::Const)
    return P(static_cast<typename ParamTraits<P>::Storage>(spec.constValue));
  else return P(v);
}
} // namespace tile::detail

#endif
