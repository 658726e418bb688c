// Checks on hand-built tables with known answers.
#include <gtest/gtest.h>

#include <cmath>

#include "support/hand_table.hpp"
#include "scalinglab/claims/check.hpp"

namespace scalinglab {
namespace {

using testing::HandTable;

const std::vector<int> kD = {16, 32, 64, 128, 256, 512};

// error = c(T) d^-1.5 with c(inf) = 3, c(1000) = 5, c(100) = 8: the T series are stacked.
HandTable power_law_table() {
  HandTable t;
  for (const char* T : {"100", "1000", "inf"}) {
    const double c = std::string(T) == "inf" ? 3 : std::string(T) == "1000" ? 5 : 8;
    for (int d : kD) t.add({{"d", std::to_string(d)}, {"T", T}}, c * std::pow(d, -1.5));
  }
  return t;
}

using testing::sweep_with;

CheckResult run(const Table& table, CheckSpec check) { return testing::judge(table, std::move(check)); }

CheckSpec slope(double expect, double tol) {
  CheckSpec c;
  c.kind = "slope";
  c.x = "d";
  c.y = "error";
  c.where = {{"T", "inf"}};
  c.expect = expect;
  c.tol = tol;
  return c;
}

TEST(Check, SlopeOfExactPowerLawPasses) {
  const auto r = run(power_law_table().table, slope(-1.5, 1e-9));
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("slope -1.500 over 6 points, d in [16, 512]"), std::string::npos) << r.measured;
  EXPECT_EQ(r.expected, "-1.5 +- 1e-09");
  EXPECT_EQ(r.line().rfind("PASS  claim: slope -1.500", 0), 0u) << r.line();
}

TEST(Check, SlopeOutsideToleranceFails) {
  const auto r = run(power_law_table().table, slope(-1.0, 0.15));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.line().rfind("FAIL  claim: ", 0), 0u) << r.line();
  EXPECT_NE(r.line().find("(expected -1 +- 0.15)"), std::string::npos) << r.line();
}

TEST(Check, SlopeExcludesNonPositiveValuesAndSaysSo) {
  HandTable t = power_law_table();
  t.add({{"d", "1024"}, {"T", "inf"}}, 0.0);
  const auto r = run(t.table, slope(-1.5, 1e-9));
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("1 point with error <= 0 excluded"), std::string::npos) << r.measured;
}

TEST(Check, SlopeHonoursXRange) {
  CheckSpec c = slope(-1.5, 1e-9);
  c.x_min = 32;
  c.x_max = 256;
  const auto r = run(power_law_table().table, c);
  EXPECT_TRUE(r.passed);
  EXPECT_NE(r.measured.find("over 4 points, d in [32, 256]"), std::string::npos) << r.measured;
}

TEST(Check, SlopeWithOnePointFails) {
  CheckSpec c = slope(-1.5, 1);
  c.x_min = c.x_max = 64;
  const auto r = run(power_law_table().table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("only 1 usable point"), std::string::npos) << r.measured;
}

TEST(Check, WhereAcceptsNumbersWrittenDifferently) {
  CheckSpec c = slope(-1.5, 1e-9);
  c.where = {{"T", "1e3"}};
  EXPECT_TRUE(run(power_law_table().table, c).passed);
}

TEST(Check, WhereTakesComparisons) {
  CheckSpec c = slope(-1.5, 1e-9);
  c.where = {{"T", "inf"}, {"d", ">=32, <=128"}};
  const auto r = run(power_law_table().table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("over 3 points, d in [32, 128]"), std::string::npos) << r.measured;
  c.where = {{"T", "inf"}, {"d", ">1000"}};
  EXPECT_NE(run(power_law_table().table, c).measured.find("no rows selected by where {T=inf, d>1000}"),
            std::string::npos);
}

TEST(Check, EmptySelectionFails) {
  CheckSpec c = slope(-1.5, 1);
  c.where = {{"T", "7"}};
  const auto r = run(power_law_table().table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("no rows selected by where {T=7}"), std::string::npos) << r.measured;
}

CheckSpec bound(const std::string& kind, const std::string& formula) {
  CheckSpec c;
  c.kind = kind;
  c.x = "d";
  c.y = "error";
  c.bound = formula;
  return c;
}

TEST(Check, BelowAndAboveBounds) {
  const Table t = power_law_table().table;  // all rows: 3 d^-1.5 <= error <= 8 d^-1.5
  EXPECT_TRUE(run(t, bound("below", "8*d^-1.5")).passed);
  EXPECT_TRUE(run(t, bound("above", "3*d^-1.5")).passed);
  const auto below = run(t, bound("below", "4*d^-1.5"));
  EXPECT_FALSE(below.passed);
  EXPECT_NE(below.measured.find("12 of 18 points above the bound"), std::string::npos) << below.measured;
  EXPECT_NE(below.measured.find("worst at d=16 T=100"), std::string::npos) << below.measured;  // ratio 2, first
  EXPECT_NE(below.measured.find("= 2 x bound"), std::string::npos) << below.measured;
  EXPECT_EQ(below.expected, "error <= 4*d^-1.5");
  EXPECT_FALSE(run(t, bound("above", "4*d^-1.5")).passed);
}

TEST(Check, BoundReadsTheRowsParameters) {
  HandTable t;
  for (int d : kD) t.add({{"d", std::to_string(d)}, {"T", "100"}}, 1.0 / d + 1.0 / 100);
  EXPECT_TRUE(run(t.table, bound("below", "1/d + 1/T + 1e-12")).passed);
  EXPECT_FALSE(run(t.table, bound("below", "1/d + 1/T - 1e-6")).passed);
}

TEST(Check, BoundReadsTheRowsOtherMetrics) {
  HandTable t;
  t.table.metric_names.push_back("reference");
  for (int d : kD) {
    t.add({{"d", std::to_string(d)}}, 1.0 / d);
    t.table.rows.back().mean.push_back(2.0 / d);  // reference = 2 error
    t.table.rows.back().std.push_back(0);
    t.table.rows.back().sem.push_back(0);
  }
  EXPECT_TRUE(run(t.table, bound("below", "reference")).passed);
  EXPECT_TRUE(run(t.table, bound("above", "reference/2")).passed);
  EXPECT_FALSE(run(t.table, bound("below", "reference/3")).passed);
  // The spread of a metric: error <= 1 + error_sem (sem = std / 2 = 0 here) and error <= 2 error_std.
  for (auto& row : t.table.rows) row.std[0] = 0.5, row.sem[0] = 0.25;
  EXPECT_TRUE(run(t.table, bound("below", "error + error_sem")).passed);
  EXPECT_FALSE(run(t.table, bound("above", "error + error_std")).passed);
}

TEST(Check, OptimumFindsTheArgminPerSeriesAndItsScaling) {
  // y = (log d - log d*(T))^2 with d*(T) = sqrt(T): argmins 10, 31.6, 100 for T = 100, 1000, 1e4.
  HandTable t;
  for (const char* T : {"100", "1000", "10000"})
    for (int d = 2; d <= 1024; d *= 2) t.add({{"d", std::to_string(d)}, {"T", T}}, std::pow(std::log(d) - 0.5 * std::log(std::stod(T)), 2));
  CheckSpec c;
  c.kind = "optimum";
  c.x = "d";
  c.y = "error";
  c.series = "T";
  c.expect = 0.5;
  c.tol = 0.02;
  const auto r = run(t.table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("argmin slope 0.500"), std::string::npos) << r.measured;
  c.expect = 1;
  EXPECT_FALSE(run(t.table, c).passed);
}

CheckSpec ordered(std::vector<std::string> order, bool decreasing = false) {
  CheckSpec c;
  c.kind = "ordered";
  c.x = "d";
  c.y = "error";
  c.series = "T";
  c.order = std::move(order);
  c.decreasing = decreasing;
  return c;
}

TEST(Check, AnAxisLimitedByAComparisonStillSeparatesTheGroupsOfOrdered) {
  // Two schemes, the second 100 times worse: T = inf beats T = 100 within each scheme, not across.
  HandTable t;
  for (const char* scheme : {"q0", "q1"})
    for (const char* T : {"100", "inf"})
      for (int d : {16, 64})
        t.add({{"d", std::to_string(d)}, {"T", T}, {"scheme", scheme}},
              (scheme[1] == '1' ? 100 : 1) * (T[0] == 'i' ? 1 : 2) / static_cast<double>(d));
  Sweep s = sweep_with(ordered({"inf", "100"}));
  s.grid.push_back({"scheme", {"q0", "q1"}, {}});
  s.checks[0].where = {{"scheme", "!=q2"}};  // a comparison: both schemes stay, in groups of their own
  auto r = evaluate_checks(s, t.table).at(0);
  EXPECT_TRUE(r.passed) << r.line();
  s.checks[0].where = {{"scheme", "q1"}};  // a value: one scheme
  r = evaluate_checks(s, t.table).at(0);
  EXPECT_TRUE(r.passed) << r.line();
}

TEST(Check, OrderedSeries) {
  const Table t = power_law_table().table;
  const auto r = run(t, ordered({"inf", "1000", "100"}));
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("in order at all 6 d values"), std::string::npos) << r.measured;
  EXPECT_TRUE(run(t, ordered({"100", "1000", "inf"}, true)).passed);
  EXPECT_FALSE(run(t, ordered({"100", "inf"})).passed);
}

TEST(Check, OrderedGroupsCompareEveryMemberWithTheNextGroup) {
  const Table t = power_law_table().table;  // error(T=inf) < error(1000) < error(100) at every d
  CheckSpec c = ordered({"inf", "1000", "100"});
  c.order_group = {0, 0, 1};  // {inf, 1000} <= 100: members of a group are not compared
  auto r = run(t, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.expected.find("{T=inf, T=1000} <= T=100"), std::string::npos) << r.expected;
  c.order = {"1000", "inf", "100"};  // a group in any inner order
  EXPECT_TRUE(run(t, c).passed);
  c.order = {"100", "inf", "1000"};  // {100, inf} <= 1000 fails through 100
  r = run(t, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("(=100) > "), std::string::npos) << r.measured;
  c.order = {"inf", "100", "1000"};
  c.order_group = {0, 1, 1};  // inf <= {100, 1000}
  EXPECT_TRUE(run(t, c).passed);
}

TEST(Check, OrderedWithACrossingFails) {
  HandTable h = power_law_table();
  h.table.rows[2].mean[0] = 1.0;  // T=100 at d=64 ...
  h.table.rows[6 + 2].mean[0] = 2.0;  // ... below T=1000 there
  const auto r = run(h.table, ordered({"inf", "1000", "100"}));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("out of order at 1 of 6 d values"), std::string::npos) << r.measured;
  EXPECT_NE(r.measured.find("at d=64"), std::string::npos) << r.measured;
}

TEST(Check, OrderedToleratesCrossingsWithinStandardErrors) {
  HandTable h = power_law_table();
  h.table.rows[2].mean[0] = 1.0;   // T=100 at d=64, sem 0.05 ...
  h.table.rows[2].sem[0] = 0.05;
  h.table.rows[6 + 2].mean[0] = 1.1;  // ... just above T=1000 there (sem 0.05): 0.1 apart
  h.table.rows[6 + 2].sem[0] = 0.05;
  CheckSpec c = ordered({"inf", "1000", "100"});
  EXPECT_FALSE(run(h.table, c).passed);
  c.sem = 2;  // slack 2 * hypot(0.05, 0.05) = 0.141 > 0.1
  const auto r = run(h.table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.expected.find("within 2 standard errors"), std::string::npos) << r.expected;
  c.sem = 1;  // slack 0.0707 < 0.1
  EXPECT_FALSE(run(h.table, c).passed);
}

TEST(Check, KnownFailureIsReportedButDoesNotFail) {
  CheckSpec c = ordered({"100", "inf"});  // wrong order: fails
  c.known_failure = "too small a scale";
  const auto r = run(power_law_table().table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.ok());
  EXPECT_STREQ(r.status(), "KNOWN FAIL");
  EXPECT_EQ(r.line().rfind("KNOWN FAIL  claim:", 0), 0u) << r.line();
  EXPECT_NE(r.line().find("[known: too small a scale]"), std::string::npos) << r.line();
  EXPECT_EQ(r.to_json()["known_failure"], "too small a scale");
  c.known_failure.clear();
  EXPECT_FALSE(run(power_law_table().table, c).ok());
  c.order = {"inf", "100"};
  c.known_failure = "was known";
  EXPECT_STREQ(run(power_law_table().table, c).status(), "PASS");  // a known failure that now passes
}

TEST(Check, OrderedSkipsXWhereASeriesIsMissing) {
  HandTable h = power_law_table();
  h.add({{"d", "2048"}, {"T", "inf"}}, 1e-5);
  const auto r = run(h.table, ordered({"inf", "1000", "100"}));
  EXPECT_TRUE(r.passed);
  EXPECT_NE(r.measured.find("6 d values, 1 skipped"), std::string::npos) << r.measured;
}

TEST(Check, OrderedOverFormulaSeries) {
  HandTable h;  // P = d/8 stores fewer inputs than P = d: one curve each although P varies with d
  for (int d : kD) {
    h.add({{"d", std::to_string(d)}, {"P", "d/8"}}, 1.0 / d);
    h.add({{"d", std::to_string(d)}, {"P", "d"}}, 2.0 / d);
  }
  CheckSpec c = ordered({"d/8", "d"});
  c.series = "P";
  const auto r = run(h.table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("all 6 d values"), std::string::npos) << r.measured;
  c.order = {"d", "d/8"};
  EXPECT_FALSE(run(h.table, c).passed);
}

// error = 1/log2(d): 0.25 at d=16, 0.2 at 32, 0.167 at 64, 0.143 at 128, 0.125 at 256, 0.111 at 512
CheckSpec reaches(double threshold, std::optional<double> before, std::optional<double> after, bool rising = false) {
  CheckSpec c;
  c.kind = "reaches";
  c.x = "d";
  c.y = "error";
  c.threshold = threshold;
  c.before = before;
  c.after = after;
  c.rising = rising;
  return c;
}

TEST(Check, ReachesBeforeAndAfter) {
  HandTable h;
  for (auto it = kD.rbegin(); it != kD.rend(); ++it)  // table order must not matter
    h.add({{"d", std::to_string(*it)}}, 1 / std::log2(*it));
  const Table& t = h.table;
  const auto r = run(t, reaches(0.15, 128, {}));
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("first reached at d=128"), std::string::npos) << r.measured;
  EXPECT_EQ(r.expected, "error <= 0.15 first at d <= 128");
  EXPECT_FALSE(run(t, reaches(0.15, 64, {})).passed);
  EXPECT_TRUE(run(t, reaches(0.15, {}, 128)).passed);
  EXPECT_FALSE(run(t, reaches(0.15, {}, 256)).passed);
  EXPECT_TRUE(run(t, reaches(0.2, {}, {}, true)).passed);  // rising: 0.25 >= 0.2 at d=16
}

TEST(Check, NeverReachedFailsBeforeAndPassesAfter) {
  HandTable h;
  for (int d : kD) h.add({{"d", std::to_string(d)}}, 1 / std::log2(d));
  const auto before = run(h.table, reaches(0.01, 512, {}));
  EXPECT_FALSE(before.passed);
  EXPECT_NE(before.measured.find("never reached"), std::string::npos) << before.measured;
  const auto after = run(h.table, reaches(0.01, {}, 64));
  EXPECT_TRUE(after.passed);
  EXPECT_NE(after.measured.find("after the range"), std::string::npos) << after.measured;
}

TEST(Check, UnknownNamesFailInsteadOfThrowing) {
  CheckSpec c = slope(-1.5, 1);
  c.y = "nonsense";
  EXPECT_FALSE(run(power_law_table().table, c).passed);
  c = slope(-1.5, 1);
  c.where = {{"nonsense", "1"}};
  const auto r = run(power_law_table().table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("cannot evaluate"), std::string::npos) << r.measured;
}

TEST(Check, JsonCarriesEveryField) {
  const auto j = run(power_law_table().table, slope(-1.5, 0.01)).to_json();
  EXPECT_EQ(j["kind"], "slope");
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["expected"], "-1.5 +- 0.01");
  EXPECT_TRUE(j["measured"].is_string());
}

}  // namespace
}  // namespace scalinglab

namespace scalinglab {
namespace {

// x along a metric: params = 7 d (a measured size), error = 2 params^-0.5; the slope against the
// metric is -0.5, not the -0.5 against d shifted by the factor, and a bound reads the metric.
TEST(Check, XMayBeAMetricMeasuredInTheSameRow) {
  HandTable t;
  for (int d : kD) t.add({{"d", std::to_string(d)}, {"T", "inf"}}, 2 * std::pow(7.0 * d * d, -0.5));
  t.table.metric_names.push_back("params");
  for (auto& row : t.table.rows) {
    const double d = row.params.entry("d").number;
    row.mean.push_back(7.0 * d * d);
    row.std.push_back(0);
    row.sem.push_back(0);
  }
  CheckSpec c = slope(-0.5, 1e-9);
  c.x = "params";
  auto r = run(t.table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.measured.find("params in [1792, 1.835e+06]"), std::string::npos) << r.measured;
  c.expect = -1.0;  // against d it would be -1: the metric, not the parameter, is the x
  EXPECT_FALSE(run(t.table, c).passed);
  c.x = "nonsense";
  r = run(t.table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.measured.find("unknown parameter or metric 'nonsense'"), std::string::npos) << r.measured;
}

}  // namespace
}  // namespace scalinglab

namespace scalinglab {
namespace {

// ordered with a margin: T = 100 is 8/5 = 1.6 times T = 1000 at every d.
TEST(Check, OrderedWithAFactorAsksForAMargin) {
  CheckSpec c;
  c.kind = "ordered";
  c.x = "d";
  c.y = "error";
  c.series = "T";
  c.order = {"1000", "100"};
  c.factor = 1.5;
  auto r = run(power_law_table().table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_NE(r.expected.find("by a factor 1.5"), std::string::npos) << r.expected;
  c.factor = 1.7;
  EXPECT_FALSE(run(power_law_table().table, c).passed);
  c.order = {"100", "1000"};
  c.decreasing = true;
  c.factor = 1.5;
  EXPECT_TRUE(run(power_law_table().table, c).passed);
  c.factor = 1.7;
  EXPECT_FALSE(run(power_law_table().table, c).passed);
}

}  // namespace
}  // namespace scalinglab

namespace scalinglab {
namespace {

// One-sided slopes: "rises" is slope >= 0, not slope within 50 +- 50.
TEST(Check, OneSidedSlope) {
  CheckSpec c = slope(0, 0);
  c.at_most = -1.0;  // error ~ d^-1.5 falls at least as fast as 1/d
  auto r = run(power_law_table().table, c);
  EXPECT_TRUE(r.passed) << r.line();
  EXPECT_EQ(r.expected, "<= -1");
  c.at_most.reset();
  c.at_least = 0.0;
  EXPECT_FALSE(run(power_law_table().table, c).passed);
  c.at_least = -2.0;
  c.at_most = -1.6;
  r = run(power_law_table().table, c);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.expected, "in [-2, -1.6]");
}

}  // namespace
}  // namespace scalinglab
