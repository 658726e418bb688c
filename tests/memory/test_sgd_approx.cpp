// Section 4's approximation of SGD (eqs. 19-20, 56): the one-step map against hand iterations and
// its continuous-time limit (Lambert W), monotonicity and log-saturation, the batch versions against
// hand computations, the shape of q_gamma (Figure 5: rho fitted by log-log regression) and the error
// of W_{q_gamma} against real SGD (memory.train) in the regimes of Figure 4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/zipf.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/memory/sgd_approx.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;

namespace {

// The map written out independently of the library: q + lr c / (1 + e^q / (M - 1)).
double hand_step(double q, double lr, double c, double M) { return q + lr * c / (1.0 + std::exp(q) / (M - 1.0)); }

Params resolve(const std::string& measure, const std::map<std::string, std::string>& given) {
  return resolve_params(world_registry().get(measure).params, given, "test");
}

std::vector<double> series(const Record& r, const std::string& name) {
  for (const auto& [n, v] : r.series)
    if (n == name) return v;
  ADD_FAILURE() << "no series " << name;
  return {};
}

// Slope of log q against log p over the inputs with q > 0 (least squares): rho of q ~ p^rho.
double fitted_rho(const std::vector<double>& p, const std::vector<double>& q) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (q[i] <= 0) continue;
    const double X = std::log(p[i]), Y = std::log(q[i]);
    sx += X, sy += Y, sxx += X * X, sxy += X * Y, n += 1;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

TEST(SgdApprox, IteratesMatchAHandIteration) {
  for (double lr : {0.05, 0.7, 10.0}) {
    for (double M : {2.0, 5.0, 100.0}) {
      const auto m = static_cast<std::size_t>(M);
      // f(0) = lr (M-1)/M: at q = 0 all M logits are 0 and 1 - p = (M-1)/M.
      EXPECT_NEAR(sgd_approx_iterate(1, lr, m), lr * (M - 1) / M, 1e-15 * lr);
      const std::vector<double> it = sgd_approx_iterates(6, lr, m);
      ASSERT_EQ(it.size(), 7u);
      double q = 0;
      for (uint64_t n = 0; n <= 6; ++n) {
        EXPECT_NEAR(it[n], q, 1e-13 * (1 + q)) << "lr " << lr << " M " << M << " n " << n;
        EXPECT_EQ(sgd_approx_iterate(n, lr, m), it[n]);
        q = hand_step(q, lr, 1.0, M);
      }
    }
  }
  // The weight c and the starting point q0.
  EXPECT_NEAR(sgd_approx_iterate(2, 1.5, 4, 0.25, 0.3),
              hand_step(hand_step(0.3, 1.5, 0.25, 4), 1.5, 0.25, 4), 1e-15);
  EXPECT_THROW(sgd_approx_step(0, 1, 1, 1), std::invalid_argument);
}

TEST(SgdApprox, IteratesIncreaseAndSaturateLikeLogN) {
  for (double lr : {1e-3, 0.1, 1.0, 10.0, 100.0}) {
    const std::vector<double> it = sgd_approx_iterates(20000, lr, 5);
    for (std::size_t n = 1; n + 1 < it.size(); ++n) {
      // increasing (for lr = 100, e^q/(M-1) ~ 1e34 after one step: the increments underflow to 0)
      if (lr <= 10) {
        ASSERT_GT(it[n + 1], it[n]) << "lr " << lr << " n " << n;
      } else {
        ASSERT_GE(it[n + 1], it[n]) << "lr " << lr << " n " << n;
      }
      ASSERT_LE(it[n + 1] - it[n], it[n] - it[n - 1] + 1e-15) << "lr " << lr << " n " << n;  // concave
    }
  }
  // With z = e^q/(M-1): z -> z e^{lr/(1+z)} ~ z + lr, so z_n = lr n + O(log n) and
  // f^n(0) = log(lr (M-1) n) + O(log(n)/n): the derivative in n tends to 1/n.
  for (double lr : {0.1, 1.0, 10.0}) {
    const uint64_t n = 1'000'000;
    const double a = sgd_approx_iterate(n, lr, 5), b = sgd_approx_step(a, lr, 1.0, 5);
    EXPECT_NEAR(a, std::log(lr * 4 * static_cast<double>(n)), 1e-3) << "lr " << lr;
    EXPECT_NEAR(static_cast<double>(n) * (b - a), 1.0, 1e-3) << "lr " << lr;
  }
  // No NaN for absurd steps: the increment underflows to 0 once e^q overflows.
  EXPECT_TRUE(std::isfinite(sgd_approx_iterate(3, 1e300, 5)));
}

TEST(SgdApprox, FollowsItsContinuousTimeLimit) {
  // q(n) = a - W0(e^a/(M-1)), a = lr n + 1/(M-1), solves dq/dn = lr/(1 + e^q/(M-1)): Euler's scheme
  // f^n(0) stays within O(lr) of it.
  for (double lr : {1e-3, 1e-2}) {
    for (std::size_t M : {2, 5, 50}) {
      const std::vector<double> it = sgd_approx_iterates(100000, lr, M);
      double worst = 0;
      for (std::size_t n = 0; n < it.size(); n += 97)
        worst = std::max(worst, std::abs(it[n] - sgd_approx_flow(static_cast<double>(n), lr, M)));
      EXPECT_LT(worst, lr) << "lr " << lr << " M " << M;
    }
  }
  EXPECT_NEAR(sgd_approx_flow(0, 1, 5), 0.0, 1e-15);
  // Beyond the overflow of e^L (L = lr n + 1/(M-1) - log(M-1)) the fixed point w = L - log w takes over;
  // both sides agree.
  const double a = 599.9999 + std::log(4.0) - 0.25, b = 600.0001 + std::log(4.0) - 0.25;
  EXPECT_NEAR(sgd_approx_flow(a, 1, 5), sgd_approx_flow(b, 1, 5), 1e-6);
  EXPECT_NEAR(sgd_approx_flow(1e12, 1, 5), std::log(4e12), 1e-9);
}

TEST(SgdApprox, BatchOfOneIsTheCountsVersion) {
  const std::vector<double> p = zipf_probabilities(50, 1.5);
  const AliasTable table(p);
  Stream s(11);
  std::vector<uint32_t> xs(5000);
  std::vector<uint64_t> counts(50, 0);
  for (auto& x : xs) ++counts[x = static_cast<uint32_t>(table.sample(s))];
  for (double lr : {0.1, 1.0, 10.0}) {
    const std::vector<double> a = sgd_approx_weights(counts, lr, 5);
    EXPECT_EQ(sgd_approx_weights_batched(xs, 50, lr, 5, 1), a) << "lr " << lr;
    for (std::size_t x = 0; x < 50; ++x) EXPECT_EQ(a[x], sgd_approx_iterate(counts[x], lr, 5));
    // The sampler draws the same sequence for batch 1 (sample_counts) and batch b (one by one).
    Stream s1(11), s2(11);
    EXPECT_EQ(sgd_approx_weights_sampled(p, 5000, lr, 5, 1, s1), a);
    std::vector<double> b = sgd_approx_weights_sampled(p, 5000, lr, 5, 7, s2);
    EXPECT_EQ(b, sgd_approx_weights_batched(xs, 50, lr, 5, 7));
  }
}

TEST(SgdApprox, BatchedStepsUseCountsOverTheBatchSize) {
  // Batches {0, 0, 1}, {2, 0, 1}, {3} (the last one partial, averaged over its own size 1).
  const double lr = 2, M = 3;
  const std::vector<double> q = sgd_approx_weights_batched({0, 0, 1, 2, 0, 1, 3}, 5, lr, 3, 3);
  const double third = 1.0 / 3;
  EXPECT_DOUBLE_EQ(q[0], hand_step(hand_step(0, lr, 2 * third, M), lr, third, M));
  EXPECT_DOUBLE_EQ(q[1], hand_step(hand_step(0, lr, third, M), lr, third, M));
  EXPECT_DOUBLE_EQ(q[2], hand_step(0, lr, third, M));
  EXPECT_DOUBLE_EQ(q[3], hand_step(0, lr, 1.0, M));
  EXPECT_EQ(q[4], 0.0);
  EXPECT_THROW(sgd_approx_weights_batched({0, 7}, 5, lr, 3, 1), std::invalid_argument);
}

TEST(SgdApprox, ExpectedCountsUsePx) {
  const std::vector<double> p = zipf_probabilities(20, 1.2);
  const double lr = 3;
  // batch 4, T = 10: ceil(10/4) = 3 steps, each with c = p(x) (eq. 56 in the mean convention).
  const std::vector<double> q = sgd_approx_weights_expected(p, 10, lr, 5, 4);
  for (std::size_t x = 0; x < 20; ++x) {
    double v = 0;
    for (int t = 0; t < 3; ++t) v = hand_step(v, lr, p[x], 5);
    EXPECT_NEAR(q[x], v, 1e-14) << x;
  }
  // One full batch: q(x) = lr p(x) (M-1)/M.
  const std::vector<double> one = sgd_approx_weights_expected(p, 8, lr, 5, 8);
  for (std::size_t x = 0; x < 20; ++x) EXPECT_NEAR(one[x], lr * p[x] * 0.8, 1e-15);
  // batch 1: f^{floor(T p(x))}(0).
  const std::vector<double> b1 = sgd_approx_weights_expected(p, 1000, lr, 5, 1);
  for (std::size_t x = 0; x < 20; ++x)
    EXPECT_EQ(b1[x], sgd_approx_iterate(static_cast<uint64_t>(std::floor(1000 * p[x])), lr, 5)) << x;

  // The measure passes the same weights through (series q).
  const Measure& m = world_registry().get("memory.sgd_approx");
  const Params prm = resolve("memory.sgd_approx", {{"N", "20"}, {"alpha", "1.2"}, {"T", "10"}, {"batch", "4"},
                                                   {"lr", "3"}, {"counts", "expected"}, {"d", "16"}});
  const Record r = run_task(m, prm, 0, 0);
  EXPECT_EQ(series(r, "q"), q);
  EXPECT_EQ(r.get("updates"), 3.0);
  EXPECT_EQ(r.get("unstored_mass"), 0.0);
}

TEST(SgdApprox, SmallStepsStoreCountsLargeStepsStoreFlat) {
  const std::size_t N = 100;
  const std::vector<double> p = zipf_probabilities(N, 2.0);
  Stream s(5);
  const std::vector<uint64_t> counts = sample_counts(p, 10240, s);
  // lr n_x << 1: q(x) = lr n_x (M-1)/M (1 + O(lr n_x)), proportional to the counts.
  const double small = 1e-5;
  const std::vector<double> qs = sgd_approx_weights(counts, small, 5);
  // lr = 10: one visit already gives f(0) = 8, the most frequent input ~ log(40 n) ~ 12.4: flat.
  const std::vector<double> ql = sgd_approx_weights(counts, 10, 5);
  double lo = INFINITY, hi = 0;
  uint64_t nmin = UINT64_MAX, nmax = 0;
  for (std::size_t x = 0; x < N; ++x) {
    if (counts[x] == 0) {
      EXPECT_EQ(qs[x], 0.0);
      EXPECT_EQ(ql[x], 0.0);
      continue;
    }
    const double n = static_cast<double>(counts[x]);
    EXPECT_NEAR(qs[x] / (small * n * 0.8), 1.0, small * n) << x;
    lo = std::min(lo, ql[x]), hi = std::max(hi, ql[x]);
    nmin = std::min(nmin, counts[x]), nmax = std::max(nmax, counts[x]);
  }
  EXPECT_GT(static_cast<double>(nmax) / static_cast<double>(nmin), 1000.0);  // very unequal counts ...
  EXPECT_LT(hi / lo, 1.6);                                                   // ... nearly equal weights
}

TEST(SgdApprox, WeightsLookLikeQRhoAsInFigure5) {
  // Figure 5 (right): q_gamma is close to q_rho = p^rho with rho ~ 0.05, 0.35, 1 for gamma = 10, 0.1,
  // 1e-3. Here: N = 100, alpha = 2, T = 16350 so that the rarest input is expected once (n_N = 1 as in
  // the figure), rho fitted by least squares of log q on log p over the inputs with n_x >= 1.
  // Measured: expected counts 0.037, 0.72, 1.02; sampled counts (mean of 20 runs) ~0.03, ~0.65, ~0.93.
  // gamma = 0.1 comes out near 0.7 rather than 0.35 at N = 100: the fit depends on N and on how inputs
  // are weighted (a log-spaced grid of x at N = 1000, closer to reading a log-log plot, gives 0.35),
  // so the middle band is wide; the ordering and the two ends are what the figure asserts.
  const Measure& m = world_registry().get("memory.sgd_approx");
  const std::vector<double> p = zipf_probabilities(100, 2.0);
  struct Case {
    const char* lr;
    double paper, lo, hi;
  };
  double previous = -1;
  for (const Case& c : {Case{"10", 0.05, 0.0, 0.1}, Case{"0.1", 0.35, 0.3, 0.85}, Case{"1e-3", 1.0, 0.85, 1.1}}) {
    const Record e = run_task(m, resolve("memory.sgd_approx", {{"lr", c.lr}, {"T", "16350"}, {"counts", "expected"}}), 0, 0);
    const std::vector<double> q = series(e, "q");
    EXPECT_EQ(q[99], sgd_approx_iterate(1, std::stod(c.lr), 5));  // T p(N-1) = 1.00001
    const double rho_expected = fitted_rho(p, q);
    const Params sp = resolve("memory.sgd_approx", {{"lr", c.lr}, {"T", "16350"}, {"d", "1"}});
    double rho_sampled = 0;
    for (uint64_t r = 0; r < 20; ++r) rho_sampled += fitted_rho(p, series(run_task(m, sp, 3, r), "q")) / 20;
    std::printf("  gamma = %-5s rho fitted: expected counts %.3f, sampled counts %.3f (paper %.2f)\n", c.lr,
                rho_expected, rho_sampled, c.paper);
    for (double rho : {rho_expected, rho_sampled}) {
      EXPECT_GE(rho, c.lo) << "gamma " << c.lr;
      EXPECT_LE(rho, c.hi) << "gamma " << c.lr;
    }
    EXPECT_GT(rho_expected, previous + 0.2);
    previous = rho_expected;
  }
  // At N = 1000 on a log-spaced grid of inputs the middle case is close to the paper's 0.35.
  const std::vector<double> p1k = zipf_probabilities(1000, 2.0);
  const std::vector<double> q1k = sgd_approx_weights_expected(p1k, static_cast<uint64_t>(1 / p1k.back()) + 1, 0.1, 5, 1);
  std::vector<double> pg, qg;
  for (int i = 0; i < 30; ++i) {
    const auto x = static_cast<std::size_t>(std::lround(std::pow(1000.0, i / 29.0))) - 1;
    if (pg.empty() || p1k[x] != pg.back()) pg.push_back(p1k[x]), qg.push_back(q1k[x]);
  }
  const double rho_1k = fitted_rho(pg, qg);
  std::printf("  gamma = 0.1, N = 1000, log-spaced inputs: rho fitted %.3f (paper 0.35)\n", rho_1k);
  EXPECT_GT(rho_1k, 0.3);
  EXPECT_LT(rho_1k, 0.5);
}

TEST(SgdApprox, TracksSgdWhenMemoryIsLargeAndBreaksWhenSmall) {
  // Figure 4: N = 100, M = 5, f*(x) = x mod 5, alpha = 2, batch 1. Mean error over 20 runs of
  // memory.train (model=matrix optimizer=sgd) and of memory.sgd_approx. Ratios measured over 8 seeds:
  //   d = 1000 (d >> N, where (20) is derived):   0.93-1.38 for lr in {1, 10}, T in {1e3, 1e4}
  //   d in {100, 200}, T = 1e3:                   0.90-1.95
  //   d in {100, 200}, T = 1e4, lr = 1:           1.55-2.36   (the approximation overestimates)
  //   d in {100, 200}, T = 1e4, lr = 10:          1.5-32      (heavy tail: rare runs with error ~0.5)
  //   d = 10 = N/10 (Figure 4 right):             2.8-19
  // Why: (20) takes p_W(f*(x)|x) from q(x) alone (other logits 0). When d ~ N the cross-talk between
  // stored pairs is O(q), and real SGD corrects a misclassified frequent input the next time it sees
  // it (1 - p_W is then large), which (20) cannot. Update (19) with the exact p_W of the current W_q
  // tracks SGD at d = N (0.0024 vs 0.0025 at lr = 10, T = 1e4), so the gap is (20)'s, not (19)'s.
  // Tolerances: the sampling noise of a 20-run mean is ~5-10% here; the bands add the systematic
  // bias above and the spread across seeds.
  const Measure& train = world_registry().get("memory.train");
  const Measure& approx = world_registry().get("memory.sgd_approx");
  struct Case {
    const char *d, *lr, *T;
    double lo, hi;
  };
  const Case cases[] = {
      {"1000", "1", "1000", 0.75, 1.5},  {"1000", "1", "10000", 0.75, 1.5}, {"1000", "10", "1000", 0.75, 1.5},
      {"1000", "10", "10000", 0.75, 1.5}, {"100", "1", "1000", 0.8, 2.2},    {"100", "10", "1000", 0.8, 2.2},
      {"200", "1", "1000", 0.8, 2.2},     {"200", "10", "1000", 0.8, 2.2},   {"100", "1", "10000", 1.2, 3.0},
      {"200", "1", "10000", 1.2, 3.0},    {"100", "10", "10000", 1.2, 1e9},  {"10", "1", "1000", 2.5, 1e9},
      {"10", "10", "1000", 2.5, 1e9},
  };
  const int runs = 20;
  for (const Case& c : cases) {
    const std::map<std::string, std::string> g{{"N", "100"}, {"M", "5"}, {"alpha", "2"}, {"d", c.d},
                                               {"lr", c.lr},  {"T", c.T}, {"batch", "1"}};
    const Params pt = resolve("memory.train", g), pa = resolve("memory.sgd_approx", g);
    double sgd = 0, appr = 0;
    for (int r = 0; r < runs; ++r) {
      sgd += run_task(train, pt, 1, static_cast<uint64_t>(r)).get("error") / runs;
      appr += run_task(approx, pa, 1, static_cast<uint64_t>(r)).get("error") / runs;
    }
    std::printf("  d = %-4s lr = %-2s T = %-5s SGD %.4f  approximation %.4f  ratio %.2f\n", c.d, c.lr, c.T, sgd, appr,
                appr / sgd);
    EXPECT_GE(appr / sgd, c.lo) << "d " << c.d << " lr " << c.lr << " T " << c.T;
    EXPECT_LE(appr / sgd, c.hi) << "d " << c.d << " lr " << c.lr << " T " << c.T;
  }
}

TEST(SgdApprox, MeasuresAreDeclaredAndValidated) {
  const Measure& m = world_registry().get("memory.sgd_approx");
  EXPECT_FALSE(m.deterministic);
  EXPECT_THROW(run_task(m, resolve("memory.sgd_approx", {{"T", "inf"}}), 0, 0), InputError);
  EXPECT_THROW(run_task(m, resolve("memory.sgd_approx", {{"batch", "inf"}}), 0, 0), InputError);
  EXPECT_THROW(resolve("memory.sgd_approx", {{"counts", "exact"}}), InputError);
  // Same numbers whatever the thread count.
  const Params prm = resolve("memory.sgd_approx", {{"N", "40"}, {"d", "24"}, {"T", "500"}, {"batch", "3"}, {"runs", "5"}});
  EXPECT_EQ(evaluate(m, prm, 1).dump(), evaluate(m, prm, 2).dump());
  // unstored_mass is the p-mass of the inputs with q(x) = 0 (never seen).
  const Record r = run_task(m, resolve("memory.sgd_approx", {{"N", "200"}, {"T", "300"}}), 0, 0);
  const std::vector<double> q = series(r, "q"), p = zipf_probabilities(200, 2.0);
  double unstored = 0;
  for (std::size_t x = 0; x < 200; ++x) unstored += q[x] == 0 ? p[x] : 0.0;
  EXPECT_GT(unstored, 0.0);
  EXPECT_NEAR(r.get("unstored_mass"), unstored, 1e-15);
  EXPECT_GE(r.get("error"), 0.0);
  EXPECT_LE(r.get("error"), 1.0);

  const Measure& it = world_registry().get("memory.sgd_approx_iterates");
  EXPECT_TRUE(it.deterministic);
  const Record a = run_task(it, resolve("memory.sgd_approx_iterates", {{"lr", "0.5"}, {"n_max", "50"}}), 0, 0);
  const Record b = run_task(it, resolve("memory.sgd_approx_iterates", {{"lr", "0.5"}, {"n_max", "50"}}), 9, 3);
  EXPECT_EQ(series(a, "value"), sgd_approx_iterates(50, 0.5, 5));
  EXPECT_EQ(series(a, "value"), series(b, "value"));  // ignores the stream
  EXPECT_EQ(series(a, "n").size(), 51u);
  EXPECT_EQ(series(a, "n")[50], 50.0);
  EXPECT_EQ(a.get("last"), series(a, "value")[50]);
  EXPECT_NEAR(series(a, "flow")[50], series(a, "value")[50], 0.5);
}

TEST(SgdApprox, SchemeOfFigure5IsTheIterateAtEachCount) {
  // n_x = floor(((N + 3) / (x + 3))^2), x = 1..N, so n_N = 1; q(x) = f^{n_x}(0) computed one at a time.
  const Measure& m = world_registry().get("memory.sgd_approx_scheme");
  const Record r = run_task(m, resolve("memory.sgd_approx_scheme", {{"N", "12"}, {"lr", "0.3"}, {"rho_ref", "0.5"}}), 0, 0);
  const auto n = series(r, "n"), q = series(r, "q"), x = series(r, "x"), ref = series(r, "q_rho");
  ASSERT_EQ(q.size(), 12u);
  for (int i = 1; i <= 12; ++i) {
    const auto count = static_cast<uint64_t>(std::floor(std::pow(15.0 / (i + 3.0), 2) + 1e-9));
    EXPECT_EQ(x[static_cast<std::size_t>(i - 1)], i);
    EXPECT_EQ(n[static_cast<std::size_t>(i - 1)], static_cast<double>(count));
    EXPECT_NEAR(q[static_cast<std::size_t>(i - 1)], sgd_approx_iterate(count, 0.3, 5), 1e-12);
  }
  EXPECT_EQ(n.back(), 1.0);
  EXPECT_EQ(r.get("q_last"), q.back());
  // q_rho = c n^rho: the ratio of two of its values is the ratio of counts to the power rho, and its
  // log-scale is centred on log q.
  EXPECT_NEAR(ref[0] / ref[11], std::pow(n[0] / n[11], 0.5), 1e-12);
  double centre = 0;
  for (std::size_t i = 0; i < 12; ++i) centre += std::log(q[i]) - std::log(ref[i]);
  EXPECT_NEAR(centre, 0.0, 1e-9);
  // rho is the least-squares slope: a tiny step is linear in the counts (rho -> 1), a huge one flat.
  const Record tiny = run_task(m, resolve("memory.sgd_approx_scheme", {{"lr", "1e-7"}}), 0, 0);
  EXPECT_NEAR(tiny.get("rho"), 1.0, 1e-5);
  const Record huge = run_task(m, resolve("memory.sgd_approx_scheme", {{"lr", "1e4"}}), 0, 0);
  EXPECT_LT(huge.get("rho"), 0.05);
  for (const auto& [name, v] : tiny.series) EXPECT_NE(name, "q_rho");  // rho_ref < 0: no reference
}
