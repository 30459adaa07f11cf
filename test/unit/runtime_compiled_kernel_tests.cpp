// The compiled-kernel record's serialisation: round trip, and every kind of bad payload
// rejected with its reason (the disk cache turns those into a recompile).
#include "tile/runtime/CompiledKernel.h"
#include "tile/runtime/Error.h"

#include <gtest/gtest.h>

#include <string>

using namespace tile::rt;

namespace {

CompiledKernel sample() {
  return CompiledKernel{"softmax",
                        "sm_90 ptx80",
                        ".version 8.0\n.target sm_90\n.visible .entry softmax()\n{\n}\n",
                        {.sharedBytes = 2048, .numWarps = 8}};
}

/// The reason decode gives for `payload`; "" if it decodes.
std::string rejection(std::string_view payload) {
  std::string why;
  std::optional<CompiledKernel> k = decodeCompiledKernel(payload, &why);
  EXPECT_EQ(k.has_value(), why.empty()) << why;
  return why;
}

/// The encoded sample with its line `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  std::string s = encodeCompiledKernel(sample());
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

} // namespace

TEST(CompiledKernel, RoundTrip) {
  std::string s = encodeCompiledKernel(sample());
  EXPECT_EQ(s.substr(0, s.find('\n')), "tile-ptx v" + std::to_string(kCompiledKernelFormatVersion));
  std::optional<CompiledKernel> back = decodeCompiledKernel(s);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, sample());
  // The PTX is carried byte for byte, whatever it holds.
  CompiledKernel binary = sample();
  binary.ptx = std::string("a\0b\n\ntile-ptx v2\n", 16);
  EXPECT_EQ(decodeCompiledKernel(encodeCompiledKernel(binary)), binary);
}

TEST(CompiledKernel, RejectsForeignAndOtherVersions) {
  EXPECT_EQ(rejection(""), "not a kernel record");
  EXPECT_EQ(rejection("tile-cache v1 abc 3 0\nabc"), "not a kernel record");
  EXPECT_EQ(rejection("tile-ptx v1\nshared 0\nwarps 4\ntarget sm_90 ptx80\n\n.version 8.0"),
            "format v1, this build reads v4");
  EXPECT_EQ(rejection(edited("tile-ptx v4\n", "tile-ptx v5\n")), "format v5, this build reads v4");
}

TEST(CompiledKernel, RejectsTruncatedOrExtendedPayloads) {
  std::string s = encodeCompiledKernel(sample());
  EXPECT_EQ(rejection(s.substr(0, s.size() - 1)).substr(0, 13), "truncated PTX");
  EXPECT_EQ(rejection(s + "x"), "1 bytes after the PTX");
  EXPECT_EQ(rejection(s.substr(0, s.find("warps"))), "truncated before the 'warps' line");
  EXPECT_EQ(rejection(s.substr(0, s.find("warps") + 7)), "truncated in the 'warps' line");
}

TEST(CompiledKernel, RejectsMalformedFields) {
  EXPECT_EQ(rejection(edited("shared 2048\n", "shared -1\n")), "bad 'shared' value '-1'");
  EXPECT_EQ(rejection(edited("shared 2048\n", "shared 99999999999\n")), "bad 'shared' value '99999999999'");
  EXPECT_EQ(rejection(edited("warps 8\n", "warps 8 \n")), "bad 'warps' value '8 '");
  EXPECT_EQ(rejection(edited("warps 8\n", "warps 33\n")), "warps must be from 1 to 32, not 33");
  EXPECT_EQ(rejection(edited("warps 8\n", "warps 0\n")), "warps must be from 1 to 32, not 0");
  EXPECT_EQ(rejection(edited("warps 8\n", "")), "expected a 'warps' line");
  EXPECT_EQ(rejection(edited("name softmax\n", "name soft max\n")), "name 'soft max' is not a C identifier");
  EXPECT_EQ(rejection(edited("target sm_90 ptx80\n", "target \n")), "empty target");
}

TEST(CompiledKernel, EncodeRefusesWhatDecodeWouldReject) {
  CompiledKernel k = sample();
  EXPECT_EQ(checkCompiledKernel(k), "");
  k.name = "two\nlines";
  EXPECT_THROW(encodeCompiledKernel(k), Error);
  k = sample();
  k.target = "sm_90\"";
  EXPECT_NE(checkCompiledKernel(k), "");
  k = sample();
  k.ptx.clear();
  EXPECT_EQ(checkCompiledKernel(k), "empty PTX");
  k = sample();
  k.meta.numWarps = 0;
  EXPECT_THROW(encodeCompiledKernel(k), Error);
}

TEST(CompiledKernel, ViewIsConstantInitialised) {
  // What the AOT writer emits: nothing is computed or copied at start-up.
  static constexpr char ptx[] = "// ptx";
  static constexpr CompiledKernelView view{.name = "softmax",
                                           .target = "sm_90 ptx80",
                                           .ptx = {ptx, sizeof ptx - 1},
                                           .meta = {.sharedBytes = 0, .numWarps = 4}};
  static_assert(view.ptx.size() == 6 && view.meta.numWarps == 4);
  EXPECT_EQ(view.name, "softmax");
}

// The descriptor parameters a launch must encode TMA maps for travel with the record.
TEST(CompiledKernel, TmaParametersRoundTripAndMalformedOnesAreRejected) {
  CompiledKernel k = sample();
  k.meta.tma[0] =
      TmaParam{.param = 0, .type = TensorMapType::F16, .swizzleBytes = 64, .rank = 2, .box = {128, 32, 0, 0}};
  k.meta.tma[1] =
      TmaParam{.param = 1, .type = TensorMapType::BF16, .swizzleBytes = 128, .rank = 2, .box = {32, 64, 0, 0}};
  k.meta.tma[2] =
      TmaParam{.param = 2, .type = TensorMapType::TF32, .swizzleBytes = 128, .rank = 2, .box = {256, 32, 0, 0}};
  std::string s = encodeCompiledKernel(k);
  EXPECT_NE(s.find("tma 3\ntmaparam 0 f16 64 128x32\ntmaparam 1 bf16 128 32x64\ntmaparam 2 tf32 128 256x32\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(decodeCompiledKernel(s), k);
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string t = s;
    return t.replace(t.find(from), from.size(), to);
  };
  EXPECT_EQ(rejection(replaced("128x32", "128y32")), "bad 'tmaparam' line");
  EXPECT_EQ(rejection(replaced("tma 3\n", "tma 4\n")), "expected a 'tmaparam' line");
  EXPECT_EQ(rejection(replaced("tma 3\n", "tma 9\n")), "more than 8 TMA parameters");
  EXPECT_EQ(rejection(replaced("128x32", "512x32")), "TMA box dimension out of 1..256 for parameter 0");
  EXPECT_EQ(rejection(replaced("f16 64", "f16 48")), "malformed TMA parameter 0");
  EXPECT_EQ(rejection(replaced("bf16 128", "f64 128")), "bad 'tmaparam' line");
  k.meta.tma[0].param = -1; // a used slot after an unused one
  EXPECT_THROW(encodeCompiledKernel(k), Error);
}
