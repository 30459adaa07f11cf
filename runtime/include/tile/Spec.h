//===- Spec.h - how a kernel is specialised at launch ---------------------===//
// Header-only and free of MLIR/LLVM (it is the launch ABI, so it lives with the runtime):
// JIT launches (dsl/), AOT launch stubs and the
// runtime-only executables on the GPU machine all compute the same key from the same
// launch arguments, so a kernel compiled ahead of time is found again at run time.
#ifndef TILE_SPEC_H
#define TILE_SPEC_H

#include "tile/runtime/Hash.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tile {

/// What a kernel parameter is, as seen by the launch ABI.
/// Desc: a tensor descriptor (tile::TensorDesc<T, R>), passed as one TensorDescParam (tile/TensorDescAbi.h).
enum class ArgKind : uint8_t { Ptr, I32, I64, F32, Const, F16, BF16, I1, Desc };

/// Kinds that never carry a divisibility or unit fact: the float and boolean scalars.
/// (A descriptor's div16 says that all its extents are multiples of 16; its alignment and
/// strides every launch checks, so the code assumes them always.)
inline bool carriesNoFacts(ArgKind k) {
  return k == ArgKind::F32 || k == ArgKind::F16 || k == ArgKind::BF16 || k == ArgKind::I1;
}

/// One parameter's contribution to a specialisation. Constants are baked into the code;
/// pointers and integers only contribute facts (as Triton does: a pointer aligned to 16
/// bytes, an integer that is a multiple of 16, an integer equal to 1), which enable
/// 16-byte vector accesses without changing what the kernel computes. An integer equal
/// to 1 is traced as the constant 1: a unit stride makes its axis contiguous.
struct ArgSpec {
  ArgKind kind = ArgKind::I32;
  int64_t constValue = 0; ///< for Const
  bool div16 = false;     ///< for Ptr (address % 16 == 0) and integers (value % 16 == 0)
  bool one = false;       ///< for integers: the value is 1
  bool operator==(const ArgSpec &) const = default;
};

/// Everything that selects one compiled variant of a kernel.
struct Specialization {
  std::vector<ArgSpec> args;
  int numWarps = 4;
  /// Buffers of each software-pipelined load (cp.async rings, sm_80+): 0 = the compiler's
  /// default (3), 1 = no pipelining. A compile option, not a launch fact.
  int numStages = 0;
  bool operator==(const Specialization &) const = default;

  /// Human-readable and stable: used in cache keys, AOT variant tables and messages
  /// ("w4,s2,p16,i": the stages only when not the default).
  std::string str() const {
    std::string s = "w" + std::to_string(numWarps);
    if (numStages != 0) s += ",s" + std::to_string(numStages);
    for (const ArgSpec &a : args) {
      switch (a.kind) {
      case ArgKind::Const: s += ",c" + std::to_string(a.constValue); break;
      case ArgKind::Ptr: s += a.div16 ? ",p16" : ",p"; break;
      case ArgKind::I32: s += a.one ? ",i=1" : a.div16 ? ",i16" : ",i"; break;
      case ArgKind::I64: s += a.one ? ",l=1" : a.div16 ? ",l16" : ",l"; break;
      case ArgKind::F32: s += ",f"; break;
      case ArgKind::F16: s += ",h"; break;
      case ArgKind::BF16: s += ",b"; break;
      case ArgKind::I1: s += ",t"; break;
      case ArgKind::Desc: s += a.div16 ? ",d16" : ",d"; break;
      }
    }
    return s;
  }
};

/// Parses Specialization::str() ("w4,p16,p,i16,c1024"); false on malformed text.
inline bool parseSpecialization(const std::string &text, Specialization &out) {
  Specialization s;
  size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string tok = text.substr(pos, end - pos);
    pos = end + 1;
    if (tok.empty()) return false;
    char k = tok[0];
    std::string rest = tok.substr(1);
    auto number = [&](int64_t &v) {
      if (rest.empty()) return false;
      size_t used = 0;
      try {
        v = std::stoll(rest, &used);
      } catch (...) { return false; }
      return used == rest.size();
    };
    if (first) {
      int64_t w;
      if (k != 'w' || !number(w)) return false;
      s.numWarps = static_cast<int>(w);
      first = false;
      if (end == text.size()) break;
      continue;
    }
    if (k == 's' && s.args.empty() && s.numStages == 0) { // right after the warps only
      int64_t stages;
      if (!number(stages) || stages < 1) return false;
      s.numStages = static_cast<int>(stages);
      if (end == text.size()) break;
      continue;
    }
    ArgSpec a;
    switch (k) {
    case 'c':
      a.kind = ArgKind::Const;
      if (!number(a.constValue)) return false;
      break;
    case 'f':
    case 'h':
    case 'b':
    case 't':
      a.kind = k == 'f' ? ArgKind::F32 : k == 'h' ? ArgKind::F16 : k == 'b' ? ArgKind::BF16 : ArgKind::I1;
      if (!rest.empty()) return false;
      break;
    case 'p':
    case 'i':
    case 'l':
    case 'd':
      a.kind = k == 'p' ? ArgKind::Ptr : k == 'i' ? ArgKind::I32 : k == 'd' ? ArgKind::Desc : ArgKind::I64;
      if (rest == "16") a.div16 = true;
      else if (rest == "=1" && k != 'p' && k != 'd') a.one = true;
      else if (!rest.empty()) return false;
      break;
    default: return false;
    }
    s.args.push_back(a);
    if (end == text.size()) break;
  }
  if (first) return false;
  out = s;
  return true;
}

/// Hash for in-memory lookups on the launch path (cheap: no strings).
inline uint64_t hashSpecialization(const Specialization &spec, uint64_t seed) {
  uint64_t h = seed ^ rt::kFnvOffsetBasis;
  auto mix = [&h](uint64_t v) { h = rt::fnv1a64Mix(h, v); };
  mix(static_cast<uint64_t>(spec.numWarps));
  mix(static_cast<uint64_t>(spec.numStages));
  for (const ArgSpec &a : spec.args) {
    mix(static_cast<uint64_t>(a.kind));
    mix(static_cast<uint64_t>(a.constValue));
    mix(a.div16);
    mix(a.one);
  }
  return h;
}

inline bool isDiv16(uint64_t v) { return v % 16 == 0; }

/// True when code compiled for `variant` is correct for launch arguments described by
/// `actual`: same warps, stages, kinds and constants, and every divisibility the variant
/// assumed holds (assuming less is always safe, only slower).
inline bool isSafeFor(const Specialization &variant, const Specialization &actual) {
  if (variant.numWarps != actual.numWarps || variant.numStages != actual.numStages ||
      variant.args.size() != actual.args.size())
    return false;
  for (size_t i = 0; i < variant.args.size(); ++i) {
    const ArgSpec &v = variant.args[i], &a = actual.args[i];
    if (v.kind != a.kind || v.constValue != a.constValue || (v.div16 && !a.div16) || (v.one && !a.one)) return false;
  }
  return true;
}

/// How many facts (divisibility, unit values) a specialisation uses (more = faster code).
inline int divisibilityFacts(const Specialization &s) {
  int n = 0;
  for (const ArgSpec &a : s.args) n += a.div16 + a.one;
  return n;
}

} // namespace tile

#endif
