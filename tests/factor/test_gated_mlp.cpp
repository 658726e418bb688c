// The gated MLP's forward and backward passes: against golden values from PyTorch
// (tests/factor/golden/gated_mlp_golden.py), and against finite differences of an independent
// double-precision forward pass written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "scalinglab/factor/adam.hpp"
#include "scalinglab/factor/gated_mlp.hpp"
#include "scalinglab/factor/lr_schedule.hpp"

using namespace scalinglab;
using namespace scalinglab::factor;

namespace {

constexpr std::size_t N = 5, M = 7, d = 6, h = 4, L = 2, B = 8;

std::map<std::string, std::vector<double>> read_golden() {
  std::ifstream in(std::string(SCALINGLAB_SOURCE_DIR) + "/tests/factor/golden/gated_mlp_golden.txt");
  std::map<std::string, std::vector<double>> g;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string name;
    std::size_t n;
    ss >> name >> n;
    std::vector<double> v(n);
    for (auto& a : v) ss >> a;
    g[name] = v;
  }
  return g;
}

// The golden script's weights: the same formulas, in double, rounded to float.
GatedMlp formula_net(Gate gate) {
  MlpShape s;
  s.N = N, s.M = M, s.d = d, s.h = h, s.L = L, s.gate = gate;
  GatedMlp net(s);
  auto fill = [&](std::size_t offset, std::size_t n, auto f) {
    for (std::size_t k = 0; k < n; ++k) net.theta[offset + k] = static_cast<float>(f(static_cast<double>(k)));
  };
  fill(0, N * d, [](double k) { return std::sin(0.37 * k + 0.5); });
  for (std::size_t l = 0; l < L; ++l) {
    const double ph = static_cast<double>(l);
    fill(net.w1_offset(l), h * d, [&](double k) { return 0.5 * std::sin(0.41 * k + 1.0 + ph); });
    fill(net.w3_offset(l), h * d, [&](double k) { return 0.5 * std::cos(0.29 * k + 2.0 + ph); });
    fill(net.w2_offset(l), d * h, [&](double k) { return 0.5 * std::sin(0.53 * k + 3.0 + ph); });
  }
  fill(net.w_out_offset(), M * d, [](double k) { return 0.5 * std::cos(0.31 * k + 4.0); });
  return net;
}

std::vector<float> formula_targets() {
  std::vector<float> P(N * M);
  for (std::size_t x = 0; x < N; ++x) {
    double sum = 0;
    std::vector<double> row(M);
    for (std::size_t y = 0; y < M; ++y) sum += row[y] = std::exp(std::sin(1.7 * x + 0.9 * y));
    for (std::size_t y = 0; y < M; ++y) P[x * M + y] = static_cast<float>(row[y] / sum);
  }
  return P;
}

std::vector<double> neg_entropy_of(const std::vector<float>& P) {
  std::vector<double> ne(N, 0.0);
  for (std::size_t x = 0; x < N; ++x)
    for (std::size_t y = 0; y < M; ++y) ne[x] += P[x * M + y] * std::log(static_cast<double>(P[x * M + y]));
  return ne;
}

// Each named tensor's slice of theta, in the golden file's names.
std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> views(const GatedMlp& net) {
  std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> v = {{"E", {0, N * d}}};
  for (std::size_t l = 0; l < L; ++l) {
    v.push_back({"W1_" + std::to_string(l), {net.w1_offset(l), h * d}});
    v.push_back({"W3_" + std::to_string(l), {net.w3_offset(l), h * d}});
    v.push_back({"W2_" + std::to_string(l), {net.w2_offset(l), d * h}});
  }
  v.push_back({"W_out", {net.w_out_offset(), M * d}});
  return v;
}

void expect_close(const std::vector<double>& want, const float* got, double rel, const std::string& what) {
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t k = 0; k < want.size(); ++k)
    ASSERT_NEAR(got[k], want[k], rel * scale + 1e-7) << what << "[" << k << "]";
}

// An independent forward pass in double: the loss for soft targets (KL) or hard labels (CE).
double reference_loss(const std::vector<double>& th, const GatedMlp& layout, const std::vector<uint32_t>& xs,
                      const std::vector<float>* P, const std::vector<uint32_t>* labels, Gate gate) {
  double total = 0;
  for (std::size_t r = 0; r < xs.size(); ++r) {
    std::vector<double> z(th.begin() + xs[r] * d, th.begin() + (xs[r] + 1) * d);
    auto normalise = [](const std::vector<double>& v) {
      double ms = 0;
      for (double a : v) ms += a * a / static_cast<double>(v.size());
      std::vector<double> u(v);
      for (double& a : u) a /= std::sqrt(ms + 1e-6);
      return u;
    };
    for (std::size_t l = 0; l < L; ++l) {
      const std::vector<double> u = normalise(z);
      std::vector<double> s(h);
      for (std::size_t i = 0; i < h; ++i) {
        double a = 0, g = 0;
        for (std::size_t c = 0; c < d; ++c) {
          a += th[layout.w1_offset(l) + i * d + c] * u[c];
          g += th[layout.w3_offset(l) + i * d + c] * u[c];
        }
        const double sig = 1 / (1 + std::exp(-a));
        s[i] = (gate == Gate::silu ? a * sig : sig) * g;
      }
      for (std::size_t c = 0; c < d; ++c)
        for (std::size_t i = 0; i < h; ++i) z[c] += th[layout.w2_offset(l) + c * h + i] * s[i];
    }
    const std::vector<double> u = normalise(z);
    std::vector<double> logit(M);
    double top = -1e300;
    for (std::size_t y = 0; y < M; ++y) {
      logit[y] = 0;
      for (std::size_t c = 0; c < d; ++c) logit[y] += th[layout.w_out_offset() + y * d + c] * u[c];
      top = std::max(top, logit[y]);
    }
    double sum = 0;
    for (double a : logit) sum += std::exp(a - top);
    const double lse = top + std::log(sum);
    if (labels) {
      total += lse - logit[(*labels)[r]];
    } else {
      for (std::size_t y = 0; y < M; ++y) {
        const double p = (*P)[xs[r] * M + y];
        total += p * (std::log(p) - (logit[y] - lse));
      }
    }
  }
  return total / static_cast<double>(xs.size());
}

std::vector<uint32_t> all_inputs() {
  std::vector<uint32_t> x(N);
  for (std::size_t i = 0; i < N; ++i) x[i] = static_cast<uint32_t>(i);
  return x;
}

std::vector<uint32_t> batch_inputs() {
  std::vector<uint32_t> x(B);
  for (std::size_t b = 0; b < B; ++b) x[b] = static_cast<uint32_t>((2 * b + 1) % N);
  return x;
}

std::vector<uint32_t> batch_labels() {
  std::vector<uint32_t> y(B);
  for (std::size_t b = 0; b < B; ++b) y[b] = static_cast<uint32_t>((3 * b + 1) % M);
  return y;
}

}  // namespace

class GatedMlpGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(GatedMlpGolden, ForwardBackwardAndAdamMatchPyTorch) {
  const auto golden = read_golden();
  ASSERT_FALSE(golden.empty()) << "golden file missing";
  const std::string gate = GetParam();
  GatedMlp net = formula_net(parse_gate(gate));
  const std::vector<float> P = formula_targets();
  const std::vector<double> ne = neg_entropy_of(P);
  MlpEngine engine(net.shape);
  const auto xs = all_inputs();

  const std::vector<float> logits = engine.logits(net, xs.data(), N);
  expect_close(golden.at(gate + ".logits"), logits.data(), 2e-6, "logits");

  Targets soft;
  soft.table = P.data(), soft.neg_entropy = ne.data();
  std::vector<float> grad(net.size());
  const double kl = engine.loss_and_gradient(net, xs.data(), N, soft, grad.data(), true, true, 1);
  EXPECT_NEAR(kl, golden.at(gate + ".kl")[0], 1e-6);
  for (const auto& [name, view] : views(net))
    expect_close(golden.at(gate + ".soft_grad." + name), grad.data() + view.first, 2e-5, "soft grad " + name);

  Adam adam(net.size());
  adam.step(net.theta.data(), grad.data(), 0, net.size(), 0.01);
  for (const auto& [name, view] : views(net))
    expect_close(golden.at(gate + ".after_adam." + name), net.theta.data() + view.first, 1e-6, "after Adam " + name);

  GatedMlp fresh = formula_net(parse_gate(gate));
  const auto bx = batch_inputs(), by = batch_labels();
  Targets hard;
  hard.labels = by.data();
  const double ce = engine.loss_and_gradient(fresh, bx.data(), B, hard, grad.data(), true, true, 1);
  EXPECT_NEAR(ce, golden.at(gate + ".ce")[0], 1e-6);
  for (const auto& [name, view] : views(fresh))
    expect_close(golden.at(gate + ".hard_grad." + name), grad.data() + view.first, 2e-5, "hard grad " + name);
}

INSTANTIATE_TEST_SUITE_P(Gates, GatedMlpGolden, ::testing::Values("silu", "logistic"));

class GatedMlpGradient : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

// Every gradient entry against central differences of the double-precision reference loss.
TEST_P(GatedMlpGradient, MatchesFiniteDifferences) {
  const auto [gate_name, soft_targets] = GetParam();
  const Gate gate = parse_gate(gate_name);
  GatedMlp net = formula_net(gate);
  Stream s(3);
  init_default(net, s);  // random weights this time (PyTorch's scheme)
  const std::vector<float> P = formula_targets();
  const std::vector<double> ne = neg_entropy_of(P);
  const auto xs = soft_targets ? all_inputs() : batch_inputs();
  const auto ys = batch_labels();
  Targets t;
  if (soft_targets) t.table = P.data(), t.neg_entropy = ne.data();
  else t.labels = ys.data();
  MlpEngine engine(net.shape);
  std::vector<float> grad(net.size());
  const double loss = engine.loss_and_gradient(net, xs.data(), xs.size(), t, grad.data(), true, true, 1);
  std::vector<double> th(net.theta.begin(), net.theta.end());
  EXPECT_NEAR(loss, reference_loss(th, net, xs, &P, soft_targets ? nullptr : &ys, gate), 1e-5);
  double worst = 0;
  for (std::size_t k = 0; k < th.size(); ++k) {
    const double eps = 1e-5, keep = th[k];
    th[k] = keep + eps;
    const double up = reference_loss(th, net, xs, &P, soft_targets ? nullptr : &ys, gate);
    th[k] = keep - eps;
    const double down = reference_loss(th, net, xs, &P, soft_targets ? nullptr : &ys, gate);
    th[k] = keep;
    const double fd = (up - down) / (2 * eps);
    worst = std::max(worst, std::abs(fd - grad[k]) / (std::abs(fd) + 1e-3));
    ASSERT_NEAR(grad[k], fd, 1e-4 * std::abs(fd) + 2e-6) << "parameter " << k;
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(GatesAndTargets, GatedMlpGradient,
                         ::testing::Combine(::testing::Values("silu", "logistic"), ::testing::Bool()));

TEST(GatedMlp, FrozenEmbeddingIsLeftAlone) {
  GatedMlp net = formula_net(Gate::silu);
  const std::vector<float> P = formula_targets();
  MlpEngine engine(net.shape);
  const auto xs = all_inputs();
  Targets t;
  t.table = P.data();
  std::vector<float> grad(net.size(), 123.0f);
  engine.loss_and_gradient(net, xs.data(), N, t, grad.data(), false, false, 1);
  for (std::size_t k = 0; k < N * d; ++k) ASSERT_EQ(grad[k], 123.0f);
  EXPECT_NE(grad[net.w_out_offset()], 123.0f);
}

// The benchmark's phase clock only reads the time: the loss and every gradient entry are the same
// bits with it on, on 1 and 2 threads; the products and the generated target rows get time, the
// clock stopped adds nothing.
TEST(GatedMlp, TimingThePhasesChangesNoBit) {
  GatedMlp net = formula_net(Gate::silu);
  const std::vector<float> P = formula_targets();
  const auto xs = all_inputs();
  Targets t;
  t.row = [&](std::size_t x, float* out) { std::copy(P.begin() + x * net.shape.M, P.begin() + (x + 1) * net.shape.M, out); };
  for (int threads : {1, 2}) {
    MlpEngine plain(net.shape), timed(net.shape);
    std::vector<float> g0(net.size()), g1(net.size());
    const double l0 = plain.loss_and_gradient(net, xs.data(), N, t, g0.data(), true, true, threads);
    PhaseSeconds phases;
    timed.time_phases(&phases);
    const double l1 = timed.loss_and_gradient(net, xs.data(), N, t, g1.data(), true, true, threads);
    EXPECT_EQ(l0, l1);
    EXPECT_EQ(0, std::memcmp(g0.data(), g1.data(), g0.size() * sizeof(float))) << threads << " threads";
    EXPECT_GT(phases.products, 0.0);
    EXPECT_GT(phases.targets, 0.0);
    EXPECT_GT(phases.head, 0.0);
    timed.time_phases(nullptr);
    const PhaseSeconds before = phases;
    timed.loss_and_gradient(net, xs.data(), N, t, g1.data(), true, true, threads);
    EXPECT_EQ(phases.total(), before.total());
  }
}

TEST(GatedMlp, FactorizedEmbeddingIsASumOfFactorVectors) {
  MlpShape s;
  s.N = 12, s.M = 3, s.d = 5, s.h = 4;
  GatedMlp net(s);
  Stream st(8);
  set_factorized_embedding(net, {2, 3, 2}, st);
  // e_x - e_x' depends only on the factors that differ: e(x1=1,x2,x3) - e(x1=0,x2,x3) is the same
  // for every (x2, x3).
  const float* E = net.embedding();
  for (std::size_t rest = 0; rest < 6; ++rest)
    for (std::size_t c = 0; c < 5; ++c)
      EXPECT_NEAR(E[(2 * rest + 1) * 5 + c] - E[(2 * rest) * 5 + c], E[5 + c] - E[c], 1e-6);
  EXPECT_THROW(set_factorized_embedding(net, {2, 2}, st), std::invalid_argument);
}

TEST(GatedMlp, DefaultInitialisationHasPyTorchScales) {
  MlpShape s;
  s.N = 2000, s.M = 300, s.d = 64, s.h = 128;
  GatedMlp net(s);
  Stream st(2);
  init_default(net, st);
  auto moments = [&](std::size_t off, std::size_t n, double& mean, double& var, double& top) {
    mean = var = top = 0;
    for (std::size_t k = 0; k < n; ++k) mean += net.theta[off + k], top = std::max(top, std::abs(double(net.theta[off + k])));
    mean /= n;
    for (std::size_t k = 0; k < n; ++k) var += (net.theta[off + k] - mean) * (net.theta[off + k] - mean);
    var /= n;
  };
  double mean, var, top;
  moments(0, s.N * s.d, mean, var, top);  // N(0, 1)
  EXPECT_NEAR(mean, 0, 0.01);
  EXPECT_NEAR(var, 1, 0.02);
  moments(net.w1_offset(0), s.h * s.d, mean, var, top);  // U(-1/8, 1/8): variance 1/(3*64)
  EXPECT_LE(top, 0.125);
  EXPECT_NEAR(var, 1.0 / 192, 0.0005);
  moments(net.w2_offset(0), s.d * s.h, mean, var, top);  // fan_in 128
  EXPECT_LE(top, 1 / std::sqrt(128.0));
}

TEST(LrSchedule, CosineAndCustom) {
  EXPECT_DOUBLE_EQ(learning_rate(Schedule::cosine, 0.03, 0, 100), 0.03);
  EXPECT_NEAR(learning_rate(Schedule::cosine, 0.03, 50, 100), 0.015, 1e-15);
  EXPECT_NEAR(learning_rate(Schedule::cosine, 0.03, 100, 100), 0.0, 1e-15);
  // Eq. (7): geometric interpolation from eta to 3e-4.
  EXPECT_NEAR(learning_rate(Schedule::custom, 0.03, 0, 100), 0.03, 1e-15);
  EXPECT_NEAR(learning_rate(Schedule::custom, 0.03, 50, 100), std::sqrt(0.03 * 3e-4), 1e-15);
  EXPECT_NEAR(learning_rate(Schedule::custom, 0.03, 100, 100), 3e-4, 1e-15);
  EXPECT_EQ(learning_rate(Schedule::constant, 0.03, 70, 100), 0.03);
  EXPECT_THROW(parse_schedule("linear"), std::invalid_argument);
}

TEST(Adam, FirstStepMovesEveryWeightByAboutLr) {
  // After one step m_hat = g and v_hat = g^2: theta moves by lr g / (|g| + eps).
  std::vector<float> theta = {1.0f, -2.0f, 0.5f}, g = {0.3f, -1e-3f, 4.0f};
  Adam adam(3);
  adam.step(theta.data(), g.data(), 0, 3, 0.01);
  EXPECT_NEAR(theta[0], 0.99f, 1e-6);
  EXPECT_NEAR(theta[1], -1.99f, 1e-6);
  EXPECT_NEAR(theta[2], 0.49f, 1e-6);
  // Only [begin, end) moves.
  Adam part(3);
  std::vector<float> t2 = {1.0f, 1.0f, 1.0f};
  part.step(t2.data(), g.data(), 1, 3, 0.01);
  EXPECT_EQ(t2[0], 1.0f);
}
