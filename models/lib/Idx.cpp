// idx loader: every malformed input becomes a one-line DataError naming the file.
#include "tile/models/Idx.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tile::models {

namespace {

constexpr uint32_t kImagesMagic = 0x00000803; // unsigned byte, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801; // unsigned byte, 1 dimension

[[noreturn]] void fail(const std::string &path, const std::string &problem) { throw DataError(path + ": " + problem); }

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

uint32_t bigEndian32(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

// The whole file, or a DataError saying why it cannot be read.
std::vector<uint8_t> readFile(const std::string &path) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) {
    std::string problem = "missing file";
    if (std::filesystem::exists(path + ".gz", ec)) problem += " (found " + path + ".gz: unpack it with gunzip)";
    else problem += " (scripts/fetch-mnist.sh or scripts/fetch-fashion-mnist.sh places the data)";
    fail(path, problem);
  }
  if (!std::filesystem::is_regular_file(st)) fail(path, "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(0);
  std::vector<uint8_t> data(size > 0 ? size_t(size) : 0);
  if (size < 0 || !in.read(reinterpret_cast<char *>(data.data()), std::streamsize(data.size())))
    fail(path, "read error");
  return data;
}

void checkMagic(const std::string &path, const std::vector<uint8_t> &data, uint32_t want, const char *what) {
  uint32_t found = bigEndian32(data.data());
  if (found == want) return;
  std::string problem = "wrong magic " + hex32(found) + ", expected " + hex32(want) + " (" + what + ")";
  if (data[0] == 0x1f && data[1] == 0x8b) problem += "; the file is gzip-compressed, unpack it with gunzip";
  fail(path, problem);
}

void checkHeaderSize(const std::string &path, const std::vector<uint8_t> &data, size_t header) {
  if (data.size() < header)
    fail(path,
         "truncated header: expected " + std::to_string(header) + " bytes, file has " + std::to_string(data.size()));
}

// Exactly `payload` bytes must follow the header: fewer is a truncated file, more is not idx.
void checkPayloadSize(const std::string &path, const std::vector<uint8_t> &data, size_t header, uint64_t payload,
                      const std::string &what) {
  uint64_t have = data.size() - header;
  if (have < payload)
    fail(path, "truncated: expected " + std::to_string(payload) + " bytes of " + what + " after the " +
                   std::to_string(header) + "-byte header, found " + std::to_string(have));
  if (have > payload)
    fail(path, std::to_string(have - payload) + " unexpected trailing bytes after " + std::to_string(payload) +
                   " bytes of " + what);
}

} // namespace

IdxImages loadIdxImages(const std::string &path) {
  constexpr size_t kHeader = 16;
  std::vector<uint8_t> data = readFile(path);
  // A file too short to hold the magic is reported as truncated, not as a wrong magic.
  checkHeaderSize(path, data, data.size() < 4 ? kHeader : 4);
  checkMagic(path, data, kImagesMagic, "idx3 unsigned-byte images");
  checkHeaderSize(path, data, kHeader);
  uint32_t n = bigEndian32(&data[4]), rows = bigEndian32(&data[8]), cols = bigEndian32(&data[12]);
  // Dimensions first: with 28x28 checked, n*784 cannot overflow.
  if (rows != kImageRows || cols != kImageCols)
    fail(path, "images are " + std::to_string(rows) + "x" + std::to_string(cols) + ", expected 28x28");
  if (n == 0) fail(path, "holds no images");
  uint64_t payload = uint64_t(n) * kImagePixels;
  checkPayloadSize(path, data, kHeader, payload, "pixels (" + std::to_string(n) + " images of 28x28)");
  IdxImages out;
  out.count = n;
  out.pixels.assign(data.begin() + kHeader, data.end());
  return out;
}

std::vector<uint8_t> loadIdxLabels(const std::string &path) {
  constexpr size_t kHeader = 8;
  std::vector<uint8_t> data = readFile(path);
  checkHeaderSize(path, data, data.size() < 4 ? kHeader : 4);
  checkMagic(path, data, kLabelsMagic, "idx1 unsigned-byte labels");
  checkHeaderSize(path, data, kHeader);
  uint32_t n = bigEndian32(&data[4]);
  if (n == 0) fail(path, "holds no labels");
  checkPayloadSize(path, data, kHeader, n, "labels (" + std::to_string(n) + " labels)");
  std::vector<uint8_t> labels(data.begin() + kHeader, data.end());
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] >= kNumClasses)
      fail(path, "label " + std::to_string(labels[i]) + " at index " + std::to_string(i) + " is out of range 0..9");
  return labels;
}

Dataset loadDataset(const std::string &dir, const std::string &split) {
  std::string prefix;
  if (split == "train") prefix = "train";
  else if (split == "test") prefix = "t10k";
  else throw DataError("unknown dataset split '" + split + "' (want train or test)");
  std::string imagesPath = dir + "/" + prefix + "-images-idx3-ubyte";
  std::string labelsPath = dir + "/" + prefix + "-labels-idx1-ubyte";
  IdxImages images = loadIdxImages(imagesPath);
  std::vector<uint8_t> labels = loadIdxLabels(labelsPath);
  if (static_cast<int64_t>(labels.size()) != images.count)
    throw DataError(imagesPath + " holds " + std::to_string(images.count) + " images but " + labelsPath + " holds " +
                    std::to_string(labels.size()) + " labels");
  Dataset ds;
  ds.size = images.count;
  ds.images = std::move(images.pixels);
  ds.labels = std::move(labels);
  return ds;
}

void normalize(std::span<const uint8_t> pixels, std::span<float> out) {
  if (pixels.size() != out.size())
    throw std::out_of_range("normalize: " + std::to_string(pixels.size()) + " pixels into " +
                            std::to_string(out.size()) + " floats");
  // Same arithmetic as torchvision's ToTensor() then Normalize(mean, std), in float32.
  for (size_t i = 0; i < pixels.size(); ++i) out[i] = (float(pixels[i]) / 255.0f - kNormMean) / kNormStd;
}

void gatherBatch(const Dataset &ds, std::span<const int64_t> indices, std::span<float> images,
                 std::span<int32_t> labels) {
  const size_t b = indices.size();
  if (images.size() != b * kImagePixels || labels.size() != b)
    throw std::out_of_range("gatherBatch: buffers of " + std::to_string(images.size()) + " floats and " +
                            std::to_string(labels.size()) + " labels for a batch of " + std::to_string(b));
  for (size_t i = 0; i < b; ++i) {
    int64_t s = indices[i];
    if (s < 0 || s >= ds.size)
      throw std::out_of_range("gatherBatch: sample index " + std::to_string(s) + " outside 0.." +
                              std::to_string(ds.size - 1));
    normalize(std::span(ds.images).subspan(s * kImagePixels, kImagePixels),
              images.subspan(i * kImagePixels, kImagePixels));
    labels[i] = ds.labels[s];
  }
}

} // namespace tile::models
