//===- PassFailure.h - whose fault a failed pass-manager run is -----------===//
// A pass pipeline that fails on a kernel the DSL accepted either met a feature it cannot do
// (a pass said so with emitUnsupported: the user gets tile::UnsupportedError at the op's
// line) or hit a bug (tile::InternalError, with the kernel's IR, the failing pass and the
// diagnostics written to a file a bug report can carry).
#ifndef TILE_PASSFAILURE_H
#define TILE_PASSFAILURE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "tile/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
}

namespace tile::compiler {

/// The marker a pass puts in front of an error to say "a feature I cannot do", not a bug.
inline constexpr const char *kUnsupportedPrefix = "unsupported: ";

/// Emits "unsupported: <what>" at `op` (its location is the user's DSL line).
mlir::InFlightDiagnostic emitUnsupported(mlir::Operation *op, const llvm::Twine &what);

/// Watches one pass-manager run over a kernel: gathers its diagnostics, remembers the IR
/// it started from and the pass that failed. Construct before run(), call fail() after a
/// failed run.
class PassFailureReport {
public:
  /// `stage` names the pipeline for the message ("the tile passes"); `reproduce` is the
  /// tile-opt flag that reruns it on the saved IR ("--tile-gpu-passes"), or "".
  PassFailureReport(mlir::ModuleOp module, std::string kernel, std::string stage, std::string reproduce);
  ~PassFailureReport();
  PassFailureReport(const PassFailureReport &) = delete;
  PassFailureReport &operator=(const PassFailureReport &) = delete;

  /// Records the name of the pass that fails and MLIR's crash reproducer of the failure (call
  /// before run()): a bug's report names the reproducer file (<kernel>.repro-<pid>-<n>.mlir,
  /// beside the report) that `tile-opt --run-reproducer` replays.
  void instrument(mlir::PassManager &pm);
  /// Throws UnsupportedError or InternalError (see the file comment).
  [[noreturn]] void fail();
  /// The diagnostics so far, one per line.
  std::string diagnostics() const;

  struct State; ///< shared with the instrumentation

private:
  std::shared_ptr<State> state_;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler_;
};

/// The user's source position inside `loc` (DSL ops carry FileLineColLoc, possibly wrapped).
std::optional<SourceLine> userLineOf(mlir::Location loc);

/// Where bug reports go: $TILE_DUMP_DIR when set, else <temp>/tile-bug-reports.
std::string bugReportDirectory();

} // namespace tile::compiler

#endif
