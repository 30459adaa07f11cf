// Must-fail tests: a malformed kernel throws tile::ProgramError naming this file, the
// exact line of the offending call and the problem.
#include "dsl_error_expect.h"

#include <gtest/gtest.h>

#include <string>

using namespace tile;
using tile::test::traceError;

namespace {

constexpr tile::DeviceAddress kAligned{0x10000};

/// The message names this file at `line` as "<file>:<line>:<col>: error:" and says `word`.
void expectError(const std::string &msg, int line, const std::string &word) {
  tile::test::expectErrorIn("dsl_errors_tests.cpp", msg, line, word);
}

/// Same, reading the line only after the trace ran (argument evaluation order is unspecified).
void expectError(const std::string &msg, const int *line, const std::string &word) { expectError(msg, *line, word); }

} // namespace

// Kernel lambdas cannot capture, so the offending line is recorded in a global.
static int gLine = 0;

TEST(DslErrors, ShapeMismatchInBinaryOp) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto a = arange(0, 64), b = arange(0, 128);
    gLine = __LINE__ + 1; // the statement below
    auto c = a + b;
    store(p + c, load(p + c));
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "shape mismatch");
  EXPECT_NE(msg.find("[64] vs [128]"), std::string::npos) << msg;
}

TEST(DslErrors, RankMismatchIsShapeMismatch) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto a = col(arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    auto c = a * arange(0, 64);
    (void)c;
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "shape mismatch");
  EXPECT_NE(msg.find("[64, 1] vs [64]"), std::string::npos) << msg;
}

TEST(DslErrors, MaskOfWrongShape) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    auto offs = arange(0, 128);
    auto mask = arange(0, 64) < n;
    gLine = __LINE__ + 1; // the statement below
    auto x = load(p + offs, mask);
    (void)x;
  });
  std::string msg = traceError(k, k.specialize(4, kAligned, 16));
  expectError(msg, gLine, "mask shape [64]");
  EXPECT_NE(msg.find("pointer shape [128]"), std::string::npos) << msg;
}

TEST(DslErrors, MaskNotBoolean) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto offs = arange(0, 128);
    gLine = __LINE__ + 1; // the statement below
    store(p + offs, load(p + offs), offs);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "boolean");
}

TEST(DslErrors, StoreToNonPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto offs = arange(0, 128);
    auto x = load(p + offs);
    gLine = __LINE__ + 1; // the statement below
    store(x, x);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "non-pointer");
}

TEST(DslErrors, LoadOfNonPointer) {
  auto k = kernel("bad", [](I32 n) {
    gLine = __LINE__ + 1; // the statement below
    auto x = load(n + arange(0, 16));
    (void)x;
  });
  expectError(traceError(k, k.specialize(4, 7)), &gLine, "cannot load from a non-pointer");
}

// `load(d, {i}, {64})` picks load(ptr, mask, other) in C++; the error names the way out.
TEST(DslErrors, DescriptorThroughThePointerOverload) {
  auto k = kernel("bad", [](TensorDesc<float, 1> d, I32 i) {
    gLine = __LINE__ + 1; // the statement below
    auto x = load(d, {i}, {64});
    (void)x;
  });
  alignas(16) static float buf[64];
  std::string msg = traceError(k, k.specialize(4, TensorDescArg{buf, {64}, {1}}, 0));
  expectError(msg, gLine, "a tensor descriptor through the pointer overload");
  EXPECT_NE(msg.find("std::vector<Operand>"), std::string::npos) << msg;
}

TEST(DslErrors, FloatPointerOffset) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto offs = arange(0, 128);
    auto x = load(p + offs);
    gLine = __LINE__ + 1; // the statement below
    auto q = p + x;
    (void)q;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "offset must be an integer");
}

TEST(DslErrors, PointerOnTheRight) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    auto q = arange(0, 16) + p;
    (void)q;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "pointer on the left");
}

TEST(DslErrors, ArangeNotPowerOfTwo) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    auto offs = arange(0, 100);
    store(p + offs, load(p + offs));
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "power of two");
}

TEST(DslErrors, ArangeEmpty) {
  auto k = kernel("bad", [](Ptr<float> p, Const<int> BLOCK) {
    gLine = __LINE__ + 1; // the statement below
    auto offs = arange(BLOCK, BLOCK);
    (void)offs;
  });
  expectError(traceError(k, k.specialize(4, kAligned, 64)), &gLine, "must be greater than start");
}

TEST(DslErrors, ReductionAxisOutOfRange) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto x = load(p + arange(0, 128));
    gLine = __LINE__ + 1; // the statement below
    auto s = tile::sum(x, 1);
    store(p, s);
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "axis 1 out of range");
}

TEST(DslErrors, IfOnTensorCondition) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    auto offs = arange(0, 128);
    gLine = __LINE__ + 1; // the statement below
    if_then(offs < n, [&] { store(p + offs, load(p + offs)); });
  });
  expectError(traceError(k, k.specialize(4, kAligned, 5)), &gLine, "must be a scalar");
}

TEST(DslErrors, LoopBodyYieldsWrongType) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    gLine = __LINE__ + 1; // the statement below
    auto acc = for_range(0, n, 128, {zeros({128}, DType::f32)},
                         [&](Value i, std::vector<Value> c) { return std::vector<Value>{cast(c[0], DType::f16)}; });
    store(p + arange(0, 128), acc[0]);
  });
  std::string msg = traceError(k, k.specialize(4, kAligned, 1024));
  expectError(msg, gLine, "for_range body");
  EXPECT_NE(msg.find("f16[128]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32[128]"), std::string::npos) << msg;
}

TEST(DslErrors, LoopBodyYieldsWrongCount) {
  auto k = kernel("bad", [](I32 n) {
    gLine = __LINE__ + 1; // the statement below
    for_range(0, n, 1, {zeros({16}, DType::f32)}, [&](Value, std::vector<Value>) { return std::vector<Value>{}; });
  });
  expectError(traceError(k, k.specialize(4, 16)), &gLine, "returns 0 value(s), expected 1");
}

TEST(DslErrors, IfBranchesDisagree) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    auto x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    auto r = if_then_else(
        n > 0, [&] { return std::vector<Value>{x}; }, [&] { return std::vector<Value>{cast(x, DType::i32)}; });
    (void)r;
  });
  expectError(traceError(k, k.specialize(4, kAligned, 3)), &gLine, "else-branch");
}

TEST(DslErrors, FullWithTensorFillValue) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    auto y = full({64}, x, DType::f32);
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "must be a scalar");
}

TEST(DslErrors, ProgramIdAxisNotConstant012) {
  auto k = kernel("bad", [](Ptr<int32_t> p) {
    gLine = __LINE__ + 1; // the statement below
    auto pid = program_id(3);
    store(p, pid);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "0, 1 or 2");
}

TEST(DslErrors, AtomicAddOnNonPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    atomic_add(x, 1.0f);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "non-pointer");
}

TEST(DslErrors, ExpOnInteger) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto offs = arange(0, 64);
    gLine = __LINE__ + 1; // the statement below
    auto e = tile::exp(offs);
    store(p + offs, e);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "unsupported dtype");
}

TEST(DslErrors, BitwiseOnFloat) {
  auto k = kernel("bad", [](Ptr<float> p) {
    auto x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    auto y = x & 1;
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "integer operands");
}

TEST(DslErrors, ValueEscapingLoopBody) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    Value leaked;
    for_range(0, n, 64, [&](Value i) { leaked = load(p + i + arange(0, 64)); });
    gLine = __LINE__ + 1; // the statement below
    store(p + arange(0, 64), leaked);
  });
  expectError(traceError(k, k.specialize(4, kAligned, 128)), &gLine, "loop or branch body");
}

TEST(DslErrors, LiteralDoesNotFit) {
  auto k = kernel("bad", [](Ptr<int8_t> p) {
    auto x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    auto y = x + 1000;
    store(p + arange(0, 64), y);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "does not fit in i8");
}

TEST(DslErrors, OpOutsideKernel) {
  std::string msg;
  int line = 0;
  try {
    line = __LINE__ + 1; // the statement below
    (void)arange(0, 16);
  } catch (const ProgramError &e) { msg = e.what(); }
  expectError(msg, line, "tile::arange called outside a kernel");
}

// ---- dot, trans, reshape, constants ---------------------------------------------------

TEST(DslErrors, DotInnerDimensionsDiffer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 32}, DType::f16), b = zeros({16, 16}, DType::f16);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, b);
    store(p + col(arange(0, 16)) * 16 + row(arange(0, 16)), c);
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "inner dimensions differ");
  EXPECT_NE(msg.find("[16, 32]"), std::string::npos) << msg;
}

TEST(DslErrors, DotNeedsMatrices) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16}, DType::f32), b = zeros({16, 16}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, b);
    (void)c;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "must be 2-D");
}

TEST(DslErrors, DotMixedInputTypes) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 16}, DType::f16), b = zeros({16, 16}, DType::bf16);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, b);
    (void)c;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "one element type");
}

TEST(DslErrors, DotIntegerInputs) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 16}, DType::i32);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, a);
    (void)c;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "must be f16, bf16 or f32");
}

TEST(DslErrors, DotTF32NeedsF32) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 16}, DType::f16);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, a, zeros({16, 16}, DType::f32), Precision::TF32);
    (void)c;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "TF32 needs f32 inputs");
}

TEST(DslErrors, DotAccumulatorShapeAndType) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 32}, DType::f32), b = zeros({32, 8}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, b, zeros({16, 16}, DType::f32));
    (void)c;
    (void)p;
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "accumulator must be f32[16, 8]");
  auto k2 = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 16}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, a, zeros({16, 16}, DType::f16));
    (void)c;
    (void)p;
  });
  expectError(traceError(k2, k2.specialize(4, kAligned)), &gLine, "accumulator must be f32");
}

TEST(DslErrors, TransOrderNotAPermutation) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 32, 4}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value t = trans(a, {0, 0, 1});
    (void)t;
    (void)p;
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "is not a permutation");
  EXPECT_NE(msg.find("[0, 0, 1]"), std::string::npos) << msg;
}

TEST(DslErrors, TransOfAScalar) {
  auto k = kernel("bad", [](Ptr<float> p, F32 x) {
    gLine = __LINE__ + 1; // the statement below
    Value t = trans(x);
    (void)t;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned, 1.0f)), &gLine, "needs a tensor");
}

TEST(DslErrors, ReshapeChangesElementCount) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 32}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value r = reshape(a, {16, 16});
    (void)r;
    (void)p;
  });
  std::string msg = traceError(k, k.specialize(4, kAligned));
  expectError(msg, gLine, "has 512 elements");
}

TEST(DslErrors, ReshapeToANonPowerOfTwo) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 32}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value r = reshape(a, {3, 8});
    (void)r;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), &gLine, "positive power of two");
}

// Two compile-time constants multiply as numbers (not an ambiguous overload), so shapes
// can be computed from them.
TEST(DslConstants, CombineLikeNumbers) {
  auto k = kernel("consts", [](Ptr<float> p, Const<int> A, Const<int> B) {
    static_assert(std::is_same_v<decltype(A * B), int>);
    Value r = arange(0, A * B);
    store(p + r, cast(r, DType::f32), r < A + B);
    EXPECT_TRUE(A * B == 32 && A / B == 2 && A % B == 0 && A - B == 4 && A > B);
  });
  EXPECT_EQ(traceError(k, k.specialize(4, kAligned, 8, 4)), "");
}
