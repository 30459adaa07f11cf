//===- Error.h - the one exception hierarchy of tile ----------------------===//
// Every exception tile throws derives from tile::Error, so a caller can catch one type, and
// the subclass says whose fault it is:
//   ProgramError      the user's DSL program is wrong; where() is the user's file:line:col
//   UnsupportedError  a valid program uses something the compiler cannot do (yet); where()
//                     is the user's line of the op
//   ArgumentError     an API called with arguments or a setting it cannot take
//   RuntimeError      the machine or the driver failed (tile::rt::Error adds the CUresult)
//   InternalError     a bug in tile; reportPath() names the file with what a report needs
// Free of MLIR, LLVM and CUDA headers: the DSL, the compiler and the runtime all include it.
#ifndef TILE_ERROR_H
#define TILE_ERROR_H

#include <stdexcept>
#include <string>

namespace tile {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A position in the user's C++ source.
struct SourceLine {
  std::string file;
  unsigned line = 0, column = 0;
  bool known() const { return !file.empty(); }
  std::string str() const; ///< "file:line:col"
};

/// A user-facing error at a source line: "<file>:<line>:<col>: error: <what>".
class LocatedError : public Error {
public:
  LocatedError(const SourceLine &where, const std::string &what);
  /// A message already formatted as above; the location is read back from it.
  explicit LocatedError(const std::string &message);
  const SourceLine &where() const noexcept { return where_; }

private:
  SourceLine where_;
};

/// The user's DSL program is malformed (shapes, types, masks, constants, ...).
class ProgramError : public LocatedError {
public:
  using LocatedError::LocatedError;
};

/// The program is valid, but the compiler cannot do what it asks on this target. The
/// message reads "<file>:<line>:<col>: error: unsupported: <what>".
class UnsupportedError : public LocatedError {
public:
  UnsupportedError(const SourceLine &where, const std::string &what);
  explicit UnsupportedError(const std::string &message) : LocatedError(message) {}
};

/// An API was called with arguments (or an environment setting) it cannot take.
class ArgumentError : public Error {
public:
  using Error::Error;
};

/// The machine or the driver failed: no GPU, out of memory, a launch the driver refused.
class RuntimeError : public Error {
public:
  using Error::Error;
};

/// A compiler invariant failed: a bug in tile, not in the user's program. The message says
/// so; where the failing IR could be saved, reportPath() is that file (also in the message).
class InternalError : public Error {
public:
  explicit InternalError(const std::string &what, std::string reportPath = "");
  const std::string &reportPath() const noexcept { return reportPath_; }

private:
  std::string reportPath_;
};

} // namespace tile

#endif
