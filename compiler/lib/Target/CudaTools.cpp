//===- CudaTools.cpp - ptxas and the SASS disassemblers, when installed ---===//
#include "tile/Target/CudaTools.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <fstream>

using namespace tile::compiler;

namespace {

/// The toolkit's bin folders after PATH: $CUDA_HOME/bin where set, then the default install.
llvm::SmallVector<std::string, 2> toolkitBinFolders() {
  llvm::SmallVector<std::string, 2> dirs;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/bin");
  if (dirs.empty() || dirs.front() != "/usr/local/cuda/bin") dirs.push_back("/usr/local/cuda/bin");
  return dirs;
}

/// A temporary file that is removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(const char *suffix) { llvm::sys::fs::createTemporaryFile("tile", suffix, path); }
  ~TempFile() {
    if (!path.empty()) llvm::sys::fs::remove(path);
  }
  std::string read() const {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  }
};

/// Runs `args` (args[0] the program) with stdout and stderr into `out`; the exit status.
int runInto(llvm::ArrayRef<llvm::StringRef> args, const TempFile &out) {
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out.path),
                                                llvm::StringRef(out.path)};
  return llvm::sys::ExecuteAndWait(args[0], args, std::nullopt, redirects);
}

} // namespace

std::string tile::compiler::findCudaTool(const std::string &name) {
  if (auto onPath = llvm::sys::findProgramByName(name)) return *onPath;
  llvm::SmallVector<llvm::StringRef, 2> dirs;
  auto folders = toolkitBinFolders();
  for (const std::string &d : folders) dirs.push_back(d);
  if (auto inToolkit = llvm::sys::findProgramByName(name, dirs)) return *inToolkit;
  return "";
}

std::string tile::compiler::cudaToolSearchPath() {
  std::string where = "PATH";
  for (const std::string &d : toolkitBinFolders()) where += ", " + d;
  return where;
}

std::optional<PtxasRun> tile::compiler::assemblePTX(const std::string &ptx, const std::string &fallbackArch,
                                                    const std::string &nameInLog) {
  std::string ptxas = findCudaTool("ptxas");
  if (ptxas.empty()) return std::nullopt;
  // The arch the PTX names (sm_90a for Hopper's arch-specific target), as ptxas requires.
  std::string target = fallbackArch;
  if (size_t at = ptx.find("\n.target "); at != std::string::npos)
    target = ptx.substr(at + 9, ptx.find_first_of(" ,\n", at + 9) - (at + 9));
  TempFile input("ptx"), cubin("cubin"), log("txt");
  std::ofstream(input.path.c_str(), std::ios::binary) << ptx;
  std::string arch = "-arch=" + target;
  PtxasRun run;
  run.exitCode = runInto({ptxas, arch, "-v", input.path, "-o", cubin.path}, log);
  run.log = log.read();
  if (!nameInLog.empty())
    for (size_t at; (at = run.log.find(input.path.c_str())) != std::string::npos;)
      run.log.replace(at, input.path.size(), nameInLog);
  if (run.exitCode == 0) run.cubin = cubin.read();
  return run;
}

std::string tile::compiler::findSassDisassembler() {
  for (const char *tool : {"nvdisasm", "cuobjdump"})
    if (std::string path = findCudaTool(tool); !path.empty()) return path;
  return "";
}

std::optional<std::string> tile::compiler::disassembleCubin(const std::string &cubin) {
  std::string tool = findSassDisassembler();
  if (tool.empty()) return std::nullopt;
  TempFile input("cubin"), out("sass");
  std::ofstream(input.path.c_str(), std::ios::binary) << cubin;
  llvm::SmallVector<llvm::StringRef, 3> args = {tool};
  if (llvm::StringRef(tool).ends_with("cuobjdump")) args.push_back("-sass");
  args.push_back(input.path);
  int rc = runInto(args, out);
  std::string text = out.read();
  if (rc != 0) text += "(" + tool + " exited with status " + std::to_string(rc) + ")\n";
  return text;
}
