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
  std::vector<int64_t> shape; // data.size() == product of shape (1 for rank 0)
  std::vector<float> data;
};

struct TrainState {
  int64_t epoch = 0; // epochs completed
  int64_t step = 0;  // optimizer steps completed in total
  uint64_t seed = 0;
  double learningRate = 0.0;
  // What the run trained on; a resume must match (Train.cpp). "" and 0 in a version-1 file,
  // which did not record them.
  std::string dataset; // "mnist" / "fashion" (datasetName)
  int64_t batchSize = 0;
};

struct Checkpoint {
  std::string architecture; // e.g. "mnist-cnn-v1"
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
// Never replaces anything but a tile checkpoint or an empty file: a folder, a non-empty file
// without the magic (notes, an idx data file) is refused with CheckpointError. Removes the temp
// files of dead writers first (removeStaleTemporaries). Throws CheckpointError as well for an
// inconsistent checkpoint (shape vs data size, duplicate name).
void saveCheckpoint(const std::string &path, const Checkpoint &ckpt);

// What saveCheckpoint(path) would refuse or fail at, checked before hours of training go into
// it: the refusals above, a missing folder, and a folder where the temp file cannot be created
// (tried: created and removed again, so permissions, read-only mounts and root are all
// answered truthfully). Throws CheckpointError (one line naming the file); changes nothing.
void checkCheckpointTarget(const std::string &path);

// Removes <path>.tmp.<pid> files (regular files only) whose writer is gone: kill(pid, 0) fails
// with ESRCH. A live writer's file (or another user's: EPERM) stays. Returns how many went.
int removeStaleTemporaries(const std::string &path);

// Reads and verifies the file (magic, version, size, checksum, structure). Throws CheckpointError
// for a missing, truncated, foreign, unsupported-version or corrupt file. Reads versions 1 and 2
// (version 1: state.dataset "" and state.batchSize 0, not recorded).
Checkpoint loadCheckpoint(const std::string &path);

// As above, then checks the architecture and that the file holds exactly the tensors `expected`
// (by name, any order, same shapes); the result's tensors are in the order of `expected`.
Checkpoint loadCheckpoint(const std::string &path, const std::string &architecture,
                          const std::vector<TensorSpec> &expected);

// "[32, 1, 3, 3]", as used in messages.
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace tile::models
