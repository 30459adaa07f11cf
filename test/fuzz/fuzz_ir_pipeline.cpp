//===- fuzz_ir_pipeline.cpp - fuzz target: tile IR parser + tile-gpu-passes ---===//
// Any bytes: parsed as tile IR (tile dialect + arith/math/scf/func), verified, then run through
// the tile passes of the GPU pipeline (what `tile-opt --tile-gpu-passes` runs), and, on a copy,
// through one contiguous stretch of that pipeline followed by convert-tile-to-llvm: a single
// pass or a run of passes, as `tile-opt --<pass>` runs them on IR of any stage (a pass meets
// input it has no precondition for: layout-free IR, an empty module). The input chooses the
// stretch: a line `// fuzz-passes: <first pass> [<count>]` names it (regression inputs pin one
// so), else a hash of the bytes picks it. TILE_FUZZ_VERBOSE=1 prints the stretch before it runs
// (a crashing input's, to rerun under tile-opt).
// Input the parser or the verifier rejects is fine; a program the verifier accepted must then
// either pass through the passes to IR that still verifies, or be refused with an error
// diagnostic. Anything else is a bug and aborts (so the fuzzer reports it with the input): a
// crash, a hang, a pass failing without saying why, IR the passes leave invalid, or an exception.
#include "tile/Error.h"
#include "tile/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace {

[[noreturn]] void bug(const char *what, const std::string &detail, const std::string &passes) {
  std::fprintf(stderr, "fuzz_ir_pipeline: %s%s%s\n  passes: tile-opt --pass-pipeline='builtin.module(%s)'\n", what,
               detail.empty() ? "" : ": ", detail.c_str(), passes.c_str());
  std::abort();
}

/// The stages a stretch is taken from: each pass of tile-gpu-passes in its textual form (with
/// its options), then convert-tile-to-llvm.
const std::vector<std::string> &stages() {
  static const std::vector<std::string> all = [] {
    tile::compiler::registerPasses(); // the textual pipeline names them
    mlir::registerCanonicalizerPass();
    mlir::registerCSEPass();
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    tile::compiler::addTileGpuPasses(pm);
    std::vector<std::string> out;
    for (mlir::Pass &pass : pm.getPasses()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      pass.printAsTextualPipeline(os);
      out.push_back(text);
    }
    out.push_back("convert-tile-to-llvm");
    return out;
  }();
  return all;
}

/// The stretch of stages() the input asks for, joined as a pass pipeline: see the file comment.
std::string chooseStretch(const std::string &text) {
  const std::vector<std::string> &all = stages();
  const size_t n = all.size();
  size_t first = n, count = 1;
  static const std::string directive = "// fuzz-passes: ";
  if (size_t at = text.find(directive); at != std::string::npos) {
    std::string rest = text.substr(at + directive.size(), text.find('\n', at) - at - directive.size());
    std::string name = rest.substr(0, rest.find(' '));
    for (size_t i = 0; i < n && first == n; ++i)
      if (all[i].compare(0, all[i].find('{'), name) == 0) first = i;
    if (size_t space = rest.find(' '); space != std::string::npos)
      count = std::strtoul(rest.c_str() + space + 1, nullptr, 10);
  }
  if (first == n) {
    uint64_t h = 14695981039346656037ull; // FNV-1a: any edit of the bytes picks another stretch
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    first = h % n;
    h /= n;
    count = (h & 1) ? 1 : 1 + (h >> 1) % (n - first); // half the time a single pass
  }
  count = std::max<size_t>(1, std::min(count, n - first));
  std::string pipeline;
  for (size_t i = first; i < first + count; ++i) pipeline += (pipeline.empty() ? "" : ",") + all[i];
  return pipeline;
}

/// Runs `pipeline` (textual, for a module) on `module`: a failure must come with an error
/// diagnostic, a success must leave IR that verifies (see the file comment).
void runAndCheck(mlir::MLIRContext &ctx, mlir::ModuleOp module, const std::string &pipeline, std::string &firstError) {
  firstError.clear();
  mlir::PassManager pm(&ctx);
  // Off: the verifier between passes would report a pass's invalid output as an ordinary error
  // diagnostic; the final verify below tells it apart as a bug.
  pm.enableVerifier(false);
  std::string parseError;
  llvm::raw_string_ostream errors(parseError);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, errors))) bug("bad pass pipeline", parseError, pipeline);
  try {
    if (mlir::failed(pm.run(module))) {
      if (firstError.empty()) bug("a pass failed without an error diagnostic", "", pipeline);
      return; // refused with a reason (an unsupported or over-sized program, a missing step)
    }
  } catch (const tile::InternalError &e) { bug("internal error", e.what(), pipeline); } catch (const tile::Error &) {
    return; // a program or unsupported-feature error, with the op's line
  } catch (const std::exception &e) { bug("exception", e.what(), pipeline); }
  firstError.clear();
  if (mlir::failed(mlir::verify(module))) bug("the passes left IR that does not verify", firstError, pipeline);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 16)) return 0; // large inputs only slow the search down
  mlir::MLIRContext &ctx = tile::compiler::context();
  std::string firstError;
  mlir::ScopedDiagnosticHandler quiet(&ctx, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error && firstError.empty()) firstError = d.str();
    return mlir::success();
  });
  // A copy, NUL-terminated: MLIR's lexer reads the byte after the buffer (the terminator every
  // MemoryBuffer read from a file, and every std::string, has); libFuzzer's bytes have none
  // (findings/README.md: mlir-parser-reads-past-unterminated-buffer).
  const std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module || mlir::failed(mlir::verify(*module))) return 0; // not a valid program: nothing to check

  const std::string stretch = chooseStretch(text);
  if (const char *v = std::getenv("TILE_FUZZ_VERBOSE"); v && *v == '1')
    std::fprintf(stderr, "fuzz_ir_pipeline: tile-opt --pass-pipeline='builtin.module(%s)'\n", stretch.c_str());
  // The stretch on a copy: the whole pipeline changes the module in place.
  mlir::OwningOpRef<mlir::ModuleOp> copy(module->clone());
  runAndCheck(ctx, *module, "tile-gpu-passes", firstError);
  runAndCheck(ctx, *copy, stretch, firstError);
  return 0;
}
