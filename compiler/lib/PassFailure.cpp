//===- PassFailure.cpp - unsupported feature or compiler bug ---------------===//
#include "tile/PassFailure.h"

#include "tile/Error.h"
#include "tile/Compiler.h"
#include "tile/runtime/EnvRegistry.h"

#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>

#define DEBUG_TYPE "tile-pass-failure"

using namespace tile::compiler;

struct PassFailureReport::State {
  std::string kernel, stage, reproduce;
  std::string inputIR; ///< the module as the run received it, with locations
  std::string failedPass;
  /// MLIR's reproducer of the failure (the IR as the failing pass received it, with that pass
  /// as its pipeline: `tile-opt --run-reproducer` replays it), "" until a pass fails.
  std::string reproducer;
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
    if (state_->failedPass.empty())
      state_->failedPass = pass->getArgument().empty() ? pass->getName().str() : pass->getArgument().str();
  }

private:
  std::shared_ptr<PassFailureReport::State> state_;
};

/// The pass manager's reproducer goes into the report's state, not straight to a file: only a
/// bug gets files, an unsupported feature (the user's to work around) leaves none behind.
class StringReproducerStream : public mlir::ReproducerStream {
public:
  explicit StringReproducerStream(std::string &text) : os_(text) {}
  llvm::StringRef description() override { return "the bug report's reproducer file"; }
  llvm::raw_ostream &os() override { return os_; }

private:
  llvm::raw_string_ostream os_;
};

/// What the pass manager reports besides the failure itself once it made a reproducer: not a
/// diagnostic of the kernel (the bug report names the reproducer file instead).
constexpr llvm::StringLiteral kReproducerNotice = "Failures have been detected while processing an MLIR pass pipeline";

/// MLIR's crash reproducer for `pm`, written into the report's state when a pass fails (or
/// crashes: the pass manager then recovers and fails the pass).
void configureCrashReproducer(mlir::PassManager &pm, std::shared_ptr<PassFailureReport::State> state) {
  // A local reproducer (the IR just before the failing pass, that pass alone) needs a
  // single-threaded context, as the compiler's is; otherwise the whole pipeline from its input.
  bool local = !pm.getContext()->isMultithreadingEnabled();
  LLVM_DEBUG(llvm::dbgs() << "[tile-pass-failure] crash reproducer: " << (local ? "local" : "whole pipeline") << "\n");
  pm.enableCrashReproducerGeneration(
      [state = std::move(state)](std::string &) -> std::unique_ptr<mlir::ReproducerStream> {
        state->reproducer.clear();
        return std::make_unique<StringReproducerStream>(state->reproducer);
      },
      /*genLocalReproducer=*/local);
}

std::string locationText(mlir::Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// Writes `text` to a fresh file <stem>-<pid>-<n>.mlir in the bug-report directory; "" if that
/// is impossible. Reports and reproducers count apart, so a report and its reproducer share n.
std::string writeReport(const std::string &stem, const std::string &text, std::atomic<unsigned> &counter) {
  std::error_code ec;
  std::filesystem::path dir = bugReportDirectory();
  std::filesystem::create_directories(dir, ec);
  // A fresh name: the directory may be TILE_DUMP_DIR, whose files (an earlier run's report of
  // the same pid, anyone's) are never replaced.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::filesystem::path path =
        dir / (stem + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".mlir");
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
  if (const char *d = tile::rt::readEnv("TILE_DUMP_DIR"); d && *d) return d;
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
    std::string message = d.str();
    if (llvm::StringRef(message).starts_with(kReproducerNotice)) return mlir::success();
    s->diags.push_back({std::move(message), d.getLocation()});
    return mlir::success();
  });
}

PassFailureReport::~PassFailureReport() = default;

void PassFailureReport::instrument(mlir::PassManager &pm) {
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(state_));
  configureCrashReproducer(pm, state_);
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
  static std::atomic<unsigned> reports{0}, reproducers{0};
  if (!s.reproducer.empty()) {
    std::string reproducerPath = writeReport(s.kernel + ".repro", s.reproducer, reproducers);
    LLVM_DEBUG(llvm::dbgs() << "[tile-pass-failure] reproducer of '" << pass
                            << "': " << (reproducerPath.empty() ? "not written" : reproducerPath) << "\n");
    if (!reproducerPath.empty())
      report += "// MLIR's reproducer (the IR as pass '" + pass + "' received it, with that pass): " + reproducerPath +
                "\n// Replay it: tile-opt --run-reproducer " + reproducerPath + "\n";
  }
  report += "// The kernel's IR as " + s.stage + " received it:\n" + s.inputIR + "\n";
  std::string path = writeReport(s.kernel + ".bug", report, reports);
  std::string all;
  for (const State::Diag &d : s.diags) all += (all.empty() ? "" : "; ") + locationText(d.loc) + ": " + d.message;
  throw InternalError("tile: internal compiler error (this is a bug): pass '" + pass + "' failed in " + s.stage +
                          " on kernel '" + s.kernel + "': " + (all.empty() ? "no diagnostic" : all),
                      path);
}
