// idx loader: a good round trip, every malformed file, the real MNIST / Fashion-MNIST when present.
#include "models_test_util.h"
#include "tile/models/Idx.h"

#include <cmath>
#include <filesystem>

using namespace tile::models;
using namespace tile::models::testing;

namespace {

void putBE32(std::vector<uint8_t> &v, uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(x >> s));
}

// An idx3 file of n images rows x cols; pixel j of image i is (i*7 + j) % 256.
std::vector<uint8_t> idx3(uint32_t n, uint32_t rows = 28, uint32_t cols = 28, uint32_t magic = 0x803) {
  std::vector<uint8_t> v;
  putBE32(v, magic);
  putBE32(v, n);
  putBE32(v, rows);
  putBE32(v, cols);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < rows * cols; ++j) v.push_back(static_cast<uint8_t>((i * 7 + j) % 256));
  return v;
}

std::vector<uint8_t> idx1(const std::vector<uint8_t> &labels, uint32_t magic = 0x801) {
  std::vector<uint8_t> v;
  putBE32(v, magic);
  putBE32(v, static_cast<uint32_t>(labels.size()));
  v.insert(v.end(), labels.begin(), labels.end());
  return v;
}

class IdxFiles : public ::testing::Test {
protected:
  void SetUp() override {
    writeBytes(images(), idx3(3));
    writeBytes(labels(), idx1({3, 0, 9}));
  }
  std::string images() const { return dir / "train-images-idx3-ubyte"; }
  std::string labels() const { return dir / "train-labels-idx1-ubyte"; }
  std::string loadError() const {
    return messageOf<DataError>([&] { loadDataset(dir.path(), "train"); });
  }
  TempDir dir;
};

} // namespace

TEST_F(IdxFiles, RoundTrip) {
  Dataset ds = loadDataset(dir.path(), "train");
  ASSERT_EQ(ds.size, 3);
  ASSERT_EQ(ds.images.size(), 3u * 784);
  EXPECT_EQ(ds.labels, (std::vector<uint8_t>{3, 0, 9}));
  std::vector<uint8_t> file = readBytes(images());
  EXPECT_TRUE(std::equal(ds.images.begin(), ds.images.end(), file.begin() + 16));
  EXPECT_EQ(ds.images[784 + 5], (7 + 5) % 256); // image 1, pixel 5
}

TEST_F(IdxFiles, TestSplitUsesT10kNames) {
  writeBytes(dir / "t10k-images-idx3-ubyte", idx3(2));
  writeBytes(dir / "t10k-labels-idx1-ubyte", idx1({7, 2}));
  Dataset ds = loadDataset(dir.path(), "test");
  EXPECT_EQ(ds.size, 2);
  EXPECT_EQ(ds.labels, (std::vector<uint8_t>{7, 2}));
}

TEST_F(IdxFiles, UnknownSplit) {
  std::string m = messageOf<DataError>([&] { loadDataset(dir.path(), "valid"); });
  EXPECT_CONTAINS(m, "unknown dataset split 'valid'");
}

TEST_F(IdxFiles, MissingFile) {
  std::filesystem::remove(labels());
  std::string m = loadError();
  EXPECT_CONTAINS(m, labels());
  EXPECT_CONTAINS(m, "missing file");
}

TEST_F(IdxFiles, MissingFileWithGzipBesideIt) {
  std::filesystem::rename(images(), images() + ".gz");
  std::string m = loadError();
  EXPECT_CONTAINS(m, images() + ": missing file");
  EXPECT_CONTAINS(m, "gunzip");
}

TEST_F(IdxFiles, NotARegularFile) {
  std::filesystem::remove(images());
  std::filesystem::create_directory(images());
  EXPECT_CONTAINS(loadError(), images() + ": not a regular file");
}

TEST_F(IdxFiles, TruncatedImageHeader) {
  std::vector<uint8_t> v = idx3(3);
  v.resize(10);
  writeBytes(images(), v);
  std::string m = loadError();
  EXPECT_CONTAINS(m, images());
  EXPECT_CONTAINS(m, "truncated header: expected 16 bytes, file has 10");
}

TEST_F(IdxFiles, EmptyFileIsTruncated) {
  writeBytes(labels(), {});
  std::string m = loadError();
  EXPECT_CONTAINS(m, labels());
  EXPECT_CONTAINS(m, "truncated header: expected 8 bytes, file has 0");
}

TEST_F(IdxFiles, TruncatedImagePayload) {
  std::vector<uint8_t> v = idx3(3);
  v.pop_back();
  writeBytes(images(), v);
  std::string m = loadError();
  EXPECT_CONTAINS(m, images());
  EXPECT_CONTAINS(m, "truncated: expected 2352 bytes");
  EXPECT_CONTAINS(m, "found 2351");
}

TEST_F(IdxFiles, TruncatedLabelPayload) {
  std::vector<uint8_t> v = idx1({3, 0, 9});
  v.pop_back();
  writeBytes(labels(), v);
  std::string m = loadError();
  EXPECT_CONTAINS(m, labels());
  EXPECT_CONTAINS(m, "truncated: expected 3 bytes");
  EXPECT_CONTAINS(m, "found 2");
}

TEST_F(IdxFiles, TrailingBytes) {
  std::vector<uint8_t> v = idx1({3, 0, 9});
  v.push_back(1);
  writeBytes(labels(), v);
  std::string m = loadError();
  EXPECT_CONTAINS(m, labels());
  EXPECT_CONTAINS(m, "1 unexpected trailing bytes");
}

TEST_F(IdxFiles, WrongImageMagic) {
  writeBytes(images(), idx3(3, 28, 28, 0x801));
  std::string m = loadError();
  EXPECT_CONTAINS(m, images());
  EXPECT_CONTAINS(m, "wrong magic 0x00000801, expected 0x00000803");
}

TEST_F(IdxFiles, WrongLabelMagic) {
  writeBytes(labels(), idx1({3, 0, 9}, 0x803));
  std::string m = loadError();
  EXPECT_CONTAINS(m, labels());
  EXPECT_CONTAINS(m, "wrong magic 0x00000803, expected 0x00000801");
}

TEST_F(IdxFiles, GzippedFileUnderTheUnpackedName) {
  std::vector<uint8_t> v = idx3(3);
  v[0] = 0x1f, v[1] = 0x8b, v[2] = 0x08, v[3] = 0x00;
  writeBytes(images(), v);
  std::string m = loadError();
  EXPECT_CONTAINS(m, "wrong magic 0x1f8b0800");
  EXPECT_CONTAINS(m, "gzip-compressed");
}

TEST_F(IdxFiles, CountMismatch) {
  writeBytes(labels(), idx1({3, 0}));
  std::string m = loadError();
  EXPECT_CONTAINS(m, images() + " holds 3 images but " + labels() + " holds 2 labels");
}

TEST_F(IdxFiles, WrongImageSize) {
  writeBytes(images(), idx3(3, 32, 32));
  std::string m = loadError();
  EXPECT_CONTAINS(m, images());
  EXPECT_CONTAINS(m, "images are 32x32, expected 28x28");
}

TEST_F(IdxFiles, HugeImageSizeIsNotAnAllocation) {
  // A header claiming 2^32-1 images of 65535x65535 must be refused from the header alone.
  std::vector<uint8_t> v;
  putBE32(v, 0x803);
  putBE32(v, 0xffffffff);
  putBE32(v, 0xffff);
  putBE32(v, 0xffff);
  writeBytes(images(), v);
  EXPECT_CONTAINS(loadError(), "images are 65535x65535, expected 28x28");
}

TEST_F(IdxFiles, NoImages) {
  writeBytes(images(), idx3(0));
  EXPECT_CONTAINS(loadError(), images() + ": holds no images");
}

TEST_F(IdxFiles, LabelOutOfRange) {
  writeBytes(labels(), idx1({3, 10, 9}));
  std::string m = loadError();
  EXPECT_CONTAINS(m, labels());
  EXPECT_CONTAINS(m, "label 10 at index 1 is out of range 0..9");
}

TEST(Normalize, MatchesTheReferenceFormula) {
  std::vector<uint8_t> px = {0, 1, 128, 255};
  std::vector<float> out(4);
  normalize(px, out);
  for (size_t i = 0; i < px.size(); ++i) {
    double want = (px[i] / 255.0 - 0.1307) / 0.3081;
    EXPECT_NEAR(out[i], want, 1e-6) << "pixel " << int(px[i]);
  }
  std::vector<float> small(3);
  EXPECT_THROW(normalize(px, small), std::out_of_range);
}

TEST_F(IdxFiles, GatherBatch) {
  Dataset ds = loadDataset(dir.path(), "train");
  std::vector<int64_t> idx = {2, 0};
  std::vector<float> images(2 * 784);
  std::vector<int32_t> labels(2);
  gatherBatch(ds, idx, images, labels);
  EXPECT_EQ(labels, (std::vector<int32_t>{9, 3}));
  for (int j : {0, 1, 783}) {
    EXPECT_FLOAT_EQ(images[j], (ds.images[2 * 784 + j] / 255.0f - kNormMean) / kNormStd);
    EXPECT_FLOAT_EQ(images[784 + j], (ds.images[j] / 255.0f - kNormMean) / kNormStd);
  }
  std::vector<int64_t> bad = {3};
  std::vector<float> one(784);
  std::vector<int32_t> oneLabel(1);
  EXPECT_THROW(gatherBatch(ds, bad, one, oneLabel), std::out_of_range);
  EXPECT_THROW(gatherBatch(ds, idx, one, labels), std::out_of_range);
}

namespace {

struct RealSet {
  const char *folder, *fetch;
  int64_t trainFirst5[5], testFirst5[5];
  int64_t trainCounts[10], testCounts[10];
};

// Facts read from the files themselves (python, independently of this loader).
const RealSet kMnist = {"mnist",
                        "scripts/fetch-mnist.sh",
                        {5, 0, 4, 1, 9},
                        {7, 2, 1, 0, 4},
                        {5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949},
                        {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}};
const RealSet kFashion = {"fashion-mnist",
                          "scripts/fetch-fashion-mnist.sh",
                          {9, 0, 0, 3, 0},
                          {9, 2, 1, 1, 6},
                          {6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000},
                          {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}};

void checkRealSet(const RealSet &set) {
  std::string dir = std::string(TILE_SOURCE_DIR) + "/.data/" + set.folder;
  if (!std::filesystem::exists(dir + "/train-images-idx3-ubyte"))
    GTEST_SKIP() << dir << " holds no data (" << set.fetch << " fetches it)";
  for (const char *split : {"train", "test"}) {
    SCOPED_TRACE(split);
    bool train = std::string(split) == "train";
    Dataset ds = loadDataset(dir, split);
    ASSERT_EQ(ds.size, train ? 60000 : 10000);
    ASSERT_EQ(ds.images.size(), static_cast<size_t>(ds.size) * 784);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(ds.labels[i], (train ? set.trainFirst5 : set.testFirst5)[i]) << "label " << i;
    int64_t counts[10] = {};
    for (uint8_t l : ds.labels) ++counts[l];
    for (int c = 0; c < 10; ++c) EXPECT_EQ(counts[c], (train ? set.trainCounts : set.testCounts)[c]) << "class " << c;
  }
}

} // namespace

TEST(RealData, Mnist) { checkRealSet(kMnist); }
TEST(RealData, FashionMnist) { checkRealSet(kFashion); }
