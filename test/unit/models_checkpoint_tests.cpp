// Checkpoints: round trip, every kind of damage detected, failed saves leave the previous file intact.
#include "models_test_util.h"
#include "tile/models/Checkpoint.h"

#include <sys/resource.h>
#include <unistd.h>

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
  c.state = {2, 1876, 42, 0.01};
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
  c.tensors.push_back({"scale", {}, {3.0f}});  // rank 0
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
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].name, b.tensors[i].name);
    EXPECT_EQ(a.tensors[i].shape, b.tensors[i].shape);
    ASSERT_EQ(a.tensors[i].data.size(), b.tensors[i].data.size());
    EXPECT_EQ(std::memcmp(a.tensors[i].data.data(), b.tensors[i].data.data(), a.tensors[i].data.size() * 4), 0)
        << a.tensors[i].name << " differs bitwise";
  }
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

}  // namespace

TEST_F(CheckpointFile, RoundTrip) {
  saveCheckpoint(path(), sample());
  expectSame(loadCheckpoint(path()), sample());
  expectIntact(0.5f);  // also: no temp file left
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
  bytes[bytes.size() - 20] ^= 0x01;  // inside fc.weight's data
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
  bytes[8] = 2;  // version, little-endian u32 after the 8-byte magic
  writeBytes(path(), bytes);
  std::string m = loadError();
  EXPECT_CONTAINS(m, path());
  EXPECT_CONTAINS(m, "unsupported version 2 (this build reads version 1)");
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
  want.erase(want.begin() + 1);  // the model has no conv1.bias
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
  big.tensors.push_back({"big", {64, 1024}, std::vector<float>(64 * 1024, 1.0f)});  // 256 KiB
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit low = old;
  low.rlim_cur = 64 * 1024;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG instead of killing us
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &low), 0);
  std::string m = messageOf<CheckpointError>([&] { saveCheckpoint(path(), big); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_CONTAINS(m, "cannot save checkpoint " + path() + ": write ");
  EXPECT_CONTAINS(m, "is unchanged");
  expectIntact(0.5f);
}

TEST_F(CheckpointFile, SaveIntoReadOnlyFolder) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions (FailedSaveLeavesThePreviousCheckpoint covers it)";
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
