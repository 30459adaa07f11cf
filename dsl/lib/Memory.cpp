//===- Memory.cpp - load, store, atomics -----------------------------------===//
// Memory ops take pointers (scalar or tensor); masks and values follow the pointer's
// shape. Values and `other` are converted to the pointee type, as Triton does.
#include "State.h"

namespace tile {

using namespace detail;

namespace {

/// The pointer operand, checked to be one.
mlir::Value pointerOperand(TraceState &s, const Value &ptr, const SrcLoc &loc, const char *op, const char *verb) {
  mlir::Value p = use(s, ptr, loc, op);
  // A descriptor lands here when its offsets and block were braced lists ({i}, {64}): C++
  // then prefers the (ptr, mask, other) overload. Say how to reach the descriptor one.
  if (mlir::isa<mlir::tile::TensorDescType>(p.getType()))
    fail(loc) << "tile::" << op << ": " << verb << " a tensor descriptor through the pointer overload; pass "
              << "the offsets and block as std::vector<Operand> and std::vector<int64_t> (braced lists of one "
              << "element pick (ptr, mask, other))";
  if (!isPtrElem(p.getType()))
    fail(loc) << "tile::" << op << ": " << verb << " a non-pointer value of type " << typeStr(p.getType())
              << " (expected a pointer or a tensor of pointers, e.g. base + offsets)";
  return p;
}

mlir::Type pointeeOf(mlir::Value p) {
  return mlir::cast<mlir::tile::PtrType>(mlir::getElementTypeOrSelf(p.getType())).getPointeeType();
}

/// The mask: boolean, and the pointer's shape (a scalar mask or size-1 dimensions are
/// broadcast, as Triton does).
mlir::Value maskOperand(TraceState &s, mlir::Location l, mlir::Value p, const Value &mask, const SrcLoc &loc,
                        const char *op) {
  mlir::Value m = use(s, mask, loc, op);
  if (!isBoolElem(m.getType()))
    fail(loc) << "tile::" << op << ": the mask must be boolean (i1), got " << typeStr(m.getType())
              << "; build it with a comparison such as offs < n";
  auto ps = shapeOf(p.getType()), ms = shapeOf(m.getType());
  auto j = broadcastShapes(ps, ms);
  if (!j || llvm::ArrayRef<int64_t>(*j) != ps)
    fail(loc) << "tile::" << op << ": mask shape " << shapeStr(ms) << " does not match the pointer shape "
              << shapeStr(ps);
  return broadcastTo(s, l, m, ps);
}

/// A value to write (store, atomic_add): converted to the pointee type, pointer's shape.
mlir::Value dataOperand(TraceState &s, mlir::Location l, mlir::Value p, const Operand &v, const SrcLoc &loc,
                        const char *op) {
  if (v.kind == Operand::Kind::V) {
    mlir::Value vv = use(s, v.value, v.loc, op);
    if (isPtrElem(vv.getType()))
      fail(loc) << "tile::" << op << ": cannot write pointers to memory (" << typeStr(vv.getType()) << ")";
    auto ps = shapeOf(p.getType()), vs = shapeOf(vv.getType());
    auto j = broadcastShapes(ps, vs);
    if (!j || llvm::ArrayRef<int64_t>(*j) != ps)
      fail(loc) << "tile::" << op << ": value shape " << shapeStr(vs) << " does not match the pointer shape "
                << shapeStr(ps);
  }
  return materialize(s, l, v, pointeeOf(p), shapeOf(p.getType()), op);
}

} // namespace

Value load(Value ptr, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "load");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value p = pointerOperand(s, ptr, loc, "load", "cannot load from");
  mlir::Type rt = withElem(p.getType(), pointeeOf(p));
  return wrap(mlir::tile::LoadOp::create(s.builder, l, rt, p, mlir::Value(), mlir::Value()));
}

Value load(Value ptr, Value mask, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "load");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value p = pointerOperand(s, ptr, loc, "load", "cannot load from");
  mlir::Value m = maskOperand(s, l, p, mask, loc, "load");
  mlir::Type rt = withElem(p.getType(), pointeeOf(p));
  return wrap(mlir::tile::LoadOp::create(s.builder, l, rt, p, m, mlir::Value()));
}

Value load(Value ptr, Value mask, Operand other, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "load");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value p = pointerOperand(s, ptr, loc, "load", "cannot load from");
  mlir::Value m = maskOperand(s, l, p, mask, loc, "load");
  mlir::Value o = dataOperand(s, l, p, other, loc, "load (other)");
  mlir::Type rt = withElem(p.getType(), pointeeOf(p));
  return wrap(mlir::tile::LoadOp::create(s.builder, l, rt, p, m, o));
}

Value lanes_along(Value ptr, int dim, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "lanes_along");
  mlir::Value p = pointerOperand(s, ptr, loc, "lanes_along", "cannot direct accesses through");
  const auto shape = shapeOf(p.getType());
  if (shape.empty())
    fail(loc) << "tile::lanes_along: needs a tensor of pointers, got the scalar " << typeStr(p.getType());
  if (dim < 0 || dim >= int(shape.size()))
    fail(loc) << "tile::lanes_along: dimension " << dim << " is outside the pointers' rank " << shape.size();
  // Carried by the op that computes the pointers (the accesses' pointer operand), as Triton's
  // hints are. A loop-carried pointer has no such op in the loop.
  mlir::Operation *def = p.getDefiningOp();
  if (!def)
    fail(loc)
        << "tile::lanes_along: the pointers must be computed in the kernel (base + offsets), not a loop-carried value";
  def->setAttr(mlir::tile::kLanesAlongAttr, s.builder.getI32IntegerAttr(dim));
  return ptr;
}

namespace {

/// tile.store of `value` through `ptr`, where `mask` holds (if given); a descriptor block's
/// store also names the descriptor and the block's first coordinates (its box), which
/// tile-tma-stores may copy by TMA instead.
void emitStore(TraceState &s, const Value &ptr, const Value &value, const Value *mask, const SrcLoc &loc,
               mlir::Value desc = {}, mlir::ValueRange offsets = {}) {
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value p = pointerOperand(s, ptr, loc, "store", "cannot store to");
  mlir::Value v = dataOperand(s, l, p, Operand(value, loc), loc, "store");
  mlir::Value m = mask ? maskOperand(s, l, p, *mask, loc, "store") : mlir::Value();
  mlir::tile::StoreOp::create(s.builder, l, p, v, m, desc, offsets);
}

/// A descriptor block's element pointers and in-bounds mask, built from the descriptor's base,
/// extents and strides with the DSL's own operations (so the CPU executor and targets without
/// TMA run it as any masked load, and the analyses see through it). `offsets` are the block's
/// first coordinates as i32 scalars.
struct DescriptorBlock {
  mlir::Value desc;
  std::vector<mlir::Value> offsets;
  Value ptrs, mask;
};

DescriptorBlock descriptorBlock(TraceState &s, const Value &descValue, const std::vector<Operand> &offsets,
                                const std::vector<int64_t> &block, const SrcLoc &loc, const char *op) {
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value desc = use(s, descValue, loc, op);
  auto type = mlir::dyn_cast<mlir::tile::TensorDescType>(desc.getType());
  if (!type) fail(loc) << "tile::" << op << ": expected a TensorDesc parameter, got " << typeStr(desc.getType());
  const size_t rank = type.getRank();
  if (offsets.size() != rank || block.size() != rank)
    fail(loc) << "tile::" << op << ": a rank-" << rank << " descriptor takes " << rank
              << " offsets and block extents, got " << offsets.size() << " and " << block.size();
  for (int64_t b : block)
    if (b < 1 || (b & (b - 1)) || b > (int64_t(1) << 20))
      fail(loc) << "tile::" << op << ": block extents must be powers of two (up to 2^20), got " << b;
  DescriptorBlock r{desc, {}, {}, {}};
  mlir::Type i32 = s.builder.getI32Type();
  Value ptrs = wrap(
      mlir::tile::DescriptorBaseOp::create(s.builder, l, mlir::tile::PtrType::get(s.ctx, type.getElementType()), desc));
  Value mask;
  for (size_t d = 0; d < rank; ++d) {
    const Operand &o = offsets[d];
    mlir::Type given = o.kind == Operand::Kind::V ? use(s, o.value, o.loc, op).getType() : mlir::Type();
    if (o.kind == Operand::Kind::Float || (given && (!given.isInteger(32) || !shapeOf(given).empty())))
      fail(o.loc) << "tile::" << op << ": offset " << d << " must be an integer (an i32 scalar), got "
                  << (given ? typeStr(given) : std::string("a float number"));
    mlir::Value off = materialize(s, l, o, i32, {}, op);
    r.offsets.push_back(off);
    // Coordinates along d, shaped [1, ..., block[d], ..., 1] so that the sums broadcast.
    Value idx = wrap(off) + arange(0, block[d], loc);
    for (size_t e = 0; e < rank; ++e)
      if (e != d) idx = expand_dims(idx, int(e), loc);
    Value extent = wrap(mlir::tile::DescriptorDimOp::create(s.builder, l, i32, desc, s.builder.getI32IntegerAttr(d),
                                                            s.builder.getBoolAttr(false)));
    Value inside = (idx >= 0) & (idx < extent);
    mask = mask.valid() ? (mask & inside) : inside;
    // The innermost stride is 1 (the launch checks it): contiguous addresses along it.
    if (d + 1 < rank)
      idx = idx * wrap(mlir::tile::DescriptorDimOp::create(s.builder, l, i32, desc, s.builder.getI32IntegerAttr(d),
                                                           s.builder.getBoolAttr(true)));
    ptrs = ptrs + idx;
  }
  r.ptrs = ptrs;
  r.mask = mask;
  return r;
}

} // namespace

Value load(Value desc, const std::vector<Operand> &offsets, const std::vector<int64_t> &block, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "load");
  mlir::Location l = toLoc(s.ctx, loc);
  DescriptorBlock b = descriptorBlock(s, desc, offsets, block, loc, "load");
  mlir::Value p = use(s, b.ptrs, loc, "load"), m = use(s, b.mask, loc, "load");
  mlir::Type rt = withElem(p.getType(), pointeeOf(p));
  mlir::Value zero = materialize(s, l, Operand(0, loc), pointeeOf(p), shapeOf(p.getType()), "load");
  return wrap(mlir::tile::LoadOp::create(s.builder, l, rt, p, m, zero, b.desc, b.offsets));
}

/// The block of `desc` at `offsets` that `value` (a tensor) is written to by `op`.
static DescriptorBlock writtenBlock(TraceState &s, const Value &desc, const std::vector<Operand> &offsets,
                                    const Value &value, const SrcLoc &loc, const char *op) {
  std::vector<int64_t> block = shapeOf(use(s, value, loc, op).getType());
  if (block.empty())
    fail(loc) << "tile::" << op << ": a descriptor " << op << " writes a block (a tensor), got a scalar";
  return descriptorBlock(s, desc, offsets, block, loc, op);
}

void store(Value desc, const std::vector<Operand> &offsets, Value value, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "store");
  DescriptorBlock b = writtenBlock(s, desc, offsets, value, loc, "store");
  emitStore(s, b.ptrs, value, &b.mask, loc, b.desc, b.offsets);
}

void store(Value ptr, Value value, SrcLoc loc) { emitStore(requireTrace(loc, "store"), ptr, value, nullptr, loc); }

void store(Value ptr, Value value, Value mask, SrcLoc loc) {
  emitStore(requireTrace(loc, "store"), ptr, value, &mask, loc);
}

/// The dialect's memory order of the DSL's.
static mlir::tile::MemSem semOf(MemSem sem) { return mlir::tile::MemSem(int(sem)); }
static mlir::tile::MemScope scopeOf(MemScope scope) { return mlir::tile::MemScope(int(scope)); }
static_assert(int(MemSem::AcqRel) == int(mlir::tile::MemSem::AcqRel) &&
              int(MemScope::Sys) == int(mlir::tile::MemScope::Sys));

/// The element type an atomic of `name` acts on, refused at the user's line where the
/// dialect has no such atomic: bools; below 32 bits except for an add (as atomic_add took
/// before the other kinds came, and tile.atomic_rmw's verifier allows); floats for the
/// bitwise ones.
static void checkAtomicElement(mlir::Type elem, mlir::tile::AtomicKind kind, const char *name, const SrcLoc &loc) {
  using K = mlir::tile::AtomicKind;
  if (elem.isInteger(1)) fail(loc) << "tile::" << name << ": unsupported dtype i1 (bool) for an atomic";
  const bool isFloat = mlir::isa<mlir::FloatType>(elem);
  if (isFloat && (kind == K::And || kind == K::Or || kind == K::Xor))
    fail(loc) << "tile::" << name << " needs integers, got " << typeStr(elem);
  if (elem.getIntOrFloatBitWidth() < 32 && kind != K::Add)
    fail(loc) << "tile::" << name << " needs 32- or 64-bit elements, got " << typeStr(elem)
              << " (atomic_add takes narrower ones)";
}

/// tile.atomic_rmw `kind` of `value` through `ptr` where `mask` holds (if given and valid); a
/// descriptor block's add also names its box, as emitStore does.
static Value atomicRMW(mlir::tile::AtomicKind kind, const char *name, const Value &ptr, const Operand &value,
                       const Value *mask, AtomicOrder order, const SrcLoc &loc, mlir::Value desc = {},
                       mlir::ValueRange offsets = {}) {
  TraceState &s = requireTrace(loc, name);
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value p = pointerOperand(s, ptr, loc, name, "cannot update atomically");
  checkAtomicElement(pointeeOf(p), kind, name, loc);
  mlir::Value v = dataOperand(s, l, p, value, loc, name);
  mlir::Value m = mask && mask->valid() ? maskOperand(s, l, p, *mask, loc, name) : mlir::Value();
  return wrap(mlir::tile::AtomicRMWOp::create(s.builder, l, v.getType(), kind, p, v, m, desc, offsets, semOf(order.sem),
                                              scopeOf(order.scope)));
}

using Kind = mlir::tile::AtomicKind;
Value atomic_add(Value ptr, Operand value, SrcLoc loc) {
  return atomicRMW(Kind::Add, "atomic_add", ptr, value, nullptr, {}, loc);
}
Value atomic_add(Value ptr, Operand value, Value mask, SrcLoc loc) {
  return atomicRMW(Kind::Add, "atomic_add", ptr, value, &mask, {}, loc);
}
Value atomic_add(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc) {
  return atomicRMW(Kind::Add, "atomic_add", ptr, value, &mask, order, loc);
}

// The read-modify-writes other than add, three forms each (as atomic_add's).
#define TILE_DEFINE_ATOMIC(NAME, KIND)                                                                                 \
  Value NAME(Value ptr, Operand value, SrcLoc loc) { return atomicRMW(KIND, #NAME, ptr, value, nullptr, {}, loc); }    \
  Value NAME(Value ptr, Operand value, Value mask, SrcLoc loc) {                                                       \
    return atomicRMW(KIND, #NAME, ptr, value, &mask, {}, loc);                                                         \
  }                                                                                                                    \
  Value NAME(Value ptr, Operand value, Value mask, AtomicOrder order, SrcLoc loc) {                                    \
    return atomicRMW(KIND, #NAME, ptr, value, &mask, order, loc);                                                      \
  }
TILE_DEFINE_ATOMIC(atomic_max, Kind::Max)
TILE_DEFINE_ATOMIC(atomic_min, Kind::Min)
TILE_DEFINE_ATOMIC(atomic_and, Kind::And)
TILE_DEFINE_ATOMIC(atomic_or, Kind::Or)
TILE_DEFINE_ATOMIC(atomic_xor, Kind::Xor)
TILE_DEFINE_ATOMIC(atomic_xchg, Kind::Xchg)
#undef TILE_DEFINE_ATOMIC

Value atomic_cas(Value ptr, Operand cmp, Operand value, Value mask, AtomicOrder order, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "atomic_cas");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value p = pointerOperand(s, ptr, loc, "atomic_cas", "cannot compare and swap through");
  checkAtomicElement(pointeeOf(p), Kind::Xchg, "atomic_cas", loc);
  mlir::Value c = dataOperand(s, l, p, cmp, loc, "atomic_cas");
  mlir::Value v = dataOperand(s, l, p, value, loc, "atomic_cas");
  mlir::Value m = mask.valid() ? maskOperand(s, l, p, mask, loc, "atomic_cas") : mlir::Value();
  return wrap(
      mlir::tile::AtomicCASOp::create(s.builder, l, v.getType(), p, c, v, m, semOf(order.sem), scopeOf(order.scope)));
}
Value atomic_cas(Value ptr, Operand cmp, Operand value, SrcLoc loc) {
  return atomic_cas(ptr, cmp, value, Value(), {}, loc);
}
Value atomic_cas(Value ptr, Operand cmp, Operand value, AtomicOrder order, SrcLoc loc) {
  return atomic_cas(ptr, cmp, value, Value(), order, loc);
}

void atomic_add(Value desc, const std::vector<Operand> &offsets, Value value, SrcLoc loc) {
  DescriptorBlock b = writtenBlock(requireTrace(loc, "atomic_add"), desc, offsets, value, loc, "atomic_add");
  atomicRMW(Kind::Add, "atomic_add", b.ptrs, value, &b.mask, {}, loc, b.desc, b.offsets);
}

} // namespace tile
