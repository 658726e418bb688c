// Approach 1 (the envelope of training curves) on curves drawn from Chinchilla's law, whose
// compute-optimal frontier is known in closed form (Hoffmann et al. 2022, eq. 4).
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/envelope.hpp"
#include "scalinglab/fit/fit_method.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

constexpr double kE = 1.69, kA = 406.4, kB = 410.7, kAlpha = 0.34, kBeta = 0.28;
double law(double N, double D) { return kE + kA / std::pow(N, kAlpha) + kB / std::pow(D, kBeta); }
double true_N_opt(double C) {
  const double G = std::pow(kAlpha * kA / (kBeta * kB), 1 / (kAlpha + kBeta));
  return G * std::pow(C / 6, kBeta / (kAlpha + kBeta));
}

// Runs of 40 sizes, each trained to 6 N D = C_max, its curve at 30 log-spaced checkpoints.
Curves draw_curves(double C_max) {
  Curves c;
  for (int k = 0; k < 40; ++k) {
    const double N = 1e7 * std::pow(1e3, k / 39.0);
    const double D_max = C_max / (6 * N);
    for (int i = 0; i < 30; ++i) {
      const double D = D_max * std::pow(1e-3, 1 - i / 29.0);
      c.N.push_back(N), c.C.push_back(6 * N * D), c.loss.push_back(law(N, D)), c.run.push_back(k);
    }
  }
  return c;
}

}  // namespace

TEST(Envelope, FollowsTheClosedFormFrontier) {
  const Envelope e = fit_envelope(draw_curves(1e21));
  // The exponent a = beta / (alpha + beta) = 0.4516, from a step function of 40 sizes.
  EXPECT_NEAR(e.n_opt.slope, kBeta / (kAlpha + kBeta), 0.02);
  // At compute inside the range, N_opt within the grid's resolution (a factor 1.19 between sizes).
  for (double C : {1e19, 1e20}) EXPECT_NEAR(std::log(e.N_at(C) / true_N_opt(C)), 0, std::log(1.25)) << C;
  // The envelope's loss is the law's minimum along C = 6 N D (to the size grid's resolution).
  for (std::size_t i = 0; i < e.C.size(); i += 10) {
    const double N = true_N_opt(e.C[i]);
    EXPECT_NEAR(e.L_opt[i] / law(N, e.C[i] / (6 * N)), 1, 0.002);
  }
}

TEST(Envelope, ApproachOneExtrapolatesAndSaysWhenItCannot) {
  ProtocolTable t;
  t.curves = draw_curves(1e21);
  const MethodResult r = apply_method(parse_method("approach1"), t, {1e23}, MethodOptions{50});
  ASSERT_TRUE(r.ok) << r.note;
  EXPECT_NEAR(std::log(r.at[0].N.value / true_N_opt(1e23)), 0, std::log(1.3));
  EXPECT_TRUE(r.at[0].N.has_interval());
  // Without curves: known before running, and said when run anyway.
  EXPECT_FALSE(not_applicable(parse_method("approach1"), 5, false).empty());
  EXPECT_TRUE(not_applicable(parse_method("approach1"), 5, true).empty());
  const MethodResult none = apply_method(parse_method("approach1"), ProtocolTable{}, {1e23});
  EXPECT_FALSE(none.ok);
  EXPECT_FALSE(none.note.empty());
  // One size only: no envelope.
  Curves one;
  for (int i = 0; i < 5; ++i) one.N.push_back(1e8), one.C.push_back(1e18 * (i + 1)), one.loss.push_back(3.0 - 0.1 * i), one.run.push_back(0);
  EXPECT_THROW(fit_envelope(one), InputError);
}
