//===- StageDump.cpp - TILE_DUMP_DIR: every stage of every kernel compiled -===//
#include "tile/StageDump.h"

#include "tile/Compiler.h"
#include "tile/Target/CudaTools.h"
#include "tile/runtime/EnvRegistry.h"
#include "tile/runtime/Hash.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace tile::compiler;

namespace {

/// Set after the first write that failed for another reason than an existing file (a full
/// disk, no permission): one warning, then the process dumps nothing more.
std::atomic<bool> dumpingStopped{false};

void warn(const std::string &line) { std::fprintf(stderr, "tile: TILE_DUMP_DIR: %s\n", line.c_str()); }

void stopDumping(const std::string &why) {
  if (!dumpingStopped.exchange(true)) warn(why + "; no more stages are dumped");
}

/// Prints `line` the first time `flag` is seen unset.
void noteOnce(std::atomic<bool> &flag, const std::string &line) {
  if (!flag.exchange(true)) warn(line);
}

/// A kernel's symbol as a file-name part (a tile-IR file may name its kernel "a/b").
std::string fileNamePart(const std::string &kernel) {
  std::string s = kernel.empty() ? "kernel" : kernel;
  for (char &c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
  return s;
}

/// Creates `path` holding `text`, never replacing a file: 0, or the errno (EEXIST when taken).
int createNew(const std::string &path, const std::string &text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const char *p = text.data();
  size_t left = text.size();
  int err = 0;
  while (left > 0 && !err) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) p += n, left -= size_t(n);
  }
  if (::close(fd) != 0 && !err) err = errno;
  if (err) ::unlink(path.c_str()); // ours, half written
  return err;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Compilations this process dumped (their base names).
bool markOpened(const std::string &base) {
  static std::mutex mu;
  static std::set<std::string> opened;
  std::lock_guard<std::mutex> lock(mu);
  return !opened.insert(base).second;
}

} // namespace

std::string tile::compiler::stageDumpDirectory() {
  const char *dir = tile::rt::readEnv("TILE_DUMP_DIR");
  return dir && *dir && !dumpingStopped ? dir : "";
}

std::optional<StageDump> StageDump::open(const std::string &kernel, llvm::function_ref<std::string()> key) {
  std::string dir = stageDumpDirectory();
  if (dir.empty()) return std::nullopt;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    stopDumping("cannot create " + dir + ": " + ec.message());
    return std::nullopt;
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(tile::rt::fnv1a64(key() + "\ncompiler " + compilerBuildId())));
  StageDump d;
  d.dir_ = dir;
  d.base_ = fileNamePart(kernel) + "-" + hash;
  d.openedBefore_ = markOpened(dir + "/" + d.base_);
  return d;
}

std::string StageDump::path(const std::string &stage) const { return dir_ + "/" + base_ + "." + stage; }

void StageDump::write(const std::string &stage, const std::string &text) const {
  if (dumpingStopped) return;
  static std::atomic<unsigned> counter{0};
  const std::string wanted = path(stage);
  // Written whole under a name of our own, then linked to the final name: a reader never sees
  // half a file, and link (unlike rename) never replaces a file that is there.
  const std::string temp =
      dir_ + "/." + base_ + "." + stage + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  int err = createNew(temp, text);
  if (!err) {
    err = ::link(temp.c_str(), wanted.c_str()) == 0 ? 0 : errno;
    ::unlink(temp.c_str());
    // A file system without hard links: create the final name exclusively instead.
    if (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS) err = createNew(wanted, text);
  }
  if (err == EEXIST) {
    if (readFile(wanted) != text)
      warn(wanted + " exists and is not this dump's file; left as it is, this stage not written");
    return;
  }
  if (err) stopDumping("cannot write " + wanted + ": " + std::strerror(err));
}

void StageDump::writeMachineCode(const std::string &ptx, const std::string &arch) const {
  static std::atomic<bool> notedPtxas{false}, notedSass{false};
  // The log names the dumped .ptx, not ptxas's temporary input: the same PTX, the same .regs.
  std::optional<PtxasRun> run = assemblePTX(ptx, arch, path("ptx"));
  if (!run) {
    noteOnce(notedPtxas, "no ptxas (looked on " + cudaToolSearchPath() + "): no .regs, .cubin or .sass files");
    return;
  }
  // Without ptxas's "Compile time = 3.3 ms" line, which differs from run to run, the next run
  // finds the same bytes and knows the file for its own.
  std::string regs;
  for (llvm::StringRef rest = run->log; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    if (!line.contains("Compile time =")) regs += line.str() + "\n";
    rest = tail;
  }
  write("regs", regs);
  if (run->exitCode != 0) {
    warn("ptxas failed on " + path("ptx") + " (exit status " + std::to_string(run->exitCode) + "); its log is " +
         path("regs"));
    return;
  }
  write("cubin", run->cubin);
  if (std::optional<std::string> sass = disassembleCubin(run->cubin)) write("sass", *sass);
  else noteOnce(notedSass, "no nvdisasm or cuobjdump (looked on " + cudaToolSearchPath() + "): no .sass files");
}

std::string tile::compiler::printWithLocations(mlir::ModuleOp module) {
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(/*enable=*/true, /*prettyForm=*/false));
  return out;
}

std::string tile::compiler::gpuStageDumpKey(const std::string &tracedWithLocations, const Target &target) {
  return tracedWithLocations + "\ntarget " + target.str();
}

Target tile::compiler::stageDumpTarget() {
  const char *env = tile::rt::readEnv("TILE_DUMP_SM");
  std::string text = env && *env ? env : "sm_90a";
  llvm::StringRef s(text);
  s.consume_front("sm_");
  bool archSpecific = s.consume_back("a");
  unsigned sm = 0;
  if (s.getAsInteger(10, sm) || sm < 20 || sm > 999)
    throw tile::ArgumentError("tile: TILE_DUMP_SM must name a GPU like sm_90a, sm_80 or 90, got '" + text + "'");
  Target t = chooseTarget(int(sm), 0, 0);
  if (archSpecific && !t.archSpecific)
    throw tile::ArgumentError("tile: TILE_DUMP_SM=" + text + ": tile has no arch-specific target for sm_" +
                              std::to_string(sm) + " (only sm_90a)");
  return t;
}

void tile::compiler::dumpGpuStages(mlir::ModuleOp traced) {
  if (stageDumpDirectory().empty()) return;
  Target target = stageDumpTarget();
  std::string name = kernelNameOf(traced);
  std::optional<StageDump> dump =
      StageDump::open(name, [&] { return gpuStageDumpKey(printWithLocations(traced), target); });
  if (!dump || dump->openedBefore()) return;
  mlir::OwningOpRef<mlir::ModuleOp> copy(traced.clone());
  GpuCompileOptions opts;
  opts.target = target;
  try {
    compileForGpu(*copy, opts);
  } catch (const tile::Error &e) {
    // The kernel runs on the CPU all the same; the stages before the failure are written.
    warn("kernel '" + name + "' does not compile for " + target.arch() + ", its GPU stages stop there: " + e.what());
  }
}

void tile::compiler::printIRAfterAllFromEnv(mlir::PassManager &pm) {
  const char *p = tile::rt::readEnv("TILE_PRINT_IR_AFTER_ALL");
  if (!p || *p != '1') return;
  pm.getContext()->disableMultithreading();
  pm.enableIRPrinting();
}
