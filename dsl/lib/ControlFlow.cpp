//===- ControlFlow.cpp - for_range (scf.for) and if_then_else (scf.if) ----===//
// The body lambdas run once, at trace time, with the builder inside the loop/branch body;
// what they return becomes the scf.yield. Ops are created without MLIR body-builder
// callbacks so that a ProgramError thrown by user code never unwinds through MLIR frames.
#include "State.h"

namespace tile {

using namespace detail;

namespace {

/// Restores the builder's insertion point even when a body lambda throws.
struct InsertionGuard {
  mlir::OpBuilder &b;
  mlir::OpBuilder::InsertPoint saved;
  explicit InsertionGuard(mlir::OpBuilder &b) : b(b), saved(b.saveInsertionPoint()) {}
  ~InsertionGuard() { b.restoreInsertionPoint(saved); }
};

/// A loop bound: a number or a scalar integer value.
mlir::Value bound(TraceState &s, mlir::Location l, const Operand &o, mlir::Type type, const char *what,
                  const SrcLoc &loc) {
  if (o.kind == Operand::Kind::Float)
    fail(loc) << "for_range: the " << what << " must be an integer, got a float number";
  if (o.kind == Operand::Kind::Int) return makeConstant(s, l, o.loc, type, false, o.i, 0);
  mlir::Value v = use(s, o.value, o.loc, "for_range");
  if (isTensorType(v.getType()) || !isIntElem(v.getType()) || isBoolElem(v.getType()))
    fail(loc) << "for_range: the " << what << " must be a scalar integer, got " << typeStr(v.getType());
  return convertElem(s, l, v, type);
}

/// The scf.for bound type: i64 if any bound is an i64 value (or a literal beyond i32), else i32.
mlir::Type boundType(TraceState &s, std::initializer_list<const Operand *> ops) {
  bool wide = false;
  for (const Operand *o : ops) {
    if (o->kind == Operand::Kind::Int) wide |= o->i < INT32_MIN || o->i > INT32_MAX;
    // Only a value of this trace is read here; bound() reports any other through use().
    if (o->kind == Operand::Kind::V && o->value.valid() && o->value.traceId() == s.id) {
      mlir::Type t = unwrap(o->value).getType();
      wide |= !isTensorType(t) && t.isInteger(64);
    }
  }
  return s.builder.getIntegerType(wide ? 64 : 32);
}

/// Values a body returns, checked against the expected types (`kind` names the construct).
llvm::SmallVector<mlir::Value> yielded(TraceState &s, const std::vector<Value> &vals, mlir::TypeRange expect,
                                       const SrcLoc &loc, const std::string &kind) {
  if (vals.size() != expect.size())
    fail(loc) << kind << " returns " << vals.size() << " value(s), expected " << expect.size();
  llvm::SmallVector<mlir::Value> out;
  for (size_t i = 0; i < vals.size(); ++i) {
    mlir::Value v = use(s, vals[i], loc, kind.c_str());
    if (v.getType() != expect[i])
      fail(loc) << kind << " returns " << typeStr(v.getType()) << " for value " << i << ", expected "
                << typeStr(expect[i]) << " (the types and shapes must not change; use tile::cast or broadcast_to)";
    out.push_back(v);
  }
  return out;
}

} // namespace

std::vector<Value> for_range(Operand lo, Operand hi, Operand step, std::vector<Value> init, const LoopBody &body,
                             SrcLoc loc) {
  return for_range(lo, hi, step, std::move(init), body, LoopOptions{}, loc);
}

std::vector<Value> for_range(Operand lo, Operand hi, Operand step, std::vector<Value> init, const LoopBody &body,
                             LoopOptions options, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "for_range");
  mlir::Location l = toLoc(s.ctx, loc);
  if (step.kind == Operand::Kind::Int && step.i <= 0)
    fail(loc) << "for_range: the step must be positive, got " << step.i;
  mlir::Type it = boundType(s, {&lo, &hi, &step});
  mlir::Value vlo = bound(s, l, lo, it, "lower bound", loc);
  mlir::Value vhi = bound(s, l, hi, it, "upper bound", loc);
  mlir::Value vstep = bound(s, l, step, it, "step", loc);
  llvm::SmallVector<mlir::Value> inits;
  for (const Value &v : init) {
    mlir::Value m = use(s, v, loc, "for_range (initial carried value)");
    inits.push_back(m);
  }
  auto loop = mlir::scf::ForOp::create(s.builder, l, vlo, vhi, vstep, inits);
  if (options.warpSpecialize) loop->setAttr(mlir::tile::kWarpSpecializeAttr, s.builder.getUnitAttr());
  if (options.warpSpecialize && options.overlapIterations)
    loop->setAttr(mlir::tile::kOverlapIterationsAttr, s.builder.getUnitAttr());
  if (options.warpSpecialize && !options.pingPong) loop->setAttr(mlir::tile::kNoTurnsAttr, s.builder.getUnitAttr());
  mlir::Block *bodyBlock = loop.getBody();
  std::vector<Value> results;
  {
    InsertionGuard g(s.builder);
    // Without carried values scf.for already has an empty yield; insert before it.
    if (bodyBlock->mightHaveTerminator()) s.builder.setInsertionPoint(bodyBlock->getTerminator());
    else s.builder.setInsertionPointToEnd(bodyBlock);
    std::vector<Value> carried;
    for (mlir::BlockArgument a : loop.getRegionIterArgs()) carried.push_back(wrap(a));
    std::vector<Value> next = body(wrap(loop.getInductionVar()), carried);
    llvm::SmallVector<mlir::Type> types(loop.getResultTypes());
    auto vals = yielded(s, next, types, loc, "the for_range body");
    if (!inits.empty()) {
      s.builder.setInsertionPointToEnd(bodyBlock);
      mlir::scf::YieldOp::create(s.builder, l, vals);
    }
  }
  for (mlir::Value r : loop.getResults()) results.push_back(wrap(r));
  return results;
}

Value for_range(Operand lo, Operand hi, Operand step, Value init,
                const std::function<Value(Value iv, Value carried)> &body, SrcLoc loc) {
  return for_range(lo, hi, step, init, body, LoopOptions{}, loc);
}

Value for_range(Operand lo, Operand hi, Operand step, Value init,
                const std::function<Value(Value iv, Value carried)> &body, LoopOptions options, SrcLoc loc) {
  return for_range(
      lo, hi, step, std::vector<Value>{init},
      [&](Value iv, std::vector<Value> carried) { return std::vector<Value>{body(iv, carried[0])}; }, options, loc)[0];
}

void for_range(Operand lo, Operand hi, Operand step, const std::function<void(Value iv)> &body, SrcLoc loc) {
  for_range(
      lo, hi, step, {},
      [&](Value iv, std::vector<Value>) {
        body(iv);
        return std::vector<Value>{};
      },
      loc);
}

std::vector<Value> if_then_else(Value cond, const Branch &then, const Branch &otherwise, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "if_then_else");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value c = use(s, cond, loc, "if");
  if (isTensorType(c.getType()))
    fail(loc) << "if: the condition must be a scalar, got the tensor " << typeStr(c.getType())
              << " (use tile::where for elementwise selection, or reduce it first)";
  if (!isBoolElem(c.getType()))
    fail(loc) << "if: the condition must be boolean (i1), got " << typeStr(c.getType()) << "; compare it, e.g. x != 0";

  // Result types are only known after running the branches, so build them in a
  // result-less scf.if, then move the bodies into one with results.
  auto tmp = mlir::scf::IfOp::create(s.builder, l, mlir::TypeRange{}, c, /*addThenBlock=*/true, /*addElseBlock=*/true);
  std::vector<Value> thenVals, elseVals;
  {
    InsertionGuard g(s.builder);
    s.builder.setInsertionPointToEnd(tmp.thenBlock());
    if (then) thenVals = then();
    s.builder.setInsertionPointToEnd(tmp.elseBlock());
    if (otherwise) elseVals = otherwise();
  }
  llvm::SmallVector<mlir::Type> types;
  {
    InsertionGuard g(s.builder);
    s.builder.setInsertionPointToEnd(tmp.thenBlock());
    for (const Value &v : thenVals) types.push_back(use(s, v, loc, "the then-branch").getType());
  }
  llvm::SmallVector<mlir::Value> tv, ev;
  {
    InsertionGuard g(s.builder);
    s.builder.setInsertionPointToEnd(tmp.thenBlock());
    tv = yielded(s, thenVals, types, loc, "the then-branch");
    s.builder.setInsertionPointToEnd(tmp.elseBlock());
    ev = yielded(s, elseVals, types, loc, "the else-branch");
    s.builder.setInsertionPointToEnd(tmp.thenBlock());
    mlir::scf::YieldOp::create(s.builder, l, tv);
    s.builder.setInsertionPointToEnd(tmp.elseBlock());
    mlir::scf::YieldOp::create(s.builder, l, ev);
  }
  std::vector<Value> results;
  if (types.empty()) return results;
  auto real = mlir::scf::IfOp::create(s.builder, l, types, c, /*addThenBlock=*/false, /*addElseBlock=*/false);
  real.getThenRegion().takeBody(tmp.getThenRegion());
  real.getElseRegion().takeBody(tmp.getElseRegion());
  tmp.erase();
  for (mlir::Value r : real.getResults()) results.push_back(wrap(r));
  return results;
}

void if_then(Value cond, const std::function<void()> &then, SrcLoc loc) {
  if_then_else(
      cond,
      [&] {
        if (then) then();
        return std::vector<Value>{};
      },
      Branch(), loc);
}

} // namespace tile
