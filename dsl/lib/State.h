//===- State.h - the trace being built, shared by all DSL op files -------===//
// Private to dsl/lib. The public headers hand out opaque handles (tile::Value wraps an
// mlir::Value's opaque pointer); this header turns them back into MLIR objects and holds
// the per-thread "current trace" that every DSL op appends to.
#ifndef TILE_DSL_STATE_H
#define TILE_DSL_STATE_H

#include "tile/tile.h"

#include "tile/Dialect/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace tile::detail {

/// One kernel being traced: the builder sits at the end of the body being generated
/// (the function body, or a loop/branch body while its lambda runs).
/// Every trace has an id of its own (never reused in the process), stamped on each Value
/// it hands out, so a Value used outside its trace is recognised before it is read.
struct TraceState {
  mlir::MLIRContext *ctx;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  std::string kernelName;
  uint64_t id;
  TraceState *outer = nullptr; ///< the trace this one interrupted on this thread (TraceScope)
  TraceState(mlir::ModuleOp m, std::string kernelName);
};

/// Installs `s` as this thread's current trace for the scope; restores the previous one
/// (so a kernel may be traced while another trace is active, e.g. from a test fixture).
class TraceScope {
public:
  explicit TraceScope(TraceState &s);
  ~TraceScope();
  TraceScope(const TraceScope &) = delete;
  TraceScope &operator=(const TraceScope &) = delete;

private:
  TraceState *prev_;
};

/// The current trace, or a ProgramError "tile::<op> called outside a kernel".
TraceState &requireTrace(const SrcLoc &loc, const char *op);
/// The id of this thread's current trace (0 outside any).
uint64_t currentTraceId();
/// The trace with `id` if it is still running on this thread (the current one or one it
/// interrupted), else null: the trace ended, and the IR its Values point into is gone.
TraceState *liveTrace(uint64_t id);

//===----------------------------------------------------------------------===//
// Diagnostics (Diagnostics.cpp)
//===----------------------------------------------------------------------===//
/// A message built with <<, thrown when the statement ends (the destructor throws, so the
/// statement `fail(loc) << ...;` never returns, which the compiler knows). Numbers print as
/// std::to_string does, mlir::Types as the DSL spells them (typeStr).
template <class Derived> class ErrorStream {
public:
  ErrorStream(const ErrorStream &) = delete;
  ErrorStream &operator=(const ErrorStream &) = delete;
  Derived &operator<<(std::string_view s) {
    text_ += s;
    return self();
  }
  Derived &operator<<(const char *s) {
    text_ += s;
    return self();
  }
  Derived &operator<<(const std::string &s) {
    text_ += s;
    return self();
  }
  Derived &operator<<(char c) {
    text_ += c;
    return self();
  }
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>)
  Derived &operator<<(T v) {
    text_ += std::to_string(v);
    return self();
  }
  Derived &operator<<(mlir::Type t);

protected:
  ErrorStream() = default;
  ~ErrorStream() = default;
  std::string text_;

private:
  Derived &self() { return static_cast<Derived &>(*this); }
};

/// A user error: `fail(loc) << "tile::dot: got " << type;` throws
/// ProgramError("<file>:<line>:<col>: error: tile::dot: got f32[64]").
class [[nodiscard]] ProgramErrorStream : public ErrorStream<ProgramErrorStream> {
public:
  explicit ProgramErrorStream(SourceLine where) : where_(std::move(where)) {}
  [[noreturn]] ~ProgramErrorStream() noexcept(false);

private:
  SourceLine where_;
};
inline ProgramErrorStream fail(const SrcLoc &loc) {
  return ProgramErrorStream({loc.file_name(), loc.line(), loc.column()});
}

/// A bug in tile (an invariant the DSL's own checks should have kept): `bug() << "what";`
/// throws InternalError("tile internal error: what (this is a bug; please report)").
class [[nodiscard]] InternalErrorStream : public ErrorStream<InternalErrorStream> {
public:
  InternalErrorStream() = default;
  [[noreturn]] ~InternalErrorStream() noexcept(false);
};
inline InternalErrorStream bug() { return InternalErrorStream(); }

/// "[64, 128]"
std::string shapeStr(llvm::ArrayRef<int64_t> shape);
/// The DSL's spelling of a value type: "i32", "f32[64, 128]", "ptr<f16>[128]".
std::string typeStr(mlir::Type t);
/// Runs the MLIR verifier. A use its definition does not dominate is a user error (a value
/// escaped the loop or branch body that defined it) and throws ProgramError at the using
/// op's location; any other failure is a compiler bug (InternalError).
void verifyTracedModule(mlir::ModuleOp module, const std::string &kernelName);

//===----------------------------------------------------------------------===//
// Handles, locations, types (Builder.cpp)
//===----------------------------------------------------------------------===//
mlir::Location toLoc(mlir::MLIRContext *ctx, const SrcLoc &loc);
/// The mlir::Value of a handle, unchecked: only for handles of a live trace (use() checks).
inline mlir::Value unwrap(const Value &v) { return mlir::Value::getFromOpaquePointer(v.raw()); }
/// A handle to `v`, stamped with the current trace (the one `v` was built in).
inline Value wrap(mlir::Value v) {
  return Value::fromRaw(const_cast<void *>(v.getAsOpaquePointer()), currentTraceId());
}
/// A Value the user passes in: must be valid, made by the current trace, and defined in a
/// body that encloses the current insertion point (a value computed inside a loop body
/// cannot be used after the loop). `what` names the op for the message.
mlir::Value use(TraceState &s, const Value &v, const SrcLoc &loc, const char *what);

mlir::Type toMlir(mlir::MLIRContext *ctx, DType t);
std::optional<DType> fromMlir(mlir::Type elem);
inline bool isPtrElem(mlir::Type t) { return mlir::isa<mlir::tile::PtrType>(mlir::getElementTypeOrSelf(t)); }
inline bool isFloatElem(mlir::Type t) { return mlir::isa<mlir::FloatType>(mlir::getElementTypeOrSelf(t)); }
inline bool isIntElem(mlir::Type t) { return mlir::isa<mlir::IntegerType>(mlir::getElementTypeOrSelf(t)); }
inline bool isBoolElem(mlir::Type t) { return mlir::getElementTypeOrSelf(t).isInteger(1); }
llvm::ArrayRef<int64_t> shapeOf(mlir::Type t); ///< empty for scalars
bool isTensorType(mlir::Type t);
/// `elem` with the shape of `like` (a scalar when `like` is one).
mlir::Type withElem(mlir::Type like, mlir::Type elem);
/// `elem` with shape `shape` (a scalar when the shape is empty).
mlir::Type shaped(llvm::ArrayRef<int64_t> shape, mlir::Type elem);

//===----------------------------------------------------------------------===//
// Building blocks shared by several op files (Arith.cpp, Shape.cpp)
//===----------------------------------------------------------------------===//
/// arith.constant of `type` (scalar or dense splat tensor); `isFloatValue` says which of
/// i/f holds the number. Integers that do not fit the type are a ProgramError.
mlir::Value makeConstant(TraceState &s, mlir::Location l, const SrcLoc &loc, mlir::Type type, bool isFloatValue,
                         int64_t i, double f);
/// Elementwise conversion to element type `to` (Triton's cast rules); no-op if equal.
mlir::Value convertElem(TraceState &s, mlir::Location l, mlir::Value v, mlir::Type to);
/// Splat a scalar or broadcast a tensor to `shape` (the caller checked compatibility).
mlir::Value broadcastTo(TraceState &s, mlir::Location l, mlir::Value v, llvm::ArrayRef<int64_t> shape);
/// numpy broadcast of two shapes (equal rank, or either empty), or nullopt.
std::optional<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);
/// An Operand as a value of element type `elem` and shape `shape` (literals become
/// constants of that type; Values are converted and broadcast).
mlir::Value materialize(TraceState &s, mlir::Location l, const Operand &o, mlir::Type elem,
                        llvm::ArrayRef<int64_t> shape, const char *what);
/// A single operand as an MLIR value; a C++ number becomes a scalar constant of the type it
/// would get alone (i32 or f32). `what` names the op for the message.
mlir::Value singleOperand(TraceState &s, mlir::Location l, const Operand &x, const char *what);
/// Two operands promoted and broadcast as an arithmetic operator's (Arith.cpp).
std::pair<mlir::Value, mlir::Value> commonOperands(TraceState &s, mlir::Location l, const Operand &a, const Operand &b,
                                                   const char *what, const SrcLoc &loc);

} // namespace tile::detail

#endif
