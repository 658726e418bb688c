// Approach 2 against Approach 3: disjoint intervals are what is warned about; on data whose law is
// not Approach 3's (Kaplan's form) the warning fires, on Chinchilla-law data the intervals meet.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/approach_agreement.hpp"
#include "scalinglab/fit/scaling_law.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

TEST(ApproachAgreement, DisjointOnlyWhenBothIntervalsExistAndDoNotMeet) {
  auto est = [](double v, double lo, double hi) {
    Estimate e;
    e.value = v, e.lo = lo, e.hi = hi;
    return e;
  };
  EXPECT_TRUE(disjoint(est(1, 0.9, 1.1), est(2, 1.2, 2.5)));
  EXPECT_TRUE(disjoint(est(2, 1.2, 2.5), est(1, 0.9, 1.1)));
  EXPECT_FALSE(disjoint(est(1, 0.9, 1.3), est(2, 1.2, 2.5)));  // overlapping
  EXPECT_FALSE(disjoint(est(1, 0.9, 1.2), est(2, 1.2, 2.5)));  // touching
  Estimate bare;
  bare.value = 5;
  EXPECT_FALSE(disjoint(bare, est(1, 0.9, 1.1)));  // no interval: nothing to compare
}

namespace {

struct Design {
  std::vector<double> N, D, C, loss;
};

// 5 budgets, 9 sizes over a factor 16 around D = 20 N, one run each with log-normal noise of scale
// `noise`; the loss is Chinchilla's law (Hoffmann et al. 2022, eq. 10 values) or, with `kaplan`,
// Kaplan et al.'s (2020) form L = [(N_c/N)^(alpha_N/alpha_D) + D_c/D]^alpha_D, which the Chinchilla
// law of Approach 3 cannot follow while Approach 2's parabolas can.
Design design(double noise, std::uint64_t seed, bool kaplan = false) {
  Stream s(seed);
  Design d;
  for (double C : {6e18, 1.9e19, 6e19, 1.9e20, 6e20}) {
    const double guess = std::sqrt(C / 120);
    for (int k = 0; k < 9; ++k) {
      const double N = guess * std::pow(16.0, -0.5 + k / 8.0), D = C / (6 * N);
      const double L = kaplan ? std::pow(std::pow(8.8e13 / N, 0.076 / 0.095) + 5.4e13 / D, 0.095)
                              : 1.69 + 406.4 / std::pow(N, 0.34) + 410.7 / std::pow(D, 0.28);
      d.N.push_back(N), d.D.push_back(D), d.C.push_back(C), d.loss.push_back(L * std::exp(noise * s.normal()));
    }
  }
  return d;
}

ApproachComparison compare(const Design& d, const std::vector<double>& budgets) {
  const IsoflopFit iso = fit_isoflop(d.C, d.N, d.loss);
  BootstrapOptions b;
  b.replicates = 100;
  const IsoflopBootstrap boot2 = bootstrap_isoflop(iso, d.N, d.loss, b, budgets, 2);
  const ScalingLaw& law = scaling_law("chinchilla");
  FitOptions fo;
  fo.threads = 2;
  const LawData data = make_law_data(law, d.N, d.D, d.loss);
  const LawFit f = fit_law(law, data, fo);
  b.starts = 4;
  const Bootstrap boot3 = bootstrap_law_fit(f, data, fo, b);
  return compare_approaches(iso, &boot2, f, &boot3, budgets, 0.95);
}

}  // namespace

TEST(ApproachAgreement, WarnsWhereTheApproachesDisagreeBeyondTheirIntervals) {
  // Kaplan-form losses with little noise: Approach 3's law is the wrong form, both are confident.
  const ApproachComparison wrong = compare(design(0.002, 1, true), {6e22});
  std::printf("%s", comparison_table(wrong).c_str());
  std::string all;
  for (const auto& w : wrong.warnings) all += w + "\n";
  EXPECT_FALSE(wrong.warnings.empty());
  EXPECT_NE(all.find("disjoint"), std::string::npos) << all;
  EXPECT_NE(comparison_table(wrong).find("WARNING"), std::string::npos);
  // Chinchilla losses with 0.5% noise: both approaches read the same law, their intervals meet.
  const ApproachComparison same = compare(design(0.005, 2), {6e22});
  std::printf("%s", comparison_table(same).c_str());
  EXPECT_FALSE(disjoint(same.at2[0].N, same.at3[0].N));
  EXPECT_TRUE(same.at2[0].N.has_interval());
  EXPECT_TRUE(same.at3[0].L.has_interval());
  EXPECT_EQ(comparison_json(same)["at"][0]["N_opt"]["disjoint"], false);
}
