//===- HostJit.h - LLVM ORC JIT of the CPU executor, for a chosen x86-64 CPU ===//
// Private to compiler/lib/CPU. The CPU the code is generated for is a choice
// (TILE_CPU_TARGET: host | x86-64 | x86-64-v2 | x86-64-v3 | x86-64-v4), and the only
// outside functions the code may call are an explicit set: the C library's memory
// functions, libm, and the checking-mode runtime. Anything else is refused when the
// kernel is linked, with the symbol's name, so code that would depend on the host's
// compiler runtime (such as __truncsfbf2) never runs anywhere.
#ifndef TILE_CPU_HOSTJIT_H
#define TILE_CPU_HOSTJIT_H

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tile::cpu {

/// The CPU to compile for: `requested` if not empty, else $TILE_CPU_TARGET, else "host".
/// Throws tile::ArgumentError for an unknown name, or for a level whose features this
/// CPU lacks (the code would stop with an illegal instruction).
std::string resolveCpuTarget(const std::string &requested);

/// Target machine settings for a resolved target name (see resolveCpuTarget).
llvm::orc::JITTargetMachineBuilder targetMachineBuilder(const std::string &target);

/// Whether the JIT resolves `symbol` from the process (memcpy/memset/memmove, libm).
bool isProvidedSymbol(llvm::StringRef symbol);

/// A kernel linked into its own LLJIT. `entry` has the packed ABI (`void(void **)`).
struct JitKernel {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
};

/// Adds `void <name>(void **args)` to `module`, calling function `kernel` with
/// *(T_i *)args[i] for each parameter i; returns its name. Add it before optimising, so
/// the kernel is inlined into it.
std::string addPackedWrapper(llvm::Module &module, const std::string &kernel);

/// Links `module` (optimised for `target`) with the provided symbols plus
/// `extraSymbols` and returns the address of function `entry` (a packed wrapper). A call
/// to anything else fails here with a one-line message naming the symbol and `kernel`;
/// so does any other link failure.
JitKernel linkKernel(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                     const std::string &entry, const std::string &kernel, const std::string &target,
                     const std::vector<std::pair<std::string, void *>> &extraSymbols);

} // namespace tile::cpu

#endif
