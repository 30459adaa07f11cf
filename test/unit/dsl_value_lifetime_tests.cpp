// Must-fail tests: a tile::Value lives only while the trace that created it runs. One kept
// past it (a `static Value`, or a global a later kernel reads) points into a module that is
// gone; each use must be a ProgramError naming the using line, never a read of freed memory.
#include "dsl_error_expect.h"

#include <gtest/gtest.h>

#include <string>

using namespace tile;
using tile::test::errorOf;
using tile::test::traceError;

namespace {

constexpr tile::DeviceAddress kAligned{0x10000};

void expectError(const std::string &msg, int line, const std::string &word) {
  tile::test::expectErrorIn("dsl_value_lifetime_tests.cpp", msg, line, word);
}

const char *kEnded = "whose kernel trace has ended";

// Kernel lambdas do not capture: values and lines cross traces through globals.
int gLine = 0;
Value gLeaked;

} // namespace

// The first trace keeps a value in a static; the second trace (another specialisation) uses it.
TEST(DslValueLifetime, StaticValueFromAFinishedTraceIsAProgramError) {
  auto k = kernel("keeps_static", [](Ptr<float> p, Const<int> BLOCK) {
    static Value kept;
    if (!kept.valid()) kept = arange(0, BLOCK);
    gLine = __LINE__ + 1; // the statement below
    store(p + kept, load(p + kept));
  });
  EXPECT_NO_THROW(k.trace(k.specialize(4, kAligned, 64)));
  std::string msg = traceError(k, k.specialize(4, kAligned, 128));
  expectError(msg, gLine, kEnded);
}

// A value of one kernel's (finished) trace read by another kernel.
TEST(DslValueLifetime, ValueOfAnotherKernelsFinishedTraceIsAProgramError) {
  auto a = kernel("leaks", [](Ptr<float> p) { gLeaked = load(p + arange(0, 64)); });
  auto b = kernel("uses_leaked", [](Ptr<float> q) {
    gLine = __LINE__ + 1; // the statement below
    store(q + arange(0, 64), gLeaked);
  });
  a.trace(a.specialize(4, kAligned));
  std::string msg = traceError(b, b.specialize(4, kAligned));
  expectError(msg, gLine, kEnded);
  gLeaked = Value();
}

// Operators (an Operand holding the dead value) and loop bounds read it too.
TEST(DslValueLifetime, FinishedValueInAnOperatorOrALoopBoundIsAProgramError) {
  auto a = kernel("leaks_scalar", [](I32 n) { gLeaked = n + 1; });
  a.trace(a.specialize(4, 7));
  auto add = kernel("adds_leaked", [](Ptr<int32_t> q) {
    gLine = __LINE__ + 1; // the statement below
    store(q, gLeaked + 1);
  });
  std::string msg = traceError(add, add.specialize(4, kAligned)); // sets gLine: read it after
  expectError(msg, gLine, kEnded);
  auto loop = kernel("loops_to_leaked", [](Ptr<int32_t> q) {
    gLine = __LINE__ + 1; // the statement below
    for_range(0, gLeaked, 1, [&](Value i) { store(q, i); });
  });
  msg = traceError(loop, loop.specialize(4, kAligned));
  expectError(msg, gLine, kEnded);
  gLeaked = Value();
}

// Asking a dead value its type or shape, outside any trace or inside a later one.
TEST(DslValueLifetime, QueryOfAFinishedValueIsAProgramError) {
  auto a = kernel("leaks_tensor", [](Ptr<float> p) { gLeaked = load(p + arange(0, 64)); });
  a.trace(a.specialize(4, kAligned));
  int line = __LINE__ + 1; // the statement below
  std::string msg = errorOf([] { (void)gLeaked.shape(); });
  expectError(msg, line, kEnded);
  line = __LINE__ + 1; // the statement below
  msg = errorOf([] { (void)gLeaked.dtype(); });
  expectError(msg, line, kEnded);
  line = __LINE__ + 1; // the statement below
  msg = errorOf([] { (void)gLeaked.isTensor(); });
  expectError(msg, line, kEnded);
  auto b = kernel("asks_leaked", [](Ptr<float> q) {
    gLine = __LINE__ + 1; // the statement below
    if (gLeaked.rank() == 1) store(q, load(q));
  });
  msg = traceError(b, b.specialize(4, kAligned));
  expectError(msg, gLine, kEnded);
  gLeaked = Value();
}

// A kernel traced from inside another kernel's body: the outer trace is alive, but its
// values belong to its own function; the inner kernel must take them as arguments.
TEST(DslValueLifetime, ValueOfAnOuterKernelStillBeingTracedIsAProgramError) {
  static int innerLine = 0;
  auto outer = kernel("outer", [](Ptr<float> p) {
    gLeaked = load(p + arange(0, 64));
    auto inner = kernel("inner", [](Ptr<float> q) {
      innerLine = __LINE__ + 1; // the statement below
      store(q + arange(0, 64), gLeaked);
    });
    inner.trace(inner.specialize(4, kAligned));
  });
  std::string msg = traceError(outer, outer.specialize(4, kAligned));
  expectError(msg, innerLine, "belongs to another kernel's trace");
  gLeaked = Value();
}
