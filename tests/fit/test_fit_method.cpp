// The fitting methods of the extrapolation benchmark on synthetic worlds whose frontier is known in
// closed form: Chinchilla's law with Hoffmann et al.'s (2022) fitted values plus log-normal noise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/extrapolate/extrapolation_score.hpp"
#include "scalinglab/fit/fit_method.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;
using namespace scalinglab::extrapolate;

namespace {

// L = E + A / N^alpha + B / D^beta (Hoffmann et al. 2022, eq. 10's values).
constexpr double kE = 1.69, kA = 406.4, kB = 410.7, kAlpha = 0.34, kBeta = 0.28;

double chinchilla(double N, double D) { return kE + kA / std::pow(N, kAlpha) + kB / std::pow(D, kBeta); }

// The frontier in closed form (Hoffmann et al., eq. 4), independent of the fitter's.
double true_N_opt(double C) {
  const double G = std::pow(kAlpha * kA / (kBeta * kB), 1 / (kAlpha + kBeta));
  return G * std::pow(C / 6, kBeta / (kAlpha + kBeta));
}

// An IsoFLOP design a lab could plan without the truth: 5 budgets over two decades, 9 sizes per
// budget over a factor 16 around the D = 20 N heuristic, one noisy run each.
ProtocolTable draw(std::uint64_t seed, double noise = 0.01) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  ProtocolTable t;
  for (double C : {6e18, 1.9e19, 6e19, 1.9e20, 6e20}) {
    const double guess = std::sqrt(C / 120);
    for (int k = 0; k < 9; ++k) {
      const double N = guess * std::pow(16.0, -0.5 + k / 8.0), D = C / (6 * N);
      t.N.push_back(N), t.D.push_back(D), t.C.push_back(C), t.budget.push_back(C);
      t.loss.push_back(chinchilla(N, D) * std::exp(noise * z(rng)));
    }
  }
  return t;
}

constexpr double kTarget = 6e22;  // 100x the last budget

// The coverage of `method`'s N_opt intervals at 100x over 100 replications, and its median error.
struct Recovery {
  Coverage cover;
  Coverage cover_D, cover_L;  // of the D_opt and L_opt intervals (truth: C / (6 N_opt), the law's loss there)
  Spread error;
  int failed = 0;
};

Recovery recover(const std::string& method, std::size_t replications = 100) {
  const MethodSpec m = parse_method(method);
  std::vector<MethodResult> res(replications);
  parallel_for(res.size(), 0, [&](std::size_t i, int) {
    MethodOptions o;
    o.bootstrap = 100;
    o.seed = 1 + i;
    res[i] = apply_method(m, draw(1000 + i), {kTarget}, o);
  });
  std::vector<Estimate> est, est_D, est_L;
  Recovery r;
  for (const auto& x : res) {
    if (!x.ok) {
      ++r.failed;
      continue;
    }
    est.push_back(x.at[0].N);
    est_D.push_back(x.at[0].D);
    est_L.push_back(x.at[0].L);
  }
  const double n = true_N_opt(kTarget), d = kTarget / (6 * n);
  r.cover = coverage(est, n);
  r.cover_D = coverage(est_D, d);
  r.cover_L = coverage(est_L, chinchilla(n, d));
  r.error = spread(relative_errors(est, n));
  std::printf("%-22s coverage %d/%d (Wilson %.2f-%.2f), N_opt error median %+.2f%% [%+.2f%%, %+.2f%%], failed %d; "
              "D_opt coverage %d/%d, L_opt coverage %d/%d\n",
              method.c_str(), r.cover.covered, r.cover.total, r.cover.lo, r.cover.hi, 100 * r.error.median,
              100 * r.error.q25, 100 * r.error.q75, r.failed, r.cover_D.covered, r.cover_D.total, r.cover_L.covered,
              r.cover_L.total);
  return r;
}

}  // namespace

TEST(FitMethod, ParsesMethodsAndRefusesBadOnes) {
  EXPECT_EQ(parse_method("approach3:delta=1e-3").delta, 1e-3);
  EXPECT_TRUE(std::isinf(parse_method("approach3:delta=inf").delta));
  EXPECT_DOUBLE_EQ(parse_method("approach2:trim=5%").trim, 0.05);
  EXPECT_DOUBLE_EQ(parse_method("porian:trim=0.2").trim, 0.2);
  EXPECT_EQ(parse_method("law:E + A/N^a + B/D^b").kind, "law");
  for (const char* bad : {"approach4", "approach3:trim=5%", "approach2:delta=1", "approach3:delta=-1",
                          "approach3:delta=x", "approach2:trim=-5%", "law:", "law:E + (", "kaplan:delta", ""})
    EXPECT_THROW(parse_method(bad), InputError) << bad;
  for (const auto& m : default_methods()) EXPECT_NO_THROW(parse_method(m)) << m;
}

TEST(FitMethod, ExpressionLawFrontierMatchesTheClosedForm) {
  // The same law as an expression (its frontier found numerically) and as Approach 3 by least
  // squares (closed form) on the same noiseless table: the same N_opt, D_opt, L_opt.
  const ProtocolTable t = draw(5, 0.0);
  MethodOptions o;
  o.bootstrap = 0;
  const MethodResult a = apply_method(parse_method("approach3:delta=inf"), t, {kTarget, 6e21}, o);
  const MethodResult b = apply_method(parse_method("law:E + A/N^alpha + B/D^beta"), t, {kTarget, 6e21}, o);
  ASSERT_TRUE(a.ok) << a.note;
  ASSERT_TRUE(b.ok) << b.note;
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_NEAR(b.at[k].N.value / a.at[k].N.value, 1, 1e-4);
    EXPECT_NEAR(b.at[k].D.value / a.at[k].D.value, 1, 1e-4);
    EXPECT_NEAR(b.at[k].L.value / a.at[k].L.value, 1, 1e-6);
  }
  // Noiseless data from the law itself: Approach 3 recovers the truth.
  EXPECT_NEAR(a.at[0].N.value / true_N_opt(kTarget), 1, 1e-3);
  EXPECT_NEAR(a.at[0].L.value / chinchilla(true_N_opt(kTarget), kTarget / (6 * true_N_opt(kTarget))), 1, 1e-4);
}

TEST(FitMethod, EveryMethodSaysWhyItCannotPredict) {
  ProtocolTable t = draw(7);
  // Two budgets only: IsoFLOP methods and BNSL cannot fit; nothing throws.
  ProtocolTable two;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t.budget[i] < 2e19) two.N.push_back(t.N[i]), two.D.push_back(t.D[i]), two.C.push_back(t.C[i]),
                            two.budget.push_back(t.budget[i]), two.loss.push_back(t.loss[i]);
  for (const char* m : {"porian", "bnsl"}) {
    const MethodResult r = apply_method(parse_method(m), two, {kTarget});
    EXPECT_FALSE(r.ok) << m;
    EXPECT_FALSE(r.note.empty()) << m;
  }
  // bnsl: a loss frontier only.
  const MethodResult b = apply_method(parse_method("bnsl"), t, {kTarget});
  EXPECT_FALSE(b.ok);  // 5 budgets < 7
}

// The test: each method recovers N_opt at 100x within its stated 95% interval in at least
// 90% of 100 replications, or the test documents that it does not (and by how much).
// N_opt, and D_opt and L_opt too: every number of the frontier within its interval in 90% of the
// replications or more (every replication has all three intervals).
TEST(FitMethod, RecoversNoptAt100xWithinItsInterval) {
  for (const char* m : {"approach3:delta=1e-3", "approach3:delta=inf", "approach2"}) {
    const Recovery r = recover(m);
    EXPECT_EQ(r.failed, 0) << m;
    EXPECT_GE(r.cover.fraction, 0.9) << m;
    EXPECT_EQ(r.cover_D.total, 100) << m;
    EXPECT_EQ(r.cover_L.total, 100) << m;
    EXPECT_GE(r.cover_D.fraction, 0.9) << m;
    EXPECT_GE(r.cover_L.fraction, 0.9) << m;
  }
  {
    // Documented shortfall: 89 of 100 when this test was written (Wilson interval 0.81-0.94), just
    // under 90%. The slices' weights are estimated from the same resamples and then held fixed, so
    // the interval leaves out the weights' own noise. The test keeps the method running and its
    // coverage above a floor that a method ignoring its noise altogether would miss (intervals of
    // zero width cover nothing).
    const Recovery r = recover("porian");
    EXPECT_EQ(r.failed, 0);
    EXPECT_GE(r.cover.fraction, 0.8);
  }
  {
    // Kaplan's law is not the world's: its N_opt is biased by about +150% whatever the noise, so
    // its intervals miss the truth most of the time (42 of 100 when this test was written). The test
    // documents that it does not recover N_opt: coverage below 90% on 30 replications.
    const Recovery r = recover("kaplan", 30);
    EXPECT_EQ(r.cover.total, 30);
    EXPECT_LT(r.cover.fraction, 0.9);
    EXPECT_GT(r.error.median, 0.5);
  }
}

