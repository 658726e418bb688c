// The trained two-layer network: gradients against finite differences and against a plain
// double-precision reference on awkward shapes (every lane width of the kernels), one Adam step by
// hand, the same bits from the same seed, and teacher.train deterministic whatever the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

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

// The lane widths this build's kernels run at (1 is the scalar code).
std::vector<int> lane_widths() {
  detail::set_relu_kernel_lanes(0);
  std::vector<int> out;
  for (int l : {1, 4, 8, 16})
    if (l <= detail::relu_kernel_lanes()) out.push_back(l);
  return out;
}

// Sets the kernels' lane width for a scope.
struct Lanes {
  explicit Lanes(int l) { detail::set_relu_kernel_lanes(l); }
  ~Lanes() { detail::set_relu_kernel_lanes(0); }
};

// The step in double precision, naive loops, and for each output a scale of its float rounding
// (sums of absolute values of the terms).
struct Reference {
  double loss = 0, loss_scale = 0;
  std::vector<double> f, f_scale, gW, gW_scale, ga, ga_scale;
};

Reference reference(const ReluNetwork& net, const MatrixRF& X, const VectorF& y) {
  const int B = int(X.rows()), n = int(net.W.rows()), d = int(net.W.cols());
  Reference r;
  r.f.assign(B, 0);
  r.f_scale.assign(B, 0);
  std::vector<double> H(std::size_t(B) * n), delta(B), delta_err(B);
  for (int b = 0; b < B; ++b) {
    for (int i = 0; i < n; ++i) {
      double h = 0, habs = 0;
      for (int k = 0; k < d; ++k) h += double(X(b, k)) * net.W(i, k), habs += std::fabs(double(X(b, k)) * net.W(i, k));
      H[std::size_t(b) * n + i] = h;
      r.f[b] += (h > 0 ? h : 0.0) * net.a[i];
      r.f_scale[b] += habs * std::fabs(double(net.a[i]));
    }
    const double f = r.f[b];
    r.loss += std::log1p(std::exp(f)) - y[b] * f;
    r.loss_scale += r.f_scale[b];
    delta[b] = (1 / (1 + std::exp(-f)) - y[b]) / B;
    delta_err[b] = std::fabs(delta[b]) + r.f_scale[b] / B;  // delta moves by at most |df| / 4B
  }
  r.loss /= B;
  r.loss_scale /= B;
  r.gW.assign(std::size_t(n) * d, 0);
  r.gW_scale.assign(std::size_t(n) * d, 0);
  r.ga.assign(n, 0);
  r.ga_scale.assign(n, 0);
  for (int i = 0; i < n; ++i)
    for (int b = 0; b < B; ++b) {
      const double h = H[std::size_t(b) * n + i];
      if (!(h > 0)) continue;
      r.ga[i] += h * delta[b];
      r.ga_scale[i] += h * delta_err[b];
      for (int k = 0; k < d; ++k) {
        r.gW[std::size_t(i) * d + k] += net.a[i] * delta[b] * double(X(b, k));
        r.gW_scale[std::size_t(i) * d + k] += std::fabs(net.a[i] * double(X(b, k))) * delta_err[b];
      }
    }
  return r;
}

// Inputs and weights on a grid of multiples of 1/8 (|entries| <= 2): every h is exact in float, so
// the masks agree with the reference's, and many h are exactly 0. Row 0 of X is zero (h = 0 for
// every neuron), row 1 is minus row 2; neuron 0 has zero weights, neuron 1 = (1, -1, 0, ...) and
// rows 3 and later start with x_0 = x_1 when they can (h = 0 exactly).
void grid_fill(float* p, std::size_t size, Stream& s) {
  for (std::size_t k = 0; k < size; ++k) p[k] = float(std::round(std::clamp(s.normal() * 8.0, -16.0, 16.0)) / 8.0);
}
}  // namespace

TEST(ReluNetwork, MatchesDoublePrecisionReferenceOnAwkwardShapes) {
  int compared = 0, zeros = 0, negatives = 0;
  for (int lanes : lane_widths()) {
    Lanes scope(lanes);
    for (int d : {1, 3, 10, 12, 13, 17, 40})  // from 13 (AVX-512) or 12: d split into chunks of columns
      for (int n : {1, 5, 64, 67, 300}) {
        Stream s(100 + 7 * d + n);
        ReluNetwork net(std::size_t(d), std::size_t(n), s);
        grid_fill(net.W.data(), std::size_t(n) * d, s);
        net.W.row(0).setZero();
        if (n > 1 && d > 1) net.W.row(1).setZero(), net.W(1, 0) = 1, net.W(1, 1) = -1;
        for (int B : {1, 7, 64, 130}) {  // one network, shapes of the batch changing between calls
          MatrixRF X(B, d);
          grid_fill(X.data(), std::size_t(B) * d, s);
          if (B > 1) X.row(0).setZero();
          if (B > 2) X.row(1) = -X.row(2);
          if (d > 1)
            for (int b = 3; b < B; b += 2) X(b, 1) = X(b, 0);
          VectorF y(B);
          for (int b = 0; b < B; ++b) y[b] = s.uniform() < 0.5 ? 1.0f : 0.0f;
          MatrixRF gW;
          VectorF ga;
          const double loss = net.loss_and_gradient(X, y, gW, ga);
          const Reference r = reference(net, X, y);
          const std::string where = "lanes " + std::to_string(lanes) + " d " + std::to_string(d) + " n " + std::to_string(n) +
                                    " B " + std::to_string(B);
          ASSERT_EQ(gW.rows(), n);
          ASSERT_EQ(gW.cols(), d);
          ASSERT_EQ(ga.size(), n);
          ASSERT_EQ(net.last_outputs().size(), B);
          const double rel = 1e-4, tiny = 1e-12;
          EXPECT_NEAR(loss, r.loss, rel * r.loss_scale + 1e-6) << where;
          for (int b = 0; b < B; ++b) EXPECT_NEAR(net.last_outputs()[b], r.f[b], rel * r.f_scale[b] + tiny) << where << " row " << b;
          for (int i = 0; i < n; ++i) {
            EXPECT_NEAR(ga[i], r.ga[i], rel * r.ga_scale[i] + tiny) << where << " neuron " << i;
            for (int k = 0; k < d; ++k)
              EXPECT_NEAR(gW(i, k), r.gW[std::size_t(i) * d + k], rel * r.gW_scale[std::size_t(i) * d + k] + tiny)
                  << where << " W " << i << "," << k;
          }
          for (int b = 0; b < B; ++b)
            for (int i = 0; i < n; ++i) {
              double h = 0;
              for (int k = 0; k < d; ++k) h += double(X(b, k)) * net.W(i, k);
              zeros += h == 0, negatives += h < 0;
            }
          ++compared;
          // predict() runs the step's forward pass: the same bits as the step's outputs.
          const VectorF p = net.predict(X);
          for (int b = 0; b < B; ++b) EXPECT_EQ(p[b], net.last_outputs()[b]) << where << " row " << b;
        }
      }
  }
  EXPECT_EQ(compared, 140 * int(lane_widths().size()));
  EXPECT_GT(zeros, 1000);  // the masks' edge is exercised
  EXPECT_GT(negatives, 1000);
}

TEST(ReluNetwork, SameSeedSameBits) {
  for (int lanes : lane_widths()) {
    Lanes scope(lanes);
    for (auto [d, n, B] : {std::array<int, 3>{10, 300, 130}, {17, 67, 64}, {3, 5, 7}}) {
      auto run = [&] {
        Stream s(11);
        ReluNetwork net(std::size_t(d), std::size_t(n), s);
        MatrixRF X(B, d);
        VectorF y(B);
        std::vector<double> losses;
        NetworkOptimizer opt;
        opt.lr = 0.01f;
        std::vector<float> outputs;
        for (int step = 0; step < 5; ++step) {
          s.fill_normal(X.data(), std::size_t(B) * d, 1.0f);
          for (int b = 0; b < B; ++b) y[b] = s.uniform() < 0.5 ? 1.0f : 0.0f;
          losses.push_back(net.train_step(X, y, opt));
          outputs.insert(outputs.end(), net.last_outputs().data(), net.last_outputs().data() + B);
        }
        return std::make_tuple(losses, outputs, MatrixRF(net.W), VectorF(net.a));
      };
      const auto [l1, f1, W1, a1] = run();
      const auto [l2, f2, W2, a2] = run();
      EXPECT_EQ(0, std::memcmp(l1.data(), l2.data(), l1.size() * sizeof(double))) << lanes << " " << d;
      EXPECT_EQ(0, std::memcmp(f1.data(), f2.data(), f1.size() * sizeof(float))) << lanes << " " << d;
      EXPECT_EQ(0, std::memcmp(W1.data(), W2.data(), std::size_t(W1.size()) * sizeof(float))) << lanes << " " << d;
      EXPECT_EQ(0, std::memcmp(a1.data(), a2.data(), std::size_t(a1.size()) * sizeof(float))) << lanes << " " << d;
    }
  }
}

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
  const Measure& m = world_registry().get("teacher.train");
  const Params prm = resolve_params(m.params, {{"n", "16"}, {"T", "2000"}, {"runs", "4"}, {"test", "500"}, {"K", "10"}}, "test");
  const auto one = evaluate(m, prm, 1), two = evaluate(m, prm, 2);
  EXPECT_EQ(one.dump(), two.dump());
  EXPECT_GT(one["metrics"]["kl"]["mean"].get<double>(), 0.0);
}

TEST(ReluNetwork, SharedTeacherAndOnlineError) {
  const Measure& m = world_registry().get("teacher.train");
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
