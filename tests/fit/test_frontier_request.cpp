// A frontier request (the command line's and Python's): its JSON form, its checks, and Approach 1
// on learning curves against a frontier known in closed form.
#include "scalinglab/fit/frontier_request.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_request.hpp"

namespace scalinglab::fit {
namespace {

// Learning curves of 10 model sizes under L = E + A/N^alpha + B/D^beta (Hoffmann et al.'s fitted
// values), each run to C = 1e20, 40 checkpoints, 0.3% noise: the true frontier is
// N_opt ~ C^(beta / (alpha + beta)).
std::string learning_curves(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.003);
  std::string csv = "run,N,tokens,loss\n";
  for (int k = 0; k < 10; ++k) {
    const double N = 1e7 * std::pow(100.0, k / 9.0), D_max = 1e20 / (6 * N);
    for (int i = 0; i < 40; ++i) {
      const double D = D_max / 300 * std::pow(300.0, i / 39.0);
      const double L = (1.69 + 406.4 / std::pow(N, 0.34) + 410.7 / std::pow(D, 0.28)) * std::exp(noise(rng));
      csv += "run" + std::to_string(k) + "," + std::to_string(N) + "," + std::to_string(D) + "," + std::to_string(L) + "\n";
    }
  }
  return csv;
}

FrontierRequest approach1_request() {
  FrontierRequest r;
  r.method = "approach1";
  r.run = "run";
  r.columns.N = "N";
  r.columns.D = "tokens";
  r.boot.replicates = 200;
  r.at = {1e22};
  return r;
}

TEST(FrontierRequest, Approach1RecoversTheKnownExponentWithinItsInterval) {
  const double truth = 0.28 / (0.34 + 0.28);
  for (std::uint64_t seed : {1, 2, 3}) {
    const FrontierOutcome o = run_frontier(parse_csv(learning_curves(seed), "curves"), approach1_request());
    const nlohmann::json& j = o.json;
    ASSERT_EQ(j["runs"], 10);
    const double a = j["a"], lo = j["a_lo"], hi = j["a_hi"];
    EXPECT_LE(lo, truth) << "seed " << seed;
    EXPECT_GE(hi, truth) << "seed " << seed;
    EXPECT_NEAR(a, truth, 0.05) << "seed " << seed;  // the point estimate itself, not only its interval
    EXPECT_NEAR(double(j["b"]), 1 - a, 1e-12);
    ASSERT_EQ(j["at"].size(), 1u);
    EXPECT_GT(double(j["at"][0]["N_opt_hi"]), double(j["at"][0]["N_opt_lo"]));
  }
}

TEST(FrontierRequest, Approach1NeedsRunsAndOneSizePerRun) {
  FrontierRequest r = approach1_request();
  r.run.clear();
  EXPECT_THROW(check_frontier_request(r), InputError);
  // A run whose rows name two model sizes is not one learning curve.
  const std::string csv = "run,N,tokens,loss\na,1e7,1e8,3\na,2e7,2e8,2.9\nb,1e8,1e8,2.8\nb,1e8,2e8,2.7\n";
  try {
    run_frontier(parse_csv(csv, "curves"), approach1_request());
    FAIL() << "two sizes in one run were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than one model size"), std::string::npos) << e.what();
  }
}

TEST(FrontierRequest, JsonFormReadsTheSharedOptionsAsFitDoes) {
  const FrontierRequest r = frontier_request_from_json(nlohmann::json::parse(
      R"({"method": "both", "N": "params", "N_scale": "M", "D_scale": 1e9, "drop_missing": true,
          "aggregate": "mean", "trim": "5%", "where": ["C>=1e19", "arch=dense"], "seed": 7})"));
  EXPECT_EQ(r.method, "both");
  EXPECT_EQ(r.columns.N_scale, 1e6);
  EXPECT_EQ(r.columns.D_scale, 1e9);
  EXPECT_TRUE(r.columns.drop_missing);
  EXPECT_EQ(r.columns.aggregate, "mean");
  EXPECT_DOUBLE_EQ(r.trim, 0.05);
  EXPECT_EQ(r.columns.conditions.size(), 1u);
  EXPECT_EQ(r.columns.where.size(), 1u);
  EXPECT_EQ(r.boot.seed, 7u);
  // Every shared key is a key of both requests; the rest are each command's own.
  for (const auto& k : fitter_option_keys()) {
    EXPECT_TRUE(fit_option_keys().count(k)) << k;
    EXPECT_TRUE(frontier_option_keys().count(k)) << k;
  }
  EXPECT_THROW(frontier_request_from_json(nlohmann::json::parse(R"({"law": "chinchilla"})")), InputError);
  EXPECT_THROW(frontier_request_from_json(nlohmann::json::parse(R"({"method": "approach9"})")), InputError);
  EXPECT_THROW(frontier_request_from_json(nlohmann::json::parse(R"({"trim": 2})")), InputError);
  EXPECT_THROW(frontier_request_from_json(nlohmann::json::parse(R"({"method": "parametric", "trim": 0.05})")),
               InputError);
  EXPECT_THROW(frontier_request_from_json(nlohmann::json::parse(R"({"at": [-1]})")), InputError);
}

TEST(FrontierRequest, MissingValuesAreDroppedAndCounted) {
  std::string csv = "N,D,loss\n";
  for (double C : {1e18, 1e19, 1e20})
    for (double N : {1e7, 3e7, 1e8, 3e8, 1e9}) {
      const double D = C / (6 * N);
      csv += std::to_string(N) + "," + std::to_string(D) + "," +
             std::to_string(1.7 + 400 / std::pow(N, 0.34) + 410 / std::pow(D, 0.28)) + "\n";
    }
  csv += "1e8,1e9,\n2e8,3e9,NaN\n";
  FrontierRequest r;
  r.columns.N = "N";
  r.columns.D = "D";
  r.boot.replicates = 0;
  EXPECT_THROW(run_frontier(parse_csv(csv, "runs"), r), InputError);
  r.columns.drop_missing = true;
  const FrontierOutcome o = run_frontier(parse_csv(csv, "runs"), r);
  EXPECT_EQ(o.json["missing_dropped"], 2);
  EXPECT_EQ(o.json["missing_by_column"]["loss"], 2);
  EXPECT_NE(rows_text(o.columns).find("2 with a missing value dropped (loss 2)"), std::string::npos)
      << rows_text(o.columns);
}

}  // namespace
}  // namespace scalinglab::fit
