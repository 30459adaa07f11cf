//===- FuzzMain.cpp - a libFuzzer-compatible driver for builds without libFuzzer -===//
// The fuzz targets define LLVMFuzzerTestOneInput, so with clang they link against libFuzzer
// (-DTILE_LIBFUZZER=ON: coverage-guided). GCC has no libFuzzer: this driver stands in for it with
// the same command line (-max_total_time=, -seed=, -timeout=, -runs=, corpus directories or
// files): it replays every corpus input, then runs random mutations of them (bit flips, byte
// edits, spliced ranges, "interesting" numbers put in place of digit runs: shapes, attribute
// values) until the time is up. Not coverage-guided, so it explores less; it still catches
// crashes, hangs (-timeout, per input, by SIGALRM) and internal errors (the targets abort).
// A failing input is written to ./fuzz-failure-<pid> (or -artifact_prefix=<dir/>) first.
#include <csignal>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

// The input being run, for the signal handler (which may only use async-signal-safe calls).
const std::string *gCurrent = nullptr;
char gArtifact[4096];

void onFatalSignal(int sig) {
  const char *why = sig == SIGALRM ? "timeout" : "crash";
  if (gCurrent) {
    int fd = ::open(gArtifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, gCurrent->data(), gCurrent->size());
      ::close(fd);
    }
  }
  char msg[4300];
  int n = std::snprintf(msg, sizeof msg, "fuzz: %s (signal %d); the input is in %s\n", why, sig, gArtifact);
  (void)!::write(2, msg, size_t(n));
  std::signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  ::raise(sig == SIGALRM ? SIGABRT : sig);
}

std::vector<std::string> readCorpus(const std::vector<std::string> &paths) {
  std::vector<std::string> out;
  auto add = [&](const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    out.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  for (const std::string &p : paths) {
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (auto &e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end()); // a fixed order: a seed reproduces a run
      for (auto &f : files) add(f);
    } else if (std::filesystem::exists(p)) {
      add(p);
    }
  }
  return out;
}

class Mutator {
public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string mutate(const std::vector<std::string> &corpus) {
    std::string s = corpus[pick(corpus.size())];
    int edits = 1 + int(pick(4));
    for (int i = 0; i < edits; ++i) edit(s, corpus);
    return s;
  }

private:
  size_t pick(size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng_) : 0; }

  void edit(std::string &s, const std::vector<std::string> &corpus) {
    static const char *numbers[] = {"0",    "1",    "2",     "3",  "4",          "7",         "8",
                                    "16",   "31",   "32",    "33", "64",         "128",       "256",
                                    "1024", "4096", "65536", "-1", "2147483647", "4294967296"};
    switch (pick(7)) {
    case 0: // flip a bit
      if (!s.empty()) s[pick(s.size())] ^= char(1u << pick(8));
      break;
    case 1: // a random byte in
      s.insert(s.begin() + long(pick(s.size() + 1)), char(pick(256)));
      break;
    case 2: // a range out
      if (!s.empty()) {
        size_t at = pick(s.size());
        s.erase(at, 1 + pick(std::min<size_t>(16, s.size() - at)));
      }
      break;
    case 3: // a range of this or another input, copied in (lines of one IR into another)
    case 4: {
      const std::string &from = corpus[pick(corpus.size())];
      if (from.empty()) break;
      size_t at = pick(from.size()), len = 1 + pick(std::min<size_t>(64, from.size() - at));
      s.insert(pick(s.size() + 1), from, at, len);
      break;
    }
    default: { // a run of digits becomes an interesting number
      std::vector<size_t> starts;
      for (size_t i = 0; i < s.size(); ++i)
        if (isdigit(static_cast<unsigned char>(s[i])) && (i == 0 || !isdigit(static_cast<unsigned char>(s[i - 1]))))
          starts.push_back(i);
      if (starts.empty()) break;
      size_t at = starts[pick(starts.size())], end = at;
      while (end < s.size() && isdigit(static_cast<unsigned char>(s[end]))) ++end;
      s.replace(at, end - at, numbers[pick(sizeof numbers / sizeof *numbers)]);
      break;
    }
    }
    if (s.size() > 1 << 16) s.resize(1 << 16);
  }

  std::mt19937_64 rng_;
};

} // namespace

int main(int argc, char **argv) {
  double maxTime = 0;
  uint64_t seed = 1;
  long runs = -1;
  unsigned timeout = 60;
  std::string prefix = "./";
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char *v = value("-max_total_time=")) maxTime = std::atof(v);
    else if (const char *v = value("-seed=")) seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("-runs=")) runs = std::atol(v);
    else if (const char *v = value("-timeout=")) timeout = unsigned(std::atoi(v));
    else if (const char *v = value("-artifact_prefix=")) prefix = v;
    else if (a.size() > 1 && a[0] == '-') std::fprintf(stderr, "fuzz: ignoring libFuzzer flag %s\n", a.c_str());
    else paths.push_back(a);
  }
  std::snprintf(gArtifact, sizeof gArtifact, "%sfuzz-failure-%d", prefix.c_str(), int(getpid()));
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGALRM}) std::signal(sig, onFatalSignal);

  std::vector<std::string> corpus = readCorpus(paths);
  if (corpus.empty()) corpus.push_back("");
  auto run = [&](const std::string &input) {
    gCurrent = &input;
    ::alarm(timeout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(input.data()), input.size());
    ::alarm(0);
    gCurrent = nullptr;
  };
  auto start = std::chrono::steady_clock::now();
  for (const std::string &input : corpus) run(input);
  std::printf("fuzz: replayed %zu corpus inputs\n", corpus.size());

  Mutator mutator(seed);
  long done = 0;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while ((runs < 0 || done < runs) && (maxTime > 0 || runs >= 0) && (maxTime <= 0 || elapsed() < maxTime)) {
    run(mutator.mutate(corpus));
    ++done;
  }
  std::printf("fuzz: %ld mutated inputs in %.1f s (seed %llu), no crash, hang or internal error\n", done, elapsed(),
              static_cast<unsigned long long>(seed));
  return 0;
}
