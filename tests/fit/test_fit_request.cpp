// Fit requests end to end on synthetic tables with known laws: held-out rows expose a wrong law,
// leave-one-budget-out folds are the budgets, weights equal duplicated rows, a saved fit predicts
// what the law says, the default one-input fit is ordinary least squares in log space.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/law_expression.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

// An IsoFLOP design: `budgets` budgets from 1e18 to 1e22, 9 sizes each around the optimum, loss
// from a Chinchilla law (E 1.8, A 400, B 2000, alpha 0.34, beta 0.28) times exp(sigma * normal).
DataTable chinchilla_table(double sigma, std::uint64_t seed, int budgets = 5) {
  Stream s(seed);
  std::string csv = "N,D,C,loss,w\n";
  for (int b = 0; b < budgets; ++b) {
    const double C = 1e18 * std::pow(1e4, b / double(budgets - 1));
    const double n_opt = 0.1 * std::pow(C / 6, 0.45);
    for (int k = -4; k <= 4; ++k) {
      const double N = n_opt * std::pow(10.0, k / 4.0);
      const double D = C / (6 * N);
      const double L = 1.8 + 400 / std::pow(N, 0.34) + 2000 / std::pow(D, 0.28);
      csv += fmt::format("{:.17g},{:.17g},{:.17g},{:.17g},{}\n", N, D, C, L * std::exp(sigma * s.normal()), 1 + (k + 4) % 3);
    }
  }
  return parse_csv(csv, "synthetic");
}

FitRequest request(const std::string& law) {
  FitRequest r;
  r.law = law;
  r.columns.N = "N";
  r.columns.D = "D";
  r.columns.loss = "loss";
  r.bounds = "E=0:,A=0:,B=0:";
  r.grid = {"log(E)=0,0.5", "log(A)=3,6", "log(B)=3,8", "alpha=0.2,0.5", "beta=0.2,0.5"};  // 32 starts
  r.boot.replicates = 0;
  r.threads = 2;
  return r;
}

}  // namespace

TEST(FitRequest, HeldOutRowsExposeAWrongLaw) {
  const DataTable t = chinchilla_table(0.005, 3);
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.columns.holdout = "C >= 1e21";
  r.compare = {"E + A/N^alpha"};
  const FitOutcome o = run_fit(t, r);
  ASSERT_EQ(o.laws.size(), 2u);
  const PredictionErrors& right = o.laws[0].holdout;
  const PredictionErrors& wrong = o.laws[1].holdout;
  EXPECT_EQ(right.points, 18u);  // the two largest budgets
  EXPECT_EQ(o.laws[0].train.size(), 27);
  // The true law extrapolates to within a few noise levels; the law without a data term does not.
  EXPECT_LT(right.log_rmse, 3 * 0.005);
  EXPECT_GT(wrong.log_rmse, 5 * right.log_rmse);
  const nlohmann::json j = fit_outcome_json(o);
  EXPECT_EQ(j["compare"].size(), 2u);
  EXPECT_EQ(j["held_out"], 18);
}

TEST(FitRequest, LeaveOneBudgetOutFoldsAreTheBudgets) {
  const DataTable t = chinchilla_table(0.01, 4);
  FitRequest r = request("chinchilla");
  r.cv = "leave-one-budget-out";
  const FitOutcome o = run_fit(t, r);
  const auto& folds = o.laws[0].folds;
  ASSERT_EQ(folds.size(), 5u);
  for (std::size_t b = 0; b < folds.size(); ++b) {
    EXPECT_EQ(folds[b].errors.points, 9u);
    EXPECT_NEAR(std::log10(folds[b].C), 18 + b, 1e-9);
  }
  EXPECT_EQ(o.laws[0].cv.points, 45u);
  // Out-of-fold errors of the true law are of the order of the noise.
  EXPECT_LT(o.laws[0].cv.log_rmse, 2 * 0.01);
  EXPECT_GT(o.laws[0].cv.log_rmse, 0.5 * 0.01);
  r.cv = "k-fold";
  EXPECT_THROW(run_fit(t, r), InputError);
}

TEST(FitRequest, AWeightIsADuplicatedRow) {
  const DataTable t = chinchilla_table(0.01, 5);
  FitRequest weighted = request("E + A/N^alpha + B/D^beta");
  weighted.columns.weight = "w";
  const FitOutcome a = run_fit(t, weighted);
  // The same rows, each written w times.
  const std::vector<double> w = t.numbers("w");
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < t.rows(); ++i)
    for (int k = 0; k < static_cast<int>(w[i]); ++k) rows.push_back(i);
  const FitOutcome b = run_fit(t.select(rows), request("E + A/N^alpha + B/D^beta"));
  EXPECT_NEAR(a.laws[0].fit.objective, b.laws[0].fit.objective, 1e-12 + 1e-9 * b.laws[0].fit.objective);
  for (std::size_t p = 0; p < 5; ++p)
    EXPECT_NEAR(a.laws[0].fit.values[p], b.laws[0].fit.values[p], 1e-6 * std::fabs(b.laws[0].fit.values[p]));
  // Unweighted differs (the weights are not all equal).
  const FitOutcome c = run_fit(t, request("E + A/N^alpha + B/D^beta"));
  EXPECT_GT(std::fabs(c.laws[0].fit.values[3] - a.laws[0].fit.values[3]), 1e-6);
}

TEST(FitRequest, ASavedFitPredictsTheLawWithItsBootstrapInterval) {
  const DataTable t = chinchilla_table(0.01, 6);
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.boot.replicates = 40;
  const FitOutcome o = run_fit(t, r);
  const nlohmann::json saved = nlohmann::json::parse(fit_outcome_saved(o).dump());  // through text, as a file
  const nlohmann::json p = predict_saved(saved, {{"N", {7e10, 1e9}}, {"D", {1.4e12}}}, 0.9);
  ASSERT_EQ(p["predictions"].size(), 2u);
  const auto& v = o.laws[0].fit.values;  // E, A, alpha, B, beta
  for (int i = 0; i < 2; ++i) {
    const double N = i == 0 ? 7e10 : 1e9, D = 1.4e12;
    const double expect = v[0] + v[1] / std::pow(N, v[2]) + v[3] / std::pow(D, v[4]);
    const auto& row = p["predictions"][i];
    EXPECT_NEAR(row["loss"].get<double>(), expect, 1e-12 * expect);
    EXPECT_LT(row["loss_lo"].get<double>(), expect);
    EXPECT_GT(row["loss_hi"].get<double>(), expect);
  }
  EXPECT_THROW(predict_saved(saved, {{"N", {1e9}}}, 0.9), InputError);                        // D missing
  EXPECT_THROW(predict_saved(saved, {{"N", {1e9}}, {"D", {1e9}}, {"U", {1}}}, 0.9), InputError);  // not read
  EXPECT_THROW(predict_saved(nlohmann::json::object(), {{"N", {1e9}}}, 0.9), InputError);
}

TEST(FitRequest, OneInputFitsAreLeastSquaresInLogSpaceByDefault) {
  // A noisy power law: the default fit of `power` is the ordinary least-squares line of log y on
  // log x, so `power` and an expression of the same law agree with it to rounding.
  Stream s(8);
  std::string csv = "x,y\n";
  std::vector<double> lx, ly;
  for (int i = 0; i < 40; ++i) {
    const double x = std::pow(10.0, 1 + 5 * s.uniform());
    const double y = 3 * std::pow(x, -0.4) * std::exp(0.05 * s.normal());
    csv += fmt::format("{:.17g},{:.17g}\n", x, y);
    lx.push_back(std::log(x));
    ly.push_back(std::log(y));
  }
  double mx = 0, my = 0;
  for (int i = 0; i < 40; ++i) mx += lx[i] / 40, my += ly[i] / 40;
  double sxy = 0, sxx = 0;
  for (int i = 0; i < 40; ++i) sxy += (lx[i] - mx) * (ly[i] - my), sxx += (lx[i] - mx) * (lx[i] - mx);
  const double slope = sxy / sxx;
  const DataTable t = parse_csv(csv, "power");
  for (const std::string law : {"power", "A*x^-a"}) {
    FitRequest r;
    r.law = law;
    r.columns.x = "x";
    r.columns.loss = "y";
    r.bounds = "A=0:";
    r.boot.replicates = 0;
    const FitOutcome o = run_fit(t, r);
    EXPECT_NEAR(o.laws[0].fit.values[1], -slope, 1e-8) << law;
    EXPECT_FALSE(std::isfinite(o.laws[0].fit.delta)) << law;
  }
}

TEST(FitRequest, ConditionsAndBadRequests) {
  const DataTable t = chinchilla_table(0.01, 9);
  FitRequest r = request("chinchilla");
  r.x_min = 1e7;  // two-input law: N >= 1e7
  const FitOutcome o = run_fit(t, r);
  for (double N : o.columns.N) EXPECT_GE(N, 1e7);
  EXPECT_LT(o.columns.N.size(), 45u);
  FitRequest bad = request("chinchila");
  EXPECT_THROW(run_fit(t, bad), InputError);  // unknown law
  bad = request("chinchilla");
  bad.bounds = "gamma=0:1";
  EXPECT_THROW(run_fit(t, bad), InputError);  // no such parameter
  bad = request("chinchilla");
  bad.columns.holdout = "C > 1e30";
  EXPECT_THROW(run_fit(t, bad), InputError);  // holds out nothing
  bad = request("E + A*U^-a");
  EXPECT_THROW(run_fit(t, bad), InputError);  // U is no column: a law without inputs
}

TEST(FitRequest, OneInputLawsReadDerivedColumnsAndFilterOnTheOthers) {
  const DataTable t = chinchilla_table(0.01, 10);
  // D derived from N and C for a law of D alone.
  FitRequest r;
  r.law = "E + B*D^-beta";
  r.columns.N = "N";
  r.columns.C = "C";
  r.bounds = "E=0:,B=0:";
  r.boot.replicates = 0;
  const FitOutcome a = run_fit(t, r);
  EXPECT_EQ(a.laws[0].train.size(), 45);
  const std::vector<double> D = t.numbers("D");
  EXPECT_NEAR(a.laws[0].train.inputs[0][0], D[0], 1e-9 * D[0]);
  // A law of N alone filtered and held out on C.
  r.law = "E + A*N^-alpha";
  r.bounds = "E=0:,A=0:";
  r.columns.conditions = {"C >= 1e19"};
  r.columns.holdout = "C >= 1e21";
  r.cv = "leave-one-budget-out";
  const FitOutcome b = run_fit(t, r);
  EXPECT_EQ(b.laws[0].train.size() + b.laws[0].test.size(), 36);  // 4 budgets of 9
  EXPECT_EQ(b.laws[0].test.size(), 18);
  EXPECT_EQ(b.laws[0].fold_key, "N");
}

TEST(FitRequest, PredictRefusesInputsWhereTheLawIsUndefined) {
  const DataTable t = chinchilla_table(0.01, 11);
  const FitOutcome o = run_fit(t, request("chinchilla"));
  const nlohmann::json saved = fit_outcome_saved(o);
  EXPECT_THROW(predict_saved(saved, {{"N", {-1.0}}, {"D", {1e9}}}, 0.9), InputError);
}
