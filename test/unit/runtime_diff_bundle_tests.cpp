// The differential bundle: round trip, corruption detection, output comparison.
#include "tile/runtime/DiffBundle.h"
#include "tile/runtime/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

using namespace tile;
using namespace tile::rt;

namespace {

std::vector<uint8_t> floats(std::initializer_list<float> v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

DiffCase sampleCase() {
  DiffCase c;
  c.name = "softmax 3x5";
  c.seed = 42;
  c.kernel = CompiledKernel{"softmax", "sm_90 ptx80", "// ptx text", {.sharedBytes = 16, .numWarps = 8}};
  c.grid = Dim3{3, 1, 1};
  c.tolerance = 1e-5;
  DiffArg out;
  out.kind = ArgKind::Ptr;
  out.input = floats({NAN, NAN});
  out.expected = floats({0.25f, 0.75f});
  out.errorScale = {1.0, 2.0};
  DiffArg n;
  n.kind = ArgKind::I32;
  n.scalar = -7;
  DiffArg eps;
  eps.kind = ArgKind::F32;
  eps.f32 = 1e-5f;
  c.args = {out, n, eps};
  return c;
}

std::string tempPath(const char *name) { return ::testing::TempDir() + name; }

} // namespace

TEST(DiffBundle, RoundTrip) {
  std::string path = tempPath("roundtrip.bundle");
  writeDiffBundle(path, {sampleCase(), sampleCase()});
  std::vector<DiffCase> back = readDiffBundle(path);
  ASSERT_EQ(back.size(), 2u);
  const DiffCase &c = back[1];
  EXPECT_EQ(c.name, "softmax 3x5");
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(c.kernel, sampleCase().kernel);
  EXPECT_EQ(c.grid.x, 3u);
  ASSERT_EQ(c.args.size(), 3u);
  EXPECT_EQ(c.args[0].expected, floats({0.25f, 0.75f}));
  EXPECT_EQ(c.args[0].errorScale, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(c.args[1].scalar, -7);
  EXPECT_FLOAT_EQ(c.args[2].f32, 1e-5f);
}

TEST(DiffBundle, CorruptOrMissingFilesGiveOneLineErrors) {
  std::string path = tempPath("corrupt.bundle");
  writeDiffBundle(path, {sampleCase()});
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  try {
    readDiffBundle(path);
    FAIL() << "a flipped byte was not detected";
  } catch (const rt::Error &e) { EXPECT_NE(std::string(e.what()).find("corrupt"), std::string::npos) << e.what(); }
  EXPECT_THROW(readDiffBundle(tempPath("does-not-exist.bundle")), rt::Error);
  std::ofstream(tempPath("garbage.bundle")) << "not a bundle at all, really";
  EXPECT_THROW(readDiffBundle(tempPath("garbage.bundle")), rt::Error);
}

TEST(DiffBundle, RefusesToWriteAMalformedKernel) {
  DiffCase c = sampleCase();
  c.kernel.meta.numWarps = 33; // the launch takes at most 32 warps (1024 threads)
  EXPECT_THROW(writeDiffBundle(tempPath("malformed.bundle"), {c}), rt::Error);
}

TEST(DiffBundle, CompareFloatsByRelativeErrorAndRejectNaN) {
  auto ref = floats({1.f, 2.f, 3.f});
  EXPECT_TRUE(compareOutputs(DiffElem::F32, ref, floats({1.f, 2.f, 3.f + 1e-6f}), 1e-5).ok);
  EXPECT_FALSE(compareOutputs(DiffElem::F32, ref, floats({1.f, 2.f, 3.1f}), 1e-5).ok);
  DiffResult nan = compareOutputs(DiffElem::F32, ref, floats({1.f, NAN, 3.f}), 1e-5);
  EXPECT_FALSE(nan.ok);
  EXPECT_NE(nan.detail.find("element 1"), std::string::npos) << nan.detail;
}

TEST(DiffBundle, ComparePerElementBoundsWhenScalesAreGiven) {
  auto ref = floats({1000.f, 0.001f});
  // 0.01 off on an element whose terms were ~1000 in size is fine at 1e-4 * 1000 = 0.1 ...
  EXPECT_TRUE(compareOutputs(DiffElem::F32, ref, floats({1000.01f, 0.001f}), 1e-4, {1000.0, 1.0}).ok);
  // ... but 0.01 off where the terms were ~1 is not.
  EXPECT_FALSE(compareOutputs(DiffElem::F32, ref, floats({1000.f, 0.011f}), 1e-4, {1000.0, 1.0}).ok);
}

TEST(DiffBundle, CompareIntegersExactly) {
  std::vector<uint8_t> a(8, 0), b(8, 0);
  b[4] = 1;
  EXPECT_TRUE(compareOutputs(DiffElem::I32, a, a, 0).ok);
  EXPECT_FALSE(compareOutputs(DiffElem::I32, a, b, 1e9).ok);
}
