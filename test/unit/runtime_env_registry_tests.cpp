//===- runtime_env_registry_tests.cpp - the TILE_* registry ---------------===//
// The registry of TILE_* environment variables (EnvRegistry.h): an unknown variable warns once
// with the closest known name, a known one does not, and the table covers every TILE_* variable
// the sources read or set (scanned at test time from TILE_SOURCE_DIR, given by CMake).
#include "tile/runtime/EnvRegistry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using tile::rt::unknownEnvVarWarnings;

// Misspelt names are built from two literals so that the source scan below does not see them.
TEST(EnvRegistry, UnknownVariableWarnsWithTheClosestName) {
  std::string misspelt = std::string("TILE_") + "CACHE_DRI=/tmp/x";
  const char *env[] = {"PATH=/bin", misspelt.c_str(), "TILE_CACHE_DIR=/tmp/y", nullptr};
  std::vector<std::string> lines = unknownEnvVarWarnings(env);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "tile: warning: unknown environment variable TILE_CACHE_DRI is ignored; did you mean "
                      "TILE_CACHE_DIR? (docs/environment.md lists them)");
}

TEST(EnvRegistry, KnownVariablesDoNotWarn) {
  std::vector<std::string> entries;
  for (const tile::rt::EnvVar &v : tile::rt::envRegistry()) entries.push_back(std::string(v.name) + "=1");
  std::vector<const char *> env;
  for (const std::string &e : entries) env.push_back(e.c_str());
  env.push_back("TILEX=1"); // not TILE_*: none of ours
  env.push_back(nullptr);
  EXPECT_EQ(unknownEnvVarWarnings(env.data()), std::vector<std::string>{});
}

// In a child process: the first readEnv warns on stderr, the second stays silent.
TEST(EnvRegistryDeathTest, ReadEnvWarnsOnceOnStderr) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv((std::string("TILE_") + "FORCE_RECOMPLIE").c_str(), "1", 1);
        tile::rt::readEnv("TILE_FORCE_RECOMPILE");
        testing::internal::CaptureStderr();
        tile::rt::readEnv("TILE_CACHE_DIR");
        std::exit(testing::internal::GetCapturedStderr().empty() ? 0 : 1);
      },
      testing::ExitedWithCode(0),
      "unknown environment variable TILE_FORCE_RECOMPLIE is ignored; did you mean TILE_FORCE_RECOMPILE\\?");
}

bool isNameChar(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// Every TILE_* variable a file reads or sets: in C++ and Python a string literal of its name; in a
// shell script $NAME, ${NAME...} or an assignment NAME=.
std::set<std::string> variablesIn(const std::string &text, bool shell) {
  std::set<std::string> names;
  for (size_t at = text.find("TILE_"); at != std::string::npos; at = text.find("TILE_", at + 1)) {
    size_t end = at + 5;
    while (end < text.size() && isNameChar(text[end])) ++end;
    if (end == at + 5) continue;
    char before = at > 0 ? text[at - 1] : '\n', after = end < text.size() ? text[end] : '\n';
    bool isVariable = shell ? before == '$' || (before == '{' && at > 1 && text[at - 2] == '$') ||
                                  ((before == ' ' || before == '\n' || before == '\t') && after == '=')
                            : before == '"' && after == '"';
    if (isVariable) names.insert(text.substr(at, end - at));
  }
  return names;
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(EnvRegistry, CoversEverySourceRead) {
  const fs::path root = TILE_SOURCE_DIR;
  std::map<std::string, std::string> unregistered; // name -> a file
  size_t files = 0;
  for (const char *dir :
       {"compiler", "dsl", "runtime", "kernels", "models", "tools", "scripts", "test", "bench", "examples"}) {
    if (!fs::exists(root / dir)) continue;
    for (const fs::directory_entry &e : fs::recursive_directory_iterator(root / dir)) {
      std::string ext = e.path().extension().string();
      bool shell = ext == ".sh";
      if (!e.is_regular_file() || !(shell || ext == ".cpp" || ext == ".h" || ext == ".py")) continue;
      if (e.path().filename() == "EnvRegistry.cpp") continue; // the table itself
      ++files;
      for (const std::string &name : variablesIn(readFile(e.path()), shell))
        if (!tile::rt::findEnvVar(name)) unregistered.emplace(name, fs::relative(e.path(), root).string());
    }
  }
  EXPECT_GT(files, 100u) << "the scan found almost no sources under " << root;
  for (const auto &[name, file] : unregistered)
    ADD_FAILURE() << name << " (" << file << ") is missing from runtime/lib/EnvRegistry.cpp's table";
}

// The table's "read in" column names files that do mention the variable.
TEST(EnvRegistry, ReadByNamesFilesThatMentionTheVariable) {
  const fs::path root = TILE_SOURCE_DIR;
  for (const tile::rt::EnvVar &v : tile::rt::envRegistry()) {
    std::string list(v.readBy);
    for (size_t start = 0; start < list.size();) {
      size_t comma = list.find(", ", start);
      std::string file = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? list.size() : comma + 2;
      EXPECT_NE(readFile(root / file).find(v.name), std::string::npos) << v.name << " is not in " << file;
    }
  }
}

} // namespace
