// Margins of verdicts and the check kinds that ask for one: significance of an order, a two-sided
// `within`, a curve that `approaches` a limit, and curves compared at equal compute. Hand-built tables
// with known answers.
#include <gtest/gtest.h>

#include <cmath>

#include "support/hand_table.hpp"
#include "scalinglab/claims/check.hpp"
#include "scalinglab/claims/margin.hpp"
#include "scalinglab/results/results.hpp"

namespace scalinglab {
namespace {

using testing::HandTable;

using testing::judge;

TEST(Margin, UnitsFollowWhatVaries) {
  EXPECT_EQ(margin_unit({{1, 2, 0.5}}), "sem");
  EXPECT_EQ(margin_unit({{1, 10, 0}}), "decades");
  EXPECT_EQ(margin_unit({{-1, 1, 0}}), "abs");
  EXPECT_DOUBLE_EQ(gap_margin({1, 2, 0.5}, "sem"), 2.0);
  EXPECT_DOUBLE_EQ(gap_margin({1, 2, 0.5, -2.0}, "sem"), 0.0);  // a required significance of 2 sem
  EXPECT_DOUBLE_EQ(gap_margin({1, 10, 0}, "decades"), 1.0);
  EXPECT_EQ(gap_margin({2, 1, 0}, "sem"), -INFINITY);  // exact values out of order: no spread saves them
  EXPECT_DOUBLE_EQ(gap_margin({1, 1, 0, -2.0}, "sem"), -2.0);  // an exact tie fails a required order
  const Margin m = worst_margin({{1, 2, 0.5}, {1, 1.5, 0.5}, {1, 3, 0.5}});
  EXPECT_DOUBLE_EQ(m.value, 1.0);
  EXPECT_EQ(m.unit, "sem");
  EXPECT_DOUBLE_EQ(slope_margin(-0.9, 0.05, -1.15, -0.85).value, 1.0);  // 0.05 inside, 1 sem
  EXPECT_DOUBLE_EQ(slope_margin(-0.7, 0, -1.15, -0.85).value, -0.15);   // 0.15 outside, in slope units
  EXPECT_EQ(slope_margin(-0.7, 0, -1.15, -0.85).unit, "slope");
  EXPECT_EQ(margin_text(-INFINITY, "sem"), "-inf sem");
  EXPECT_EQ(margin_text(2.345, "decades"), "+2.35 decades");
}

// A bound: the worst row's distance in its standard errors.
TEST(CheckMargins, BoundInStandardErrors) {
  HandTable t;
  t.add({{"d", "8"}}, 0.30, 0.04);   // sem 0.02: (0.30 - 0.2) / 0.02 = 5
  t.add({{"d", "16"}}, 0.26, 0.04);  // 3: the worst
  CheckSpec c;
  c.kind = "above";
  c.x = "d";
  c.y = "error";
  c.bound = "0.2";
  auto r = judge(t.table, c);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.margin_unit, "sem");
  EXPECT_NEAR(r.margin, 3.0, 1e-9);
  EXPECT_NE(r.line().find("[margin +3 sem]"), std::string::npos) << r.line();
  c.bound = "0.3";  // fails by (0.3 - 0.26) / 0.02 = 2 sem at d = 16
  r = judge(t.table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.margin, -2.0, 1e-9);
}

// A slope's margin counts the slope's own standard error, propagated from the points'.
TEST(CheckMargins, SlopeInItsStandardError) {
  HandTable t;
  for (int d : {10, 100, 1000}) t.add({{"d", std::to_string(d)}}, std::pow(d, -1.0), 0.2 * std::pow(d, -1.0));
  CheckSpec c;
  c.kind = "slope";
  c.x = "d";
  c.y = "error";
  c.expect = -1;
  c.tol = 0.15;
  const auto r = judge(t.table, c);
  EXPECT_TRUE(r.passed);
  // log y has sd 0.1 at each point (sem = std/2); Sxx = 2 (ln 10)^2, so se = 0.1 sqrt(2) ln 10 / Sxx.
  const double l = std::log(10.0), se = 0.1 * std::sqrt(2.0) * l / (2 * l * l);
  EXPECT_EQ(r.margin_unit, "sem");
  EXPECT_NEAR(r.margin, 0.15 / se, 1e-6);
}

TEST(CheckMargins, AnOrderNeedsItsSignificance) {
  HandTable t;
  t.add({{"d", "8"}, {"scheme", "q0"}}, 0.10, 0.04);  // sem 0.02
  t.add({{"d", "8"}, {"scheme", "q1"}}, 0.16, 0.04);  // difference 0.06 = 2.12 standard errors
  CheckSpec c;
  c.kind = "ordered";
  c.x = "d";
  c.y = "error";
  c.series = "scheme";
  c.order = {"q0", "q1"};
  auto r = judge(t.table, c);
  EXPECT_TRUE(r.passed);  // a plain order: exact comparison
  c.significant = 2;
  r = judge(t.table, c);
  EXPECT_TRUE(r.passed) << r.measured;
  EXPECT_NEAR(r.margin, 0.06 / std::hypot(0.02, 0.02) - 2, 1e-9);
  EXPECT_NE(r.expected.find("by more than 2 standard errors"), std::string::npos) << r.expected;
  c.significant = 3;
  r = judge(t.table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("a difference of 2.121 standard errors"), std::string::npos) << r.measured;
  // A tie of exact values is no order.
  HandTable tie;
  tie.add({{"d", "8"}, {"scheme", "q0"}}, 0.0);
  tie.add({{"d", "8"}, {"scheme", "q1"}}, 0.0);
  c.significant = 2;
  r = judge(tie.table, c);
  EXPECT_FALSE(r.passed);
  c.significant = 0;
  EXPECT_TRUE(judge(tie.table, c).passed);  // ties pass a plain order
}

TEST(CheckMargins, ReachesBeforeCountsTheBestRowAfterTheWorst) {
  HandTable t;
  t.add({{"d", "8"}}, 0.5, 0.2);    // sem 0.1
  t.add({{"d", "16"}}, 0.02, 0.02);  // sem 0.01: (0.05 - 0.02) / 0.01 = 3 below the threshold
  t.add({{"d", "32"}}, 0.0, 0.0);
  CheckSpec c;
  c.kind = "reaches";
  c.x = "d";
  c.y = "error";
  c.threshold = 0.05;
  c.before = 16;
  auto r = judge(t.table, c);
  EXPECT_TRUE(r.passed);
  EXPECT_NEAR(r.margin, 3.0, 1e-9);
  c.before.reset();
  c.after = 16;  // d = 8 stays short of it by (0.5 - 0.05) / 0.1 = 4.5
  r = judge(t.table, c);
  EXPECT_TRUE(r.passed);
  EXPECT_NEAR(r.margin, 4.5, 1e-9);
}

TEST(CheckKinds, WithinIsTwoSided) {
  HandTable t;
  t.add({{"d", "8"}}, 1.05, 0.04);  // sem 0.02
  t.add({{"d", "16"}}, 0.97, 0.04);
  CheckSpec c;
  c.kind = "within";
  c.x = "d";
  c.y = "error";
  c.bound = "1";
  c.sem = 3;  // 0.06 allowed
  auto r = judge(t.table, c);
  EXPECT_TRUE(r.passed) << r.measured;
  EXPECT_NEAR(r.margin, (0.06 - 0.05) / 0.02, 1e-9);
  c.sem = 2;  // 0.04: d = 8 is out, above; a one-sided bound from below would not see it
  r = judge(t.table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("1 of 2 points outside; worst at d=8 T=inf: error 1.05 against 1 (+5%, +2.5 standard errors)"),
            std::string::npos) << r.measured;
  HandTable exact;
  exact.add({{"d", "8"}}, 1.01);
  c.sem = 0;
  c.rtol = 0.02;
  r = judge(exact.table, c);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.margin_unit, "ratio");
  EXPECT_NEAR(r.margin, 0.01, 1e-9);
}

TEST(CheckKinds, ApproachesTendsToItsLimit) {
  HandTable t;
  const double ys[] = {0.6, 0.75, 0.85, 0.9};  // distance to 1: 0.4 to 0.1
  int d = 8;
  for (double y : ys) t.add({{"d", std::to_string(d)}}, y), d *= 2;
  CheckSpec c;
  c.kind = "approaches";
  c.x = "d";
  c.y = "error";
  c.limit = 1;
  c.shrink = 0.5;
  auto r = judge(t.table, c);
  EXPECT_TRUE(r.passed) << r.measured;
  EXPECT_NEAR(r.margin, 0.05, 1e-9);  // the last step, 0.85 to 0.9
  c.shrink = 0.2;  // 0.1 / 0.4 = 0.25 > 0.2
  r = judge(t.table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("only goes from 0.4 to 0.1"), std::string::npos) << r.measured;
  // Below 1 everywhere but levelling off far from it (a slope of 1/2): not approaching.
  HandTable flat;
  d = 8;
  for (double y : {0.36, 0.40, 0.43, 0.45}) flat.add({{"d", std::to_string(d)}}, y), d *= 2;
  c.shrink = 0.5;
  EXPECT_FALSE(judge(flat.table, c).passed);
  // Past the limit: the wrong side.
  HandTable over;
  d = 8;
  for (double y : {1.2, 1.1}) over.add({{"d", std::to_string(d)}}, y), d *= 2;
  r = judge(over.table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find(">= the limit"), std::string::npos) << r.measured;
}

// Two curves of loss against compute: a small model (d = 8) ends at compute 10 with loss 0.5; a large
// one (d = 16) spends 10 per point and ends at compute 40 with loss 0.1, passing 0.8 at compute 10.
TEST(CheckKinds, EqualComputeInterpolatesOnTheComputeAxis) {
  HandTable t;
  t.add({{"d", "8"}}, 0);
  t.add({{"d", "16"}}, 0);
  t.table.rows[0].key = "small";
  t.table.rows[1].key = "large";
  std::vector<TaskResult> results;
  for (uint64_t run_index = 0; run_index < 2; ++run_index) {
    TaskResult small, large;
    small.key = "small", large.key = "large";
    small.run = large.run = run_index;
    small.record.set_series("curve_flops", {1, 10});
    small.record.set_series("curve_loss", {2, 0.5});
    large.record.set_series("curve_flops", {1, 10, 40});
    large.record.set_series("curve_loss", {3, 0.8, 0.1});
    results.push_back(small), results.push_back(large);
  }
  CheckSpec c;
  c.kind = "equal_compute";
  c.x = "curve_flops";
  c.y = "curve_loss";
  c.series = "d";
  c.order = {"8", "16"};
  c.significant = 2;
  // "common": compute 10, the largest both reach: 0.5 against 0.8, exact values, strictly in order.
  auto r = judge(t.table, c, &results);
  EXPECT_TRUE(r.passed) << r.measured;
  EXPECT_NE(r.measured.find("at curve_flops = 10: d=8 0.5, d=16 0.8"), std::string::npos) << r.measured;
  // At compute 20 the small curve has ended: no comparison there.
  c.at = 20;
  EXPECT_FALSE(judge(t.table, c, &results).judged);
  // "first": the budget of d = 16 (40), each curve's best within it: 0.5 for d = 8, 0.1 for d = 16.
  c.at.reset();
  c.at_rule = "first";
  c.order = {"16", "8"};
  r = judge(t.table, c, &results);
  EXPECT_TRUE(r.passed) << r.measured;
  EXPECT_NE(r.measured.find("at curve_flops = 40: d=16 0.1, d=8 0.5"), std::string::npos) << r.measured;
  // Interpolated in log-log between recorded points: at compute 20, sqrt of the way from 10 to 40.
  c.at = 20;
  c.order = {"16"};
  c.order.push_back("16");
  c.order_group = {0, 1};
  c.significant = 0;
  r = judge(t.table, c, &results);
  const double expected = std::exp(std::log(0.8) + 0.5 * (std::log(0.1) - std::log(0.8)));
  EXPECT_NE(r.measured.find("d=16 " + std::to_string(expected).substr(0, 5)), std::string::npos) << r.measured;
  // Without the runs' records it judges nothing.
  EXPECT_FALSE(judge(t.table, c).judged);
}

}  // namespace
}  // namespace scalinglab
