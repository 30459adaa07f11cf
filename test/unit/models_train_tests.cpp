// runTraining's handling of --checkpoint, --resume, --max-steps and Ctrl-C, over a launcher that
// runs nothing (the model's memory stays zero: every loss is 0, finite) on a tiny idx dataset:
// the loop, the checks and the files are real, a "step" costs microseconds. The numbers the
// kernels compute are checked elsewhere (cpu_mnist_model_tests.cpp).
#include "models_test_util.h"
#include "tile/models/Checkpoint.h"
#include "tile/models/Interrupt.h"
#include "tile/models/Train.h"

#include <signal.h>

#include <cstring>
#include <filesystem>
#include <sstream>

using namespace tile;
using namespace tile::models;
using namespace tile::models::testing;

namespace {

// Counts launches and SGD updates (one per step); raises `signal` from inside update number
// `raiseAtUpdate` (0: never), as a Ctrl-C in the middle of a step would arrive.
class NullLauncher : public kernels::Launcher {
public:
  void launch(const char *kernelName, const Specialization &, rt::Dim3, void **, CUstream) override {
    ++launches;
    if (std::strcmp(kernelName, "sgd_update") == 0 && ++updates == raiseAtUpdate) ::raise(signal);
  }
  bool hostMemory() const override { return true; }
  int launches = 0, updates = 0, raiseAtUpdate = 0, signal = SIGINT;
};

void putBE32(std::vector<uint8_t> &v, uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(x >> s));
}

// <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte with nTrain and nTest images.
void writeDataset(const std::string &dir, uint32_t nTrain, uint32_t nTest) {
  std::filesystem::create_directories(dir);
  for (auto [prefix, n] : {std::pair{"train", nTrain}, std::pair{"t10k", nTest}}) {
    std::vector<uint8_t> images, labels;
    putBE32(images, 0x803), putBE32(images, n), putBE32(images, 28), putBE32(images, 28);
    for (uint32_t i = 0; i < n * 784; ++i) images.push_back(uint8_t(i * 7));
    putBE32(labels, 0x801), putBE32(labels, n);
    for (uint32_t i = 0; i < n; ++i) labels.push_back(uint8_t(i % 10));
    writeBytes(dir + "/" + prefix + "-images-idx3-ubyte", images);
    writeBytes(dir + "/" + prefix + "-labels-idx1-ubyte", labels);
  }
}

class Training : public ::testing::Test {
protected:
  // 7 training images in batches of 2: 4 steps per epoch (the last one ragged).
  void SetUp() override {
    writeDataset(data(), 7, 3);
    o.dataDir = data();
    o.batchSize = 2;
    o.quiet = true;
    o.checkpoint = ckpt();
  }
  std::string data() const { return dir / "data"; }
  std::string ckpt() const { return dir / "run.ckpt"; }
  int train(const TrainOptions &options, NullLauncher &l) {
    out.str("");
    return runTraining(options, l, "a null launcher", out);
  }
  // Trains o (a fresh launcher) and returns the checkpoint's state.
  TrainState trainAndLoad(const TrainOptions &options) {
    NullLauncher l;
    EXPECT_EQ(train(options, l), 0) << out.str();
    return loadCheckpoint(options.checkpoint).state;
  }
  TempDir dir;
  TrainOptions o;
  std::ostringstream out;
};

} // namespace

TEST_F(Training, CheckpointRecordsTheRun) {
  o.dataset = DatasetKind::Fashion; // a name only: the data is what --data-dir holds
  TrainState s = trainAndLoad(o);
  EXPECT_EQ(s.epoch, 1);
  EXPECT_EQ(s.step, 4);
  EXPECT_EQ(s.dataset, "fashion");
  EXPECT_EQ(s.batchSize, 2);
}

// A --checkpoint that names a file that is not a checkpoint (notes, the training data) is refused
// before anything trains, and the file survives.
TEST_F(Training, RefusesToOverwriteAFileThatIsNotACheckpointBeforeTraining) {
  const std::string notes = dir / "notes.txt";
  writeBytes(notes, {'h', 'i', '\n'});
  for (const std::string &target : {notes, data() + "/train-labels-idx1-ubyte"}) {
    const std::vector<uint8_t> before = readBytes(target);
    o.checkpoint = target;
    NullLauncher l;
    EXPECT_CONTAINS(messageOf<CheckpointError>([&] { train(o, l); }),
                    "refusing to overwrite " + target + ": it is not a tile checkpoint");
    EXPECT_EQ(l.launches, 0) << "trained before refusing";
    EXPECT_EQ(readBytes(target), before);
  }
}

// A checkpoint that cannot be written fails before the first step, not after the epoch.
TEST_F(Training, UnwritableCheckpointFailsBeforeTraining) {
  for (const std::string &target : {dir / "no/such/folder/run.ckpt", dir.path()}) {
    o.checkpoint = target;
    NullLauncher l;
    EXPECT_CONTAINS(messageOf<CheckpointError>([&] { train(o, l); }), "cannot save checkpoint " + target);
    EXPECT_EQ(l.launches, 0) << target << ": trained before failing";
  }
}

TEST_F(Training, ResumeOnAnotherDatasetIsRefused) {
  trainAndLoad(o);
  TrainOptions r = o;
  r.resume = ckpt();
  r.epochs = 2;
  r.dataset = DatasetKind::Fashion;
  NullLauncher l;
  EXPECT_CONTAINS(messageOf<TrainError>([&] { train(r, l); }),
                  ckpt() + ": the checkpoint was trained on --dataset mnist, this run asks for --dataset fashion");
  EXPECT_EQ(l.updates, 0);
}

// Batches of 3 make 3 steps per epoch: the checkpoint's 4 steps after 1 epoch fit that count too,
// so only the recorded batch size tells.
TEST_F(Training, ResumeWithAnotherBatchSizeIsRefused) {
  trainAndLoad(o);
  TrainOptions r = o;
  r.resume = ckpt();
  r.epochs = 2;
  r.batchSize = 3;
  NullLauncher l;
  EXPECT_CONTAINS(messageOf<TrainError>([&] { train(r, l); }),
                  ckpt() + ": the checkpoint was trained with --batch-size 2, this run asks for --batch-size 3");
  EXPECT_EQ(l.updates, 0);
}

TEST_F(Training, ResumeContinuesWhereItStopped) {
  o.maxSteps = 3;
  EXPECT_EQ(trainAndLoad(o).step, 3);
  TrainOptions r = o;
  r.resume = ckpt();
  r.maxSteps = 0;
  r.epochs = 2;
  NullLauncher l;
  ASSERT_EQ(train(r, l), 0) << out.str();
  EXPECT_EQ(l.updates, 5) << "the rest of epoch 1 and all of epoch 2";
  TrainState s = loadCheckpoint(ckpt()).state;
  EXPECT_EQ(s.epoch, 2);
  EXPECT_EQ(s.step, 8);
}

// --max-steps at or below the checkpoint's step: nothing to train, said so, the file untouched.
TEST_F(Training, MaxStepsBelowTheCheckpointsStepTrainsNothing) {
  o.maxSteps = 3;
  trainAndLoad(o);
  const std::vector<uint8_t> before = readBytes(ckpt());
  TrainOptions r = o;
  r.resume = ckpt();
  for (int64_t maxSteps : {2, 3}) {
    r.maxSteps = maxSteps;
    NullLauncher l;
    ASSERT_EQ(train(r, l), 0) << out.str();
    EXPECT_CONTAINS(out.str(), "the checkpoint has 3 step(s) already; --max-steps " + std::to_string(maxSteps) +
                                   ": nothing to train");
    EXPECT_EQ(out.str().find("test accuracy"), std::string::npos) << out.str();
    EXPECT_EQ(l.updates, 0);
    EXPECT_EQ(readBytes(ckpt()), before);
  }
}

// The first SIGINT (during step 2) stops the run at the next step boundary: the checkpoint holds
// step 2, one line says so, the return is 130. Resuming trains the rest of the epoch.
TEST_F(Training, SigintSavesAtTheNextStepBoundary) {
  o.epochs = 2;
  NullLauncher l;
  l.raiseAtUpdate = 2;
  {
    InterruptHandlers handlers;
    EXPECT_EQ(train(o, l), 130) << out.str();
  }
  EXPECT_EQ(l.updates, 2) << "trained on after the signal";
  EXPECT_CONTAINS(out.str(), "interrupted by SIGINT after step 2: checkpoint saved to " + ckpt() + " (--resume " +
                                 ckpt() + " continues)\n");
  TrainState s = loadCheckpoint(ckpt()).state;
  EXPECT_EQ(s.epoch, 0);
  EXPECT_EQ(s.step, 2);

  TrainOptions r = o;
  r.resume = ckpt();
  r.epochs = 1;
  NullLauncher rest;
  ASSERT_EQ(train(r, rest), 0) << out.str();
  EXPECT_EQ(rest.updates, 2);
  EXPECT_EQ(loadCheckpoint(ckpt()).state.step, 4);
}

TEST_F(Training, SigtermWithoutCheckpointSaysNothingWasSaved) {
  o.checkpoint = "";
  NullLauncher l;
  l.raiseAtUpdate = 1;
  l.signal = SIGTERM;
  InterruptHandlers handlers;
  EXPECT_EQ(train(o, l), 128 + SIGTERM);
  EXPECT_EQ(l.updates, 1);
  EXPECT_CONTAINS(out.str(), "interrupted by SIGTERM after step 1: no --checkpoint, nothing saved\n");
  EXPECT_TRUE(filesIn(dir.path()) == std::vector<std::string>{"data"});
}

// The second signal does not wait for a step boundary: the default action, at once.
TEST(Interrupt, SecondSignalEndsTheProcess) {
  EXPECT_EXIT(
      {
        InterruptHandlers handlers;
        ::raise(SIGINT);
        if (interruptSignal() != SIGINT) std::_Exit(3); // the first one only recorded itself
        ::raise(SIGTERM);
        std::_Exit(4);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

// The handlers live as long as the object: the process's own dispositions come back, the record
// is cleared; an ignored signal stays ignored.
TEST(Interrupt, HandlersAreScopedAndKeepIgnoredSignals) {
  auto handlerOf = [](int sig) {
    struct sigaction sa{};
    sigaction(sig, nullptr, &sa);
    return sa.sa_handler;
  };
  auto oldTerm = ::signal(SIGTERM, SIG_IGN);
  const auto before = handlerOf(SIGINT);
  {
    InterruptHandlers handlers;
    EXPECT_NE(handlerOf(SIGINT), before);
    EXPECT_EQ(handlerOf(SIGTERM), SIG_IGN);
    EXPECT_THROW(InterruptHandlers second, std::logic_error);
    ::raise(SIGINT);
    EXPECT_EQ(interruptSignal(), SIGINT);
  }
  EXPECT_EQ(interruptSignal(), 0);
  EXPECT_EQ(handlerOf(SIGINT), before);
  EXPECT_EQ(handlerOf(SIGTERM), SIG_IGN);
  ::signal(SIGTERM, oldTerm);
}
