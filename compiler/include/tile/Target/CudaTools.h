//===- CudaTools.h - ptxas and the SASS disassemblers, when installed -----===//
// The CUDA toolkit's programs behind the machine-code stages (regs, cubin, sass) of tilec
// and of TILE_DUMP_DIR. None is required: each is looked up on PATH, then in
// $CUDA_HOME/bin, then in /usr/local/cuda/bin, and a caller says what it skipped.
#ifndef TILE_TARGET_CUDATOOLS_H
#define TILE_TARGET_CUDATOOLS_H

#include <optional>
#include <string>

namespace tile::compiler {

/// The path of a CUDA toolkit program (ptxas, nvdisasm, cuobjdump), or "" where none is found.
std::string findCudaTool(const std::string &name);

/// Where findCudaTool looks, for messages: "PATH, /usr/local/cuda/bin".
std::string cudaToolSearchPath();

struct PtxasRun {
  int exitCode = 0;
  std::string log;   ///< ptxas -v: registers, spills, shared memory per kernel (or its errors)
  std::string cubin; ///< the assembled binary (empty when ptxas failed)
};

/// Assembles PTX with `ptxas -v` for the arch its `.target` line names (sm_90a stays sm_90a,
/// as ptxas requires); `fallbackArch` ("sm_90") where the PTX names none. `nameInLog`, where
/// given, replaces the temporary input's path in the log. nullopt without ptxas.
std::optional<PtxasRun> assemblePTX(const std::string &ptx, const std::string &fallbackArch,
                                    const std::string &nameInLog = "");

/// The path of the SASS disassembler found (nvdisasm, else cuobjdump), or "".
std::string findSassDisassembler();

/// The SASS of a cubin (nvdisasm, else cuobjdump -sass); nullopt without either.
std::optional<std::string> disassembleCubin(const std::string &cubin);

} // namespace tile::compiler

#endif
