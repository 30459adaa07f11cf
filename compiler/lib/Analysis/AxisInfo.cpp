//===- AxisInfo.cpp - contiguity, divisibility and constancy --------------===//
#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/Tile.h"

#include "mlir/IR/Matchers.h"
#include <numeric>

using namespace mlir;
using namespace mlir::tile;

static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t mlir::tile::highestPowerOf2Divisor(int64_t v) {
  if (v == 0) return kMaxDivisibility;
  int64_t p = v & -v;
  return std::min<int64_t>(p < 0 ? -p : p, kMaxDivisibility);
}

static SmallVector<int64_t, 2> shapeOrScalar(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t)) return SmallVector<int64_t, 2>(rt.getShape());
  return {1};
}

AxisInfo AxisInfo::pessimistic(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

/// A value equal everywhere (constant or splat): constant along every dimension.
/// What the heads of runs of `run` elements along d are multiples of: the operand's own
/// divisibility when its runs are no longer, else the heads x0 + k * run of its runs are
/// multiples of gcd(divisibility, run) only (a run of 1: every element).
static int64_t runHeads(const AxisInfo &x, unsigned d, int64_t run) {
  if (run >= x.contiguity[d]) return x.divisibility[d];
  return std::gcd(x.divisibility[d], run);
}

static AxisInfo uniform(Type t, int64_t divisibility) {
  auto shape = shapeOrScalar(t);
  AxisInfo info = AxisInfo::pessimistic(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    info.constancy[d] = shape[d];
    info.divisibility[d] = divisibility;
  }
  return info;
}

/// The constant integer a value holds everywhere, if known.
static std::optional<int64_t> constantInt(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) return c.getSExtValue();
  if (auto splat = v.getDefiningOp<SplatOp>()) return constantInt(splat.getSrc());
  return std::nullopt;
}

static unsigned elementBytes(Type t) {
  Type e = getElementTypeOrSelf(t);
  if (auto p = dyn_cast<PtrType>(e)) e = p.getPointeeType();
  return std::max<unsigned>(1, e.getIntOrFloatBitWidth() / 8);
}

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  root->walk([&](Operation *op) {
    for (Value r : op->getResults()) (void)get(r);
  });
}

const AxisInfo &AxisInfoAnalysis::get(Value v) {
  auto it = infos.find(v);
  if (it != infos.end()) return it->second;
  AxisInfo info = compute(v);
  return infos[v] = info;
}

AxisInfo AxisInfoAnalysis::compute(Value v) {
  Type type = v.getType();
  unsigned rank = shapeOrScalar(type).size();
  AxisInfo worst = AxisInfo::pessimistic(rank);

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast<func::FuncOp>(parent)) {
      if (auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kDivisibilityAttr))
        return uniform(type, div.getInt());
      return uniform(type, 1);
    }
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (arg == loop.getInductionVar()) {
        int64_t d = std::gcd(get(loop.getLowerBound()).divisibility[0], get(loop.getStep()).divisibility[0]);
        return uniform(type, d);
      }
    }
    return worst;
  }

  Operation *op = v.getDefiningOp();
  if (auto c = constantInt(v)) return uniform(type, highestPowerOf2Divisor(*c));
  if (isa<arith::ConstantOp>(op)) return uniform(type, 1);

  if (auto range = dyn_cast<MakeRangeOp>(op)) {
    AxisInfo info = worst;
    info.contiguity[0] = range.getEnd() - range.getStart();
    info.divisibility[0] = highestPowerOf2Divisor(range.getStart());
    return info;
  }
  if (isa<ProgramIdOp, NumProgramsOp>(op)) return uniform(type, 1);
  // A descriptor's base is 16-byte aligned and its outer strides are multiples of 16 bytes
  // (every launch checks both); its extents are multiples of 16 where the specialisation
  // says so (the argument's divisibility).
  if (isa<DescriptorBaseOp>(op)) return uniform(type, 16);
  if (auto dim = dyn_cast<DescriptorDimOp>(op)) {
    if (dim.getStride()) {
      const int64_t bytes = std::max<int64_t>(1, dim.getDesc().getType().getElementType().getIntOrFloatBitWidth() / 8);
      return uniform(type, std::max<int64_t>(1, 16 / bytes));
    }
    return uniform(type, get(dim.getDesc()).divisibility.empty() ? 1 : get(dim.getDesc()).divisibility[0]);
  }
  if (auto splat = dyn_cast<SplatOp>(op)) return uniform(type, get(splat.getSrc()).divisibility[0]);
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    AxisInfo in = get(expand.getSrc());
    unsigned axis = expand.getAxis();
    // Along the new (size-1) dimension every element is its own run: it is a multiple of
    // what every element of the source is a multiple of. Computed over the source's
    // dimensions before any vector grows (inserting first read divisibility[rank], past its
    // end: an assertion in an asserting build, garbage divisibility otherwise).
    unsigned srcRank = in.rank();
    int64_t every = kMaxDivisibility;
    for (unsigned d = 0; d < srcRank; ++d) every = std::gcd(every, runHeads(in, d, 1));
    in.contiguity.insert(in.contiguity.begin() + axis, 1);
    in.divisibility.insert(in.divisibility.begin() + axis, srcRank ? every : 1);
    in.constancy.insert(in.constancy.begin() + axis, 1);
    return in;
  }
  if (auto bcast = dyn_cast<BroadcastOp>(op)) {
    AxisInfo in = get(bcast.getSrc());
    auto src = bcast.getSrc().getType().getShape();
    auto dst = bcast.getType().getShape();
    for (size_t d = 0; d < dst.size(); ++d)
      if (src[d] == 1 && dst[d] != 1) {
        in.constancy[d] = dst[d];
        in.contiguity[d] = 1;
      }
    return in;
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) return get(cvt.getSrc());

  auto binary = [&](Value a, Value b, auto combine) {
    const AxisInfo &x = get(a), &y = get(b);
    AxisInfo r = worst;
    if (x.rank() != rank || y.rank() != rank) return r;
    for (unsigned d = 0; d < rank; ++d) combine(x, y, r, d);
    return r;
  };
  // contiguous + constant stays contiguous over the constant's runs. The result's runs
  // may be shorter than an operand's: then only that operand's shorter-run heads count.
  auto addLike = [](const AxisInfo &x, const AxisInfo &y, AxisInfo &r, unsigned d, int64_t scaleY) {
    r.contiguity[d] = std::max(std::gcd(x.contiguity[d], y.constancy[d]), std::gcd(x.constancy[d], y.contiguity[d]));
    r.divisibility[d] = std::gcd(runHeads(x, d, r.contiguity[d]), runHeads(y, d, r.contiguity[d]) * scaleY);
    r.constancy[d] = std::gcd(x.constancy[d], y.constancy[d]);
  };
  if (auto add = dyn_cast<AddPtrOp>(op)) {
    int64_t bytes = elementBytes(add.getType());
    return binary(add.getPtr(), add.getOffset(),
                  [&](auto &x, auto &y, auto &r, unsigned d) { addLike(x, y, r, d, bytes); });
  }
  if (isa<arith::AddIOp>(op))
    return binary(op->getOperand(0), op->getOperand(1),
                  [&](auto &x, auto &y, auto &r, unsigned d) { addLike(x, y, r, d, 1); });
  if (isa<arith::SubIOp>(op))
    return binary(op->getOperand(0), op->getOperand(1), [&](auto &x, auto &y, auto &r, unsigned d) {
      r.contiguity[d] = std::gcd(x.contiguity[d], y.constancy[d]);
      r.divisibility[d] = std::gcd(runHeads(x, d, r.contiguity[d]), runHeads(y, d, r.contiguity[d]));
      r.constancy[d] = std::gcd(x.constancy[d], y.constancy[d]);
    });
  if (isa<arith::MulIOp>(op)) {
    auto cb = constantInt(op->getOperand(1));
    auto ca = constantInt(op->getOperand(0));
    return binary(op->getOperand(0), op->getOperand(1), [&](auto &x, auto &y, auto &r, unsigned d) {
      r.contiguity[d] = (cb && *cb == 1) ? x.contiguity[d] : (ca && *ca == 1) ? y.contiguity[d] : 1;
      r.divisibility[d] = std::min(kMaxDivisibility, runHeads(x, d, r.contiguity[d]) * runHeads(y, d, r.contiguity[d]));
      r.constancy[d] = std::gcd(x.constancy[d], y.constancy[d]);
    });
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    // A run of consecutive values x compared against a constant c: x < c and x >= c change
    // outcome only between c - 1 and c, so within aligned groups of gcd(run, divisibilities)
    // elements they are constant. x <= c and x > c change between c and c + 1, x == c and
    // x != c at both: no group of more than one element is safe for them (`offs == 0` or
    // `offs <= n` with n a multiple of 16 would otherwise store whole vectors).
    using P = arith::CmpIPredicate;
    const P pred = cmp.getPredicate();
    const bool boundaryAtC = pred == P::slt || pred == P::ult || pred == P::sge || pred == P::uge;
    return binary(cmp.getLhs(), cmp.getRhs(), [&](auto &x, auto &y, auto &r, unsigned d) {
      int64_t k = std::gcd(x.constancy[d], y.constancy[d]);
      if (boundaryAtC && y.constancy[d] > 1 && x.contiguity[d] > 1)
        k = std::max(
            k, std::gcd(std::gcd(x.contiguity[d], x.divisibility[d]), std::gcd(y.divisibility[d], y.constancy[d])));
      r.constancy[d] = k;
    });
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
    return binary(op->getOperand(0), op->getOperand(1), [&](auto &x, auto &y, auto &r, unsigned d) {
      r.constancy[d] = std::gcd(x.constancy[d], y.constancy[d]);
    });
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(op)) return get(op->getOperand(0));
  return worst;
}
