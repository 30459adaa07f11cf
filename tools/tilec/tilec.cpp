//===- tilec.cpp - print any stage of a tile kernel -----------------------===//
//   tilec kernel.mlir --stage=ptx [--sm=90] [--ptx-version=0] [-o out]
//   tilec --kernel=softmax --spec=w4,p16,p16,i16,i16,i16,c1024 --stage=opt
//         (a library kernel traced from the DSL; --spec as Specialization::str())
// Stages: tile (as given, verified), opt (after the tile passes: layouts, vector
// widths), llvm (optimised LLVM IR with libdevice), ptx, sass (ptxas + nvdisasm or
// cuobjdump when present), regs (ptxas -v: registers, spills, shared memory).
#include "tile/Pipeline.h"
#include "tile/kernels/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cl = llvm::cl;

// tilec's own options, the only ones --help lists (LLVM's hundreds of backend options stay
// accepted but hidden).
static cl::OptionCategory tilecOptions("tilec options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<tile IR file>"), cl::init("-"),
                                     cl::cat(tilecOptions));
static cl::opt<std::string> outputFile("o", cl::desc("output file"), cl::init("-"), cl::cat(tilecOptions));
static cl::opt<std::string> stage("stage", cl::desc("tile | opt | llvm | ptx | sass | regs"), cl::init("ptx"),
                                     cl::cat(tilecOptions));
static cl::opt<int> sm("sm", cl::desc("target sm_XX (default 90)"), cl::init(90), cl::cat(tilecOptions));
static cl::opt<int> ptxVersion("ptx-version", cl::desc("PTX ISA version x10 (0: highest LLVM knows)"), cl::init(0),
                                     cl::cat(tilecOptions));
static cl::opt<std::string> kernelName("kernel", cl::desc("a library kernel (vector_add, softmax, layernorm_fwd) instead of a file"),
                                     cl::cat(tilecOptions));
static cl::opt<std::string> specText("spec", cl::desc("its specialisation, e.g. w4,p16,p16,p16,i16,c1024"),
                                     cl::cat(tilecOptions));
static cl::opt<bool> printAfterAll("print-ir-after-all", cl::desc("print the IR after every pass to stderr"),
                                     cl::cat(tilecOptions));

/// Runs `tool args...` on a PTX file and returns its output, or an explanation.
static std::string runToolOnPTX(const std::string &ptx, bool disassemble) {
  llvm::SmallString<128> ptxPath, cubinPath, outPath;
  llvm::sys::fs::createTemporaryFile("tilec", "ptx", ptxPath);
  llvm::sys::fs::createTemporaryFile("tilec", "cubin", cubinPath);
  llvm::sys::fs::createTemporaryFile("tilec", "txt", outPath);
  std::ofstream(ptxPath.c_str()) << ptx;
  auto ptxas = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas) return "tilec: ptxas not found (install the CUDA toolkit or put it on PATH)\n";
  // The arch the PTX names (sm_90a for Hopper's arch-specific target), as ptxas requires.
  std::string target = "sm_" + std::to_string(sm);
  if (size_t at = ptx.find("\n.target "); at != std::string::npos)
    target = ptx.substr(at + 9, ptx.find_first_of(" ,\n", at + 9) - (at + 9));
  std::string arch = "-arch=" + target;
  llvm::SmallVector<llvm::StringRef> args = {*ptxas, arch, "-v", ptxPath, "-o", cubinPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(outPath), llvm::StringRef(outPath)};
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects);
  std::stringstream report;
  report << std::ifstream(outPath.c_str()).rdbuf();
  if (rc != 0 || !disassemble) return report.str();
  for (const char *tool : {"nvdisasm", "cuobjdump"}) {
    auto path = llvm::sys::findProgramByName(tool, {"/usr/local/cuda/bin"});
    if (!path) continue;
    llvm::SmallVector<llvm::StringRef> dargs = {*path};
    if (std::string(tool) == "cuobjdump") dargs.push_back("-sass");
    dargs.push_back(cubinPath);
    llvm::sys::ExecuteAndWait(*path, dargs, std::nullopt, redirects);
    std::stringstream sass;
    sass << std::ifstream(outPath.c_str()).rdbuf();
    return sass.str();
  }
  return report.str() + "tilec: neither nvdisasm nor cuobjdump found; printed the ptxas report instead\n";
}

/// Prints the requested compiled stage; 1 for an unknown stage.
static int printStage(llvm::raw_ostream &os, const std::string &optimizedIR, const std::string &llvmIR,
                      const std::string &ptx) {
  if (stage == "opt") os << optimizedIR;
  else if (stage == "llvm") os << llvmIR;
  else if (stage == "ptx") os << ptx;
  else if (stage == "sass" || stage == "regs") os << runToolOnPTX(ptx, stage == "sass");
  else {
    llvm::errs() << "tilec: unknown stage '" << stage << "'\n";
    return 1;
  }
  return 0;
}

/// The stages of a DSL library kernel for one specialisation.
static int printLibraryKernel() {
  const tile::KernelBase *kernel = tile::kernels::findKernel(kernelName);
  if (!kernel) {
    llvm::errs() << "tilec: no library kernel '" << kernelName << "'; known:";
    for (const tile::KernelBase *k : tile::kernels::libraryKernels()) llvm::errs() << " " << k->name();
    llvm::errs() << "\n";
    return 1;
  }
  tile::Specialization spec;
  if (!tile::parseSpecialization(specText, spec) || spec.args.size() != kernel->params().size()) {
    llvm::errs() << "tilec: --spec must describe " << kernel->params().size()
                 << " parameters like w4,p16,p,i16,f,c1024 (w = warps; p/i/l = pointer/i32/i64, 16 if "
                    "16-divisible; f = f32; cN = constant N)\n";
    return 1;
  }
  try {
    if (stage == "tile") {
      llvm::outs() << kernel->trace(spec);
      return 0;
    }
    tile::CompileRequest req;
    req.sm = sm;
    req.ptxVersion = ptxVersion;
    req.keepStages = true;
    tile::CompileResult r = kernel->compile(spec, req);
    return printStage(llvm::outs(), r.optimizedIR, r.llvmIR, r.kernel.ptx);
  } catch (const std::exception &e) {
    llvm::errs() << e.what() << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(tilecOptions);
  cl::ParseCommandLineOptions(argc, argv, "tile compiler driver: print any stage of a kernel\n");
  if (printAfterAll) setenv("TILE_PRINT_IR_AFTER_ALL", "1", 1);
  if (!kernelName.empty()) return printLibraryKernel();
  mlir::MLIRContext &ctx = tile::compiler::context();
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = mlir::openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "tilec: " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  if (!module) return 1;

  auto out = mlir::openOutputFile(outputFile, &error);
  if (!out) {
    llvm::errs() << "tilec: " << error << "\n";
    return 1;
  }
  if (stage == "tile") {
    module->print(out->os());
  } else {
    tile::compiler::PipelineOptions opts;
    opts.target = tile::compiler::chooseTarget(sm, ptxVersion, 0);
    opts.keepStages = true;
    try {
      tile::compiler::PipelineResult r = tile::compiler::runPipeline(*module, opts);
      if (int rc = printStage(out->os(), r.optimizedIR, r.llvmIR, r.kernel.ptx)) return rc;
    } catch (const std::exception &e) {
      llvm::errs() << e.what() << "\n";
      return 1;
    }
  }
  out->keep();
  return 0;
}
