// Checkpoints: round trip, every kind of damage detected, failed saves leave the previous file intact,
// no file that is not a checkpoint is ever replaced, dead writers' temp files are cleaned up.
#include "models_test_util.h"
#include "tile/models/Checkpoint.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <limits>

using namespace tile::models;
using namespace tile::models::testing;

namespace {

const std::string kArch = "mnist-cnn-v1";

Checkpoint sample(float base = 0.5f) {
  Checkpoint c;
  c.architecture = kArch;
  c.state = {2, 1876, 42, 0.01, "fashion", 32};
  NamedTensor w{"conv1.weight", {2, 1, 3, 3}, {}};
  for (int i = 0; i < 18; ++i) w.data.push_back(base + 0.25f * i);
  // Values whose bits must survive: -0, infinities, a denormal, a NaN.
  w.data[0] = -0.0f;
  w.data[1] = std::numeric_limits<float>::infinity();
  w.data[2] = -std::numeric_limits<float>::infinity();
  w.data[3] = std::numeric_limits<float>::denorm_min();
  w.data[4] = std::numeric_limits<float>::quiet_NaN();
  c.tensors.push_back(w);
  c.tensors.push_back({"conv1.bias", {2}, {base, -base}});
  c.tensors.push_back({"scale", {}, {3.0f}}); // rank 0
  c.tensors.push_back({"fc.weight", {3, 4}, std::vector<float>(12, base)});
  return c;
}

std::vector<TensorSpec> specs(const Checkpoint &c) {
  std::vector<TensorSpec> s;
  for (const NamedTensor &t : c.tensors) s.push_back({t.name, t.shape});
  return s;
}

void expectSame(const Checkpoint &a, const Checkpoint &b) {
  EXPECT_EQ(a.architecture, b.architecture);
  EXPECT_EQ(a.state.epoch, b.state.epoch);
  EXPECT_EQ(a.state.step, b.state.step);
  EXPECT_EQ(a.state.seed, b.state.seed);
  EXPECT_EQ(a.state.learningRate, b.state.learningRate);
  EXPECT_EQ(a.state.dataset, b.state.dataset);
  EXPECT_EQ(a.state.batchSize, b.state.batchSize);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].name, b.tensors[i].name);
    EXPECT_EQ(a.tensors[i].shape, b.tensors[i].shape);
    ASSERT_EQ(a.tensors[i].data.size(), b.tensors[i].data.size());
    EXPECT_EQ(std::memcmp(a.tensors[i].data.data(), b.tensors[i].data.data(), a.tensors[i].data.size() * 4), 0)
        << a.tensors[i].name << " differs bitwise";
  }
}

uint64_t fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

// The version-1 layout of a version-2 file: without the dataset string and the batch size that
// follow the architecture; version, size and checksum patched.
std::vector<uint8_t> asVersion1(std::vector<uint8_t> v2) {
  uint32_t archLength, datasetLength;
  std::memcpy(&archLength, &v2[20], 4);
  const size_t dataset = 24 + archLength;
  std::memcpy(&datasetLength, &v2[dataset], 4);
  v2.erase(v2.begin() + dataset, v2.begin() + dataset + 4 + datasetLength + 8);
  v2[8] = 1;
  const uint64_t size = v2.size();
  std::memcpy(&v2[12], &size, 8);
  const uint64_t sum = fnv1a64(v2.data(), v2.size() - 8);
  std::memcpy(&v2[v2.size() - 8], &sum, 8);
  return v2;
}

// A process id that was alive a moment ago and is not any more (a child that exited, reaped).
pid_t deadPid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status;
  ::waitpid(child, &status, 0);
  return child;
}

class CheckpointFile : public ::testing::Test {
protected:
  std::string path() const { return dir / "model.ckpt"; }
  std::string loadError() const {
    return messageOf<CheckpointError>([&] { loadCheckpoint(path()); });
  }
  // The file must still be the one `sample(base)` saved.
  void expectIntact(float base) {
    expectSame(loadCheckpoint(path(), kArch, specs(sample(base))), sample(base));
    for (auto &e : std::filesystem::directory_iterator(dir.path()))
      EXPECT_EQ(e.path().filename(), "model.ckpt") << "left behind: " << e.path();
  }
  TempDir dir;
};

} // namespace

TEST_F(CheckpointFile, RoundTrip) {
  saveCheckpoint(path(), sample());
  expectSame(loadCheckpoint(path()), sample());
  expectIntact(0.5f); // also: no temp file left
}

TEST_F(CheckpointFile, RoundTripInTheCallersOrder) {
  saveCheckpoint(path(), sample());
  std::vector<TensorSpec> want = specs(sample());
  std::reverse(want.begin(), want.end());
  Checkpoint c = loadCheckpoint(path(), kArch, want);
  ASSERT_EQ(c.tensors.size(), 4u);
  EXPECT_EQ(c.tensors[0].name, "fc.weight");
  EXPECT_EQ(c.tensors[3].name, "conv1.weight");
}

TEST_F(CheckpointFile, SaveReplacesThePreviousOne) {
  saveCheckpoint(path(), sample(0.5f));
  saveCheckpoint(path(), sample(1.5f));
  expectIntact(1.5f);
}

TEST_F(CheckpointFile, RelativePathInTheCurrentFolder) {
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  EXPECT_NO_THROW(saveCheckpoint("model.ckpt", sample()));
  std::filesystem::current_path(cwd);
  expectIntact(0.5f);
}

TEST_F(CheckpointFile, Missing) {
  std::string m = loadError();
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "missing file");
}

TEST_F(CheckpointFile, TruncatedAtSeveralPoints) {
  saveCheckpoint(path(), sample());
  const std::vector<uint8_t> good = readBytes(path());
  for (size_t len : {size_t{0}, size_t{5}, size_t{8}, size_t{19}, size_t{20}, size_t{60}, good.size() / 2,
                     good.size() - 8, good.size() - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(len) + " of " + std::to_string(good.size()) + " bytes");
    writeBytes(path(), std::vector<uint8_t>(good.begin(), good.begin() + len));
    std::string m = loadError();
    EXPECT_CONTAINS(m, path());
    EXPECT_CONTAINS(m, "truncated");
  }
}

TEST_F(CheckpointFile, EveryTruncationAndEveryFlippedByteIsDetected) {
  saveCheckpoint(path(), sample());
  const std::vector<uint8_t> good = readBytes(path());
  for (size_t len = 0; len < good.size(); ++len) {
    writeBytes(path(), std::vector<uint8_t>(good.begin(), good.begin() + len));
    EXPECT_THROW(loadCheckpoint(path()), CheckpointError) << "truncated to " << len;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x10;
    writeBytes(path(), bad);
    EXPECT_THROW(loadCheckpoint(path()), CheckpointError) << "byte " << i << " flipped";
  }
}

TEST_F(CheckpointFile, FlippedByteIsACorruptChecksum) {
  saveCheckpoint(path(), sample());
  std::vector<uint8_t> bytes = readBytes(path());
  bytes[bytes.size() - 20] ^= 0x01; // inside fc.weight's data
  writeBytes(path(), bytes);
  std::string m = loadError();
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "corrupt (checksum mismatch");
}

TEST_F(CheckpointFile, ExtraBytesAreCorrupt) {
  saveCheckpoint(path(), sample());
  std::vector<uint8_t> bytes = readBytes(path());
  bytes.push_back(0);
  writeBytes(path(), bytes);
  EXPECT_CONTAINS(loadError(), "corrupt");
}

TEST_F(CheckpointFile, ForeignFile) {
  std::string text = "epoch,loss\n1,0.25\n2,0.125\n";
  writeBytes(path(), std::vector<uint8_t>(text.begin(), text.end()));
  std::string m = loadError();
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "not a tile checkpoint (bad magic");
}

TEST_F(CheckpointFile, UnsupportedVersion) {
  saveCheckpoint(path(), sample());
  std::vector<uint8_t> bytes = readBytes(path());
  bytes[8] = 3; // version, little-endian u32 after the 8-byte magic
  writeBytes(path(), bytes);
  std::string m = loadError();
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "unsupported version 3 (this build reads versions 1 to 2)");
}

// A version-1 file (before the dataset and batch size were recorded) still loads, with both unknown.
TEST_F(CheckpointFile, ReadsVersion1) {
  saveCheckpoint(path(), sample());
  writeBytes(path(), asVersion1(readBytes(path())));
  Checkpoint want = sample();
  want.state.dataset = "";
  want.state.batchSize = 0;
  expectSame(loadCheckpoint(path(), kArch, specs(want)), want);
}

TEST_F(CheckpointFile, OtherArchitecture) {
  Checkpoint c = sample();
  c.architecture = "mnist-mlp-v1";
  saveCheckpoint(path(), c);
  std::string m = messageOf<CheckpointError>([&] { loadCheckpoint(path(), kArch, specs(c)); });
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "architecture 'mnist-mlp-v1' in the file, the model is 'mnist-cnn-v1'");
}

TEST_F(CheckpointFile, ShapeMismatch) {
  saveCheckpoint(path(), sample());
  std::vector<TensorSpec> want = specs(sample());
  want[3].shape = {4, 3};
  std::string m = messageOf<CheckpointError>([&] { loadCheckpoint(path(), kArch, want); });
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "tensor 'fc.weight' has shape [3, 4] in the file, the model expects [4, 3]");
}

TEST_F(CheckpointFile, MissingAndExtraTensors) {
  saveCheckpoint(path(), sample());
  std::vector<TensorSpec> want = specs(sample());
  want.push_back({"fc.bias", {3}});
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { loadCheckpoint(path(), kArch, want); }),
                  "tensor 'fc.bias' [3] of the model is missing");
  want.pop_back();
  want.erase(want.begin() + 1); // the model has no conv1.bias
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { loadCheckpoint(path(), kArch, want); }),
                  "holds tensor 'conv1.bias' [2] that the model does not have");
}

TEST_F(CheckpointFile, InconsistentTensorsAreNotSaved) {
  Checkpoint c = sample();
  c.tensors[1].data.push_back(0);
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { saveCheckpoint(path(), c); }),
                  "tensor 'conv1.bias' has shape [2] but 3 values");
  c = sample();
  c.tensors[2].name = "conv1.bias";
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { saveCheckpoint(path(), c); }), "tensor 'conv1.bias' appears twice");
  EXPECT_FALSE(std::filesystem::exists(path()));
}

// The temp file cannot be created (a folder sits at its name): works for root too.
TEST_F(CheckpointFile, FailedSaveLeavesThePreviousCheckpoint) {
  saveCheckpoint(path(), sample(0.5f));
  std::string tmp = path() + ".tmp." + std::to_string(::getpid());
  std::filesystem::create_directory(tmp);
  std::string m = messageOf<CheckpointError>([&] { saveCheckpoint(path(), sample(1.5f)); });
  EXPECT_CONTAINS(m, "cannot save checkpoint " + path());
  EXPECT_CONTAINS(m, "cannot create " + tmp);
  EXPECT_CONTAINS(m, "is unchanged");
  std::filesystem::remove(tmp);
  expectIntact(0.5f);
}

// The write fails midway (file size limit): the partial temp file is removed, the old file stays.
TEST_F(CheckpointFile, SaveFailingMidwayLeavesThePreviousCheckpoint) {
  saveCheckpoint(path(), sample(0.5f));
  Checkpoint big = sample(1.5f);
  big.tensors.push_back({"big", {64, 1024}, std::vector<float>(64 * 1024, 1.0f)}); // 256 KiB
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit low = old;
  low.rlim_cur = 64 * 1024;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN); // write() then fails with EFBIG instead of killing us
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &low), 0);
  std::string m = messageOf<CheckpointError>([&] { saveCheckpoint(path(), big); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_CONTAINS(m, "cannot save checkpoint " + path() + ": write ");
  EXPECT_CONTAINS(m, "is unchanged");
  expectIntact(0.5f);
}

TEST_F(CheckpointFile, SaveIntoReadOnlyFolder) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root ignores folder permissions (FailedSaveLeavesThePreviousCheckpoint covers it)";
  saveCheckpoint(path(), sample(0.5f));
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  std::string m = messageOf<CheckpointError>([&] { saveCheckpoint(path(), sample(1.5f)); });
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
  EXPECT_CONTAINS(m, "cannot create");
  expectIntact(0.5f);
}

TEST_F(CheckpointFile, SaveIntoMissingFolder) {
  std::string p = dir / "no/such/folder/model.ckpt";
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { saveCheckpoint(p, sample()); }), "cannot save checkpoint " + p);
}

TEST(CheckpointShape, String) {
  EXPECT_EQ(shapeString({}), "[]");
  EXPECT_EQ(shapeString({32, 1, 3, 3}), "[32, 1, 3, 3]");
}

// What saveCheckpoint must never replace: a non-empty file without the magic (notes, an idx data
// file), a folder. The refusal names the file; the file is unchanged.
TEST_F(CheckpointFile, RefusesToOverwriteAFileThatIsNotACheckpoint) {
  const std::string text = "my notes\n";
  const std::vector<uint8_t> idxLabels = {0, 0, 8, 1, 0, 0, 0, 2, 3, 7};
  for (const std::vector<uint8_t> &content : {std::vector<uint8_t>(text.begin(), text.end()), idxLabels}) {
    writeBytes(path(), content);
    for (auto attempt : {+[](const std::string &p) { saveCheckpoint(p, sample()); },
                         +[](const std::string &p) { checkCheckpointTarget(p); }}) {
      std::string m = messageOf<CheckpointError>([&] { attempt(path()); });
      EXPECT_CONTAINS(m, "refusing to overwrite " + path() + ": it is not a tile checkpoint (" +
                             std::to_string(content.size()) + " bytes without the TILECKPT magic)");
      EXPECT_EQ(readBytes(path()), content);
      EXPECT_EQ(filesIn(dir.path()), std::vector<std::string>{"model.ckpt"}) << "a temp file left behind";
    }
  }
}

TEST_F(CheckpointFile, RefusesAFolder) {
  std::filesystem::create_directory(path());
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { checkCheckpointTarget(path()); }),
                  "cannot save checkpoint " + path() + ": it is a folder");
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { saveCheckpoint(path(), sample()); }),
                  "cannot save checkpoint " + path() + ": it is a folder");
  EXPECT_TRUE(std::filesystem::is_directory(path()));
}

// An empty file and a checkpoint (even a damaged one) are what a run replaces.
TEST_F(CheckpointFile, ReplacesAnEmptyFileOrACheckpoint) {
  writeBytes(path(), {});
  EXPECT_NO_THROW(checkCheckpointTarget(path()));
  saveCheckpoint(path(), sample(0.5f));
  std::vector<uint8_t> damaged = readBytes(path());
  damaged.resize(damaged.size() / 2);
  writeBytes(path(), damaged);
  EXPECT_NO_THROW(checkCheckpointTarget(path()));
  saveCheckpoint(path(), sample(1.5f));
  expectIntact(1.5f);
}

// checkCheckpointTarget answers before training and leaves nothing behind.
TEST_F(CheckpointFile, TargetCheckChangesNothing) {
  EXPECT_NO_THROW(checkCheckpointTarget(path()));
  EXPECT_TRUE(filesIn(dir.path()).empty());
  saveCheckpoint(path(), sample(0.5f));
  EXPECT_NO_THROW(checkCheckpointTarget(path()));
  expectIntact(0.5f);
}

TEST_F(CheckpointFile, TargetCheckMissingFolder) {
  std::string p = dir / "no/such/model.ckpt";
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { checkCheckpointTarget(p); }),
                  "cannot save checkpoint " + p + ": folder " + dir / "no/such" + ": No such file or directory");
  writeBytes(dir / "plain", {1});
  p = dir / "plain/model.ckpt";
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { checkCheckpointTarget(p); }), "is not a folder");
}

TEST_F(CheckpointFile, TargetCheckReadOnlyFolder) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions (TargetCheckTempFileBlocked covers it)";
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  std::string m = messageOf<CheckpointError>([&] { checkCheckpointTarget(path()); });
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
  EXPECT_CONTAINS(m, "cannot save checkpoint " + path() + ": cannot create " + path() + ".tmp.");
  EXPECT_CONTAINS(m, "Permission denied");
}

// The temp file the save would create cannot be (a folder sits at its name): works for root too.
TEST_F(CheckpointFile, TargetCheckTempFileBlocked) {
  std::string tmp = path() + ".tmp." + std::to_string(::getpid());
  std::filesystem::create_directory(tmp);
  EXPECT_CONTAINS(messageOf<CheckpointError>([&] { checkCheckpointTarget(path()); }), "cannot create " + tmp);
}

// A writer killed mid-save leaves <path>.tmp.<pid>; the next save removes it when that process is
// gone, and nothing else: not a live process's file, not another checkpoint's, not a look-alike.
TEST_F(CheckpointFile, TempFilesOfDeadWritersAreRemoved) {
  const std::string dead = std::to_string(deadPid());
  const std::vector<std::string> kept = {"model.ckpt.tmp." + std::to_string(::getppid()), // alive
                                         "model.ckpt.tmp.1",                              // init: alive (EPERM)
                                         "model.ckpt.tmp." + dead + "x", "other.ckpt.tmp." + dead};
  for (const std::string &name : kept) writeBytes(dir / name, {1, 2, 3});
  writeBytes(dir / ("model.ckpt.tmp." + dead), {1, 2, 3});
  std::filesystem::create_directory(dir / ("model.ckpt.tmp." + std::to_string(deadPid()))); // not a file: stays
  EXPECT_EQ(removeStaleTemporaries(path()), 1);
  EXPECT_FALSE(std::filesystem::exists(dir / ("model.ckpt.tmp." + dead)));
  for (const std::string &name : kept) EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;

  writeBytes(dir / ("model.ckpt.tmp." + dead), {1, 2, 3});
  saveCheckpoint(path(), sample());
  EXPECT_FALSE(std::filesystem::exists(dir / ("model.ckpt.tmp." + dead))) << "the save cleans up first";
  for (const std::string &name : kept) EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;
}
