// The compiled-kernel cache key covers every input (a change of any key input misses).
#include "tile/runtime/KernelCacheKey.h"

#include <gtest/gtest.h>

#include <set>

using namespace tile::rt;

TEST(KernelCacheKey, EveryFieldChangesTheKey) {
  const KernelCacheKeyInputs base{.tileIR = "module { tile.kernel }",
                                  .specialization = "w4,p16,p16,i16,c1024",
                                  .compilerBuild = "build-1234",
                                  .llvmVersion = "22.1.8",
                                  .target = "sm_90a ptx87",
                                  .options = ""};
  std::string key = kernelCacheKey(base);
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(kernelCacheKey(base), key) << "deterministic";
  std::set<std::string> keys{key};
  auto changed = [&](const char *what, auto edit) {
    KernelCacheKeyInputs in = base;
    edit(in);
    EXPECT_TRUE(keys.insert(kernelCacheKey(in)).second) << what << " did not change the key";
  };
  changed("source", [](auto &in) { in.tileIR += " "; });
  changed("specialisation", [](auto &in) { in.specialization = "w4,p16,p16,i16,c512"; });
  changed("num_warps", [](auto &in) { in.specialization = "w8,p16,p16,i16,c1024"; });
  changed("compiler build", [](auto &in) { in.compilerBuild = "build-1235"; });
  changed("LLVM version", [](auto &in) { in.llvmVersion = "22.1.9"; });
  changed("target sm", [](auto &in) { in.target = "sm_80 ptx87"; });
  changed("PTX version", [](auto &in) { in.target = "sm_90a ptx80"; });
  changed("options", [](auto &in) { in.options = "x"; });
}

// Fields are length-prefixed: text moved from one field into the next is another key.
TEST(KernelCacheKey, FieldBoundariesMatter) {
  KernelCacheKeyInputs a{.tileIR = "ir", .specialization = "w4"};
  KernelCacheKeyInputs b{.tileIR = "irw", .specialization = "4"};
  KernelCacheKeyInputs c{.tileIR = "ir\nspec 2\nw4", .specialization = ""};
  EXPECT_NE(kernelCacheKey(a), kernelCacheKey(b));
  EXPECT_NE(kernelCacheKey(a), kernelCacheKey(c));
}
