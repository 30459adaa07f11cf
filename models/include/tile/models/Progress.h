// Training progress display.
//
// On a terminal, one line redrawn in place ("\r...\x1b[K", at most every 0.1 s and at the last step):
//   epoch 1/2 [#####.....] 412/938 loss 0.2134 12345 img/s ETA 0:07
// Otherwise (a log file, CI), the same text as plain lines at every 10% of the epoch and at its end.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace tile::models {

class Progress {
public:
  using Clock = std::function<double()>; // monotonic seconds

  // `clock` defaults to std::chrono::steady_clock.
  Progress(std::ostream &out, bool isTerminal, Clock clock = {});
  ~Progress(); // ends an open terminal line

  // Progress on std::cout, a terminal when isatty(STDOUT_FILENO).
  static Progress forStdout();

  // Starts epoch `epoch` (1-based) of `epochs`, `totalSteps` steps of `imagesPerStep` images.
  void startEpoch(int64_t epoch, int64_t epochs, int64_t totalSteps, int64_t imagesPerStep);
  // `step` steps of this epoch are done (1..totalSteps); `loss` is what to show (e.g. the running mean).
  void update(int64_t step, double loss);
  // Ends the epoch's line if update() has not already (e.g. training stopped early by --max-steps).
  void finish();
  // Prints a line of its own (e.g. "test accuracy 97.70%") without garbling the progress line.
  void println(const std::string &line);

  // The line for the given state, without "\r" or newline (exposed for tests).
  std::string format(int64_t step, double loss, double elapsedSeconds) const;

private:
  std::ostream &out_;
  bool terminal_;
  Clock clock_;
  int64_t epoch_ = 0, epochs_ = 0, total_ = 0, imagesPerStep_ = 0;
  double start_ = 0, lastDraw_ = -1;
  int64_t lastDecile_ = 0; // non-terminal: the last 10% mark printed
  bool lineOpen_ = false;  // terminal: a progress line is on screen without its newline
  int64_t lastStep_ = 0;   // the latest update() ...
  double lastLoss_ = 0;
  int64_t printedStep_ = 0; // ... and the step last shown (finish() shows a skipped last step)
};

// "m:ss", or "h:mm:ss" from an hour on; negative or non-finite seconds give "-:--".
std::string formatDuration(double seconds);

} // namespace tile::models
