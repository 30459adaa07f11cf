//===- fuzz_ir_pipeline.cpp - fuzz target: tile IR parser + tile-gpu-passes ---===//
// Any bytes: parsed as tile IR (tile dialect + arith/math/scf/func), verified, then run through
// the tile passes of the GPU pipeline (what `tile-opt --tile-gpu-passes` runs). Input the parser
// or the verifier rejects is fine; a program the verifier accepted must then either pass
// through the pipeline to IR that still verifies, or be refused with an error diagnostic.
// Anything else is a bug and aborts (so the fuzzer reports it with the input): a crash, a
// hang, a pass failing without saying why, IR the pipeline leaves invalid, or an exception.
#include "tile/Error.h"
#include "tile/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace {

[[noreturn]] void bug(const char *what, const std::string &detail) {
  std::fprintf(stderr, "fuzz_ir_pipeline: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 16)) return 0;  // large inputs only slow the search down
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
  if (!module || mlir::failed(mlir::verify(*module))) return 0;  // not a valid program: nothing to check

  firstError.clear();
  mlir::PassManager pm(&ctx);
  // Off: the verifier between passes would report a pass's invalid output as an ordinary error
  // diagnostic; the final verify below tells it apart as a bug.
  pm.enableVerifier(false);
  tile::compiler::addTileGpuPasses(pm);
  try {
    if (mlir::failed(pm.run(*module))) {
      if (firstError.empty()) bug("a pass failed without an error diagnostic", "");
      return 0;  // refused with a reason (an unsupported or over-sized program)
    }
  } catch (const tile::InternalError &e) {
    bug("internal error", e.what());
  } catch (const tile::Error &) {
    return 0;  // a program or unsupported-feature error, with the op's line
  } catch (const std::exception &e) {
    bug("exception", e.what());
  }
  firstError.clear();
  if (mlir::failed(mlir::verify(*module))) bug("the pipeline left IR that does not verify", firstError);
  return 0;
}
