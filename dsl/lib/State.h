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

#include <optional>
#include <string>

namespace tile::detail {

/// One kernel being traced: the builder sits at the end of the body being generated
/// (the function body, or a loop/branch body while its lambda runs).
struct TraceState {
  mlir::MLIRContext *ctx;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  explicit TraceState(mlir::ModuleOp m) : ctx(m.getContext()), builder(m.getContext()), module(m) {}
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

//===----------------------------------------------------------------------===//
// Diagnostics (Diagnostics.cpp)
//===----------------------------------------------------------------------===//
/// Throws ProgramError("<file>:<line>:<col>: error: <what>").
[[noreturn]] void fail(const SrcLoc &loc, const std::string &what);
/// "[64, 128]"
std::string shapeStr(llvm::ArrayRef<int64_t> shape);
/// The DSL's spelling of a value type: "i32", "f32[64, 128]", "ptr<f16>[128]".
std::string typeStr(mlir::Type t);
/// Runs the MLIR verifier. A dominance failure is a user error (a value escaped the loop
/// or branch body that defined it) and throws ProgramError at the op's location; any
/// other failure is a compiler bug (std::logic_error).
void verifyTracedModule(mlir::ModuleOp module, const std::string &kernelName);

//===----------------------------------------------------------------------===//
// Handles, locations, types (Builder.cpp)
//===----------------------------------------------------------------------===//
mlir::Location toLoc(mlir::MLIRContext *ctx, const SrcLoc &loc);
inline mlir::Value unwrap(const Value &v) { return mlir::Value::getFromOpaquePointer(v.raw()); }
inline Value wrap(mlir::Value v) { return Value::fromRaw(const_cast<void *>(v.getAsOpaquePointer())); }
/// A Value the user passes in: must be valid and defined in a body that encloses the
/// current insertion point (a value computed inside a loop body cannot be used after
/// the loop). `what` names the op for the message.
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

} // namespace tile::detail

#endif
