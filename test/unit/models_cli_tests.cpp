// Training CLI options: every flag in both spellings, every error.
#include "models_test_util.h"
#include "tile/models/Cli.h"

#include <cmath>
#include <initializer_list>

using namespace tile::models;
using namespace tile::models::testing;

namespace {

const std::string kRoot = "/repo/.data";

TrainOptions parse(std::initializer_list<const char *> args) {
  std::vector<std::string> store = {"train"};
  store.insert(store.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &s : store) argv.push_back(s.data());
  argv.push_back(nullptr);
  return parseTrainOptions(static_cast<int>(store.size()), argv.data(), kRoot);
}

std::string error(std::initializer_list<const char *> args) {
  return messageOf<UsageError>([&] { parse(args); });
}

} // namespace

TEST(Cli, Defaults) {
  TrainOptions o = parse({});
  EXPECT_EQ(o.epochs, 1);
  EXPECT_EQ(o.batchSize, 64);
  EXPECT_EQ(o.lr, 0.01);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.dataDir, "/repo/.data/mnist");
  EXPECT_EQ(o.dataset, DatasetKind::Mnist);
  EXPECT_EQ(o.executor, ExecutorChoice::Auto);
  EXPECT_EQ(o.precision, PrecisionChoice::Auto);
  EXPECT_EQ(o.checkpoint, "");
  EXPECT_EQ(o.resume, "");
  EXPECT_EQ(o.maxSteps, 0);
  EXPECT_FALSE(o.quiet);
  EXPECT_TRUE(o.graph);
  EXPECT_FALSE(o.profile);
  EXPECT_FALSE(o.help);
}

TEST(Cli, EveryFlagSeparateValue) {
  TrainOptions o = parse({"--epochs",     "3",      "--batch-size", "1024",
                          "--lr",         "2.5e-2", "--seed",       "18446744073709551615",
                          "--data-dir",   "/d",     "--dataset",    "fashion",
                          "--executor",   "cpu",    "--precision",  "f32",
                          "--checkpoint", "a.ckpt", "--resume",     "b.ckpt",
                          "--max-steps",  "20",     "--quiet",      "--no-graph",
                          "--profile"});
  EXPECT_EQ(o.epochs, 3);
  EXPECT_EQ(o.batchSize, 1024);
  EXPECT_EQ(o.lr, 0.025);
  EXPECT_EQ(o.seed, 18446744073709551615ull);
  EXPECT_EQ(o.dataDir, "/d");
  EXPECT_EQ(o.dataset, DatasetKind::Fashion);
  EXPECT_EQ(o.executor, ExecutorChoice::Cpu);
  EXPECT_EQ(o.precision, PrecisionChoice::F32);
  EXPECT_EQ(o.checkpoint, "a.ckpt");
  EXPECT_EQ(o.resume, "b.ckpt");
  EXPECT_EQ(o.maxSteps, 20);
  EXPECT_TRUE(o.quiet);
  EXPECT_FALSE(o.graph);
  EXPECT_TRUE(o.profile);
}

TEST(Cli, EveryFlagWithEquals) {
  TrainOptions o =
      parse({"--epochs=2", "--batch-size=1", "--lr=0.5", "--seed=7", "--data-dir=/x/y", "--dataset=mnist",
             "--executor=gpu", "--precision=tf32", "--checkpoint=c=1.ckpt", "--resume=r.ckpt", "--max-steps=0"});
  EXPECT_EQ(o.epochs, 2);
  EXPECT_EQ(o.batchSize, 1);
  EXPECT_EQ(o.lr, 0.5);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.dataDir, "/x/y");
  EXPECT_EQ(o.dataset, DatasetKind::Mnist);
  EXPECT_EQ(o.executor, ExecutorChoice::Gpu);
  EXPECT_EQ(o.precision, PrecisionChoice::Tf32);
  EXPECT_EQ(o.checkpoint, "c=1.ckpt"); // only the first '=' splits
  EXPECT_EQ(o.resume, "r.ckpt");
  EXPECT_EQ(o.maxSteps, 0);
}

TEST(Cli, DefaultDataDirFollowsTheDataset) {
  EXPECT_EQ(parse({"--dataset", "fashion"}).dataDir, "/repo/.data/fashion-mnist");
  EXPECT_EQ(parse({"--dataset", "fashion", "--data-dir", "/mine"}).dataDir, "/mine");
  EXPECT_EQ(parse({"--data-dir", "/mine", "--dataset", "fashion"}).dataDir, "/mine");
}

TEST(Cli, ExecutorChoices) {
  EXPECT_EQ(parse({"--executor", "auto"}).executor, ExecutorChoice::Auto);
  EXPECT_EQ(parse({"--executor", "gpu"}).executor, ExecutorChoice::Gpu);
  EXPECT_EQ(parse({"--executor", "cpu"}).executor, ExecutorChoice::Cpu);
  EXPECT_STREQ(executorName(ExecutorChoice::Cpu), "cpu");
  EXPECT_STREQ(datasetName(DatasetKind::Fashion), "fashion");
  EXPECT_EQ(parse({"--precision", "auto"}).precision, PrecisionChoice::Auto);
  EXPECT_STREQ(precisionName(PrecisionChoice::Tf32), "tf32");
}

TEST(Cli, LastValueWins) { EXPECT_EQ(parse({"--epochs", "2", "--epochs=5"}).epochs, 5); }

TEST(Cli, Help) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"--epochs", "2", "--help", "--bogus"}).help); // help stops parsing
  std::string u = trainUsage("mnist-train");
  EXPECT_CONTAINS(u, "usage: mnist-train");
  for (const char *flag : {"--epochs", "--batch-size", "--lr", "--seed", "--data-dir", "--dataset", "--executor",
                           "--checkpoint", "--resume", "--max-steps", "--quiet", "--no-graph", "--profile", "--help"})
    EXPECT_CONTAINS(u, flag);
}

TEST(Cli, UnknownFlagAndStrayArgument) {
  EXPECT_CONTAINS(error({"--epoch", "2"}), "unknown flag --epoch");
  EXPECT_CONTAINS(error({"--bogus=1"}), "unknown flag --bogus");
  EXPECT_CONTAINS(error({"data"}), "unexpected argument 'data'");
  EXPECT_CONTAINS(error({"-q"}), "unexpected argument '-q'");
}

TEST(Cli, MissingValue) {
  for (const char *flag : {"--epochs", "--batch-size", "--lr", "--seed", "--data-dir", "--dataset", "--executor",
                           "--checkpoint", "--resume", "--max-steps"}) {
    EXPECT_CONTAINS(error({flag}), std::string(flag) + " is missing its value");
    EXPECT_CONTAINS(error({flag, "--quiet"}), std::string(flag) + " is missing its value");
  }
}

TEST(Cli, EmptyValues) {
  EXPECT_CONTAINS(error({"--epochs="}), "--epochs wants an integer, got ''");
  EXPECT_CONTAINS(error({"--data-dir="}), "--data-dir wants a folder");
  EXPECT_CONTAINS(error({"--checkpoint="}), "--checkpoint wants a file name");
  EXPECT_CONTAINS(error({"--resume="}), "--resume wants a file name");
}

TEST(Cli, FlagsWithoutValues) {
  EXPECT_CONTAINS(error({"--quiet=yes"}), "--quiet takes no value");
  EXPECT_CONTAINS(error({"--help=1"}), "--help takes no value");
  EXPECT_CONTAINS(error({"--no-graph=1"}), "--no-graph takes no value");
  EXPECT_CONTAINS(error({"--profile=yes"}), "--profile takes no value");
}

TEST(Cli, NonNumeric) {
  EXPECT_CONTAINS(error({"--epochs", "two"}), "--epochs wants an integer, got 'two'");
  EXPECT_CONTAINS(error({"--epochs", "2x"}), "--epochs wants an integer, got '2x'");
  EXPECT_CONTAINS(error({"--epochs", "1.5"}), "--epochs wants an integer, got '1.5'");
  EXPECT_CONTAINS(error({"--batch-size", " 64"}), "--batch-size wants an integer");
  EXPECT_CONTAINS(error({"--seed", "0x10"}), "--seed wants an integer, got '0x10'");
  EXPECT_CONTAINS(error({"--max-steps", "+5"}), "--max-steps wants an integer, got '+5'");
  EXPECT_CONTAINS(error({"--lr", "fast"}), "--lr wants a number, got 'fast'");
  EXPECT_CONTAINS(error({"--lr", "0.1.2"}), "--lr wants a number, got '0.1.2'");
}

TEST(Cli, OutOfRange) {
  EXPECT_CONTAINS(error({"--epochs", "0"}), "--epochs 0 is out of range (want >= 1)");
  EXPECT_CONTAINS(error({"--epochs", "-1"}), "--epochs -1 is out of range (want >= 1)");
  EXPECT_CONTAINS(error({"--epochs", "99999999999999999999"}), "--epochs 99999999999999999999 is out of range");
  EXPECT_CONTAINS(error({"--batch-size", "0"}), "--batch-size 0 is out of range (want >= 1)");
  EXPECT_CONTAINS(error({"--max-steps", "-1"}), "--max-steps -1 is out of range (want >= 0)");
  EXPECT_CONTAINS(error({"--seed", "-1"}), "--seed -1 is out of range");
  EXPECT_CONTAINS(error({"--seed", "18446744073709551616"}), "--seed 18446744073709551616 is out of range");
  EXPECT_CONTAINS(error({"--lr", "0"}), "--lr 0 is out of range (want a finite number > 0)");
  EXPECT_CONTAINS(error({"--lr", "-0.1"}), "--lr -0.1 is out of range");
  EXPECT_CONTAINS(error({"--lr", "inf"}), "--lr inf is out of range");
  EXPECT_CONTAINS(error({"--lr", "nan"}), "--lr nan is out of range");
  EXPECT_CONTAINS(error({"--lr", "1e999"}), "--lr 1e999 is out of range");
}

TEST(Cli, BadChoices) {
  EXPECT_CONTAINS(error({"--dataset", "cifar"}), "--dataset wants mnist or fashion, got 'cifar'");
  EXPECT_CONTAINS(error({"--executor=tpu"}), "--executor wants auto, gpu or cpu, got 'tpu'");
  EXPECT_CONTAINS(error({"--precision=bf16"}), "--precision wants auto, tf32 or f32, got 'bf16'");
}

TEST(Cli, ErrorsAreOneLine) {
  for (std::string m : {error({"--epochs", "0"}), error({"--bogus"}), error({"--lr"})})
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(Cli, BatchSizeAgainstTheDataset) {
  EXPECT_NO_THROW(checkBatchSize(60000, 60000));
  EXPECT_EQ(messageOf<UsageError>([] { checkBatchSize(70000, 60000); }),
            "--batch-size 70000 is larger than the 60000 training images");
}
