// The task queue (grid order, then most expensive first by the cost model; each task handed out
// once under concurrency; stop; tasks in flight) and the cost model it shares with the ETA.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "scalinglab/core/cost_model.hpp"
#include "scalinglab/run/task_queue.hpp"

using namespace scalinglab;

namespace {
// Tasks over d in {1..n} with a constant second feature and one absent (NaN) in some tasks.
std::vector<std::vector<double>> widths(std::size_t n) {
  std::vector<std::vector<double>> f;
  for (std::size_t i = 0; i < n; ++i) f.push_back({static_cast<double>(i + 1), 7.0, i % 2 ? NAN : 1.0});
  return f;
}
}  // namespace

TEST(CostModel, RecoversAnExactPowerLawAndIgnoresUnusableFeatures) {
  const auto f = widths(20);
  CostModel m(f);
  std::vector<std::size_t> seen = {0, 1, 2, 4};
  std::vector<double> seconds;
  for (std::size_t i : seen) seconds.push_back(3e-4 * std::pow(f[i][0], 2.0));
  ASSERT_TRUE(m.fit(seen, seconds));
  for (std::size_t i : {10u, 19u}) EXPECT_NEAR(m.predict(i), 3e-4 * std::pow(f[i][0], 2.0), 1e-7 * m.predict(i));  // the ridge biases ~1e-8
  EXPECT_FALSE(CostModel(f).fit({0, 1}, {1.0, 2.0}));  // fewer than 3 timings
}

TEST(TaskQueue, GridOrderUntilTimedThenMostExpensiveFirst) {
  TaskQueue plain(widths(10), false), costed(widths(10), true);
  std::size_t i;
  for (std::size_t k = 0; k < 10; ++k) {
    ASSERT_TRUE(plain.next(i));
    EXPECT_EQ(i, k);
  }
  EXPECT_FALSE(plain.next(i));

  for (std::size_t k = 0; k < 3; ++k) {  // the first tasks go in grid order
    ASSERT_TRUE(costed.next(i));
    EXPECT_EQ(i, k);
    costed.finished(i, 1e-3 * std::pow(static_cast<double>(k + 1), 2.0));
  }
  std::vector<std::size_t> rest;
  while (costed.next(i)) rest.push_back(i);
  EXPECT_EQ(rest, (std::vector<std::size_t>{9, 8, 7, 6, 5, 4, 3}));
}

TEST(TaskQueue, EachTaskOnceUnderConcurrencyAndStopEndsHandingOut) {
  TaskQueue q(widths(5000), true);
  std::vector<std::atomic<int>> seen(5000);
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&] {
      std::size_t i;
      while (q.next(i)) {
        ++seen[i];
        q.finished(i, 1e-6 * static_cast<double>(i + 1));
      }
    });
  for (auto& t : pool) t.join();
  for (const auto& s : seen) ASSERT_EQ(s.load(), 1);
  EXPECT_TRUE(q.in_flight().empty());

  TaskQueue r(widths(4), false);
  std::size_t a, b;
  ASSERT_TRUE(r.next(a));
  ASSERT_TRUE(r.next(b));
  r.finished(a, 1);
  EXPECT_EQ(r.in_flight(), (std::vector<std::size_t>{b}));
  r.stop();
  EXPECT_FALSE(r.next(a));
}
