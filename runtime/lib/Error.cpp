//===- Error.cpp - tile::Error and its subclasses ---------------------------===//
#include "tile/Error.h"

#include <cstdlib>

namespace tile {

std::string SourceLine::str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }

namespace {
/// Reads "<file>:<line>:<col>: " back from the front of a formatted message. The file may
/// itself hold ':' (a Windows drive), so the two numbers are found from the ": " on.
SourceLine parseLeadingLocation(const std::string &message) {
  size_t end = message.find(": ");
  if (end == std::string::npos) return {};
  std::string head = message.substr(0, end);
  size_t c2 = head.rfind(':');
  if (c2 == std::string::npos || c2 == 0) return {};
  size_t c1 = head.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return {};
  auto number = [](const std::string &s, unsigned &out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = static_cast<unsigned>(std::strtoul(s.c_str(), nullptr, 10));
    return true;
  };
  SourceLine where;
  if (!number(head.substr(c1 + 1, c2 - c1 - 1), where.line) || !number(head.substr(c2 + 1), where.column)) return {};
  where.file = head.substr(0, c1);
  return where;
}
} // namespace

LocatedError::LocatedError(const SourceLine &where, const std::string &what)
    : Error(where.str() + ": error: " + what), where_(where) {}

LocatedError::LocatedError(const std::string &message) : Error(message), where_(parseLeadingLocation(message)) {}

UnsupportedError::UnsupportedError(const SourceLine &where, const std::string &what)
    : LocatedError(where, "unsupported: " + what) {}

InternalError::InternalError(const std::string &what, std::string reportPath)
    : Error(reportPath.empty() ? what
                               : what + "\n  the kernel's IR and the failing pass are in " + reportPath +
                                     " (attach it to the bug report)"),
      reportPath_(std::move(reportPath)) {}

} // namespace tile
