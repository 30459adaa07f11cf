// Must-fail tests, part 2: every op's checks on shapes, ranks, dtypes, masks and axes. Each
// pins the message and this file's line of the offending call (ProgramError at trace time).
#include "dsl_error_expect.h"

#include <gtest/gtest.h>

#include <string>

using namespace tile;
using tile::test::traceError;

namespace {

constexpr tile::DeviceAddress kAligned{0x10000};

// Kernel lambdas cannot capture, so the offending line is recorded in a global; the
// message is checked only after the trace ran.
int gLine = 0;

void expectError(const std::string &msg, const std::string &word) {
  tile::test::expectErrorIn("dsl_errors_ops_tests.cpp", msg, gLine, word);
}

} // namespace

// ---- where, cast, elementwise dtypes ----------------------------------------------------

TEST(DslOpErrors, WhereConditionNotBoolean) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    Value y = where(arange(0, 64), x, 0.0f);
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "where: the condition must be boolean (i1), got i32[64]");
}

TEST(DslOpErrors, WhereConditionIsANumber) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    Value y = where(1, x, 0.0f);
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "where: the condition must be a boolean tile value");
}

TEST(DslOpErrors, WhereBranchShapesDiffer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = load(p + arange(0, 64)), b = load(p + arange(0, 128));
    gLine = __LINE__ + 1; // the statement below
    Value y = where(arange(0, 64) < 3, a, b);
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "[64] vs [128]");
}

TEST(DslOpErrors, CastOfAPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = cast(p + arange(0, 64), DType::i64);
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "cast: cannot convert ptr<f32>[64] to i64");
}

TEST(DslOpErrors, SqrtOfIntegers) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = tile::sqrt(arange(0, 64));
    (void)y;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::sqrt needs a floating-point operand, got i32[64]");
}

TEST(DslOpErrors, NegatingAPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = -p;
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "operator- is not defined for pointers");
}

TEST(DslOpErrors, NotOfAFloat) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    Value y = !x;
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "operator! needs a boolean or integer operand, got f32[64]");
}

TEST(DslOpErrors, MultiplyingAPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = p * 2;
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "is not defined for pointers");
}

TEST(DslOpErrors, AddingTwoPointers) {
  auto k = kernel("bad", [](Ptr<float> p, Ptr<float> q) {
    gLine = __LINE__ + 1; // the statement below
    Value y = p + q;
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned, kAligned)),
              "operator+ is not defined for pointers (ptr<f32> and ptr<f32>)");
}

TEST(DslOpErrors, ShiftOfAFloat) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    Value y = x << 1;
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "needs integer operands, got f32[64]");
}

TEST(DslOpErrors, EmptyValueOperand) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value never;
    gLine = __LINE__ + 1; // the statement below
    Value y = never + 1;
    (void)y;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "operand is an empty tile::Value (never assigned)");
}

// ---- shapes: full, expand_dims, broadcast_to, program ids ---------------------------------

TEST(DslOpErrors, FullShapeNotPowerOfTwo) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = full({64, 3}, 1.0f, DType::f32);
    (void)y;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)),
              "every dimension must be a positive power of two, got shape [64, 3]");
}

TEST(DslOpErrors, FullWithAPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = full({64}, p, DType::f32);
    (void)y;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::full: cannot fill with a pointer");
}

TEST(DslOpErrors, ExpandDimsAxisOutOfRange) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = expand_dims(arange(0, 64), 2);
    (void)y;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::expand_dims: axis 2 out of range for a value of rank 1");
}

TEST(DslOpErrors, BroadcastToIncompatibleShape) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value y = broadcast_to(col(arange(0, 64)), {32, 16});
    (void)y;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "shape [64, 1] cannot be broadcast to [32, 16]");
}

TEST(DslOpErrors, NumProgramsAxisOutOfRange) {
  auto k = kernel("bad", [](Ptr<int32_t> p) {
    gLine = __LINE__ + 1; // the statement below
    Value n = num_programs(3);
    store(p, n);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "axis must be the constant 0, 1 or 2, got 3");
}

TEST(DslOpErrors, ArangeBeyondI32) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value r = arange(int64_t(1) << 40, (int64_t(1) << 40) + 64);
    (void)r;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::arange: bounds must fit in i32");
}

// ---- memory: masks, values, atomics ---------------------------------------------------------

TEST(DslOpErrors, StoreValueShapeDiffers) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    store(p + arange(0, 128), x);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "value shape [64] does not match the pointer shape [128]");
}

TEST(DslOpErrors, StoreOfPointers) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    store(p + arange(0, 64), p + arange(0, 64));
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "cannot write pointers to memory");
}

TEST(DslOpErrors, StoreMaskOfWrongShape) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    Value offs = arange(0, 64);
    gLine = __LINE__ + 1; // the statement below
    store(p + offs, load(p + offs), arange(0, 32) < n);
  });
  expectError(traceError(k, k.specialize(4, kAligned, 16)), "mask shape [32] does not match the pointer shape [64]");
}

TEST(DslOpErrors, LoadMaskNotBoolean) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value offs = arange(0, 64);
    gLine = __LINE__ + 1; // the statement below
    Value x = load(p + offs, offs);
    (void)x;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::load: the mask must be boolean (i1), got i32[64]");
}

TEST(DslOpErrors, AtomicAddOnBooleans) {
  auto k = kernel("bad", [](Ptr<bool> p) {
    gLine = __LINE__ + 1; // the statement below
    atomic_add(p + arange(0, 64), 1);
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::atomic_add: unsupported dtype i1");
}

TEST(DslOpErrors, AtomicAddMaskOfWrongShape) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    gLine = __LINE__ + 1; // the statement below
    atomic_add(p + arange(0, 64), 1.0f, arange(0, 128) < n);
  });
  expectError(traceError(k, k.specialize(4, kAligned, 16)), "mask shape [128] does not match the pointer shape [64]");
}

// ---- reductions -------------------------------------------------------------------------------

TEST(DslOpErrors, ReductionOfAScalar) {
  auto k = kernel("bad", [](Ptr<float> p, F32 x) {
    gLine = __LINE__ + 1; // the statement below
    Value s = tile::max(x);
    store(p, s);
  });
  expectError(traceError(k, k.specialize(4, kAligned, 1.0f)), "tile::max reduces a tensor, got the scalar f32");
}

TEST(DslOpErrors, ReductionOfPointers) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value s = tile::min(p + arange(0, 64));
    (void)s;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "tile::min: cannot reduce pointers");
}

TEST(DslOpErrors, ArgmaxAxisOutOfRangeOn2D) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + col(arange(0, 16)) * 16 + row(arange(0, 16)));
    gLine = __LINE__ + 1; // the statement below
    Value s = argmax(x, 2);
    (void)s;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "axis 2 out of range for a tensor of rank 2");
}

// -1 is the last axis (as in Triton); -2 on a 1-D tensor is out of range.
TEST(DslOpErrors, NegativeReductionAxisOutOfRange) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value x = load(p + arange(0, 64));
    gLine = __LINE__ + 1; // the statement below
    Value s = tile::sum(x, -2);
    (void)s;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "axis -2 out of range");
}

// ---- dot, trans, reshape ----------------------------------------------------------------------

TEST(DslOpErrors, DotOfRank3) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({2, 16, 16}, DType::f16), b = zeros({16, 16}, DType::f16);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, b);
    (void)c;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "a and b must be 2-D tensors, got f16[2, 16, 16]");
}

TEST(DslOpErrors, DotF64Inputs) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 16}, DType::f64);
    gLine = __LINE__ + 1; // the statement below
    Value c = dot(a, a);
    (void)c;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "inputs must be f16, bf16 or f32, got f64[16, 16]");
}

TEST(DslOpErrors, TransOrderOfWrongLength) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value a = zeros({16, 32}, DType::f32);
    gLine = __LINE__ + 1; // the statement below
    Value t = trans(a, {1, 0, 2});
    (void)t;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "is not a permutation");
}

TEST(DslOpErrors, ReshapeOfAScalar) {
  auto k = kernel("bad", [](Ptr<float> p, F32 x) {
    gLine = __LINE__ + 1; // the statement below
    Value r = reshape(x, {1});
    (void)r;
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned, 1.0f)), "tile::reshape: needs a tensor, got the scalar f32");
}

// ---- control flow -----------------------------------------------------------------------------

TEST(DslOpErrors, LoopStepNotPositive) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    gLine = __LINE__ + 1; // the statement below
    for_range(0, n, 0, [&](Value) {});
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned, 16)), "for_range: the step must be positive, got 0");
}

TEST(DslOpErrors, LoopBoundIsAFloat) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    gLine = __LINE__ + 1; // the statement below
    for_range(0.5, n, 1, [&](Value) {});
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned, 16)),
              "for_range: the lower bound must be an integer, got a float number");
}

TEST(DslOpErrors, LoopBoundIsATensor) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    for_range(0, arange(0, 16), 1, [&](Value) {});
    (void)p;
  });
  expectError(traceError(k, k.specialize(4, kAligned)),
              "for_range: the upper bound must be a scalar integer, got i32[16]");
}

TEST(DslOpErrors, IfConditionNotBoolean) {
  auto k = kernel("bad", [](Ptr<float> p, I32 n) {
    gLine = __LINE__ + 1; // the statement below
    if_then(n, [&] { store(p, load(p)); });
  });
  expectError(traceError(k, k.specialize(4, kAligned, 3)), "if: the condition must be boolean (i1), got i32");
}

// ---- lanes_along ---------------------------------------------------------------------------

TEST(DslOpErrors, LanesAlongAScalarPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value q = lanes_along(p + 1, 0);
    store(q, load(p));
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "lanes_along: needs a tensor of pointers, got the scalar");
}

TEST(DslOpErrors, LanesAlongADimensionOutsideTheRank) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value ptrs = p + col(arange(0, 16)) * 16 + row(arange(0, 16));
    gLine = __LINE__ + 1; // the statement below
    Value q = lanes_along(ptrs, 2);
    store(q, full({16, 16}, 1.0f, DType::f32));
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "lanes_along: dimension 2 is outside the pointers' rank 2");
}

TEST(DslOpErrors, LanesAlongNumbers) {
  auto k = kernel("bad", [](Ptr<float> p) {
    gLine = __LINE__ + 1; // the statement below
    Value q = lanes_along(arange(0, 16), 0);
    store(p + q, full({16}, 1.0f, DType::f32));
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "lanes_along: cannot direct accesses through a non-pointer");
}

TEST(DslOpErrors, LanesAlongALoopCarriedPointer) {
  auto k = kernel("bad", [](Ptr<float> p) {
    Value ptrs = p + col(arange(0, 16)) * 16 + row(arange(0, 16));
    Value last = for_range(0, 4, 1, ptrs, [&](Value, Value q) {
      gLine = __LINE__ + 1; // the statement below
      Value along = lanes_along(q, 0);
      return along + 1;
    });
    store(last, full({16, 16}, 1.0f, DType::f32));
  });
  expectError(traceError(k, k.specialize(4, kAligned)), "lanes_along: the pointers must be computed in the kernel");
}
