// The compiled-kernel record: one kernel compiled for the GPU, i.e. what identifies the code and
// what every launch of it needs. The compiler produces it (compiler::compileForGpu), the disk cache
// stores it (encode/decode below), the AOT writer embeds it (as a CompiledKernelView over static
// storage), the differential bundle carries it and the launch paths load and launch it. It lives
// in the runtime, free of LLVM/MLIR, because runtime-only executables on the GPU machine use it.
//
// A new launch parameter the compiler decides (cluster dims, TMA descriptor parameters) is a
// field of LaunchMetadata: the JIT launch cache copies that struct whole, rt::launch consumes it,
// and encode/decode and the AOT writer fail to compile until they handle it (they take the
// fields apart with structured bindings). Compile-only options (num_stages) are not launch
// metadata: they belong to the specialisation and the cache key, which decide the PTX.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tile::rt {

// The element type of a TMA map (CUtensorMapDataType). TF32: f32 in memory that the copy
// rounds to tf32 (to nearest, ties to even) on its way to shared memory, for wgmma's tf32
// operands, which the tensor cores would otherwise truncate.
enum class TensorMapType { U8, I32, F16, BF16, F32, TF32 };
inline constexpr TensorMapType kTensorMapTypes[] = {TensorMapType::U8,   TensorMapType::I32, TensorMapType::F16,
                                                    TensorMapType::BF16, TensorMapType::F32, TensorMapType::TF32};
int tensorMapElementBytes(TensorMapType t);
const char *tensorMapTypeName(TensorMapType t); // "u8", "i32", "f16", "bf16", "f32", "tf32"

// A tensor-descriptor parameter the code copies through TMA: rt::launch encodes its map (the
// parameter's base, shape and strides with this box and swizzle) into the parameter's first 128
// bytes. The box is what one cp.async.bulk.tensor moves, which the compiler chose; dimensions
// outermost first.
struct TmaParam {
  int param = -1; // index among the launch's parameters (Consts excluded); -1: unused slot
  TensorMapType type = TensorMapType::F32;
  unsigned swizzleBytes = 0; // 0, 32, 64 or 128
  unsigned rank = 0;
  std::array<unsigned, 4> box{};
  bool operator==(const TmaParam &) const = default;
};
inline constexpr int kMaxTmaParams = 8;

// What a launch of the code must honour, beside its grid and arguments.
struct LaunchMetadata {
  unsigned sharedBytes = 0; // dynamic shared memory per block
  unsigned numWarps =
      4; // the block is 32 * numWarps threads along x (a warp-specialised kernel's producer warpgroup included)
  std::array<TmaParam, kMaxTmaParams> tma{}; // used slots first
  bool operator==(const LaunchMetadata &) const = default;
};

// Text is std::string (CompiledKernel, owning) or std::string_view (CompiledKernelView, over
// static storage: the AOT tables, so that start-up copies no PTX). One field list for both.
template <class Text> struct BasicCompiledKernel {
  Text name;   // the PTX entry point
  Text target; // what the PTX was generated for, e.g. "sm_90 ptx80"
  Text ptx;
  LaunchMetadata meta;
  bool operator==(const BasicCompiledKernel &) const = default;
};
using CompiledKernel = BasicCompiledKernel<std::string>;
using CompiledKernelView = BasicCompiledKernel<std::string_view>;

// The serialised form's version: part of its first line and of the disk cache's key, so that a
// format change makes old entries miss (and be rebuilt) instead of being mis-read. Bump it with
// any change to encodeCompiledKernel.
inline constexpr int kCompiledKernelFormatVersion = 4;

// "" when the record is well-formed, else why not: the name a C identifier (the PTX entry
// symbol), the target non-empty printable ASCII without '"' or '\\' (it is embedded in C++ string
// literals by the AOT writer), the PTX non-empty, numWarps from 1 to 32.
// decode never returns a record that fails this, and encode refuses one.
std::string checkCompiledKernel(const CompiledKernel &k);

// The one serialisation (disk cache entries, differential bundle cases). A text header, then
// the PTX: readable with `head`, and self-delimiting (the header gives the PTX's size):
//   tile-ptx v4\nname <name>\ntarget <target>\nshared <bytes>\nwarps <n>\ntma <count>\n
//   (tmaparam <param> <type name> <swizzle> <box, outermost first, 'x'-separated>\n)*
//   ptx <bytes>\n<ptx>
// Throws Error for a record that checkCompiledKernel rejects (a bug in its producer).
std::string encodeCompiledKernel(const CompiledKernel &k);

// nullopt for a payload that is not exactly one well-formed record of this format version
// (foreign, older or newer format, truncated, trailing bytes, bad numbers); *why (when given)
// then says what is wrong in a few words, for a one-line diagnostic.
std::optional<CompiledKernel> decodeCompiledKernel(std::string_view payload, std::string *why = nullptr);

} // namespace tile::rt
