// Command-line options of the MNIST training program.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tile::models {

// A bad command line. One line naming the flag and the problem.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class DatasetKind { Mnist, Fashion };
enum class ExecutorChoice { Auto, Gpu, Cpu };
/// The products of the convolutions and the first linear layer: auto = TF32 tensor cores on a
/// GPU that has them (sm_80+; PyTorch's cuDNN convolutions do the same by default), exact f32
/// elsewhere.
enum class PrecisionChoice { Auto, Tf32, F32 };

struct TrainOptions {
  int64_t epochs = 1;                             // --epochs N, >= 1
  int64_t batchSize = 64;                         // --batch-size N, >= 1 (checkBatchSize compares with the data later)
  double lr = 0.01;                               // --lr X, > 0 and finite
  uint64_t seed = 0;                              // --seed N
  std::string dataDir;                            // --data-dir DIR, else <dataRoot>/<datasetDirName(dataset)>
  DatasetKind dataset = DatasetKind::Mnist;       // --dataset mnist|fashion
  ExecutorChoice executor = ExecutorChoice::Auto; // --executor auto|gpu|cpu
  PrecisionChoice precision = PrecisionChoice::Auto; // --precision auto|tf32|f32
  std::string checkpoint; // --checkpoint FILE: save after each epoch and on SIGINT/SIGTERM ("" = never)
  std::string resume;     // --resume FILE ("" = start fresh)
  int64_t maxSteps = 0;   // --max-steps N: stop after N steps in all (0 = whole epochs)
  bool quiet = false;     // --quiet
  bool graph = true;      // --no-graph: launch the step kernel by kernel instead of replaying one CUDA graph
  bool profile = false;   // --profile: print per-kernel times of one step (the second) as a table
  bool help = false;      // --help / -h: the caller prints trainUsage() and exits 0
};

// Parses argv[1..argc). Flags take `--flag value` or `--flag=value`; a repeated flag keeps the
// last value. `--help` stops parsing at once (later arguments are not checked). `dataRoot` is
// the default data folder's parent (the caller passes <repo>/.data): without --data-dir,
// dataDir = dataRoot + "/" + datasetDirName(dataset). Throws UsageError.
TrainOptions parseTrainOptions(int argc, char **argv, const std::string &dataRoot);

// The usage text printed for --help (several lines, ends in a newline).
std::string trainUsage(const std::string &program);

// "mnist" / "fashion-mnist": the folder names under .data that the fetch scripts fill.
const char *datasetDirName(DatasetKind d);
const char *datasetName(DatasetKind d);       // "mnist" / "fashion", as on the command line
const char *executorName(ExecutorChoice e);   // "auto" / "gpu" / "cpu"
const char *precisionName(PrecisionChoice p); // "auto" / "tf32" / "f32"

// Throws UsageError ("--batch-size 70000 is larger than the 60000 training images") when
// batch > datasetSize.
void checkBatchSize(int64_t batch, int64_t datasetSize);

} // namespace tile::models
