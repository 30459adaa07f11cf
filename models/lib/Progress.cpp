// Progress display: a redrawn line on a terminal, plain lines at every 10% otherwise.
#include "tile/models/Progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace tile::models {

namespace {

constexpr int kBarWidth = 10;
constexpr double kRedrawSeconds = 0.1; // a terminal redraw per step would cost more than small steps

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e9) return "-:--";
  auto s = static_cast<int64_t>(std::llround(seconds));
  char buf[48];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

Progress::Progress(std::ostream &out, bool isTerminal, Clock clock)
    : out_(out), terminal_(isTerminal), clock_(clock ? std::move(clock) : Clock(steadySeconds)) {}

Progress::~Progress() {
  if (lineOpen_) out_ << '\n' << std::flush;
}

Progress Progress::forStdout() { return Progress(std::cout, ::isatty(STDOUT_FILENO) == 1); }

void Progress::startEpoch(int64_t epoch, int64_t epochs, int64_t totalSteps, int64_t imagesPerStep) {
  finish();
  epoch_ = epoch;
  epochs_ = epochs;
  total_ = std::max<int64_t>(totalSteps, 1);
  imagesPerStep_ = imagesPerStep;
  start_ = clock_();
  lastDraw_ = -1;
  lastDecile_ = 0;
  lastStep_ = 0;
  lastLoss_ = 0;
  printedStep_ = 0;
}

std::string Progress::format(int64_t step, double loss, double elapsed) const {
  int64_t shown = std::clamp<int64_t>(step, 0, total_);
  int filled = static_cast<int>(shown * kBarWidth / total_);
  std::string bar(kBarWidth + 2, '.'); // "[#####.....]"
  bar.front() = '[';
  bar.back() = ']';
  std::fill_n(bar.begin() + 1, filled, '#');
  char rate[32] = "- img/s", tail[32] = "ETA -:--";
  if (elapsed > 0 && shown > 0) {
    std::snprintf(rate, sizeof rate, "%.0f img/s", static_cast<double>(shown * imagesPerStep_) / elapsed);
    // At the end the time taken is more useful than an ETA of 0:00.
    if (shown == total_) std::snprintf(tail, sizeof tail, "took %s", formatDuration(elapsed).c_str());
    else std::snprintf(tail, sizeof tail, "ETA %s", formatDuration(elapsed / shown * (total_ - shown)).c_str());
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "epoch %lld/%lld %s %lld/%lld loss %.4f %s %s", static_cast<long long>(epoch_),
                static_cast<long long>(epochs_), bar.c_str(), static_cast<long long>(shown),
                static_cast<long long>(total_), loss, rate, tail);
  return buf;
}

void Progress::update(int64_t step, double loss) {
  lastStep_ = step;
  lastLoss_ = loss;
  const double now = clock_();
  const bool last = step >= total_;
  if (terminal_) {
    if (!last && lastDraw_ >= 0 && now - lastDraw_ < kRedrawSeconds) return;
    lastDraw_ = now;
    out_ << '\r' << format(step, loss, now - start_) << "\x1b[K"; // erase what a longer line left
    lineOpen_ = !last;
    if (last) out_ << '\n';
    out_ << std::flush;
    printedStep_ = step;
    return;
  }
  int64_t decile = std::clamp<int64_t>(step, 0, total_) * 10 / total_;
  if (decile <= lastDecile_ && !last) return;
  lastDecile_ = decile;
  out_ << format(step, loss, now - start_) << '\n' << std::flush;
  printedStep_ = step;
}

void Progress::finish() {
  if (lastStep_ > 0 && printedStep_ != lastStep_) {
    // The latest step was skipped (throttled or between 10% marks): show it before closing.
    std::string line = format(lastStep_, lastLoss_, clock_() - start_);
    if (terminal_) out_ << '\r' << line << "\x1b[K\n";
    else out_ << line << '\n';
    printedStep_ = lastStep_;
    lineOpen_ = false;
  }
  if (lineOpen_) out_ << '\n';
  lineOpen_ = false;
  out_ << std::flush;
}

void Progress::println(const std::string &line) {
  if (lineOpen_) out_ << "\r\x1b[K"; // clear the progress line, print, let the next update redraw it
  out_ << line << '\n' << std::flush;
  if (lineOpen_) {
    lineOpen_ = false;
    lastDraw_ = -1;
    printedStep_ = 0;
  }
}

} // namespace tile::models
