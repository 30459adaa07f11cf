//===- PassFailure.cpp - unsupported feature or compiler bug ---------------===//
#include "tile/PassFailure.h"

#include "tile/Error.h"
#include "tile/Pipeline.h"

#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>

using namespace tile::compiler;

struct PassFailureReport::State {
  std::string kernel, stage, reproduce;
  std::string inputIR; ///< the module as the run received it, with locations
  std::string failedPass;
  struct Diag {
    std::string message;
    mlir::Location loc;
  };
  std::vector<Diag> diags;
};

namespace {

/// Records the first pass that fails.
class FailedPassRecorder : public mlir::PassInstrumentation {
public:
  explicit FailedPassRecorder(std::shared_ptr<PassFailureReport::State> s) : state_(std::move(s)) {}
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *) override {
    if (state_->failedPass.empty()) state_->failedPass = pass->getArgument().empty() ? pass->getName().str()
                                                                                        : pass->getArgument().str();
  }

private:
  std::shared_ptr<PassFailureReport::State> state_;
};

std::string locationText(mlir::Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// Writes `text` to a fresh file in the bug-report directory; "" if that is impossible.
std::string writeReport(const std::string &kernel, const std::string &text) {
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  std::filesystem::path dir = bugReportDirectory();
  std::filesystem::create_directories(dir, ec);
  // A fresh name: the directory may be TILE_DUMP_DIR, whose files (an earlier run's report of
  // the same pid, anyone's) are never replaced.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::filesystem::path path =
        dir / (kernel + ".bug-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".mlir");
    std::FILE *f = std::fopen(path.c_str(), "wx");
    if (!f && errno == EEXIST) continue;
    if (!f) return "";
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fclose(f) == 0 && ok;
    return ok ? path.string() : "";
  }
  return "";
}

} // namespace

std::optional<tile::SourceLine> tile::compiler::userLineOf(mlir::Location loc) {
  std::optional<tile::SourceLine> found;
  loc->walk([&](mlir::Location l) {
    if (auto fl = mlir::dyn_cast<mlir::FileLineColLoc>(l)) {
      found = tile::SourceLine{fl.getFilename().str(), fl.getLine(), fl.getColumn()};
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return found;
}

mlir::InFlightDiagnostic tile::compiler::emitUnsupported(mlir::Operation *op, const llvm::Twine &what) {
  return op->emitError() << kUnsupportedPrefix << what;
}

std::string tile::compiler::bugReportDirectory() {
  if (const char *d = std::getenv("TILE_DUMP_DIR"); d && *d) return d;
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  return ((ec ? std::filesystem::path("/tmp") : tmp) / "tile-bug-reports").string();
}

PassFailureReport::PassFailureReport(mlir::ModuleOp module, std::string kernel, std::string stage,
                                     std::string reproduce)
    : state_(std::make_shared<State>()) {
  state_->kernel = std::move(kernel);
  state_->stage = std::move(stage);
  state_->reproduce = std::move(reproduce);
  // Kept up front: after a failure the module is in whatever state the pass left it.
  llvm::raw_string_ostream os(state_->inputIR);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(/*enable=*/true, /*prettyForm=*/false));
  handler_ = std::make_unique<mlir::ScopedDiagnosticHandler>(module.getContext(), [s = state_](mlir::Diagnostic &d) {
    s->diags.push_back({d.str(), d.getLocation()});
    return mlir::success();
  });
}

PassFailureReport::~PassFailureReport() = default;

void PassFailureReport::instrument(mlir::PassManager &pm) {
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(state_));
}

std::string PassFailureReport::diagnostics() const {
  std::string all;
  for (const State::Diag &d : state_->diags) all += locationText(d.loc) + ": " + d.message + "\n";
  return all;
}

void PassFailureReport::fail() {
  const State &s = *state_;
  // A feature the compiler cannot do is the user's to work around, at the op's line.
  for (const State::Diag &d : s.diags) {
    if (d.message.rfind(kUnsupportedPrefix, 0) != 0) continue;
    std::string what = d.message.substr(std::string(kUnsupportedPrefix).size()) + " (kernel '" + s.kernel + "')";
    if (auto where = userLineOf(d.loc)) throw UnsupportedError(*where, what);
    throw UnsupportedError(SourceLine{"<unknown>", 0, 0}, what);
  }
  std::string pass = s.failedPass.empty() ? "(unknown)" : s.failedPass;
  std::string report = "// tile internal compiler error (this is a bug): pass '" + pass + "' failed in " + s.stage +
                       " on kernel '" + s.kernel + "'.\n// Diagnostics:\n";
  for (const State::Diag &d : s.diags) report += "//   " + locationText(d.loc) + ": " + d.message + "\n";
  if (!s.reproduce.empty()) report += "// Reproduce: tile-opt " + s.reproduce + " <this file>\n";
  report += "// The kernel's IR as " + s.stage + " received it:\n" + s.inputIR + "\n";
  std::string path = writeReport(s.kernel, report);
  std::string all;
  for (const State::Diag &d : s.diags) all += (all.empty() ? "" : "; ") + locationText(d.loc) + ": " + d.message;
  throw InternalError("tile: internal compiler error (this is a bug): pass '" + pass + "' failed in " + s.stage +
                          " on kernel '" + s.kernel + "': " + (all.empty() ? "no diagnostic" : all),
                      path);
}
