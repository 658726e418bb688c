// Standard errors of parameters the data do not pin down are reported as unidentified, not as
// numbers: a flat direction (chinchilla with D the same on every row: B, beta and E merge), a scale
// whose refits span orders of magnitude (a saturating law whose data never approach E), refits on
// a bound; well-identified parameters keep their standard errors.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/identification.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

struct Fitted {
  LawFit fit;
  Bootstrap boot;
  FitOptions options;
  BootstrapOptions bo;
  std::vector<Identification> ident;
  std::map<std::string, bool> identified;  // by parameter name
};

Fitted fit_and_judge(const ScalingLaw& law, const LawData& d, const std::vector<std::string>& grid,
                     const std::string& bounds = "") {
  Fitted f;
  for (const auto& g : grid) f.options.grid.insert(parse_grid_option(g));
  if (!bounds.empty()) f.options.bounds = parse_bounds(bounds);
  f.options.threads = 1;
  f.fit = fit_law(law, d, f.options);
  f.bo.replicates = 30;
  f.bo.starts = 4;
  f.boot = bootstrap_law_fit(f.fit, d, f.options, f.bo);
  f.ident = identify_parameters(f.fit, f.boot, f.options);
  for (std::size_t p = 0; p < law.parameters.size(); ++p) f.identified[law.parameters[p]] = f.ident[p].identified;
  return f;
}

// A one-input law's points: x log-spaced over [lo, hi], loss y(x) times exp(noise * normal).
template <class Y>
LawData one_input(const ScalingLaw& law, double lo, double hi, int n, double noise, std::uint64_t seed, Y y) {
  Stream s(seed);
  std::vector<double> x, loss;
  for (int i = 0; i < n; ++i) {
    x.push_back(lo * std::pow(hi / lo, i / (n - 1.0)));
    loss.push_back(y(x.back()) * std::exp(noise * s.normal()));
  }
  return law_data_from(law, {{"x", x}}, loss);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Identification, AConstantDLeavesBAndBetaUnidentified) {
  // N varies, D does not: B / D^beta is a constant that merges with E.
  const ScalingLaw& law = scaling_law("chinchilla");
  Stream s(3);
  std::vector<double> N, D, loss;
  for (int i = 0; i < 24; ++i) {
    N.push_back(1e7 * std::pow(1e3, i / 23.0));
    D.push_back(2e10);
    loss.push_back((1.8 + 400 / std::pow(N.back(), 0.34) + 2000 / std::pow(D.back(), 0.28)) * std::exp(0.005 * s.normal()));
  }
  const LawData d = make_law_data(law, N, D, loss);
  const Fitted f = fit_and_judge(law, d, {"log(E)=0,0.5", "log(A)=4,7", "log(B)=5,8", "alpha=0.3,0.5", "beta=0.3,0.5"});
  for (const char* p : {"B", "beta", "E"}) {
    EXPECT_FALSE(f.identified.at(p)) << p;
  }
  for (const char* p : {"G", "a", "b"}) {  // computed from beta and B
    EXPECT_FALSE(f.identified.at(p)) << p;
  }
  EXPECT_TRUE(contains(f.ident[2].reason, "flat direction")) << f.ident[2].reason;
  EXPECT_TRUE(contains(f.ident[7].reason, "computed from")) << f.ident[7].reason;
  EXPECT_TRUE(f.identified.at("A"));
  EXPECT_TRUE(f.identified.at("alpha"));

  // The table prints "unidentified" for B's s.e. and interval, with the note; A keeps its numbers.
  const std::string table = law_fit_table(f.fit, f.options, &f.boot, f.bo, {});
  std::string b_row, a_row;
  for (std::size_t at = 0, end; at < table.size(); at = end + 1) {
    end = table.find('\n', at);
    const std::string line = table.substr(at, end - at);
    if (line.rfind("B ", 0) == 0) b_row = line;
    if (line.rfind("A ", 0) == 0) a_row = line;
    if (end == std::string::npos) break;
  }
  EXPECT_TRUE(contains(b_row, "unidentified")) << table;
  EXPECT_FALSE(contains(b_row, "[")) << b_row;
  EXPECT_FALSE(contains(a_row, "unidentified")) << table;
  EXPECT_TRUE(contains(a_row, "[")) << a_row;
  EXPECT_TRUE(contains(table, "unidentified (the data do not pin these down")) << table;

  // JSON: the flag, the reason, and no numbers for the unidentified s.e. and interval.
  const nlohmann::json j = law_fit_json(f.fit, f.options, &f.boot, f.bo, {});
  EXPECT_EQ(j["B_identified"], false);
  EXPECT_TRUE(j["B_se"].is_null() && j["B_lo"].is_null() && j["B_hi"].is_null());
  EXPECT_TRUE(j["B_unidentified"].get<std::string>().find("flat direction") != std::string::npos);
  EXPECT_TRUE(j["B"].is_number());
  EXPECT_EQ(j["A_identified"], true);
  EXPECT_TRUE(j["A_se"].is_number() && j["A_lo"].is_number());
  EXPECT_FALSE(j.contains("A_unidentified"));
  // Without a bootstrap there is no standard error to judge.
  EXPECT_FALSE(law_fit_json(f.fit, f.options, nullptr, f.bo, {}).contains("B_identified"));
}

TEST(Identification, AFloorTheDataNeverApproachIsUnidentified) {
  const ScalingLaw& law = scaling_law("saturating");
  const std::vector<std::string> grid;  // the law's own (60 starts)
  // E = 0.001 under losses from 1 down to 0.1: the floor is 1% of the lowest loss, below the noise.
  const LawData far = one_input(law, 1e2, 1e4, 30, 0.02, 5, [](double x) { return 0.001 + 10 / std::sqrt(x); });
  const Fitted f = fit_and_judge(law, far, grid);
  EXPECT_FALSE(f.identified.at("E")) << f.ident[0].reason;
  EXPECT_TRUE(contains(f.ident[0].reason, "spans a factor")) << f.ident[0].reason;
  EXPECT_TRUE(f.identified.at("a")) << f.ident[2].reason;

  // The same law where the losses reach the floor (down to 1.01 E): every parameter identified.
  const LawData near = one_input(law, 1e2, 1e8, 30, 0.02, 5, [](double x) { return 1.0 + 10 / std::sqrt(x); });
  const Fitted g = fit_and_judge(law, near, grid);
  for (std::size_t p = 0; p < 3; ++p) EXPECT_TRUE(g.ident[p].identified) << law.parameters[p] << ": " << g.ident[p].reason;
  EXPECT_GT(g.boot.intervals[0].lo, 0.9);
  EXPECT_LT(g.boot.intervals[0].hi, 1.1);
}

TEST(Identification, RefitsPilingOnABoundAreUnidentified) {
  // The data want alpha = 0.6; the bound stops it at 0.3, and so every refit.
  ExpressionLawOptions o;
  o.bounds = parse_bounds("E=0:,A=0:,alpha=0:0.3");
  const ScalingLaw law = expression_law("E + A*x^-alpha", {"x"}, o);
  const LawData d = one_input(law, 1e2, 1e8, 30, 0.01, 9, [](double x) { return 2 + 50 * std::pow(x, -0.6); });
  const Fitted f = fit_and_judge(law, d, {}, "alpha=0:0.3");
  EXPECT_FALSE(f.identified.at("alpha"));
  EXPECT_TRUE(contains(f.ident[2].reason, "end on its bound 0.3")) << f.ident[2].reason;
}
