//===- tilec.cpp - print any stage of a tile kernel -----------------------===//
//   tilec kernel.mlir --stage=ptx [--sm=90] [--ptx-version=0] [-o out]
//   tilec --kernel=softmax --spec=w4,p16,p16,i16,i16,i16,c1024 --stage=opt
//         (a library kernel traced from the DSL; --spec as Specialization::str())
//   tilec --list   (every library kernel with its parameters and a --spec it compiles with)
// Stages: tile (as given, verified), opt (after the tile passes: layouts, vector
// widths), llvm (optimised LLVM IR with libdevice), ptx, sass (ptxas + nvdisasm or
// cuobjdump), regs (ptxas -v: registers, spills, shared memory). A user's own kernels:
// TILE_DUMP_DIR=<dir> ./program writes their <kernel>-<hash>.tile.mlir, which tilec reads.
#include "tile/Compiler.h"
#include "tile/Target/CudaTools.h"
#include "tile/kernels/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace cl = llvm::cl;

// tilec's own options, the only ones --help lists (LLVM's hundreds of backend options stay
// accepted but hidden).
static cl::OptionCategory tilecOptions("tilec options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<tile IR file>"), cl::init("-"), cl::cat(tilecOptions));
static cl::opt<std::string> outputFile("o", cl::desc("output file"), cl::init("-"), cl::cat(tilecOptions));
static cl::opt<std::string> stage("stage", cl::desc("tile | opt | llvm | ptx | sass | regs"), cl::init("ptx"),
                                  cl::cat(tilecOptions));
static cl::opt<int> sm("sm", cl::desc("target sm_XX (default 90, i.e. sm_90a)"), cl::init(90), cl::cat(tilecOptions));
static cl::opt<int> ptxVersion("ptx-version", cl::desc("PTX ISA version x10, e.g. 80 (0: the highest LLVM knows)"),
                               cl::init(0), cl::cat(tilecOptions));
static cl::opt<std::string> kernelName("kernel", cl::desc("a library kernel instead of a file (see --list)"),
                                       cl::cat(tilecOptions));
static cl::opt<std::string> specText("spec", cl::desc("the library kernel's specialisation (grammar above)"),
                                     cl::cat(tilecOptions));
static cl::opt<bool> listKernels("list", cl::desc("list the library kernels, their parameters and a --spec each"),
                                 cl::cat(tilecOptions));
static cl::opt<bool> printAfterAll("print-ir-after-all", cl::desc("print the IR after every pass to stderr"),
                                   cl::cat(tilecOptions));

static const char *const kOverview = R"(tile compiler driver: print any stage of a kernel

  tilec kernel.mlir --stage=ptx          a tile IR file, e.g. a <kernel>-<hash>.tile.mlir that
                                         TILE_DUMP_DIR=<dir> ./program writes for every kernel it traces
  tilec --kernel=NAME --spec=SPEC        a library kernel (tilec --list: names, parameters, a SPEC each)

--spec grammar: comma-separated, w<warps> first, then optionally s<stages>, then one item per kernel
parameter in order (a library kernel's --list line gives the order):
  w<N>           num_warps N (a power of two, 1 to 32)
  s<N>           N software-pipeline stages (default: the compiler's)
  p | p16        Ptr<T>: any address | 16-byte aligned
  i | i16 | i=1  I32: any value | a multiple of 16 | equal to 1 (traced as the constant 1)
  l | l16 | l=1  I64: likewise
  d | d16        TensorDesc<T, R>: any extents | every extent a multiple of 16
  f | h | b | t  F32 | F16 | BF16 | I1 scalar
  c<N>           Const<int> equal to N
  e.g. --kernel=vector_add --spec=w4,p16,p16,p16,i16,c1024
)";

/// The DSL's spelling of a parameter's type: Ptr<f32>, I32, TensorDesc<f16, 2>, Const<int>.
static std::string paramType(const tile::ParamDesc &p) {
  switch (p.kind) {
  case tile::ArgKind::Ptr: return std::string("Ptr<") + tile::dtypeName(p.dtype) + ">";
  case tile::ArgKind::Desc:
    return std::string("TensorDesc<") + tile::dtypeName(p.dtype) + ", " + std::to_string(p.rank) + ">";
  case tile::ArgKind::I32: return "I32";
  case tile::ArgKind::I64: return "I64";
  case tile::ArgKind::F32: return "F32";
  case tile::ArgKind::F16: return "F16";
  case tile::ArgKind::BF16: return "BF16";
  case tile::ArgKind::I1: return "I1";
  case tile::ArgKind::Const: return "Const<int>";
  }
  return "?";
}

/// The fastest specialisation of a declaration's first variant (the one AOT compiles first):
/// its constants and warps, every pointer and integer 16-divisible, its unit parameters 1.
template <class D> static tile::Specialization exampleSpec(const tile::KernelBase &kernel) {
  std::vector<tile::kernels::Variant> variants = D::variants();
  tile::Specialization spec;
  if (variants.empty()) return spec;
  spec.numWarps = variants.front().numWarps;
  spec.numStages = variants.front().numStages;
  size_t constant = 0;
  for (size_t i = 0; i < kernel.params().size(); ++i) {
    tile::ArgSpec a;
    a.kind = kernel.params()[i].kind;
    bool unit = false;
    if constexpr (requires { D::unitParams; })
      for (const char *u : D::unitParams) unit |= std::string(u) == D::params[i];
    if (a.kind == tile::ArgKind::Const) a.constValue = variants.front().consts.at(constant++);
    else if (unit && (a.kind == tile::ArgKind::I32 || a.kind == tile::ArgKind::I64)) a.one = true;
    else a.div16 = !tile::carriesNoFacts(a.kind) && !tile::kernels::isFactFreeParam<D>(i);
    spec.args.push_back(a);
  }
  return spec;
}

/// One line per library kernel, `name(Type param, ...)`, and below it a --spec it compiles with.
static int printKernelList() {
  try {
    tile::kernels::AllKernels::forEach([&]<class D>() {
      const tile::KernelBase &kernel = tile::kernels::dslKernel<D>();
      llvm::outs() << D::name << "(";
      for (size_t i = 0; i < kernel.params().size(); ++i)
        llvm::outs() << (i ? ", " : "") << paramType(kernel.params()[i]) << " " << D::params[i];
      llvm::outs() << ")\n    --spec=" << exampleSpec<D>(kernel).str() << "\n";
    });
  } catch (const std::exception &e) {
    llvm::errs() << "tilec: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

/// Checks the flags before any work: one line naming the flag, false on a problem.
static bool checkFlags() {
  static const char *const stages[] = {"tile", "opt", "llvm", "ptx", "sass", "regs"};
  if (std::find(std::begin(stages), std::end(stages), stage.getValue()) == std::end(stages)) {
    llvm::errs() << "tilec: unknown --stage=" << stage << " (tile | opt | llvm | ptx | sass | regs)\n";
    return false;
  }
  if (std::string problem = tile::compiler::ptxVersionProblem(ptxVersion); !problem.empty()) {
    llvm::errs() << "tilec: --ptx-version=" << ptxVersion << ": " << problem << "\n";
    return false;
  }
  if (!specText.empty() && kernelName.empty()) {
    llvm::errs() << "tilec: --spec describes a library kernel: give --kernel=NAME too (tilec --list)\n";
    return false;
  }
  // The machine-code stages need the CUDA toolkit's programs: say so before compiling.
  if ((stage == "sass" || stage == "regs") && tile::compiler::findCudaTool("ptxas").empty()) {
    llvm::errs() << "tilec: --stage=" << stage << " needs ptxas, found on none of "
                 << tile::compiler::cudaToolSearchPath() << "\n";
    return false;
  }
  if (stage == "sass" && tile::compiler::findSassDisassembler().empty()) {
    llvm::errs() << "tilec: --stage=sass needs nvdisasm or cuobjdump, found on none of "
                 << tile::compiler::cudaToolSearchPath() << " (--stage=regs needs only ptxas)\n";
    return false;
  }
  return true;
}

/// Prints the requested compiled stage; 1 when ptxas or the disassembler fails.
static int printStage(llvm::raw_ostream &os, const std::string &optimizedIR, const std::string &llvmIR,
                      const std::string &ptx) {
  if (stage == "opt") os << optimizedIR;
  else if (stage == "llvm") os << llvmIR;
  else if (stage == "ptx") os << ptx;
  else { // sass | regs (checkFlags found the tools)
    std::optional<tile::compiler::PtxasRun> run = tile::compiler::assemblePTX(ptx, "sm_" + std::to_string(sm));
    if (!run || run->exitCode != 0) {
      llvm::errs() << (run ? run->log : "") << "tilec: ptxas failed on the kernel's PTX (--stage=ptx prints it)\n";
      return 1;
    }
    if (stage == "regs") os << run->log;
    else if (std::optional<std::string> sass = tile::compiler::disassembleCubin(run->cubin)) os << *sass;
  }
  return 0;
}

/// The stages of a DSL library kernel for one specialisation.
static int printLibraryKernel(llvm::raw_ostream &os) {
  const tile::KernelBase *kernel = tile::kernels::findKernel(kernelName);
  if (!kernel) {
    llvm::errs() << "tilec: no library kernel '" << kernelName << "'; known:";
    for (const tile::KernelBase *k : tile::kernels::libraryKernels()) llvm::errs() << " " << k->name();
    llvm::errs() << " (tilec --list gives their parameters)\n";
    return 1;
  }
  tile::Specialization spec;
  if (!tile::parseSpecialization(specText, spec) || spec.args.size() != kernel->params().size()) {
    llvm::errs() << "tilec: --spec must describe the " << kernel->params().size() << " parameters of " << kernelName
                 << " after w<warps>, e.g. w4,p16,p,i16,f,c1024 (tilec --help: the grammar; "
                 << "tilec --list: each kernel's parameters)\n";
    return 1;
  }
  try {
    if (stage == "tile") {
      os << kernel->trace(spec);
      return 0;
    }
    tile::CompileRequest req;
    req.sm = sm;
    req.ptxVersion = ptxVersion;
    req.keepStages = true;
    tile::CompileResult r = kernel->compile(spec, req);
    return printStage(os, r.optimizedIR, r.llvmIR, r.kernel.ptx);
  } catch (const std::exception &e) {
    llvm::errs() << e.what() << "\n";
    return 1;
  }
}

/// The stages of a tile IR file.
static int printFileKernel(llvm::raw_ostream &os) {
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
  if (stage == "tile") {
    module->print(os);
    return 0;
  }
  try {
    tile::compiler::GpuCompileOptions opts;
    opts.target = tile::compiler::chooseTarget(sm, ptxVersion, 0);
    opts.keepStages = true;
    tile::compiler::GpuCompileResult r = tile::compiler::compileForGpu(*module, opts);
    return printStage(os, r.optimizedIR, r.llvmIR, r.kernel.ptx);
  } catch (const std::exception &e) {
    llvm::errs() << e.what() << "\n";
    return 1;
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(tilecOptions);
  cl::ParseCommandLineOptions(argc, argv, kOverview);
  if (listKernels) return printKernelList();
  if (!checkFlags()) return 1;
  if (printAfterAll) setenv("TILE_PRINT_IR_AFTER_ALL", "1", 1);
  std::string error;
  auto out = mlir::openOutputFile(outputFile, &error);
  if (!out) {
    llvm::errs() << "tilec: " << error << "\n";
    return 1;
  }
  int rc = kernelName.empty() ? printFileKernel(out->os()) : printLibraryKernel(out->os());
  if (rc == 0) out->keep();
  return rc;
}
