//===- AtomicCheck.h - what test/kernels/AtomicKernels.h must produce ------===//
// Atomics on one address happen in some order; whatever it was, the old values each
// returned chain up: every atomic turned the value it read (old) into op(old, value), so
// per address the multiset of olds plus the final value equals the multiset of
// op(old, value) plus the initial one. That, the final value (a fold of every value for
// the commutative kinds, one of them for xchg) and zeros where masked off is checked here,
// for the CPU and the GPU tests alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace tile::testutil {

enum class AtomicTestKind { Add, Max, Min, And, Or, Xor, Xchg };

/// The kinds atomic_kinds_<T> applies, in order: all for integers; add, max, min, xchg for floats.
template <class T> std::vector<AtomicTestKind> atomicKinds() {
  using K = AtomicTestKind;
  if constexpr (std::is_floating_point_v<T>) return {K::Add, K::Max, K::Min, K::Xchg};
  else return {K::Add, K::Max, K::Min, K::And, K::Or, K::Xor, K::Xchg};
}

template <class T> const char *atomicKernelName() {
  if constexpr (std::is_same_v<T, int32_t>) return "atomic_kinds_i32";
  else if constexpr (std::is_same_v<T, int64_t>) return "atomic_kinds_i64";
  else if constexpr (std::is_same_v<T, float>) return "atomic_kinds_f32";
  else return "atomic_kinds_f64";
}

inline const char *atomicKindName(AtomicTestKind k) {
  static const char *names[] = {"add", "max", "min", "and", "or", "xor", "xchg"};
  return names[int(k)];
}

/// op(old, v) as the hardware computes it (integers wrap).
template <class T> T applyAtomic(AtomicTestKind k, T old, T v) {
  using U = std::make_unsigned_t<std::conditional_t<std::is_floating_point_v<T>, int64_t, T>>;
  switch (k) {
  case AtomicTestKind::Add:
    if constexpr (std::is_floating_point_v<T>) return old + v;
    else return T(U(old) + U(v));
  case AtomicTestKind::Max: return std::max(old, v);
  case AtomicTestKind::Min: return std::min(old, v);
  case AtomicTestKind::Xchg: return v;
  default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (k == AtomicTestKind::And) return old & v;
    if (k == AtomicTestKind::Or) return old | v;
    return old ^ v;
  }
  return v;
}

template <class T> bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// The results of atomic_kinds_<T>: `init` and `tables` [kinds][K] before and after, `olds`
/// [kinds][n]. Empty when right, else what is wrong (the first few).
template <class T>
std::string checkAtomicKinds(const std::vector<T> &values, const std::vector<T> &init, const std::vector<T> &tables,
                             const std::vector<T> &olds, int n, int K) {
  std::string errors;
  int count = 0;
  auto fail = [&](const std::string &what) {
    if (count++ < 8) errors += what + "\n";
  };
  const std::vector<AtomicTestKind> kinds = atomicKinds<T>();
  for (size_t k = 0; k < kinds.size(); ++k) {
    const std::string name = atomicKindName(kinds[k]);
    for (int s = 0; s < K; ++s) {
      const T start = init[k * K + s], final = tables[k * K + s];
      std::vector<T> before{final}, after{start};
      T fold = start;
      bool wroteFinal = false, any = false;
      for (int i = s; i < n; i += K) {
        const T old = olds[k * size_t(n) + i];
        if (i % 7 == 3) {
          if (!sameBits(old, T(0))) fail(name + ": masked-off element " + std::to_string(i) + " returned non-zero");
          continue;
        }
        before.push_back(old);
        after.push_back(applyAtomic(kinds[k], old, values[i]));
        fold = applyAtomic(kinds[k], fold, values[i]);
        wroteFinal = wroteFinal || sameBits(values[i], final);
        any = true;
      }
      std::sort(before.begin(), before.end());
      std::sort(after.begin(), after.end());
      if (!std::equal(before.begin(), before.end(), after.begin(), sameBits<T>))
        fail(name + ": slot " + std::to_string(s) +
             ": the old values do not chain from the initial to the final value");
      if (kinds[k] != AtomicTestKind::Xchg && !sameBits(fold, final))
        fail(name + ": slot " + std::to_string(s) + " ends at " + std::to_string(final) + ", not " +
             std::to_string(fold));
      if (kinds[k] == AtomicTestKind::Xchg && (any ? !wroteFinal : !sameBits(final, start)))
        fail(name + ": slot " + std::to_string(s) + " ends at a value nobody exchanged in");
    }
  }
  return errors;
}

} // namespace tile::testutil
