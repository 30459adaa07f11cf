// The disk-cache key of a compiled kernel: one digest over every input that decides its PTX
// (docs/runtime.md), so that a change of any of them is a miss, never a stale hit. Kept apart from
// the compiler so that the key's coverage is unit-tested field by field, including the inputs a
// test cannot change in-process (the compiler build, the LLVM version).
#pragma once

#include <string>

namespace tile::rt {

struct KernelCacheKeyInputs {
  std::string tileIR;         // the canonical tile IR, printed without locations
  std::string specialization; // Specialization::str(): argument classes, Const values, num_warps, num_stages
  std::string compilerBuild;  // compiler::compilerBuildId(): a hash of the compiler's sources
  std::string llvmVersion;    // compiler::llvmVersionString()
  std::string target;         // compiler::Target::str(): "sm_90a ptx87"
  std::string options;        // any other compile option that changes the code ("" when none)
};

// 32 hex digits. The fields are length-prefixed (no two different inputs hash the same text)
// and the compiled-kernel record's format version is part of it.
std::string kernelCacheKey(const KernelCacheKeyInputs &in);

} // namespace tile::rt
