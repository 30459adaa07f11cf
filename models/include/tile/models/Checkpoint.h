// Training checkpoints: named float32 tensors + architecture + training state, checksummed,
// saved atomically (an interrupted save never destroys the previous checkpoint).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tile::models {

// A checkpoint that cannot be saved or loaded. One line naming the file and the problem.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;  // data.size() == product of shape (1 for rank 0)
  std::vector<float> data;
};

struct TrainState {
  int64_t epoch = 0;          // epochs completed
  int64_t step = 0;           // optimizer steps completed in total
  uint64_t seed = 0;
  double learningRate = 0.0;
};

struct Checkpoint {
  std::string architecture;  // e.g. "mnist-cnn-v1"
  TrainState state;
  std::vector<NamedTensor> tensors;
};

// What the caller's model holds; loadCheckpoint checks the file against it.
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
};

// Writes <path>.tmp.<pid>, fsyncs it, renames it over <path>, fsyncs the directory. On failure
// the temp file is removed, <path> is untouched and CheckpointError says which step failed.
// Throws CheckpointError as well for an inconsistent checkpoint (shape vs data size, duplicate name).
void saveCheckpoint(const std::string &path, const Checkpoint &ckpt);

// Reads and verifies the file (magic, version, size, checksum, structure). Throws CheckpointError
// for a missing, truncated, foreign, unsupported-version or corrupt file.
Checkpoint loadCheckpoint(const std::string &path);

// As above, then checks the architecture and that the file holds exactly the tensors `expected`
// (by name, any order, same shapes); the result's tensors are in the order of `expected`.
Checkpoint loadCheckpoint(const std::string &path, const std::string &architecture,
                          const std::vector<TensorSpec> &expected);

// "[32, 1, 3, 3]", as used in messages.
std::string shapeString(const std::vector<int64_t> &shape);

}  // namespace tile::models
