// Prediction intervals of `predict`: the normal quantile and the residual scale against their
// definitions, and coverage on synthetic data with known log-normal noise: about 95% of fresh noisy
// runs fall in the 95% prediction interval, while the interval of the law's curve alone (its
// parameters' uncertainty) covers far fewer.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/prediction_interval.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

TEST(PredictionInterval, NormalQuantileMatchesKnownValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-14);
  EXPECT_NEAR(normal_quantile(0.8413447460685429), 1.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.0005), -3.290526731491926, 1e-10);
  EXPECT_NEAR(normal_quantile(0.1), -normal_quantile(0.9), 1e-13);
  for (double p : {0.0, 1.0, -0.1, std::nan("")}) EXPECT_THROW(normal_quantile(p), InputError) << p;
}

TEST(PredictionInterval, AddsTheParameterSpreadAndTheResidualScatterInQuadrature) {
  ResidualStats r;
  r.points = 10;
  r.rmse = 0.03;
  EXPECT_NEAR(residual_sigma(r, 2), 0.03 * std::sqrt(10.0 / 8.0), 1e-15);
  EXPECT_TRUE(std::isnan(residual_sigma(r, 10)));
  // Replicates with standard deviation 0.04 (sample, n - 1) and sigma 0.03: total 0.05.
  const std::vector<double> reps{1 - 0.04, 1 + 0.04, 1 - 0.04, 1 + 0.04};
  const double s_theta = 0.04 * std::sqrt(4.0 / 3.0);
  const Interval pi = prediction_interval(1.0, reps, 0.03, 0.95);
  const double total = std::sqrt(s_theta * s_theta + 0.03 * 0.03);
  EXPECT_NEAR(pi.se, total, 1e-14);
  EXPECT_NEAR(std::log(pi.hi) - 1, 1.959963984540054 * total, 1e-12);
  EXPECT_NEAR(1 - std::log(pi.lo), 1.959963984540054 * total, 1e-12);
  // Without replicates the interval is the residual scatter's alone.
  EXPECT_NEAR(prediction_interval(1.0, {}, 0.03, 0.95).se, 0.03, 1e-15);
}

namespace {

// The power law L = 20 x^-0.3, measured with log-normal noise of scale kSigma.
constexpr double kSigma = 0.05;

double truth(double x) { return 20 * std::pow(x, -0.3); }

}  // namespace

TEST(PredictionInterval, CoversFreshNoisyRunsAtItsLevel) {
  int inside_pi = 0, inside_law = 0, total = 0;
  for (int rep = 0; rep < 20; ++rep) {
    Stream s(100 + rep);
    std::string csv = "x,loss\n";
    for (int i = 0; i < 40; ++i) {
      const double x = std::pow(10.0, 1 + 3.0 * i / 39);
      csv += fmt::format("{:.17g},{:.17g}\n", x, truth(x) * std::exp(kSigma * s.normal()));
    }
    FitRequest r;
    r.law = "power";
    r.columns.x = "x";
    r.columns.loss = "loss";
    r.boot.replicates = 200;
    r.boot.seed = 7 + rep;
    r.threads = 2;
    const nlohmann::json saved = fit_outcome_saved(run_fit(parse_csv(csv, "synthetic"), r));
    // Fresh runs inside the data's range, each with its own noise.
    std::vector<double> xs, ys;
    for (int i = 0; i < 100; ++i) {
      const double x = std::pow(10.0, 1 + 3.0 * s.uniform());
      xs.push_back(x);
      ys.push_back(truth(x) * std::exp(kSigma * s.normal()));
    }
    const nlohmann::json p = predict_saved(saved, {{"x", xs}}, 0.95);
    ASSERT_NEAR(p["log_residual_sigma"].get<double>(), kSigma, 0.4 * kSigma);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto& row = p["predictions"][i];
      inside_pi += row["loss_pi_lo"].get<double>() <= ys[i] && ys[i] <= row["loss_pi_hi"].get<double>();
      inside_law += row["loss_lo"].get<double>() <= ys[i] && ys[i] <= row["loss_hi"].get<double>();
      ++total;
    }
  }
  const double pi = double(inside_pi) / total, law = double(inside_law) / total;
  std::printf("fresh runs inside: prediction interval %.3f, the law's interval %.3f (%d runs)\n", pi, law, total);
  EXPECT_GE(pi, 0.92);
  EXPECT_LE(pi, 0.975);
  EXPECT_LT(law, 0.5);
}
