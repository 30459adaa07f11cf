// Helpers of the must-fail tests: run something that must throw one of tile's located errors
// (ProgramError, UnsupportedError) and check the message names the user's file:line.
#ifndef TILE_TEST_DSL_ERROR_EXPECT_H
#define TILE_TEST_DSL_ERROR_EXPECT_H

#include "tile/tile.h"

#include <gtest/gtest.h>

#include <string>

namespace tile::test {

/// The message of the E that `fn` throws ("" if none). Checks that where() agrees with the
/// message, so the location is usable by tools, not only printed.
template <class E = ProgramError, class Fn> std::string errorOf(Fn &&fn) {
  try {
    fn();
  } catch (const E &e) {
    std::string msg = e.what();
    EXPECT_TRUE(e.where().known()) << "no location parsed from: " << msg;
    EXPECT_EQ(msg.rfind(e.where().str() + ": error: ", 0), 0u) << "where() " << e.where().str() << " vs: " << msg;
    return msg;
  }
  return "";
}

/// Traces `k` with `spec` and returns the ProgramError's message ("" if none was thrown).
template <class K> std::string traceError(const K &k, const Specialization &spec) {
  return errorOf([&] { k.trace(spec); });
}

/// The message names `file` at `line` as "<file>:<line>:<col>: error:", says `word` and is
/// one line.
inline void expectErrorIn(const std::string &file, const std::string &msg, int line, const std::string &word) {
  ASSERT_FALSE(msg.empty()) << "no error was thrown (expected '" << word << "')";
  std::string where = file + ":" + std::to_string(line) + ":";
  EXPECT_NE(msg.find(where), std::string::npos) << "expected " << where << " in: " << msg;
  EXPECT_NE(msg.find(": error: "), std::string::npos) << msg;
  EXPECT_NE(msg.find(word), std::string::npos) << "expected '" << word << "' in: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line expected: " << msg;
}

} // namespace tile::test

#endif
