//===- LoweringAbi.h - what tile-lower-to-cpu leaves for the JIT driver ---===//
// Private to compiler/lib/CPU. The contract between the lowering, which writes these
// module attributes and calls the checking runtime, and CpuCompiler.cpp, which reads
// them and links the runtime (CheckRuntime.cpp) in.
#ifndef TILE_CPU_LOWERINGABI_H
#define TILE_CPU_LOWERINGABI_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::tile::cpu {

/// Module attributes the lowering leaves for the JIT driver.
inline constexpr llvm::StringLiteral kSitesAttr = "tile.cpu.sites";            ///< ["file:line:col\top", ...]
inline constexpr llvm::StringLiteral kStackBytesAttr = "tile.cpu.stack_bytes"; ///< buffer bytes per call
/// The runtime function checking mode calls: (addr, bytes, kind, site, element, active) -> ok.
inline constexpr llvm::StringLiteral kCheckFn = "tile_cpu_check";
/// Kinds passed to tile_cpu_check.
enum class AccessKind : int32_t { Load = 0, Store = 1, Atomic = 2 };

} // namespace mlir::tile::cpu

#endif
