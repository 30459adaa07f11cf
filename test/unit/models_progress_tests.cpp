// Progress display: terminal (redrawn line) and log (lines at 10% marks) modes, with a fake clock.
#include "models_test_util.h"
#include "tile/models/Progress.h"

#include <sstream>

using namespace tile::models;
using namespace tile::models::testing;

namespace {

std::vector<std::string> lines(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

} // namespace

TEST(Progress, Duration) {
  EXPECT_EQ(formatDuration(0), "0:00");
  EXPECT_EQ(formatDuration(7.4), "0:07");
  EXPECT_EQ(formatDuration(59.6), "1:00");
  EXPECT_EQ(formatDuration(3599), "59:59");
  EXPECT_EQ(formatDuration(3600 + 62), "1:01:02");
  EXPECT_EQ(formatDuration(-1), "-:--");
  EXPECT_EQ(formatDuration(1.0 / 0.0), "-:--");
}

TEST(Progress, LineFormat) {
  std::ostringstream out;
  double now = 100;
  Progress p(out, false, [&] { return now; });
  p.startEpoch(1, 2, 938, 64);
  // 412 steps of 64 images in 2 s: 13184 img/s; 526 steps left at 412 per 2 s: 2.55 s.
  EXPECT_EQ(p.format(412, 0.21344, 2.0), "epoch 1/2 [####......] 412/938 loss 0.2134 13184 img/s ETA 0:03");
  EXPECT_EQ(p.format(938, 0.1, 45.2), "epoch 1/2 [##########] 938/938 loss 0.1000 1328 img/s took 0:45");
  EXPECT_EQ(p.format(0, 0, 0), "epoch 1/2 [..........] 0/938 loss 0.0000 - img/s ETA -:--");
}

TEST(Progress, PlainLinesEveryTenPercent) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, false, [&] { return now; });
  p.startEpoch(2, 3, 25, 10);
  for (int s = 1; s <= 25; ++s) {
    now += 0.5;
    p.update(s, 1.0 / s);
  }
  std::vector<std::string> l = lines(out.str());
  // 10% marks of 25 steps: 3, 5, 8, 10, 13, 15, 18, 20, 23, 25.
  ASSERT_EQ(l.size(), 10u) << out.str();
  EXPECT_EQ(l[0], "epoch 2/3 [#.........] 3/25 loss 0.3333 20 img/s ETA 0:11");
  EXPECT_EQ(l[9], "epoch 2/3 [##########] 25/25 loss 0.0400 20 img/s took 0:13");
  EXPECT_EQ(out.str().find('\r'), std::string::npos);
  EXPECT_EQ(out.str().find('\x1b'), std::string::npos);
  p.finish(); // nothing more: the last step was shown
  EXPECT_EQ(lines(out.str()).size(), 10u);
}

TEST(Progress, PlainModeFewerStepsThanMarks) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, false, [&] { return now += 1; });
  p.startEpoch(1, 1, 3, 1);
  for (int s = 1; s <= 3; ++s) p.update(s, 0.5);
  EXPECT_EQ(lines(out.str()).size(), 3u);
}

TEST(Progress, FinishShowsAnUnshownLastStep) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, false, [&] { return now; });
  p.startEpoch(1, 1, 100, 64);
  for (int s = 1; s <= 15; ++s) {
    now += 1;
    p.update(s, 0.5);
  }
  p.finish(); // e.g. --max-steps 15
  std::vector<std::string> l = lines(out.str());
  ASSERT_EQ(l.size(), 2u) << out.str();
  EXPECT_CONTAINS(l[0], " 10/100 ");
  EXPECT_CONTAINS(l[1], " 15/100 ");
}

TEST(Progress, TerminalRedrawsOneLine) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, true, [&] { return now; });
  p.startEpoch(1, 1, 4, 32);
  now = 1;
  p.update(1, 2.0);
  now = 2;
  p.update(2, 1.0);
  std::string s = out.str();
  EXPECT_EQ(s, "\repoch 1/1 [##........] 1/4 loss 2.0000 32 img/s ETA 0:03\x1b[K"
               "\repoch 1/1 [#####.....] 2/4 loss 1.0000 32 img/s ETA 0:02\x1b[K");
  now = 3;
  p.update(3, 0.5);
  now = 4;
  p.update(4, 0.25);
  std::string end = out.str().substr(s.size());
  EXPECT_EQ(end, "\repoch 1/1 [#######...] 3/4 loss 0.5000 32 img/s ETA 0:01\x1b[K"
                 "\repoch 1/1 [##########] 4/4 loss 0.2500 32 img/s took 0:04\x1b[K\n");
}

TEST(Progress, TerminalThrottlesRedraws) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, true, [&] { return now; });
  p.startEpoch(1, 1, 1000, 64);
  for (int s = 1; s <= 1000; ++s) {
    now += 0.001; // 1 ms a step: a redraw every 100 steps, plus the first and the last
    p.update(s, 0.1);
  }
  size_t draws = 0;
  for (char c : out.str()) draws += c == '\r';
  EXPECT_GE(draws, 9u);
  EXPECT_LE(draws, 12u);
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_CONTAINS(out.str(), "1000/1000");
}

TEST(Progress, TerminalPrintlnClearsTheLine) {
  std::ostringstream out;
  double now = 0;
  {
    Progress p(out, true, [&] { return now += 1; });
    p.startEpoch(1, 1, 10, 1);
    p.update(1, 1.0);
    p.println("checkpoint saved");
    EXPECT_CONTAINS(out.str(), "\x1b[K\r\x1b[Kcheckpoint saved\n");
    p.update(2, 1.0);
  } // the destructor ends the open line
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_CONTAINS(out.str(), " 2/10 ");
}

TEST(Progress, PlainPrintln) {
  std::ostringstream out;
  Progress p(out, false, [] { return 0.0; });
  p.println("test accuracy 97.70%");
  EXPECT_EQ(out.str(), "test accuracy 97.70%\n");
}

TEST(Progress, NextEpochStartsAfresh) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, false, [&] { return now += 1; });
  for (int e = 1; e <= 2; ++e) {
    p.startEpoch(e, 2, 2, 8);
    p.update(1, 0.5);
    p.update(2, 0.25);
  }
  std::vector<std::string> l = lines(out.str());
  ASSERT_EQ(l.size(), 4u);
  EXPECT_CONTAINS(l[2], "epoch 2/2 [#####.....] 1/2");
}
