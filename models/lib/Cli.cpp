// Command-line parsing for the training program: strict numbers, one-line errors naming the flag.
#include "tile/models/Cli.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tile::models {

namespace {

[[noreturn]] void usage(const std::string &message) { throw UsageError(message + " (see --help)"); }

// Whole-string integer in [lo, hi]; std::from_chars accepts no sign '+', spaces or trailing text.
template <typename T> T parseInt(const std::string &flag, const std::string &v, T lo, T hi, const char *range) {
  T x{};
  // from_chars rejects "-1" for unsigned types as not-a-number; it is a number out of range.
  if (std::is_unsigned_v<T> && v.size() > 1 && v[0] == '-' && isdigit(static_cast<unsigned char>(v[1])))
    usage(flag + " " + v + " is out of range (want " + range + ")");
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc::result_out_of_range) usage(flag + " " + v + " is out of range (want " + range + ")");
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) usage(flag + " wants an integer, got '" + v + "'");
  if (x < lo || x > hi) usage(flag + " " + v + " is out of range (want " + range + ")");
  return x;
}

double parseLr(const std::string &flag, const std::string &v) {
  double x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc::result_out_of_range) usage(flag + " " + v + " is out of range (want a finite number > 0)");
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) usage(flag + " wants a number, got '" + v + "'");
  if (!std::isfinite(x) || !(x > 0)) usage(flag + " " + v + " is out of range (want a finite number > 0)");
  return x;
}

} // namespace

const char *datasetDirName(DatasetKind d) { return d == DatasetKind::Fashion ? "fashion-mnist" : "mnist"; }
const char *datasetName(DatasetKind d) { return d == DatasetKind::Fashion ? "fashion" : "mnist"; }
const char *executorName(ExecutorChoice e) {
  switch (e) {
  case ExecutorChoice::Gpu: return "gpu";
  case ExecutorChoice::Cpu: return "cpu";
  default: return "auto";
  }
}

const char *precisionName(PrecisionChoice p) {
  switch (p) {
  case PrecisionChoice::Tf32: return "tf32";
  case PrecisionChoice::F32: return "f32";
  default: return "auto";
  }
}

std::string trainUsage(const std::string &program) {
  return "usage: " + program +
         " [options]\n"
         "Trains the MNIST CNN of docs/models.md (plain SGD) and reports test accuracy.\n"
         "  --epochs N              epochs to train (default 1)\n"
         "  --batch-size N          images per step (default 64)\n"
         "  --lr X                  learning rate (default 0.01)\n"
         "  --seed N                seed of initialisation and shuffling (default 0)\n"
         "  --dataset mnist|fashion MNIST or Fashion-MNIST (default mnist)\n"
         "  --data-dir DIR          folder of the idx files (default <repo>/.data/mnist or .data/fashion-mnist)\n"
         "  --executor auto|gpu|cpu where the kernels run (default auto: the GPU when there is one)\n"
         "  --precision auto|tf32|f32\n"
         "                          the convolutions' and fc1's products: TF32 tensor cores or exact f32 (default\n"
         "                          auto: tf32 on a GPU with tensor cores, as PyTorch's cuDNN convolutions; f32\n"
         "                          elsewhere)\n"
         "  --checkpoint FILE       save a checkpoint to FILE after each epoch and on the first Ctrl-C (a second\n"
         "                          one quits at once); never over a file that is not a checkpoint\n"
         "  --resume FILE           continue from the checkpoint in FILE (same --dataset and --batch-size)\n"
         "  --max-steps N           stop after N steps in all (default 0: whole epochs)\n"
         "  --quiet                 no progress display\n"
         "  --no-graph              launch each step kernel by kernel (default: the step replayed as one CUDA graph)\n"
         "  --profile               print the time of each kernel of one step (the second; CUDA events on the GPU)\n"
         "  --help, -h              this text\n"
         "Values go as --flag value or --flag=value.\n";
}

TrainOptions parseTrainOptions(int argc, char **argv, const std::string &dataRoot) {
  TrainOptions o;
  bool dataDirGiven = false;
  constexpr int64_t kMax = INT64_MAX;
  // Each flag with a value, and what to do with it.
  const std::pair<const char *, std::function<void(const std::string &, const std::string &)>> valued[] = {
      {"--epochs", [&](auto &f, auto &v) { o.epochs = parseInt<int64_t>(f, v, 1, kMax, ">= 1"); }},
      {"--batch-size", [&](auto &f, auto &v) { o.batchSize = parseInt<int64_t>(f, v, 1, kMax, ">= 1"); }},
      {"--lr", [&](auto &f, auto &v) { o.lr = parseLr(f, v); }},
      {"--seed", [&](auto &f, auto &v) { o.seed = parseInt<uint64_t>(f, v, 0, UINT64_MAX, "0..2^64-1"); }},
      {"--max-steps", [&](auto &f, auto &v) { o.maxSteps = parseInt<int64_t>(f, v, 0, kMax, ">= 0"); }},
      {"--data-dir",
       [&](auto &f, auto &v) {
         if (v.empty()) usage(f + " wants a folder, got ''");
         o.dataDir = v;
         dataDirGiven = true;
       }},
      {"--dataset",
       [&](auto &f, auto &v) {
         if (v == "mnist") o.dataset = DatasetKind::Mnist;
         else if (v == "fashion") o.dataset = DatasetKind::Fashion;
         else usage(f + " wants mnist or fashion, got '" + v + "'");
       }},
      {"--executor",
       [&](auto &f, auto &v) {
         if (v == "auto") o.executor = ExecutorChoice::Auto;
         else if (v == "gpu") o.executor = ExecutorChoice::Gpu;
         else if (v == "cpu") o.executor = ExecutorChoice::Cpu;
         else usage(f + " wants auto, gpu or cpu, got '" + v + "'");
       }},
      {"--precision",
       [&](auto &f, auto &v) {
         if (v == "auto") o.precision = PrecisionChoice::Auto;
         else if (v == "tf32") o.precision = PrecisionChoice::Tf32;
         else if (v == "f32") o.precision = PrecisionChoice::F32;
         else usage(f + " wants auto, tf32 or f32, got '" + v + "'");
       }},
      {"--checkpoint",
       [&](auto &f, auto &v) {
         if (v.empty()) usage(f + " wants a file name, got ''");
         o.checkpoint = v;
       }},
      {"--resume",
       [&](auto &f, auto &v) {
         if (v.empty()) usage(f + " wants a file name, got ''");
         o.resume = v;
       }},
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string flag = arg, value;
    bool inlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inlineValue = true;
      }
    } else {
      if (arg == "-h") {
        o.help = true;
        return o;
      }
      usage("unexpected argument '" + arg + "'");
    }
    if (flag == "--help" || flag == "--quiet" || flag == "--no-graph" || flag == "--profile") {
      if (inlineValue) usage(flag + " takes no value");
      if (flag == "--help") {
        o.help = true;
        return o;
      }
      if (flag == "--quiet") o.quiet = true;
      else if (flag == "--no-graph") o.graph = false;
      else o.profile = true;
      continue;
    }
    auto it = std::find_if(std::begin(valued), std::end(valued), [&](auto &p) { return flag == p.first; });
    if (it == std::end(valued)) usage("unknown flag " + flag);
    if (!inlineValue) {
      // The next argument is the value, even one starting with '-' only if it is not a flag ("--lr -1"
      // then reports -1 as out of range rather than a missing value).
      if (i + 1 >= argc || std::string_view(argv[i + 1]).rfind("--", 0) == 0) usage(flag + " is missing its value");
      value = argv[++i];
    }
    it->second(flag, value);
  }
  if (!dataDirGiven) o.dataDir = dataRoot + "/" + datasetDirName(o.dataset);
  return o;
}

void checkBatchSize(int64_t batch, int64_t datasetSize) {
  if (batch > datasetSize)
    throw UsageError("--batch-size " + std::to_string(batch) + " is larger than the " + std::to_string(datasetSize) +
                     " training images");
}

} // namespace tile::models
