// MNIST / Fashion-MNIST in the idx format: loading, validation and input normalisation.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tile::models {

// Any bad data file. The message is one line naming the file and the problem.
class DataError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline constexpr int64_t kImageRows = 28;
inline constexpr int64_t kImageCols = 28;
inline constexpr int64_t kImagePixels = kImageRows * kImageCols; // 784
inline constexpr int kNumClasses = 10;

// Input normalisation of docs/models.md: x/255, then (x - mean)/std. These are MNIST's
// statistics; the same constants are used for Fashion-MNIST too (as the PyTorch reference does).
inline constexpr float kNormMean = 0.1307f;
inline constexpr float kNormStd = 0.3081f;

// A whole split, kept as raw bytes: image i is images[i*784 .. i*784+784) (row-major 28x28).
struct Dataset {
  int64_t size = 0;            // number of images (== labels.size())
  std::vector<uint8_t> images; // size * 784
  std::vector<uint8_t> labels; // size, each in 0..9
};

// An idx3 image file (magic 0x00000803, big-endian n, rows, cols, then n*rows*cols bytes).
// Images must be 28x28 and there must be at least one. Throws DataError.
struct IdxImages {
  int64_t count = 0;
  std::vector<uint8_t> pixels; // count * 784
};
IdxImages loadIdxImages(const std::string &path);

// An idx1 label file (magic 0x00000801, big-endian n, then n bytes), every label in 0..9.
std::vector<uint8_t> loadIdxLabels(const std::string &path);

// split "train": <dir>/train-images-idx3-ubyte + train-labels-idx1-ubyte; "test": t10k-*.
// Only the unpacked names are read (the set-up scripts gunzip). Throws DataError; never returns
// a partial dataset.
Dataset loadDataset(const std::string &dir, const std::string &split);

// out[i] = (pixels[i]/255 - kNormMean)/kNormStd; out.size() must equal pixels.size().
void normalize(std::span<const uint8_t> pixels, std::span<float> out);

// Gathers the samples `indices` of `ds` into a batch: images (indices.size()*784 floats,
// normalised) and labels (indices.size()). Throws std::out_of_range on a bad index or size.
void gatherBatch(const Dataset &ds, std::span<const int64_t> indices, std::span<float> images,
                 std::span<int32_t> labels);

} // namespace tile::models
