// The trained two-layer network: gradients against finite differences, one Adam step by hand, and
// teacher.train deterministic whatever the thread count.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/teacher/relu_network.hpp"

using namespace scalinglab;
using namespace scalinglab::teacher;

namespace {
double mean_loss(const ReluNetwork& net, const MatrixRF& X, const VectorF& y) {
  const VectorF f = net.predict(X);
  double loss = 0;
  for (Eigen::Index b = 0; b < X.rows(); ++b) loss += std::log1p(std::exp(double(f[b]))) - y[b] * double(f[b]);
  return loss / double(X.rows());
}
}  // namespace

TEST(ReluNetwork, GradientsMatchFiniteDifferences) {
  Stream s(4);
  ReluNetwork net(5, 7, s);
  MatrixRF X(9, 5);
  s.fill_normal(X.data(), 45, 1.0f);
  VectorF y(9);
  for (int b = 0; b < 9; ++b) y[b] = b % 2;
  MatrixRF gW;
  VectorF ga;
  const double loss = net.loss_and_gradient(X, y, gW, ga);
  EXPECT_NEAR(loss, mean_loss(net, X, y), 1e-5);
  const float h = 1e-2f;  // float32: a central difference with a large step, tolerance to match
  double largest = 0;
  for (Eigen::Index k = 0; k < net.W.size(); ++k) {
    const float keep = net.W.data()[k];
    net.W.data()[k] = keep + h;
    const double up = mean_loss(net, X, y);
    net.W.data()[k] = keep - h;
    const double down = mean_loss(net, X, y);
    net.W.data()[k] = keep;
    EXPECT_NEAR(gW.data()[k], (up - down) / (2 * h), 2e-3) << "W " << k;
    largest = std::max(largest, std::fabs(double(gW.data()[k])));
  }
  for (Eigen::Index i = 0; i < net.a.size(); ++i) {
    const float keep = net.a[i];
    net.a[i] = keep + h;
    const double up = mean_loss(net, X, y);
    net.a[i] = keep - h;
    const double down = mean_loss(net, X, y);
    net.a[i] = keep;
    EXPECT_NEAR(ga[i], (up - down) / (2 * h), 2e-3) << "a " << i;
  }
  EXPECT_GT(largest, 1e-2);  // not vacuous
}

TEST(ReluNetwork, AdamAndSgdStepsByHand) {
  Stream s(5);
  ReluNetwork net(3, 4, s);
  MatrixRF X(6, 3);
  s.fill_normal(X.data(), 18, 1.0f);
  VectorF y = VectorF::Ones(6);
  MatrixRF gW;
  VectorF ga;
  ReluNetwork copy = net;
  net.loss_and_gradient(X, y, gW, ga);
  NetworkOptimizer adam;
  adam.lr = 0.01f;
  copy.train_step(X, y, adam);
  // First Adam step: m = (1-b1) g, v = (1-b2) g^2, theta -= lr (m/(1-b1)) / (sqrt(v/(1-b2)) + eps).
  for (Eigen::Index k = 0; k < gW.size(); ++k) {
    const double g = gW.data()[k];
    const double expect = net.W.data()[k] - 0.01 * g / (std::fabs(g) + 1e-8);
    EXPECT_NEAR(copy.W.data()[k], expect, 1e-6) << k;
  }
  ReluNetwork sgd_net = net;
  NetworkOptimizer sgd;
  sgd.adam = false;
  sgd.lr = 0.5f;
  sgd_net.train_step(X, y, sgd);
  for (Eigen::Index i = 0; i < ga.size(); ++i) EXPECT_NEAR(sgd_net.a[i], net.a[i] - 0.5f * ga[i], 1e-6) << i;
}

TEST(ReluNetwork, TrainingIsDeterministicWhateverTheThreads) {
  const Measure& m = builtin_registry().get("teacher.train");
  const Params prm = resolve_params(m.params, {{"n", "16"}, {"T", "2000"}, {"runs", "4"}, {"test", "500"}, {"K", "10"}}, "test");
  const auto one = evaluate(m, prm, 1), two = evaluate(m, prm, 2);
  EXPECT_EQ(one.dump(), two.dump());
  EXPECT_GT(one["metrics"]["kl"]["mean"].get<double>(), 0.0);
}

TEST(ReluNetwork, SharedTeacherAndOnlineError) {
  const Measure& m = builtin_registry().get("teacher.train");
  auto prm = [&](const std::string& n, const std::string& lr) {
    return resolve_params(m.params, {{"n", n}, {"T", "20000"}, {"runs", "3"}, {"seed", "7"}, {"test", "20000"}, {"K", "10"}, {"lr", lr}}, "test");
  };
  // Run r of every grid point learns the same teacher on the same test inputs: the constant-1/2
  // predictor's error is then the same number at n = 8 and n = 16, and differs between runs.
  const Record a0 = run_task(m, prm("8", "0.003"), 7, 0), b0 = run_task(m, prm("16", "0.003"), 7, 0);
  const Record a2 = run_task(m, prm("8", "0.003"), 7, 2);
  EXPECT_EQ(a0.get("kl_half"), b0.get("kl_half"));
  EXPECT_NE(a0.get("kl_half"), a2.get("kl_half"));
  // With lr = 0 the network never changes: the online error (over the training inputs) and the final
  // one (over fresh inputs) estimate the same expectation, so they agree within a few standard errors.
  const Record z = run_task(m, prm("8", "0"), 7, 1);
  EXPECT_NEAR(z.get("kl_online"), z.get("kl"), 4 * std::sqrt(2.0) * z.get("kl_test_sem"));
  // Learning: the online error of a trained network is below the untrained one's and above the final one's.
  const Record t = run_task(m, prm("8", "0.003"), 7, 1);
  EXPECT_LT(t.get("kl_online"), z.get("kl_online"));
  EXPECT_GT(t.get("kl_online"), t.get("kl"));
}
