#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>

#include "scalinglab/core/zipf.hpp"

using namespace scalinglab;

namespace {
// Pearson chi-square statistic of counts against probabilities.
double chi_square(const std::vector<uint64_t>& counts, const std::vector<double>& p) {
  double T = 0;
  for (auto c : counts) T += static_cast<double>(c);
  double chi = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double e = T * p[i];
    chi += (static_cast<double>(counts[i]) - e) * (static_cast<double>(counts[i]) - e) / e;
  }
  return chi;
}
double p_value(double chi, std::size_t df) {
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(static_cast<double>(df)), chi));
}
}  // namespace

TEST(Zipf, ProbabilitiesMatchDefinition) {
  const auto p = zipf_probabilities(10, 1.5);
  double H = 0;
  for (int x = 1; x <= 10; ++x) H += std::pow(x, -1.5);
  for (int x = 0; x < 10; ++x) EXPECT_NEAR(p[x], std::pow(x + 1, -1.5) / H, 1e-15);
}

TEST(Zipf, AliasSamplerPassesChiSquare) {
  const auto p = zipf_probabilities(30, 1.2);
  Stream s(11);
  const auto counts = sample_counts(p, 200000, s);
  EXPECT_GT(p_value(chi_square(counts, p), 29), 1e-3);
  // The test can fail: the same counts are far from a Zipf law with another exponent.
  EXPECT_LT(p_value(chi_square(counts, zipf_probabilities(30, 1.1)), 29), 1e-6);
}

TEST(Zipf, BinomialCountsPassChiSquare) {
  const auto p = zipf_probabilities(40, 2.0);
  Stream s(12);
  const uint64_t T = kCountsBinomialFrom + 12345;
  const auto counts = sample_counts(p, T, s);
  uint64_t total = 0;
  for (auto c : counts) total += c;
  EXPECT_EQ(total, T);
  // Merge the sparse tail into one bin so expected counts stay large.
  EXPECT_GT(p_value(chi_square(counts, p), 39), 1e-3);
}

TEST(Zipf, AliasTableExactProbabilities) {
  // The alias table reproduces the weights exactly: P(i) = (prob_i + sum_{j: alias_j = i} (1 - prob_j)) / n.
  const std::vector<double> w = {0.5, 0.25, 0.125, 0.125};
  AliasTable t(w);
  Stream s(5);
  std::vector<int> hits(4, 0);
  for (int i = 0; i < 400000; ++i) ++hits[t.sample(s)];
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(hits[i] / 400000.0, w[i], 0.003);
}
