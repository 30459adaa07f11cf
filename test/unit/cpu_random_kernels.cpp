// Random valid DSL programs (see cpu_random_kernels.h): generation, the kernel that
// traces a program, and the float64 reference with a rounding-error scale per element.
#include "cpu_random_kernels.h"
#include "cpu_random_attention.h"
#include "cpu_random_math.h"

#include "tile/HalfBits.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

namespace tile::randomkernels {

enum class Op {
  Input,
  Row,
  Col,
  Scalar,
  Const,
  Iter,
  Carried,
  Neg,
  Abs,
  Exp,
  FastExp2,
  Half,
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Fma,
  Where,
  Reduce,
  ArgMax,
  Loop,
  If,
  Dot,
  Transpose,
  Attention,
  Math ///< kRandomMathFns[fn] of a (and b)
};
enum class Red { Sum, Max, Min };
/// Dot inputs: f32 exact and TF32 (CUDA cores), f16 and bf16 (tensor cores where the tile allows).
enum class DotInput { F32, TF32, F16, BF16 };
/// How a leaf reads global memory: masked loads of pointer tensors, or blocks of a tensor
/// descriptor (out-of-bounds elements read 0 there, not `other`: what the masks hide never
/// reaches an output) of every rank and of f32 and f16:
enum class Via {
  Pointers,
  Desc,    ///< in0: its descriptor of the program's rank; row / col: rank-1 descriptors of the vectors
  Desc4,   ///< in0: a rank-4 descriptor viewing it as [1, p, m, n], the block reshaped to the tile
  DescF16, ///< in2 (on a grid f16 holds exactly): an f16 copy's descriptor of the program's rank, cast to f32
};

/// One node of the DAG; every node is an f32 tile of the program's shape: [BM, BN], or
/// [BP, BM, BN] for a rank-3 program.
struct Node {
  Op op;
  int a = -1, b = -1, c = -1,
      d = -1;         ///< operands (Where: a < b ? c : d; Fma: a · b + c; Loop: init a, step b; If: a / b)
  int input = 0;      ///< Input: which of in0..in2
  float value = 0;    ///< Const: the value; Input: `other` of the masked load
  int axis = 0;       ///< Reduce/ArgMax
  Red red = Red::Sum; ///< Reduce
  int scope = -1;     ///< the loop (its id) whose body this node belongs to; -1: top level
  int loop = -1;      ///< Loop/Iter/Carried: the loop's id
  int fn = 0;         ///< Math: the index in kRandomMathFns
  DotInput dotInput = DotInput::F32; ///< Dot: what the inputs are rounded to
  bool transposedA = false;          ///< Dot (f16/bf16): a given as trans(aᵀ) (wgmma's MN-major a)
  int lanesAlong = -1; ///< Input: the dimension its load's lanes step along (lanes_along), -1: the compiler's choice
  Via via = Via::Pointers; ///< Input, Row, Col
  /// Loop: LoopOptions::warpSpecialize and overlapIterations, hints the compiler must ignore for
  /// these loops (no TMA-fed wgmma K loop): the code is then the same as without them.
  bool warpSpecialize = false, overlapIterations = false;
  AttentionSpec attention = {}; ///< Attention (cpu_random_attention.h): its queries are operand a
};

/// How the output is stored: in one masked store, or split at a column constant c into two
/// stores, result where `column PRED c` and -result where the complement holds. Each
/// comparison predicate against a constant then reaches a store mask: the vectoriser may
/// only merge elements whose mask cannot differ.
enum class Split { None, Lt, Le, Gt, Ge, Eq, Ne };

struct Program {
  int rank = 2;
  /// Whether a leaf of kind `op` (Input: of input `input`, -1 any) reads through `via`.
  bool reads(Op op, Via via, int input = -1) const {
    return std::any_of(nodes.begin(), nodes.end(), [&](const Node &n) {
      if (n.op == Op::Attention) // in2's f16 copy, through its descriptor of rank 2
        return op == Op::Input && via == Via::DescF16 && input != 0 && input != 1 && n.attention.readsHalfCopy();
      return n.op == op && n.via == via && (input < 0 || n.input == input);
    });
  }
  bool has(Op op) const {
    return std::any_of(nodes.begin(), nodes.end(), [&](const Node &n) { return n.op == op; });
  }
  /// The tile's blocks through descriptors of rank >= 2 need rows of a multiple of 16 bytes:
  /// n a multiple of this (1: no such descriptor).
  int rowMultiple() const {
    if (reads(Op::Input, Via::DescF16)) return 8;
    return reads(Op::Input, Via::Desc) || reads(Op::Input, Via::Desc4) ? 4 : 1;
  }
  std::vector<Node> nodes;
  int output = 0;
  std::vector<int> loopParent; ///< loop id -> enclosing loop id (or -1)
  Split split = Split::None;
  int splitAt = 0;              ///< c of the split (a multiple of 4 mostly: the constants vectorisation trusts)
  bool descriptorStore = false; ///< unsplit: the result stored as a block of out's tensor descriptor
  bool descriptorAdd = false;   ///< descriptorStore by atomic_add (out starts at zero: RandomCase::outZeroed)
};

namespace {

/// column PRED c of a split, on an int (the float64 reference) or a DSL Value (the kernel):
/// one definition for both. Never asked for Split::None (nothing is split then).
template <class T> auto splitCompare(Split split, const T &column, int c) -> decltype(column < c) {
  switch (split) {
  case Split::Lt: return column < c;
  case Split::Le: return column <= c;
  case Split::Gt: return column > c;
  case Split::Ge: return column >= c;
  case Split::Eq: return column == c;
  case Split::Ne: return column != c;
  case Split::None: break;
  }
  throw std::logic_error("splitCompare: the program is not split");
}

Split complement(Split split) {
  switch (split) {
  case Split::Lt: return Split::Ge;
  case Split::Ge: return Split::Lt;
  case Split::Le: return Split::Gt;
  case Split::Gt: return Split::Le;
  case Split::Eq: return Split::Ne;
  case Split::Ne: return Split::Eq;
  case Split::None: break;
  }
  return Split::None;
}

const char *splitName(Split split) {
  static const char *names[] = {"", "<", "<=", ">", ">=", "==", "!="};
  return names[static_cast<int>(split)];
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMulClamp = 1e4f; // keeps products (and with them every value) in a sane range

const char *opName(Op op) {
  switch (op) {
  case Op::Input: return "in";
  case Op::Row: return "row";
  case Op::Col: return "col";
  case Op::Scalar: return "s";
  case Op::Const: return "const";
  case Op::Iter: return "iter";
  case Op::Carried: return "carried";
  case Op::Neg: return "neg";
  case Op::Abs: return "abs";
  case Op::Exp: return "exp(min(x, 4))";
  case Op::FastExp2: return "fast_exp2(min(x, 4))";
  case Op::Half: return "half";
  case Op::Add: return "add";
  case Op::Sub: return "sub";
  case Op::Mul: return "clamp(mul)";
  case Op::Div: return "a / (|b| + 1)";
  case Op::Max: return "maximum";
  case Op::Min: return "minimum";
  case Op::Fma: return "clamp(fma(a, b, c))";
  case Op::Where: return "where(a < b, c, d)";
  case Op::Reduce: return "reduce";
  case Op::ArgMax: return "argmax";
  case Op::Loop: return "loop";
  case Op::If: return "if(flag, a * 2, b - 1)";
  case Op::Dot: return "dot(where(mask, a, 0), W) with W[k][j] = k == j ? 1 : 0.25";
  case Op::Transpose: return "trans(reshape(where(mask, a, 0), [.., BN, BM]))";
  case Op::Attention: return "attention(q = where(mask, a, 0))";
  case Op::Math: return "math";
  }
  return "?";
}

/// The value of IEEE half bits (exact in double).
double halfValue(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return h & 0x8000 ? -v : v;
}

/// x as the kernel's dot multiplies it: f32, or rounded to tf32 (cvt.rna), f16 or bf16
/// (nearest even, after the kernel's clamp to +-1e4).
double roundedDotInput(double x, DotInput input) {
  float f = float(input == DotInput::F32 || input == DotInput::TF32 ? x : std::clamp(x, -1e4, 1e4));
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  switch (input) {
  case DotInput::F32: return f;
  case DotInput::TF32: bits = (bits + 0x1000u) & ~0x1fffu; break; // finite inputs only (clamped DAG)
  case DotInput::F16: return halfValue(tile::halfBits(f));
  case DotInput::BF16: bits = uint32_t(tile::bf16Bits(f)) << 16; break;
  }
  std::memcpy(&f, &bits, 4);
  return f;
}

/// One ulp of the dot's input type over the 2^-24 scale of the error bound.
double inputUlpScale(DotInput input) {
  switch (input) {
  case DotInput::F32: return 1;
  case DotInput::TF32:
  case DotInput::F16: return 1 << 13;
  case DotInput::BF16: return 1 << 16;
  }
  return 1;
}

bool isLeaf(Op op) { return op == Op::Input || op == Op::Row || op == Op::Col || op == Op::Scalar || op == Op::Const; }

/// Builds the DAG. Operands come from the nodes visible in the current scope.
class Generator {
public:
  Generator(std::mt19937_64 &rng, int rank) : rng_(rng) { p_.rank = rank; }

  Program run() {
    int numOps = pick(2, 10);
    topLevel(numOps);
    // The output adds up every top-level node nobody uses, so every op counts.
    std::vector<bool> used(p_.nodes.size(), false);
    for (const Node &n : p_.nodes)
      for (int c : {n.a, n.b, n.c, n.d})
        if (c >= 0) used[c] = true;
    int out = -1;
    for (int i = 0, e = static_cast<int>(p_.nodes.size()); i < e; ++i) {
      if (used[i] || p_.nodes[i].scope != -1) continue;
      if (out < 0) {
        out = i;
        continue;
      }
      Node sum{Op::Add};
      sum.a = out;
      sum.b = i;
      out = add(sum);
    }
    p_.output = out;
    return std::move(p_);
  }

private:
  std::mt19937_64 &rng_;
  Program p_;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  float quantised(float lo, float hi) {
    return std::round(std::uniform_real_distribution<float>(lo, hi)(rng_) * 8) / 8;
  }

  int add(Node n) {
    p_.nodes.push_back(n);
    return static_cast<int>(p_.nodes.size()) - 1;
  }

  bool visible(int node, int scope) const {
    int s = p_.nodes[node].scope;
    for (int cur = scope;; cur = p_.loopParent[cur]) {
      if (s == cur) return true;
      if (cur == -1) return false;
    }
  }

  int leaf(int scope) {
    Node n{Op::Input};
    n.scope = scope;
    switch (pick(0, 6)) {
    case 0: n.op = Op::Row; break;
    case 1: n.op = Op::Col; break;
    case 2: n.op = Op::Scalar; break;
    case 3:
      n.op = Op::Const;
      n.value = quantised(-2, 2);
      break;
    default:
      n.op = Op::Input;
      n.input = pick(0, 2);
      n.value = chance(0.5) ? 0.f : quantised(-2, 2);
      // in0 through a descriptor of the program's rank in a quarter of the cases, of rank 4 in
      // a sixth; in2 through an f16 copy's in a quarter.
      if (n.input == 0) n.via = chance(0.25) ? Via::Desc : chance(0.2) ? Via::Desc4 : Via::Pointers;
      if (n.input == 2 && chance(0.25)) n.via = Via::DescF16;
      n.lanesAlong = n.via == Via::Pointers && chance(0.3) ? pick(0, p_.rank - 1) : -1;
      break;
    }
    // The row and column vectors through rank-1 descriptors in a quarter of the cases.
    if ((n.op == Op::Row || n.op == Op::Col) && chance(0.25)) n.via = Via::Desc;
    return add(n);
  }

  /// A visible node, or a new leaf.
  int operand(int scope) {
    std::vector<int> pool;
    for (int i = 0; i < static_cast<int>(p_.nodes.size()); ++i)
      if (visible(i, scope)) pool.push_back(i);
    if (pool.empty() || chance(0.3)) return leaf(scope);
    // Prefer recent nodes: deeper expressions.
    int k = static_cast<int>(pool.size());
    int i = std::max(0, k - 1 - static_cast<int>(std::abs(std::normal_distribution<double>(0, k / 2.0 + 1)(rng_))));
    return pool[i];
  }

  int leafOperand(int scope) {
    std::vector<int> pool;
    for (int i = 0; i < static_cast<int>(p_.nodes.size()); ++i)
      if (visible(i, scope) && isLeaf(p_.nodes[i].op)) pool.push_back(i);
    if (pool.empty() || chance(0.4)) return leaf(scope);
    return pool[pick(0, static_cast<int>(pool.size()) - 1)];
  }

  int op(int scope, int depth) {
    Node n{Op::Add};
    n.scope = scope;
    int r = pick(0, 99);
    if (r < 20) {
      static const Op unary[] = {Op::Neg, Op::Abs, Op::Exp, Op::FastExp2, Op::Half};
      n.op = chance(0.5) ? Op::Math : unary[pick(0, 4)];
      n.fn = pick(0, kRandomMathFnCount - 1);
      const bool leafOnly = n.op == Op::Math && kRandomMathFns[n.fn].leafOnly;
      n.a = leafOnly ? leafOperand(scope) : operand(scope);
      if (n.op == Op::Math && kRandomMathFns[n.fn].binary) n.b = operand(scope);
    } else if (r < 53) {
      static const Op binary[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min, Op::Fma};
      n.op = binary[pick(0, 6)];
      n.a = operand(scope);
      n.b = operand(scope);
      if (n.op == Op::Fma) n.c = operand(scope);
    } else if (r < 63) {
      n.op = Op::Where;
      n.a = leafOperand(scope);
      n.b = leafOperand(scope);
      n.c = operand(scope);
      n.d = operand(scope);
    } else if (r < 75) {
      n.op = Op::Reduce;
      n.a = operand(scope);
      n.axis = pick(0, p_.rank - 1);
      n.red = static_cast<Red>(pick(0, 2));
    } else if (r < 80) {
      n.op = Op::ArgMax;
      n.a = leafOperand(scope);
      n.axis = pick(0, p_.rank - 1);
    } else if (r < 84 && depth < 2) {
      return loop(scope, depth);
    } else if (r < 87 && p_.rank == 2) {
      n.op = Op::Dot;
      n.a = operand(scope);
      n.dotInput = static_cast<DotInput>(pick(0, 3));
      n.transposedA = (n.dotInput == DotInput::F16 || n.dotInput == DotInput::BF16) && pick(0, 1);
    } else if (r < 93 && p_.rank == 2) {
      n.op = Op::Attention;
      n.a = operand(scope);
      n.attention = drawAttention(rng_);
    } else if (r < 96) {
      n.op = Op::Transpose;
      n.a = operand(scope);
    } else {
      n.op = Op::If;
      n.a = operand(scope);
      n.b = operand(scope);
    }
    return add(n);
  }

  /// acc = init; for k < trips: acc = half(acc) + body(acc, k). Bounded: |acc| <= 2 max|body|.
  int loop(int scope, int depth) {
    int id = static_cast<int>(p_.loopParent.size());
    p_.loopParent.push_back(scope);
    int init = operand(scope);
    Node carried{Op::Carried};
    carried.scope = id;
    carried.loop = id;
    int c = add(carried);
    if (chance(0.6)) {
      Node iter{Op::Iter};
      iter.scope = id;
      iter.loop = id;
      add(iter);
    }
    int body = -1;
    for (int i = 0, k = pick(1, 3); i < k; ++i) body = op(id, depth + 1);
    Node half{Op::Half};
    half.scope = id;
    half.a = c;
    Node step{Op::Add};
    step.scope = id;
    step.a = add(half);
    step.b = body;
    int s = add(step);
    Node l{Op::Loop};
    l.scope = scope;
    l.loop = id;
    l.a = init;
    l.b = s;
    l.warpSpecialize = chance(0.25);
    l.overlapIterations = l.warpSpecialize && chance(0.5);
    return add(l);
  }

  void topLevel(int numOps) {
    for (int i = 0; i < numOps; ++i) op(-1, 0);
  }
};

/// The program's tile geometry, shared by the kernel and the reference: p x m x n
/// elements in bp x bm x bn tiles (p = bp = 1 for rank 2).
struct Geometry {
  int p, m, n, bp, bm, bn;
};

// ---------------------------------------------------------------------------------------
// The kernel: traces the DAG.

struct Scope {
  const Scope *parent = nullptr;
  int loop = -1;
  Value carried, iter;
  mutable std::map<int, Value> memo;
};

struct Tracer {
  Tracer(const Program &p, std::vector<int64_t> shape) : p(p), shape(std::move(shape)) {}
  const Program &p;
  std::vector<int64_t> shape;
  Value rowIdx, colIdx, rmask, cmask, mask, idx; ///< row/column indices expanded to the rank
  Value in[3];
  Value desc;                        ///< in0's descriptor of the program's rank
  std::vector<Operand> descOffsets;  ///< the program's block in it (and in2's f16 copy's)
  Value desc4;                       ///< in0 as [1, p, m, n]
  std::vector<Operand> desc4Offsets; ///< the program's block in it
  std::vector<int64_t> block4;       ///< [1, BP, BM, BN] (BP = 1 for rank 2)
  Value descHalf;                    ///< in2's f16 copy's descriptor of the program's rank
  Value rowDesc, colDesc;            ///< rank 1: the row vector (n), the column vector (m)
  Value rowStart, colStart;          ///< the program's first column and row
  Value rowv, colv, s, flag;
  Value m, n; ///< the problem's rows and columns

  /// A [BN] block of the row vector or a [BM] block of the column vector, expanded to the rank
  /// as the column / row indices are.
  Value asRow(Value v) const { return shape.size() == 3 ? row(row(v)) : row(v); }
  Value asCol(Value v) const { return shape.size() == 3 ? row(col(v)) : col(v); }
  /// The `size` elements of a rank-1 descriptor from `start`.
  static Value vectorBlock(Value desc, Value start, int64_t size) {
    return load(desc, std::vector<Operand>{start}, std::vector<int64_t>{size});
  }

  const Scope &owner(int scope, const Scope &at) const {
    const Scope *cur = &at;
    while (cur->loop != scope) cur = cur->parent;
    return *cur;
  }

  /// Builds every node of `at`'s scope with an index below `end`, in order: a node first
  /// used inside a loop body or branch must already exist outside it.
  void buildScope(int end, const Scope &at) {
    for (int i = 0; i < end; ++i)
      if (p.nodes[i].scope == at.loop) build(i, at);
  }

  Value build(int i, const Scope &at) {
    const Node &n = p.nodes[i];
    const Scope &home = owner(n.scope, at);
    if (auto it = home.memo.find(i); it != home.memo.end()) return it->second;
    Value v = make(n, at);
    home.memo[i] = v;
    return v;
  }

  Value make(const Node &n, const Scope &at) {
    auto A = [&] { return build(n.a, at); };
    auto B = [&] { return build(n.b, at); };
    switch (n.op) {
    case Op::Input: {
      if (n.via == Via::Desc) return load(desc, descOffsets, shape);
      if (n.via == Via::Desc4) return reshape(load(desc4, desc4Offsets, block4), shape);
      if (n.via == Via::DescF16) return cast(load(descHalf, descOffsets, shape), DType::f32);
      Value ptrs = in[n.input] + idx;
      return load(n.lanesAlong >= 0 ? lanes_along(ptrs, n.lanesAlong) : ptrs, mask, n.value);
    }
    case Op::Row:
      if (n.via == Via::Desc) return broadcast_to(asRow(vectorBlock(rowDesc, rowStart, shape.back())), shape);
      return broadcast_to(load(rowv + colIdx, cmask, 0.0f), shape);
    case Op::Col:
      if (n.via == Via::Desc)
        return broadcast_to(asCol(vectorBlock(colDesc, colStart, shape[shape.size() - 2])), shape);
      return broadcast_to(load(colv + rowIdx, rmask, 0.0f), shape);
    case Op::Scalar: return broadcast_to(s, shape);
    case Op::Const: return full(shape, n.value, DType::f32);
    case Op::Iter: return broadcast_to(cast(owner(n.loop, at).iter, DType::f32), shape);
    case Op::Carried: return owner(n.loop, at).carried;
    case Op::Neg: return -A();
    case Op::Abs: return abs(A());
    case Op::Exp: return exp(minimum(A(), 4.0f));
    case Op::FastExp2: return fast_exp2(minimum(A(), 4.0f));
    case Op::Half: return A() * 0.5f;
    case Op::Math: return kRandomMathFns[n.fn].build(A(), kRandomMathFns[n.fn].binary ? B() : A());
    case Op::Add: return A() + B();
    case Op::Sub: return A() - B();
    case Op::Mul: return maximum(minimum(A() * B(), kMulClamp), -kMulClamp);
    case Op::Div: return A() / (abs(B()) + 1.0f);
    case Op::Max: return maximum(A(), B());
    case Op::Min: return minimum(A(), B());
    case Op::Fma: return maximum(minimum(fma(A(), B(), build(n.c, at)), kMulClamp), -kMulClamp);
    case Op::Where: return where(A() < B(), build(n.c, at), build(n.d, at));
    case Op::Reduce: {
      float identity = n.red == Red::Sum ? 0.f : n.red == Red::Max ? -kInf : kInf;
      Value x = where(mask, A(), identity);
      Value r = n.red == Red::Sum ? sum(x, n.axis) : n.red == Red::Max ? max(x, n.axis) : min(x, n.axis);
      return broadcast_to(expand_dims(r, n.axis), shape);
    }
    case Op::ArgMax: {
      Value r = cast(argmax(where(mask, A(), -kInf), n.axis), DType::f32);
      return broadcast_to(expand_dims(r, n.axis), shape);
    }
    case Op::Loop: {
      Value init = A();
      return for_range(
          0, trips, 1, {init},
          [&](Value k, std::vector<Value> c) {
            Scope inner;
            inner.parent = &at;
            inner.loop = n.loop;
            inner.carried = c[0];
            inner.iter = k;
            buildScope(n.b, inner);
            return std::vector<Value>{build(n.b, inner)};
          },
          LoopOptions{.warpSpecialize = n.warpSpecialize, .overlapIterations = n.overlapIterations})[0];
    }
    case Op::Dot: {
      const int64_t bn = shape.back();
      Value w = where(col(arange(0, bn)) == row(arange(0, bn)), 1.0f, 0.25f);
      Value a = where(mask, A(), 0.0f);
      switch (n.dotInput) {
      case DotInput::F32: return dot(a, w);
      case DotInput::TF32: return dot(a, w, zeros({shape[0], bn}, DType::f32), Precision::TF32);
      case DotInput::F16:
      case DotInput::BF16: {
        DType t = n.dotInput == DotInput::F16 ? DType::f16 : DType::bf16;
        Value clamped = minimum(maximum(a, -1e4f), 1e4f);
        // The same values as a transpose of a cast transpose: a [M, K] read from aᵀ's buffer.
        if (n.transposedA) return dot(trans(cast(trans(clamped), t)), cast(w, t));
        return dot(cast(clamped, t), cast(w, t));
      }
      }
      return {};
    }
    case Op::Transpose: {
      Value x = where(mask, A(), 0.0f);
      if (shape.size() == 2) return trans(reshape(x, {shape[1], shape[0]}));
      return trans(reshape(x, {shape[0], shape[2], shape[1]}), {0, 2, 1});
    }
    case Op::Attention:
      return traceAttention(n.attention, AttentionOperands{.q = where(mask, A(), 0.0f),
                                                           .in = {in[0], in[1], in[2]},
                                                           .halfDesc = descHalf,
                                                           .colStart = rowStart,
                                                           .colIdx = colIdx,
                                                           .cmask = cmask,
                                                           .m = this->m,
                                                           .n = this->n});
    case Op::If: {
      Value x = A(), y = B(); // built outside: the branches only transform them
      return if_then_else(
          flag != 0, [&] { return std::vector<Value>{x * 2.0f}; }, [&] { return std::vector<Value>{y - 1.0f}; })[0];
    }
    }
    return {};
  }
  Value trips;
};

auto makeBody(std::shared_ptr<const Program> prog) {
  return [prog](Ptr<float> in0, Ptr<float> in1, Ptr<float> in2, Ptr<float> rowv, Ptr<float> colv, Ptr<float> out,
                Ptr<float> out2, Ptr<f16> in2Half, I32 m, I32 n, I32 p, I32 trips, I32 flag, F32 s,
                TensorDesc<float, 2> d2, TensorDesc<float, 3> d3, TensorDesc<float, 2> o2, TensorDesc<float, 3> o3,
                TensorDesc<float, 1> r1, TensorDesc<float, 1> c1, TensorDesc<float, 4> d4, TensorDesc<f16, 2> h2,
                TensorDesc<f16, 3> h3, Const<int> BM, Const<int> BN, Const<int> BP) {
    (void)in2Half; // read only through h2 / h3, its descriptors
    const bool rank3 = prog->rank == 3;
    Tracer t{*prog, rank3 ? std::vector<int64_t>{BP.value(), BM.value(), BN.value()}
                          : std::vector<int64_t>{BM.value(), BN.value()}};
    Value rows = program_id(0) * BM + arange(0, BM);
    Value cols = program_id(1) * BN + arange(0, BN);
    Value planes = program_id(2) * BP + arange(0, BP);
    t.rowIdx = rank3 ? row(col(rows)) : col(rows); // [1, BM, 1] or [BM, 1]
    t.colIdx = rank3 ? row(row(cols)) : row(cols); // [1, 1, BN] or [1, BN]
    Value planeIdx = col(col(planes));             // [BP, 1, 1]
    t.rmask = t.rowIdx < m;
    t.cmask = t.colIdx < n;
    t.mask = t.rmask & t.cmask;
    t.idx = t.rowIdx * n + t.colIdx;
    if (rank3) {
      t.mask = t.mask & (planeIdx < p);
      t.idx = t.idx + planeIdx * (m * n);
    }
    t.in[0] = in0;
    t.desc = rank3 ? Value(d3) : Value(d2);
    t.descOffsets = {program_id(0) * BM, program_id(1) * BN};
    if (rank3) t.descOffsets.insert(t.descOffsets.begin(), program_id(2) * BP);
    t.desc4 = d4;
    t.desc4Offsets = {0, rank3 ? Operand(program_id(2) * BP) : Operand(0), program_id(0) * BM, program_id(1) * BN};
    t.block4 = {1, rank3 ? int64_t(BP.value()) : 1, BM.value(), BN.value()};
    t.descHalf = rank3 ? Value(h3) : Value(h2);
    t.rowDesc = r1;
    t.colDesc = c1;
    t.rowStart = program_id(1) * BN;
    t.colStart = program_id(0) * BM;
    t.in[1] = in1;
    t.in[2] = in2;
    t.rowv = rowv;
    t.colv = colv;
    t.s = s;
    t.flag = flag;
    t.trips = trips;
    t.m = m;
    t.n = n;
    Scope top;
    t.buildScope(prog->output, top);
    Value result = t.build(prog->output, top);
    if (prog->descriptorAdd) {
      atomic_add(rank3 ? Value(o3) : Value(o2), t.descOffsets, result); // 0 + result inside out
    } else if (prog->descriptorStore) {
      store(rank3 ? Value(o3) : Value(o2), t.descOffsets, result); // only the elements inside out
    } else if (prog->split == Split::None) {
      store(out + t.idx, result, t.mask);
    } else {
      store(out + t.idx, result, t.mask & splitCompare(prog->split, t.colIdx, prog->splitAt));
      store(out + t.idx, -result, t.mask & splitCompare(complement(prog->split), t.colIdx, prog->splitAt));
    }
    // Per row, the sum over the first column tile (only those programs store it). Its base
    // pointer goes through a scalar select of two pointers (m >= 1: always out2), so every
    // program also covers where() on pointers.
    Value rowSums = sum(where(t.mask, result, 0.0f), t.shape.size() - 1);
    Value sumsOut = where(m > 0, out2, out);
    if (rank3)
      store(sumsOut + col(planes) * m + row(rows), rowSums, (col(planes) < p) & (row(rows) < m) & (program_id(1) == 0));
    else store(sumsOut + rows, rowSums, (rows < m) & (program_id(1) == 0));
  };
}
using Body = decltype(makeBody(nullptr));
using RandomKernel = tile::Kernel<Body>;

// ---------------------------------------------------------------------------------------
// The float64 reference: every node's value and magnitude (the same DAG evaluated on
// absolute values: first-order scale of the float32 rounding error) on the valid region.

struct Tile {
  std::vector<double> v, mag;
};

struct RefScope {
  const RefScope *parent = nullptr;
  int loop = -1;
  Tile carried;
  double iter = 0;
  mutable std::map<int, Tile> memo;
};

struct Reference {
  const Program &p;
  Geometry g;
  const std::vector<std::vector<float>> &inputs;
  float s;
  int trips, flag;

  size_t size() const { return size_t(g.p) * g.m * g.n; }

  const RefScope &owner(int scope, const RefScope &at) const {
    const RefScope *cur = &at;
    while (cur->loop != scope) cur = cur->parent;
    return *cur;
  }

  const Tile &eval(int i, const RefScope &at) {
    const Node &n = p.nodes[i];
    const RefScope &home = owner(n.scope, at);
    if (auto it = home.memo.find(i); it != home.memo.end()) return it->second;
    Tile t = make(n, at);
    return home.memo[i] = std::move(t);
  }

  Tile unary(const Tile &a, const std::function<void(double, double, double &, double &)> &f) {
    Tile r{std::vector<double>(size()), std::vector<double>(size())};
    for (size_t k = 0; k < size(); ++k) f(a.v[k], a.mag[k], r.v[k], r.mag[k]);
    return r;
  }
  Tile binary(const Tile &a, const Tile &b,
              const std::function<void(double, double, double, double, double &, double &)> &f) {
    Tile r{std::vector<double>(size()), std::vector<double>(size())};
    for (size_t k = 0; k < size(); ++k) f(a.v[k], a.mag[k], b.v[k], b.mag[k], r.v[k], r.mag[k]);
    return r;
  }
  /// f(plane, row, column) for every element.
  Tile fill(const std::function<double(int, int, int)> &f) {
    Tile r{std::vector<double>(size()), std::vector<double>(size())};
    for (int q = 0; q < g.p; ++q)
      for (int i = 0; i < g.m; ++i)
        for (int j = 0; j < g.n; ++j) {
          size_t k = (size_t(q) * g.m + i) * g.n + j;
          r.v[k] = f(q, i, j);
          r.mag[k] = std::fabs(r.v[k]);
        }
    return r;
  }

  /// Applies `f` to the elements of each line of a tile along `axis` of the program's
  /// rank; f gets the element positions and fills one value/magnitude for all of them.
  Tile perTileLine(int axis, const std::function<void(const std::vector<size_t> &, double &, double &)> &f) {
    const int along = axis + (3 - p.rank); // the axis among (plane, row, column)
    const int extent[3] = {g.p, g.m, g.n}, block[3] = {g.bp, g.bm, g.bn};
    const size_t stride[3] = {size_t(g.m) * g.n, size_t(g.n), 1};
    Tile r{std::vector<double>(size()), std::vector<double>(size())};
    std::vector<size_t> line;
    int at[3];
    for (at[0] = 0; at[0] < g.p; ++at[0])
      for (at[1] = 0; at[1] < g.m; ++at[1])
        for (at[2] = 0; at[2] < g.n; ++at[2]) {
          if (at[along] % block[along]) continue; // one line per tile start
          size_t base = at[0] * stride[0] + at[1] * stride[1] + at[2] * stride[2];
          line.clear();
          for (int k = 0; k < block[along] && at[along] + k < extent[along]; ++k)
            line.push_back(base + k * stride[along]);
          double v, m;
          f(line, v, m);
          for (size_t k : line) r.v[k] = v, r.mag[k] = m;
        }
    return r;
  }

  Tile make(const Node &n, const RefScope &at) {
    auto A = [&]() -> const Tile & { return eval(n.a, at); };
    auto B = [&]() -> const Tile & { return eval(n.b, at); };
    switch (n.op) {
    case Op::Input: return fill([&](int q, int i, int j) { return inputs[n.input][(size_t(q) * g.m + i) * g.n + j]; });
    case Op::Row: return fill([&](int, int, int j) { return inputs[3][j]; });
    case Op::Col: return fill([&](int, int i, int) { return inputs[4][i]; });
    case Op::Scalar: return fill([&](int, int, int) { return s; });
    case Op::Const: return fill([&](int, int, int) { return n.value; });
    case Op::Iter: return fill([&](int, int, int) { return owner(n.loop, at).iter; });
    case Op::Carried: return owner(n.loop, at).carried;
    case Op::Neg: return unary(A(), [](double x, double m, double &v, double &r) { v = -x, r = m; });
    case Op::Abs: return unary(A(), [](double x, double m, double &v, double &r) { v = std::fabs(x), r = m; });
    case Op::Exp:
      return unary(A(),
                   [](double x, double m, double &v, double &r) { v = std::exp(std::min(x, 4.0)), r = v * (1 + m); });
    case Op::FastExp2: // both executors flush below 2^-126: an error far under any bound here
      return unary(A(),
                   [](double x, double m, double &v, double &r) { v = std::exp2(std::min(x, 4.0)), r = v * (1 + m); });
    case Op::Half: return unary(A(), [](double x, double m, double &v, double &r) { v = x * 0.5, r = m * 0.5; });
    case Op::Math: {
      const RandomMathFn &f = kRandomMathFns[n.fn];
      return binary(A(), f.binary ? B() : A(), [&](double x, double a, double y, double b, double &v, double &r) {
        f.reference(x, a, y, b, v, r);
      });
    }
    case Op::Add:
      return binary(A(), B(),
                    [](double x, double a, double y, double b, double &v, double &r) { v = x + y, r = a + b; });
    case Op::Sub:
      return binary(A(), B(),
                    [](double x, double a, double y, double b, double &v, double &r) { v = x - y, r = a + b; });
    case Op::Mul:
      return binary(A(), B(), [](double x, double a, double y, double b, double &v, double &r) {
        v = std::clamp(x * y, -double(kMulClamp), double(kMulClamp));
        r = std::min(a * b, 4.0 * kMulClamp) + std::fabs(v);
      });
    case Op::Div:
      return binary(A(), B(), [](double x, double a, double y, double b, double &v, double &r) {
        double d = std::fabs(y) + 1;
        v = x / d;
        r = (a + std::fabs(v) * (b + d)) / d;
      });
    case Op::Max:
      return binary(A(), B(), [](double x, double a, double y, double b, double &v, double &r) {
        v = std::max(x, y), r = std::max(a, b);
      });
    case Op::Min:
      return binary(A(), B(), [](double x, double a, double y, double b, double &v, double &r) {
        v = std::min(x, y), r = std::max(a, b);
      });
    case Op::Fma: {
      const Tile &x = A(), &y = B(), &z = eval(n.c, at);
      Tile t{std::vector<double>(size()), std::vector<double>(size())};
      for (size_t k = 0; k < size(); ++k) {
        t.v[k] = std::clamp(x.v[k] * y.v[k] + z.v[k], -double(kMulClamp), double(kMulClamp));
        t.mag[k] = std::min(x.mag[k] * y.mag[k], 4.0 * kMulClamp) + z.mag[k] + std::fabs(t.v[k]);
      }
      return t;
    }
    case Op::Where: {
      const Tile &l = A(), &rr = B(), &x = eval(n.c, at), &y = eval(n.d, at);
      Tile t{std::vector<double>(size()), std::vector<double>(size())};
      for (size_t k = 0; k < size(); ++k) {
        bool c = l.v[k] < rr.v[k];
        t.v[k] = c ? x.v[k] : y.v[k];
        t.mag[k] = c ? x.mag[k] : y.mag[k];
      }
      return t;
    }
    case Op::Reduce: {
      const Tile &x = A();
      return perTileLine(n.axis, [&](const std::vector<size_t> &line, double &v, double &m) {
        v = n.red == Red::Sum ? 0 : x.v[line[0]];
        m = 0;
        for (size_t k : line) {
          if (n.red == Red::Sum) v += x.v[k], m += x.mag[k];
          else v = n.red == Red::Max ? std::max(v, x.v[k]) : std::min(v, x.v[k]), m = std::max(m, x.mag[k]);
        }
      });
    }
    case Op::ArgMax: {
      const Tile &x = A();
      return perTileLine(n.axis, [&](const std::vector<size_t> &line, double &v, double &m) {
        size_t best = 0;
        for (size_t k = 1; k < line.size(); ++k)
          if (x.v[line[k]] > x.v[line[best]]) best = k;
        v = double(best), m = v;
      });
    }
    case Op::Loop: {
      Tile acc = A();
      for (int k = 0; k < trips; ++k) {
        RefScope inner;
        inner.parent = &at;
        inner.loop = n.loop;
        inner.carried = acc;
        inner.iter = k;
        acc = eval(n.b, inner);
      }
      return acc;
    }
    case Op::Dot: {
      // Within each tile row: out[i][j] = sum over the tile's valid columns k of a[i][k] * W.
      const Tile &x = A();
      Tile t{std::vector<double>(size()), std::vector<double>(size())};
      for (int q = 0; q < g.p; ++q)
        for (int i = 0; i < g.m; ++i)
          for (int j = 0; j < g.n; ++j) {
            const int j0 = j - j % g.bn;
            double v = 0, mag = 0;
            for (int k = j0; k < std::min(g.n, j0 + g.bn); ++k) {
              size_t at = (size_t(q) * g.m + i) * g.n + k;
              double a = roundedDotInput(x.v[at], n.dotInput);
              double w = k == j ? 1.0 : 0.25;
              v += a * w;
              mag += (x.mag[at] + std::fabs(a)) * w; // f16 rounding is relative to |a|
            }
            size_t out = (size_t(q) * g.m + i) * g.n + j;
            t.v[out] = v;
            // An input one f32 rounding away from a tie may round the other way: one ulp
            // of the input type relative to |a|, against the 2^-24 scale of the bound.
            t.mag[out] = mag * inputUlpScale(n.dotInput);
          }
      return t;
    }
    case Op::Transpose: {
      // Tile-local: out[li][lj] = in_flat[lj * BM + li] of the [BM, BN] tile (per plane).
      const Tile &x = A();
      Tile t{std::vector<double>(size()), std::vector<double>(size())};
      for (int q = 0; q < g.p; ++q)
        for (int i = 0; i < g.m; ++i)
          for (int j = 0; j < g.n; ++j) {
            const int li = i % g.bm, lj = j % g.bn, f = lj * g.bm + li;
            const int si = i - li + f / g.bn, sj = j - lj + f % g.bn;
            size_t out = (size_t(q) * g.m + i) * g.n + j;
            if (si < g.m && sj < g.n) {
              size_t at = (size_t(q) * g.m + si) * g.n + sj;
              t.v[out] = x.v[at];
              t.mag[out] = x.mag[at];
            }
          }
      return t;
    }
    case Op::Attention: {
      Tile t;
      referenceAttention(n.attention, g.m, g.n, g.bn, inputs, A().v, A().mag, kTolerance, t.v, t.mag);
      return t;
    }
    case Op::If: {
      if (flag) return unary(A(), [](double x, double m, double &v, double &r) { v = x * 2, r = m * 2; });
      return unary(B(), [](double x, double m, double &v, double &r) { v = x - 1, r = m + 1; });
    }
    }
    return {};
  }
};

} // namespace

bool RandomCase::outZeroed() const { return program->descriptorAdd; }

std::string RandomCase::describe() const {
  std::ostringstream os;
  os << "rank " << program->rank << ": p=" << p << " m=" << m << " n=" << n << " BP=" << bp << " BM=" << bm
     << " BN=" << bn << " trips=" << trips << " flag=" << flag << " s=" << scalar << "\n";
  for (size_t i = 0; i < program->nodes.size(); ++i) {
    const Node &nd = program->nodes[i];
    os << "  %" << i << " = " << opName(nd.op);
    if (nd.op == Op::Input) os << nd.input << " (other " << nd.value << ")";
    if (nd.op == Op::Input && nd.lanesAlong >= 0) os << " lanes along " << nd.lanesAlong;
    if (nd.via == Via::Desc) os << (nd.op == Op::Input ? " through its descriptor" : " through a rank-1 descriptor");
    if (nd.via == Via::Desc4) os << " through a rank-4 descriptor";
    if (nd.via == Via::DescF16) os << " through its f16 copy's descriptor";
    if (nd.op == Op::Const) os << " " << nd.value;
    if (nd.op == Op::Reduce)
      os << (nd.red == Red::Sum ? " sum" : nd.red == Red::Max ? " max" : " min") << " axis " << nd.axis;
    if (nd.op == Op::ArgMax) os << " axis " << nd.axis;
    if (nd.op == Op::Math) os << " " << kRandomMathFns[nd.fn].name;
    if (nd.op == Op::Attention) os << " " << describeAttention(nd.attention);
    if (nd.op == Op::Dot) {
      static const char *names[] = {" f32", " tf32", " f16", " bf16"};
      os << names[static_cast<int>(nd.dotInput)] << (nd.transposedA ? " (a as trans(aT))" : "");
    }
    for (int c : {nd.a, nd.b, nd.c, nd.d})
      if (c >= 0) os << " %" << c;
    if (nd.loop >= 0) os << " [loop " << nd.loop << "]";
    if (nd.scope >= 0) os << " (in loop " << nd.scope << ")";
    os << "\n";
  }
  os << "  out = %" << program->output;
  if (program->split != Split::None)
    os << " where column " << splitName(program->split) << " " << program->splitAt << ", else -%" << program->output
       << " (two masked stores)";
  if (program->descriptorAdd) os << " (added through out's descriptor to zeros)";
  else if (program->descriptorStore) os << " (stored through out's descriptor)";
  os << "\n";
  return os.str();
}

void RandomCase::launch(const LaunchOptions &opts, const void *in0, const void *in1, const void *in2, const void *rowv,
                        const void *colv, void *out, void *out2, const void *in2Half) const {
  auto at = [&](Desc which) {
    const void *bases[] = {in0, nullptr, nullptr, rowv, colv, out, nullptr, in2Half};
    return descriptor(which, bases[descriptorBase(which)]);
  };
  static_cast<const RandomKernel &>(*kernel).launch(
      grid, opts, in0, in1, in2, rowv, colv, out, out2, in2Half, m, n, p, trips, flag, scalar, at(Desc::In0R2),
      at(Desc::In0R3), at(Desc::OutR2), at(Desc::OutR3), at(Desc::Row), at(Desc::Col), at(Desc::In0R4),
      at(Desc::In2HalfR2), at(Desc::In2HalfR3), bm, bn, bp);
}

int RandomCase::descriptorBase(Desc which) {
  switch (which) {
  case Desc::In0R2:
  case Desc::In0R3:
  case Desc::In0R4: return 0;
  case Desc::Row: return 3;
  case Desc::Col: return 4;
  case Desc::OutR2:
  case Desc::OutR3: return 5;
  case Desc::In2HalfR2:
  case Desc::In2HalfR3: return 7;
  }
  return 0;
}

TensorDescArg RandomCase::descriptor(Desc which, const void *base) const {
  const Program &prog = *program;
  const int64_t all[3] = {p, m, n}, allStrides[3] = {int64_t(m) * n, n, 1};
  // Shape and strides (elements) when the program reads or writes through it, else a valid
  // one-element descriptor (16-byte rows), so that every launch passes the checks.
  std::vector<int64_t> shape, strides;
  auto tail = [&](int rank) {
    shape.assign(all + 3 - rank, all + 3);
    strides.assign(allStrides + 3 - rank, allStrides + 3);
  };
  int rank = 0, elemBytes = 4;
  bool used = false;
  switch (which) {
  case Desc::In0R2:
  case Desc::In0R3:
    rank = which == Desc::In0R2 ? 2 : 3;
    used = prog.reads(Op::Input, Via::Desc, 0) && rank == prog.rank;
    if (used) tail(rank);
    break;
  case Desc::OutR2:
  case Desc::OutR3:
    rank = which == Desc::OutR2 ? 2 : 3;
    used = prog.descriptorStore && rank == prog.rank;
    if (used) tail(rank);
    break;
  case Desc::Row:
  case Desc::Col:
    rank = 1;
    used = prog.reads(which == Desc::Row ? Op::Row : Op::Col, Via::Desc);
    if (used) shape = {which == Desc::Row ? n : m}, strides = {1};
    break;
  case Desc::In0R4:
    rank = 4;
    used = prog.reads(Op::Input, Via::Desc4, 0);
    if (used) shape = {1, p, m, n}, strides = {int64_t(p) * m * n, int64_t(m) * n, n, 1};
    break;
  case Desc::In2HalfR2:
  case Desc::In2HalfR3:
    rank = which == Desc::In2HalfR2 ? 2 : 3;
    elemBytes = 2;
    used = prog.reads(Op::Input, Via::DescF16, 2) && rank == prog.rank;
    if (used) tail(rank);
    break;
  }
  if (!used) {
    shape.assign(size_t(rank), 1);
    strides.assign(size_t(rank), 16 / elemBytes);
    strides.back() = 1;
  }
  TensorDescArg d;
  d.base = reinterpret_cast<uint64_t>(base);
  d.rank = rank;
  for (int i = 0; i < rank; ++i) d.shape[i] = shape[size_t(i)], d.strides[i] = strides[size_t(i)];
  return d;
}

Specialization RandomCase::specialization(int numWarps, bool alignedPointers) const {
  const void *a = reinterpret_cast<const void *>(uintptr_t(alignedPointers ? 256 : 260));
  const void *aligned = reinterpret_cast<const void *>(uintptr_t(256)); // descriptors are always aligned
  auto at = [&](Desc which) { return descriptor(which, aligned); };
  return static_cast<const RandomKernel &>(*kernel).specialize(
      numWarps, a, a, a, a, a, a, a, a, m, n, this->p, trips, flag, scalar, at(Desc::In0R2), at(Desc::In0R3),
      at(Desc::OutR2), at(Desc::OutR3), at(Desc::Row), at(Desc::Col), at(Desc::In0R4), at(Desc::In2HalfR2),
      at(Desc::In2HalfR3), bm, bn, bp);
}

RandomCase makeRandomCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomCase c;
  c.seed = seed;
  // Tiles of at most 1024 elements; problems from 1 x 1 to a few tiles, ragged. A
  // quarter of the programs are rank 3: [BP, BM, BN] tiles of p x m x n.
  const int rank = pick(0, 3) == 0 ? 3 : 2;
  c.bm = 1 << pick(0, 5);
  c.bn = 1 << pick(0, 6);
  c.bp = rank == 3 ? 1 << pick(0, 4) : 1;
  while (c.bp * c.bm * c.bn > 1024) {
    int &largest = c.bm >= c.bn && c.bm >= c.bp ? c.bm : c.bn >= c.bp ? c.bn : c.bp;
    largest /= 2;
  }
  c.m = pick(1, 2 * c.bm + 3);
  c.n = pick(1, 2 * c.bn + 3);
  c.p = rank == 3 ? pick(1, 2 * c.bp + 1) : 1;
  c.trips = pick(0, 4);
  c.flag = pick(0, 1);
  c.scalar = std::round(std::uniform_real_distribution<float>(-2, 2)(rng) * 8) / 8;
  c.grid = Grid((c.m + c.bm - 1) / c.bm, (c.n + c.bn - 1) / c.bn, (c.p + c.bp - 1) / c.bp);

  auto program = std::make_shared<Program>(Generator(rng, rank).run());
  // Three in four programs with an attention block get a tile its tensor-core paths take on
  // sm_90a with 4 warps: 64 rows (one warpgroup's slab) and a head dimension of 16 to 64.
  // Up to 100 rows (keys: several key blocks) and 1.5 tiles of columns: ragged edges, while
  // the diff bundle's inputs stay small.
  if (program->has(Op::Attention) && pick(0, 3)) {
    c.bm = 64;
    c.bn = 16 << pick(0, 2);
    c.m = pick(1, 100);
    c.n = pick(1, c.bn + c.bn / 2);
    c.grid = Grid((c.m + c.bm - 1) / c.bm, (c.n + c.bn - 1) / c.bn, 1);
  }
  // Half the programs split their store at a column: at 0, at a multiple of 4, 8 or 16 (the
  // divisibility a vectorised store would trust), or anywhere in the columns.
  if (pick(0, 1)) {
    program->split = static_cast<Split>(pick(1, 6));
    const int unit = 1 << pick(2, 4);
    const int choice = pick(0, 2);
    program->splitAt = choice == 0 ? 0 : choice == 1 ? unit * pick(0, (c.n + unit - 1) / unit) : pick(0, c.n);
  }
  c.program = program;
  // A descriptor needs rows of a multiple of 16 bytes: n a multiple of 4 (8 for f16). Half the
  // unsplit programs that read through such descriptors store through out's.
  if (const int multiple = program->rowMultiple(); multiple > 1) {
    c.n = (c.n + multiple - 1) / multiple * multiple;
    program->descriptorStore = program->split == Split::None && pick(0, 1);
    // A third of those add their block atomically (on sm_90a mostly a TMA reduce-add).
    program->descriptorAdd = program->descriptorStore && pick(0, 2) == 0;
    // Most rank-2 ones store through TMA on sm_90a (tile-tma-stores): extents of multiples of 16
    // elements (the descriptor's divisibility) and a tile of whole 8-row atoms of 32-byte rows.
    if (program->descriptorStore && rank == 2 && pick(0, 3)) {
      c.m = (c.m + 15) / 16 * 16;
      c.n = (c.n + 15) / 16 * 16;
      c.bm = std::max(c.bm, 8);
      c.bn = std::max(c.bn, 8);
    }
    c.grid = Grid((c.m + c.bm - 1) / c.bm, (c.n + c.bn - 1) / c.bn, (c.p + c.bp - 1) / c.bp);
  }

  // Inputs: in0 continuous, in1 and in2 on a coarse grid (ties for argmax and where).
  std::uniform_real_distribution<float> uni(-2, 2);
  auto vec = [&](size_t k, bool coarse) {
    std::vector<float> v(k);
    for (float &x : v) x = coarse ? std::round(uni(rng) * 4) / 4 : uni(rng);
    return v;
  };
  size_t mn = size_t(c.p) * c.m * c.n;
  c.inputs = {vec(mn, false), vec(mn, true), vec(mn, true), vec(size_t(c.n), false), vec(size_t(c.m), true)};
  for (float x : c.inputs[2]) c.in2Half.push_back(halfBits(x)); // exact: quarters in [-2, 2]

  Reference ref{*program, Geometry{c.p, c.m, c.n, c.bp, c.bm, c.bn}, c.inputs, c.scalar, c.trips, c.flag};
  RefScope top;
  const Tile &out = ref.eval(program->output, top);
  c.expected = out.v;
  c.magnitude = out.mag;
  if (program->split != Split::None)
    for (size_t k = 0; k < c.expected.size(); ++k)
      if (!splitCompare(program->split, int(k % c.n), program->splitAt)) c.expected[k] = -c.expected[k];
  c.expectedRows.assign(size_t(c.p) * c.m, 0.0);
  c.magnitudeRows.assign(size_t(c.p) * c.m, 0.0);
  for (size_t row = 0; row < size_t(c.p) * c.m; ++row)
    for (int j = 0; j < std::min(c.n, c.bn); ++j) {
      c.expectedRows[row] += out.v[row * c.n + j];
      c.magnitudeRows[row] += out.mag[row * c.n + j];
    }

  c.kernel = std::make_shared<RandomKernel>("random_" + std::to_string(seed), makeBody(program),
                                            std::source_location::current());
  return c;
}

} // namespace tile::randomkernels
