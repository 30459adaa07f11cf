//===- TuneEntry.h - one autotuning choice as text ------------------------===//
// The payload of an autotuner's disk entry (inside a DiskCache entry, which adds the
// checksum and the atomic write): every field that identifies the choice is written
// out, so a file that belongs to another kernel, device or compiler is recognised as
// foreign rather than trusted.
//   tile-autotune v1
//   kernel matmul_f16
//   space e0,t0,fast
//   device NVIDIA H200
//   code 3f2a...
//   key 1024,1024,512
//   config BM=128,BN=128,BK=32,warps=4
//   ms 0.8125
#pragma once

#include "tile/runtime/Autotune.h"

#include <optional>
#include <string>
#include <string_view>

namespace tile::rt {

struct TuneEntry {
  std::string kernel, space, device, codeId;
  TuneKey key;
  TuneConfig config;
  double ms = -1; ///< the winner's median time; < 0 when unknown

  /// True when both name the same choice slot (all but config and ms equal).
  bool sameSlot(const TuneEntry &o) const {
    return kernel == o.kernel && space == o.space && device == o.device && codeId == o.codeId && key == o.key;
  }
};

std::string encodeTuneEntry(const TuneEntry &e);
/// nullopt (with *why) for text that is not a well-formed entry.
std::optional<TuneEntry> decodeTuneEntry(std::string_view text, std::string *why);
/// The DiskCache key of e's slot: "autotune-<kernel>-<digest of the slot's fields>".
std::string tuneEntryCacheKey(const TuneEntry &e);
/// Prefix of every autotuner DiskCache key (entry files are "<key>.tile").
inline constexpr std::string_view kTuneEntryPrefix = "autotune-";

} // namespace tile::rt
