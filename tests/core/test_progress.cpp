// The ETA of a sweep whose tasks differ in cost: the power-law cost model fitted to the finished
// tasks predicts what is left, where the mean rate of the (cheap, first) tasks does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scalinglab/core/progress.hpp"

using scalinglab::Progress;

namespace {

// Tasks in grid order: widths d = 8..1024 (cost ~ d^2 seconds * 1e-5) times lengths T (cost ~ T),
// 2 workers. Returns the true work left after the first `finished` tasks.
struct Grid {
  std::vector<std::vector<double>> features;
  std::vector<double> cost;
  Grid() {
    for (double d = 8; d <= 1024; d *= 2)
      for (double T : {100.0, 1000.0, 10000.0}) {
        features.push_back({d, T, 3.0});  // a constant parameter (not a feature)
        cost.push_back(1e-7 * d * d * T);
      }
  }
};

}  // namespace

TEST(Progress, EtaFollowsTheCostOfTheTasksLeft) {
  const Grid g;
  const std::size_t n = g.cost.size(), finished = n / 3;
  Progress p(n, 0, "test", Progress::Mode::Off);
  p.set_tasks(g.features, 2);
  double elapsed = 0, left = 0, longest = 0;
  for (std::size_t i = 0; i < finished; ++i) {
    p.advance(i, g.cost[i]);
    elapsed += g.cost[i] / 2;  // two workers
  }
  for (std::size_t i = finished; i < n; ++i) left += g.cost[i], longest = std::max(longest, g.cost[i]);
  const double truth = std::max(left / 2, longest);  // two workers, but no faster than the longest task
  // The cost model: exact up to rounding (the costs are a power law of the parameters).
  EXPECT_NEAR(p.eta(elapsed), truth, 1e-6 * truth);
  // One worker: the sum of the costs left, which the model predicts exactly (they are a power law).
  Progress one(n, 0, "test", Progress::Mode::Off);
  one.set_tasks(g.features, 1);
  for (std::size_t i = 0; i < finished; ++i) one.advance(i, g.cost[i]);
  EXPECT_NEAR(one.eta(2 * elapsed), left, 1e-6 * left);
  // The mean rate of the cheap tasks is far too low.
  const double rate = elapsed / static_cast<double>(finished) * static_cast<double>(n - finished);
  EXPECT_LT(rate, truth / 20);
}

TEST(Progress, EtaWithoutACostModelIsTheMeanRateAndNeverBelowTheLongestTask) {
  Progress p(10, 0, "test", Progress::Mode::Off);
  EXPECT_TRUE(std::isnan(p.eta(1.0)));
  p.advance();
  p.advance();
  EXPECT_NEAR(p.eta(4.0), 4.0 / 2 * 8, 1e-12);
  // With a model and many workers, the ETA is at least the longest task left.
  Progress q(4, 0, "test", Progress::Mode::Off);
  q.set_tasks({{1}, {2}, {4}, {100}}, 64);
  q.advance(0, 1);
  q.advance(1, 2);
  q.advance(2, 4);
  EXPECT_NEAR(q.eta(7), 100, 1e-6 * 100);
}

TEST(ResultsProgress, DurationsAndQuietMode) {
  EXPECT_EQ(Progress::duration(12.4), "12s");
  EXPECT_EQ(Progress::duration(185), "3m05s");
  EXPECT_EQ(Progress::duration(3720), "1h02m");
  EXPECT_EQ(Progress::duration(NAN), "?");
  testing::internal::CaptureStderr();
  {
    Progress quiet(10, 0, "x", true);
    for (int i = 0; i < 10; ++i) quiet.advance();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  {
    Progress lines(100, 50, "sweep", Progress::Mode::Lines);
    for (int i = 0; i < 50; ++i) lines.advance();
  }
  const std::string out = testing::internal::GetCapturedStderr();
  const auto n = std::count(out.begin(), out.end(), '\n');
  EXPECT_GE(n, 5);  // a line per 10%
  EXPECT_LE(n, 7);
  EXPECT_NE(out.find("100/100 tasks 100%"), std::string::npos) << out;
}
