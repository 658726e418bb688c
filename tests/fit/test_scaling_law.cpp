// The laws' Jacobians against finite differences, and parameters recovered from synthetic data
// drawn from each law with multiplicative noise.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/parametric_fit.hpp"
#include "scalinglab/fit/scaling_law.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

LawData random_points(const ScalingLaw& law, int n, std::uint64_t seed) {
  Stream s(seed);
  LawData d;
  d.u.resize(n);
  d.v.resize(n);
  d.log_y.resize(n);
  for (int i = 0; i < n; ++i) {
    d.u[i] = std::log(1e7) + 7 * s.uniform();
    d.v[i] = std::log(1e9) + 7 * s.uniform();
    d.log_y[i] = std::log(2.0 + s.uniform());
  }
  if (law.inputs.size() == 1) d.v.resize(0);
  return d;
}

std::vector<double> some_theta(const ScalingLaw& law) {
  if (law.name == "power") return {1.2, 0.4};
  if (law.name == "saturating") return {0.3, 2.0, 0.3};
  if (law.name == "chinchilla") return {0.5, 6.0, 7.5, 0.34, 0.37};
  return {30.0, 31.0, 0.076, 0.095};
}

}  // namespace

// The hand-written Jacobians of the built-in laws (laws given as expressions: test_law_expression).
TEST(ScalingLaw, JacobianMatchesFiniteDifferences) {
  for (const auto& name : {"power", "saturating", "chinchilla", "kaplan"}) {
    const ScalingLaw& law = scaling_law(name);
    const LawData d = random_points(law, 25, 3);
    std::vector<double> theta = some_theta(law);
    Eigen::ArrayXd lp, lp_plus, lp_minus;
    Eigen::ArrayXXd jac;
    law.predict(d, theta.data(), lp, &jac);
    for (std::size_t k = 0; k < law.dims(); ++k) {
      const double h = 1e-6 * std::max(1.0, std::abs(theta[k]));
      auto plus = theta, minus = theta;
      plus[k] += h;
      minus[k] -= h;
      law.predict(d, plus.data(), lp_plus, nullptr);
      law.predict(d, minus.data(), lp_minus, nullptr);
      const Eigen::ArrayXd fd = (lp_plus - lp_minus) / (2 * h);
      EXPECT_LT((fd - jac.col(static_cast<Eigen::Index>(k))).abs().maxCoeff(), 1e-6) << name << " coordinate " << k;
    }
  }
}

TEST(ScalingLaw, HuberGradientMatchesFiniteDifferences) {
  const ScalingLaw& law = scaling_law("chinchilla");
  LawData d = random_points(law, 40, 5);
  const std::vector<double> theta = some_theta(law);
  for (double delta : {1e-3, 0.3, std::numeric_limits<double>::infinity()}) {
    std::vector<double> g(law.dims());
    huber_objective(law, d, delta, theta.data(), g.data());
    for (std::size_t k = 0; k < law.dims(); ++k) {
      const double h = 1e-7;
      auto plus = theta, minus = theta;
      plus[k] += h;
      minus[k] -= h;
      const double fd = (huber_objective(law, d, delta, plus.data(), nullptr) -
                         huber_objective(law, d, delta, minus.data(), nullptr)) / (2 * h);
      EXPECT_NEAR(fd, g[k], 1e-5 * std::max(1.0, std::abs(fd))) << "delta " << delta << " coordinate " << k;
    }
  }
}

TEST(ScalingLaw, HuberLossIsQuadraticThenLinear) {
  // One point, one-input power law with log A = r + log y: the residual is r exactly.
  const ScalingLaw& law = scaling_law("power");
  LawData d;
  d.u = Eigen::ArrayXd::Zero(1);
  d.log_y = Eigen::ArrayXd::Zero(1);
  for (double r : {5e-4, -5e-4, 0.02, -0.5}) {
    const double theta[2] = {r, 0.0};
    const double expect = std::abs(r) <= 1e-3 ? 0.5 * r * r : 1e-3 * (std::abs(r) - 0.5e-3);
    EXPECT_NEAR(huber_objective(law, d, 1e-3, theta, nullptr), expect, 1e-15);
  }
}

namespace {

// Draws `n` points from the law at `theta` with log-normal noise of scale sigma.
LawData synthetic(const ScalingLaw& law, const std::vector<double>& theta, int n, double sigma, std::uint64_t seed) {
  Stream s(seed);
  LawData d;
  d.u.resize(n);
  d.log_y.resize(n);
  if (law.inputs.size() == 2) d.v.resize(n);
  const int side = static_cast<int>(std::ceil(std::sqrt(n)));
  for (int i = 0; i < n; ++i) {
    if (law.inputs.size() == 2) {
      d.u[i] = std::log(1e7) + std::log(1e3) * (i % side) / (side - 1);    // N from 1e7 to 1e10
      d.v[i] = std::log(1e9) + std::log(1e3) * (i / side) / (side - 1.0);  // D from 1e9 to 1e12
    } else {
      d.u[i] = std::log(1e4) * i / (n - 1.0);  // x from 1 to 1e4
    }
  }
  Eigen::ArrayXd lp;
  law.predict(d, theta.data(), lp, nullptr);
  for (int i = 0; i < n; ++i) d.log_y[i] = lp[i] + sigma * s.normal();
  return d;
}

}  // namespace

TEST(ParametricFit, RecoversPowerLaw) {
  const ScalingLaw& law = scaling_law("power");
  const LawData d = synthetic(law, {std::log(3.0), 0.5}, 40, 0.01, 11);
  const LawFit f = fit_law(law, d);
  EXPECT_NEAR(f.value("a"), 0.5, 0.01);
  EXPECT_NEAR(f.value("A"), 3.0, 0.1);
}

TEST(ParametricFit, RecoversSaturatingLaw) {
  const ScalingLaw& law = scaling_law("saturating");
  const LawData d = synthetic(law, {std::log(0.5), std::log(5.0), 0.7}, 60, 0.005, 12);
  const LawFit f = fit_law(law, d);
  EXPECT_NEAR(f.value("E"), 0.5, 0.02);
  EXPECT_NEAR(f.value("A"), 5.0, 0.3);
  EXPECT_NEAR(f.value("a"), 0.7, 0.03);
}

TEST(ParametricFit, RecoversChinchillaLaw) {
  // Hoffmann et al.'s published law, 256 points on a grid of N and D, 1% noise.
  const ScalingLaw& law = scaling_law("chinchilla");
  const std::vector<double> truth{std::log(1.69), std::log(406.4), std::log(410.7), 0.34, 0.28};
  const LawData d = synthetic(law, truth, 256, 0.01, 13);
  FitOptions o;
  o.grid["log_A"] = {0, 10, 20};  // a coarser grid keeps the test fast; recovery is the point here
  o.grid["log_B"] = {0, 10, 20};
  const LawFit f = fit_law(law, d, o);
  EXPECT_NEAR(f.value("E"), 1.69, 0.05);
  EXPECT_NEAR(f.value("alpha"), 0.34, 0.03);
  EXPECT_NEAR(f.value("beta"), 0.28, 0.03);
  EXPECT_NEAR(f.value("a"), 0.28 / 0.62, 0.03);
  EXPECT_LT(std::abs(std::log(f.value("A") / 406.4)), 0.5);
  EXPECT_LT(std::abs(std::log(f.value("B") / 410.7)), 0.5);
  EXPECT_NEAR(f.residuals.rmse, 0.01, 0.003);  // the residuals are the noise
}

TEST(ParametricFit, RecoversKaplanLaw) {
  // Kaplan et al.'s (2020) L(N, D), eq. (1.5): N_c = 8.8e13, D_c = 5.4e13, alpha_N = 0.076, alpha_D = 0.095.
  const ScalingLaw& law = scaling_law("kaplan");
  const std::vector<double> truth{std::log(8.8e13), std::log(5.4e13), 0.076, 0.095};
  const LawData d = synthetic(law, truth, 256, 0.002, 14);
  const LawFit f = fit_law(law, d);
  EXPECT_NEAR(f.value("alpha_N"), 0.076, 0.01);
  EXPECT_NEAR(f.value("alpha_D"), 0.095, 0.01);
  EXPECT_NEAR(f.value("a"), 0.095 / 0.171, 0.05);
}

TEST(ParametricFit, RejectsBadInput) {
  const ScalingLaw& law = scaling_law("chinchilla");
  EXPECT_THROW(make_law_data(law, {1e8, -1}, {1e9, 1e9}, {3, 3}), InputError);
  EXPECT_THROW(make_law_data(law, {1e8, 1e9}, {1e9, NAN}, {3, 3}), InputError);
  EXPECT_THROW(make_law_data(law, {1e8, 1e9}, {1e9, 1e9}, {3, 0}), InputError);
  try {
    make_law_data(law, {1e8, 1e9}, {1e9, 1e9}, {3, 0}, {7, 8});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 8"), std::string::npos) << e.what();
  }
  const LawData few = make_law_data(law, {1e8, 1e9, 1e10}, {1e9, 1e9, 1e9}, {3, 2.9, 2.8});
  EXPECT_THROW(fit_law(law, few), InputError);  // 3 points for 5 parameters
  FitOptions o;
  o.grid["gamma"] = {1.0};
  EXPECT_THROW(fit_law(law, synthetic(law, {0.5, 6, 7, 0.3, 0.3}, 30, 0.01, 1), o), InputError);
  EXPECT_THROW(scaling_law("chinchila"), InputError);
}
