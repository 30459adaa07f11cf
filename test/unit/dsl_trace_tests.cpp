// Tracing the DSL into tile IR: the three example kernels, broadcasting, type promotion,
// specialisation and source locations.
#include "tile/tile.h"

#include "../kernels/TestKernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

using namespace tile;

namespace {

/// Counts occurrences of `needle` in `hay`.
int count(const std::string &hay, const std::string &needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

/// Number of tile.reduce ops of `kind` (the printer's spacing is not pinned).
int countReduce(const std::string &ir, const std::string &kind) {
  int n = 0;
  for (size_t p = ir.find("tile.reduce"); p != std::string::npos; p = ir.find("tile.reduce", p + 1)) {
    size_t k = ir.find_first_not_of(' ', p + 11);
    n += k != std::string::npos && ir.compare(k, kind.size() + 1, kind + " ") == 0;
  }
  return n;
}
bool hasReduce(const std::string &ir, const std::string &kind) { return countReduce(ir, kind) > 0; }

/// trace() with the user's locations printed (TILE_TRACE_DEBUGINFO=1).
template <class K> std::string traceWithLocs(const K &k, const Specialization &spec) {
  setenv("TILE_TRACE_DEBUGINFO", "1", 1);
  std::string ir;
  try {
    ir = k.trace(spec);
  } catch (...) {
    unsetenv("TILE_TRACE_DEBUGINFO");
    throw;
  }
  unsetenv("TILE_TRACE_DEBUGINFO");
  return ir;
}

/// `loc("<this file>":LINE` as printed with debug info.
std::string locOf(int line) { return "dsl_trace_tests.cpp\":" + std::to_string(line) + ":"; }

constexpr tile::DeviceAddress kAligned{0x10000}; // a 16-byte aligned "device address" (never dereferenced)

} // namespace

//===----------------------------------------------------------------------===//
// Vector add
//===----------------------------------------------------------------------===//
static int gAddLoadLine = 0, gAddStoreLine = 0;

TEST(DslTrace, VectorAdd) {
  auto add = tile::kernel("add", [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n, Const<int> BLOCK) {
    auto offs = program_id(0) * BLOCK + arange(0, BLOCK);
    auto mask = offs < n;
    gAddLoadLine = __LINE__ + 1; // the statement below
    auto sum = load(x + offs, mask) + load(y + offs, mask);
    gAddStoreLine = __LINE__ + 1; // the statement below
    store(z + offs, sum, mask);
  });
  Specialization spec = add.specialize(4, kAligned, kAligned, kAligned, 1000, 1024);
  std::string ir = add.trace(spec);
  EXPECT_NE(ir.find("func.func @add("), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.kernel"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.num_warps = 4 : i32"), std::string::npos) << ir;
  EXPECT_NE(ir.find("!tile.ptr<f32>"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "tile.program_id"), 1) << ir;
  EXPECT_NE(ir.find("tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "tile.addptr"), 3) << ir;
  EXPECT_EQ(count(ir, "tile.load"), 2) << ir;
  EXPECT_EQ(count(ir, "tile.store"), 1) << ir;
  EXPECT_NE(ir.find("arith.cmpi slt"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.addf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.splat"), std::string::npos) << ir; // program_id * BLOCK and n are scalars
  // trace() prints without locations; the locations are in the IR nonetheless.
  EXPECT_EQ(ir.find("loc("), std::string::npos) << ir;
  std::string withLocs = traceWithLocs(add, spec);
  EXPECT_NE(withLocs.find(locOf(gAddLoadLine)), std::string::npos) << withLocs;
  EXPECT_NE(withLocs.find(locOf(gAddStoreLine)), std::string::npos) << withLocs;
}

//===----------------------------------------------------------------------===//
// Fused softmax (Triton tutorial 02): one row per program
//===----------------------------------------------------------------------===//
static int gSoftmaxExpLine = 0, gSoftmaxMaxLine = 0;

TEST(DslTrace, Softmax) {
  auto softmax = tile::kernel(
      "softmax", [](Ptr<float> out, Ptr<float> in, I32 inStride, I32 outStride, I32 nCols, Const<int> BLOCK) {
        auto rowId = program_id(0);
        auto cols = arange(0, BLOCK);
        auto mask = cols < nCols;
        auto x = load(in + rowId * inStride + cols, mask, -INFINITY);
        gSoftmaxMaxLine = __LINE__ + 1; // the statement below
        auto z = x - tile::max(x, 0);
        gSoftmaxExpLine = __LINE__ + 1; // the statement below
        auto num = tile::exp(z);
        auto den = tile::sum(num, 0);
        store(out + rowId * outStride + cols, num / den, mask);
      });
  int nCols = 781;
  Specialization spec = softmax.specialize(4, kAligned, kAligned, 784, 784, nCols, (int)next_power_of_2(nCols));
  std::string ir = softmax.trace(spec);
  EXPECT_NE(ir.find("tensor<1024xi32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("0xFF800000"), std::string::npos) << ir; // other = -inf, as an f32 constant
  EXPECT_TRUE(hasReduce(ir, "max")) << ir;
  EXPECT_TRUE(hasReduce(ir, "sum")) << ir;
  EXPECT_NE(ir.find("-> f32"), std::string::npos) << ir; // 1-D reductions give scalars
  EXPECT_NE(ir.find("math.exp"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.subf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.divf"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "tile.store"), 1) << ir;
  std::string withLocs = traceWithLocs(softmax, spec);
  EXPECT_NE(withLocs.find(locOf(gSoftmaxExpLine)), std::string::npos) << withLocs;
  EXPECT_NE(withLocs.find(locOf(gSoftmaxMaxLine)), std::string::npos) << withLocs;
}

//===----------------------------------------------------------------------===//
// LayerNorm forward (Triton tutorial 05): loops over the row in BLOCK chunks
//===----------------------------------------------------------------------===//
static int gLnLoopLine = 0, gLnRstdLine = 0;

TEST(DslTrace, LayerNorm) {
  auto ln = tile::kernel("layernorm_fwd", [](Ptr<float> X, Ptr<float> Y, Ptr<float> W, Ptr<float> B, Ptr<float> Mean,
                                             Ptr<float> Rstd, I32 stride, I32 N, F32 eps, Const<int> BLOCK) {
    auto rowId = program_id(0);
    Value x0 = X + rowId * stride;
    Value y0 = Y + rowId * stride;
    gLnLoopLine = __LINE__ + 1; // the statement below
    auto meanAcc = for_range(0, N, BLOCK, {zeros({BLOCK}, DType::f32)}, [&](Value off, std::vector<Value> acc) {
      auto cols = off + arange(0, BLOCK);
      auto a = cast(load(x0 + cols, cols < N, 0.0), DType::f32);
      return std::vector<Value>{acc[0] + a};
    })[0];
    auto mean = tile::sum(meanAcc, 0) / N;
    auto varAcc = for_range(0, N, BLOCK, {zeros({BLOCK}, DType::f32)}, [&](Value off, std::vector<Value> acc) {
      auto cols = off + arange(0, BLOCK);
      auto x = cast(load(x0 + cols, cols < N, 0.0), DType::f32);
      x = where(cols < N, x - mean, 0.0);
      return std::vector<Value>{acc[0] + x * x};
    })[0];
    auto var = tile::sum(varAcc, 0) / N;
    gLnRstdLine = __LINE__ + 1; // the statement below
    auto rstd = 1 / tile::sqrt(var + eps);
    store(Mean + rowId, mean);
    store(Rstd + rowId, rstd);
    for_range(0, N, BLOCK, [&](Value off) {
      auto cols = off + arange(0, BLOCK);
      auto mask = cols < N;
      auto w = load(W + cols, mask);
      auto b = load(B + cols, mask);
      auto x = cast(load(x0 + cols, mask, 0.0), DType::f32);
      auto xhat = (x - mean) * rstd;
      store(y0 + cols, xhat * w + b, mask);
    });
  });
  Specialization spec =
      ln.specialize(4, kAligned, kAligned, kAligned, kAligned, kAligned, kAligned, 4096, 4096, 1e-5f, 1024);
  std::string ir = ln.trace(spec);
  EXPECT_EQ(count(ir, "scf.for"), 3) << ir;
  EXPECT_NE(ir.find("iter_args("), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "scf.yield"), 2) << ir; // the loop without carried values prints none
  EXPECT_NE(ir.find("arith.select"), std::string::npos) << ir;
  EXPECT_NE(ir.find("math.sqrt"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.sitofp"), std::string::npos) << ir; // sum / N promotes N to f32
  EXPECT_EQ(countReduce(ir, "sum"), 2) << ir;
  EXPECT_EQ(count(ir, "tile.store"), 3) << ir;
  EXPECT_EQ(count(ir, "tile.load"), 5) << ir;
  std::string withLocs = traceWithLocs(ln, spec);
  EXPECT_NE(withLocs.find(locOf(gLnLoopLine)), std::string::npos) << withLocs;
  EXPECT_NE(withLocs.find(locOf(gLnRstdLine)), std::string::npos) << withLocs;
}

//===----------------------------------------------------------------------===//
// Semantics
//===----------------------------------------------------------------------===//
TEST(DslTrace, ScalarTensorSplatAndLiterals) {
  auto k = tile::kernel("splat", [](Ptr<float> p, I32 n, F32 s) {
    auto offs = arange(0, 128);
    Value a = offs + n; // i32 scalar value: tile.splat
    EXPECT_EQ(a.shape(), std::vector<int64_t>{128});
    EXPECT_EQ(a.dtype(), DType::i32);
    Value f = load(p + offs) * s; // f32 scalar value: tile.splat
    Value g = f + 1;              // int literal with a float tensor: a float constant
    EXPECT_EQ(g.dtype(), DType::f32);
    Value h = offs * 0.5; // float literal with an int tensor: f32
    EXPECT_EQ(h.dtype(), DType::f32);
    Value c = cast(offs, DType::f16) + f; // f16 with f32: f32
    EXPECT_EQ(c.dtype(), DType::f32);
    Value w = cast(offs, DType::i64) + offs; // i64 with i32: i64
    EXPECT_EQ(w.dtype(), DType::i64);
    Value m = offs < 3;
    EXPECT_EQ(m.dtype(), DType::i1);
    Value q = offs / 2 + offs % 3;
    store(p + offs, g + h + c + cast(w + q, DType::f32), m);
  });
  std::string ir = k.trace(k.specialize(4, kAligned, 5, 2.0f));
  EXPECT_GE(count(ir, "tile.splat"), 2) << ir;
  EXPECT_NE(ir.find("arith.constant dense<1.000000e+00> : tensor<128xf32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.extf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.extsi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.divsi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.remsi"), std::string::npos) << ir;
}

TEST(DslTrace, Broadcast2D) {
  auto k = tile::kernel("bcast", [](Ptr<float> p, I32 stride) {
    auto r = col(arange(0, 64));  // [64, 1]
    auto c = row(arange(0, 128)); // [1, 128]
    Value offs = r * stride + c;
    EXPECT_EQ(offs.shape(), (std::vector<int64_t>{64, 128}));
    Value x = load(p + offs);
    EXPECT_EQ(tile::sum(x, 1).shape(), std::vector<int64_t>{64});
    store(p + offs, x * 2);
  });
  std::string ir = k.trace(k.specialize(4, kAligned, 128));
  EXPECT_NE(ir.find("tile.expand_dims"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.broadcast"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tensor<64x128xi32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tensor<64x128x!tile.ptr<f32>>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tensor<64x128xf32> -> tensor<64xf32>"), std::string::npos) << ir;
}

TEST(DslTrace, SpecialisationChangesIR) {
  auto k = tile::kernel("spec", [](Ptr<float> p, I32 n, Const<int> BLOCK) {
    auto offs = arange(0, BLOCK);
    store(p + offs, load(p + offs, offs < n), offs < n);
  });
  std::string aligned = k.trace(k.specialize(4, kAligned, 64, 128));
  std::string unaligned = k.trace(k.specialize(4, tile::DeviceAddress(kAligned.ptr() + 4), 63, 128));
  std::string bigger = k.trace(k.specialize(8, kAligned, 64, 256));
  EXPECT_EQ(count(aligned, "tile.divisibility = 16 : i32"), 2) << aligned; // pointer and n
  EXPECT_EQ(count(unaligned, "tile.divisibility"), 0) << unaligned;
  EXPECT_NE(aligned.find("tensor<128xf32>"), std::string::npos) << aligned;
  EXPECT_NE(bigger.find("tensor<256xf32>"), std::string::npos) << bigger;
  EXPECT_NE(bigger.find("tile.num_warps = 8 : i32"), std::string::npos) << bigger;
  // Const parameters are baked in, not function arguments.
  EXPECT_NE(aligned.find("@spec(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32 {"), std::string::npos)
      << aligned;
}

// An integer equal to 1 is specialised as the constant 1 (Triton's equal-to-1 facts):
// a unit stride makes the access contiguous, so the coalesce pass can vectorise it.
TEST(DslTrace, UnitIntegerIsTracedAsConstant) {
  auto k = tile::kernel("unit", [](Ptr<float> p, I32 stride, Const<int> BLOCK) {
    Value offs = arange(0, BLOCK) * stride;
    store(p + offs, load(p + offs) + 1.0f);
  });
  Specialization unit = k.specialize(4, kAligned, 1, 512), other = k.specialize(4, kAligned, 2, 512);
  EXPECT_TRUE(unit.args[1].one);
  EXPECT_FALSE(other.args[1].one);
  EXPECT_EQ(unit.str(), "w4,p16,i=1,c512");
  Specialization parsed;
  ASSERT_TRUE(parseSpecialization(unit.str(), parsed));
  EXPECT_EQ(parsed, unit);
  EXPECT_FALSE(parseSpecialization("w4,p=1,i,c128", parsed)) << "pointers carry no unit fact";
  // Code for a unit stride is only correct for a unit stride.
  EXPECT_TRUE(isSafeFor(other, unit));
  EXPECT_FALSE(isSafeFor(unit, other));
  std::string ir = k.trace(unit);
  EXPECT_NE(ir.find("arith.constant 1 : i32"), std::string::npos) << ir;
  // After the tile passes the unit-stride access is 16 bytes wide, the general one scalar.
  CompileRequest req;
  req.useDiskCache = false;
  req.keepStages = true;
  std::string fast = k.compile(unit, req).optimizedIR, slow = k.compile(other, req).optimizedIR;
  EXPECT_NE(fast.find("tile.vec = 4"), std::string::npos) << fast;
  EXPECT_EQ(slow.find("tile.vec = 4"), std::string::npos) << slow;
}

TEST(DslTrace, IfThenElseAndArgReductions) {
  auto k = tile::kernel("branchy", [](Ptr<float> p, Ptr<int32_t> idx, I32 n) {
    auto offs = arange(0, 256);
    auto x = load(p + offs, offs < n, 0.0f);
    auto big = tile::max(x, 0) > 1.0f;
    auto r = if_then_else(
        big, [&] { return std::vector<Value>{x * 2.0f}; }, [&] { return std::vector<Value>{tile::abs(x)}; })[0];
    if_then(n > 0, [&] { store(idx, tile::argmax(r, 0)); });
    store(idx + 1, tile::argmin(r, 0));
    atomic_add(p + offs, r, offs < n);
    store(p + offs, tile::minimum(tile::maximum(r, 0.0f), 6.0f) + tile::exp2(x) + tile::log(x) + tile::rsqrt(x));
  });
  std::string ir = k.trace(k.specialize(4, kAligned, kAligned, 256));
  EXPECT_EQ(count(ir, "scf.if"), 2) << ir;
  EXPECT_NE(ir.find("-> (tensor<256xf32>)"), std::string::npos) << ir;
  EXPECT_TRUE(hasReduce(ir, "argmax")) << ir;
  EXPECT_TRUE(hasReduce(ir, "argmin")) << ir;
  EXPECT_NE(ir.find("tile.atomic_rmw"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.maximumf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("math.absf"), std::string::npos) << ir;
}

TEST(DslTrace, HalfPrecisionMathComputesInF32) {
  auto k = tile::kernel("half", [](Ptr<tile::f16> p) {
    auto offs = arange(0, 128);
    Value x = load(p + offs);
    Value y = tile::exp(x);
    EXPECT_EQ(y.dtype(), DType::f16);
    store(p + offs, y);
  });
  std::string ir = k.trace(k.specialize(4, kAligned));
  EXPECT_NE(ir.find("math.exp %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.extf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.truncf"), std::string::npos) << ir;
  EXPECT_NE(ir.find(": tensor<128xf32>"), std::string::npos) << ir;
}

TEST(DslTrace, RemainingOps) {
  auto k = tile::kernel("misc", [](Ptr<int32_t> p, Ptr<tile::bf16> h, I64 big) {
    auto offs = arange(0, 64);
    Value n = num_programs(1);
    Value bits = ((offs << 2) >> 1 | 3) ^ (offs & 7);
    Value notMask = !(offs < n);
    EXPECT_EQ(notMask.dtype(), DType::i1);
    Value neg = -offs + cast(notMask, DType::i32) + cast(cast(offs, DType::i1), DType::i32);
    Value wide = broadcast_to(expand_dims(neg, 0), {4, 64});
    EXPECT_EQ(wide.shape(), (std::vector<int64_t>{4, 64}));
    Value c = constant(2.5, DType::f32);
    EXPECT_FALSE(c.isTensor());
    Value hx = load(h + offs);
    Value hy = tile::log(hx) * c + cast(notMask, DType::f32); // bf16 log in f32; bf16 * f32 -> f32
    EXPECT_EQ(hy.dtype(), DType::f32);
    store(h + offs, hy);
    Value total = tile::sum(wide, 0) + bits + cast(big, DType::i32);
    store(p + offs, total);
    Value mn = tile::min(wide, 1);
    EXPECT_EQ(mn.shape(), std::vector<int64_t>{4});
    store(p + big, tile::min(mn, 0));
  });
  std::string ir = k.trace(k.specialize(2, kAligned, kAligned, int64_t(1) << 40));
  for (const char *op : {"tile.num_programs 1", "arith.shli", "arith.shrsi", "arith.ori", "arith.xori", "arith.andi",
                         "arith.uitofp", "arith.extui", "arith.trunci", "tile.broadcast", "math.log", "arith.truncf",
                         "tile.addptr %arg0, %arg2 : !tile.ptr<i32>, i64", "tile.num_warps = 2"})
    EXPECT_NE(ir.find(op), std::string::npos) << op << "\n" << ir;
  EXPECT_TRUE(hasReduce(ir, "min")) << ir;
}

TEST(DslTrace, HalfBfloat16AndBoolScalarParameters) {
  Specialization spec;
  ASSERT_TRUE(parseSpecialization("w4,p16,p16,h,b,t,i16,c256", spec));
  EXPECT_EQ(spec.str(), "w4,p16,p16,h,b,t,i16,c256");
  std::string ir = tile::testing::scalarArgsKernel().trace(spec);
  EXPECT_NE(ir.find("f16"), std::string::npos) << ir;
  EXPECT_NE(ir.find("bf16"), std::string::npos) << ir;
  EXPECT_NE(ir.find(": i1"), std::string::npos) << ir;
}
