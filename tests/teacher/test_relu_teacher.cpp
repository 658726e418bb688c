// The infinite-width ReLU teacher: Dirichlet-process statistics against their known expectations,
// the moments E[F] = 0 and E[F^2] = 1/2, the quantisation, Lemma A.1's pointwise inequality and
// Lemma A.2's bound, by Monte-Carlo with stated tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scalinglab/core/stats.hpp"
#include "scalinglab/teacher/relu_teacher.hpp"

using namespace scalinglab;
using namespace scalinglab::teacher;

TEST(ReluTeacher, DirichletProcessStatistics) {
  for (double K : {2.0, 30.0}) {
    Summary distinct, weight_sq;
    const std::size_t draws = 200;
    for (uint64_t seed = 0; seed < 300; ++seed) {
      Stream s(seed);
      const ReluTeacher f = sample_teacher(3, K, s);
      double total = 0, sq = 0;
      for (double w : f.weight) total += w, sq += w * w;
      ASSERT_NEAR(total, 1.0, 1e-12);
      weight_sq.add(sq);
      const ConstrainedPredictor g = sample_predictor(f, draws, s);
      std::vector<uint32_t> idx = g.index;
      std::sort(idx.begin(), idx.end());
      distinct.add(static_cast<double>(std::unique(idx.begin(), idx.end()) - idx.begin()));
    }
    double expected = 0;  // Chinese restaurant process: sum_{i < n} K / (K + i)
    for (std::size_t i = 0; i < draws; ++i) expected += K / (K + double(i));
    EXPECT_NEAR(distinct.mean, expected, 4 * distinct.sem()) << K;
    EXPECT_NEAR(weight_sq.mean, 1 / (K + 1), 4 * weight_sq.sem()) << K;  // E sum theta-bar^2 = 1/(K+1)
  }
}

TEST(ReluTeacher, MomentsOfTheTeacher) {
  // E[F(X)] = 0 and E[F(X)^2] = 1/2 over the teacher and X, for several d and K.
  for (std::size_t d : {3u, 10u})
    for (double K : {2.0, 50.0}) {
      Summary mean, second;
      for (uint64_t seed = 0; seed < 300; ++seed) {
        Stream s(1000 + seed);
        const ReluTeacher f = sample_teacher(d, K, s);
        std::vector<double> x(d);
        double m1 = 0, m2 = 0;
        for (int t = 0; t < 400; ++t) {
          for (auto& v : x) v = s.normal();
          const double y = f(x.data());
          m1 += y, m2 += y * y;
        }
        mean.add(m1 / 400), second.add(m2 / 400);
      }
      EXPECT_NEAR(mean.mean, 0.0, 4 * mean.sem()) << d << " " << K;
      EXPECT_NEAR(second.mean, 0.5, 4 * second.sem()) << d << " " << K;
    }
}

TEST(ReluTeacher, QuantisationMovesEachWeightByEps) {
  Stream s(3);
  const ReluTeacher f = sample_teacher(10, 20, s);
  const ConstrainedPredictor exact = sample_predictor(f, 50, s);
  ConstrainedPredictor q = exact;
  quantise(q, 0.3, s);
  for (std::size_t i = 0; i < 50; ++i) {
    double norm = 0, dist = 0;
    for (std::size_t j = 0; j < 10; ++j) {
      norm += q.atoms[i * 10 + j] * q.atoms[i * 10 + j];
      dist += std::pow(q.atoms[i * 10 + j] - exact.atoms[i * 10 + j], 2);
    }
    EXPECT_NEAR(norm, 1.0, 1e-12);
    EXPECT_NEAR(std::sqrt(dist), 0.3, 1e-12);
  }
}

TEST(ReluTeacher, LemmasA1AndA2) {
  // Lemma A.1 pointwise: 0 <= KL(Bern(sigma(a)) || Bern(sigma(b))) <= (a - b)^2.
  for (double a = -30; a <= 30; a += 1.7)
    for (double b = -30; b <= 30; b += 2.3) {
      const double kl = bernoulli_logit_kl(a, b);
      EXPECT_GE(kl, -1e-15) << a << " " << b;
      EXPECT_LE(kl, (a - b) * (a - b) + 1e-12) << a << " " << b;
    }
  EXPECT_EQ(bernoulli_logit_kl(1.5, 1.5), 0.0);
  // Lemma A.2: E[(F - F~_{n,0})^2] <= (K + 1)/n, averaged over teachers, draws and X.
  const double K = 20;
  const std::size_t n = 40, d = 5;
  Summary mse;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Stream s(77 + seed);
    const ReluTeacher f = sample_teacher(d, K, s);
    const ConstrainedPredictor g = sample_predictor(f, n, s);
    std::vector<double> x(d);
    double e = 0;
    for (int t = 0; t < 200; ++t) {
      for (auto& v : x) v = s.normal();
      e += std::pow(f(x.data()) - g(x.data()), 2);
    }
    mse.add(e / 200);
  }
  EXPECT_LE(mse.mean + 4 * mse.sem(), (K + 1) / n);
  EXPECT_GT(mse.mean, 0.1 * (K + 1) / n);  // not vacuous: the bound is within a factor 10
}

TEST(ReluTeacher, PerAtomQuantisationIsAFunctionOfTheAtom) {
  // The paper's quantiser maps each atom to its nearest cover point: the draws of one teacher atom
  // share one quantised point (per atom), unlike independent moves per draw.
  Stream s(5);
  const ReluTeacher f = sample_teacher(10, 2, s);  // K = 2: few atoms, many repeated draws
  const ConstrainedPredictor exact = sample_predictor(f, 200, s);
  ConstrainedPredictor atom = exact, draw = exact;
  quantise(atom, 0.3, s, true);
  quantise(draw, 0.3, s, false);
  int pairs = 0, draw_same = 0;
  for (std::size_t i = 0; i < 200; ++i)
    for (std::size_t k = i + 1; k < 200; ++k) {
      if (exact.index[i] != exact.index[k]) continue;
      ++pairs;
      double da = 0, dd = 0;
      for (std::size_t j = 0; j < 10; ++j) {
        da += std::fabs(atom.atoms[i * 10 + j] - atom.atoms[k * 10 + j]);
        dd += std::fabs(draw.atoms[i * 10 + j] - draw.atoms[k * 10 + j]);
      }
      EXPECT_EQ(da, 0.0);
      draw_same += dd == 0;
    }
  EXPECT_GT(pairs, 100);
  EXPECT_EQ(draw_same, 0);
}

TEST(ReluTeacher, PerAtomQuantisationErrorDoesNotVanishWithWidth) {
  // With one point per atom the quantisation error of F~_{n,eps} tends, as n grows, to that of the
  // teacher with its atoms moved, (K+1) E[(sum_w theta_w (ReLU(w^T X) - ReLU(v_w^T X)))^2] > 0: it
  // does not decay as Lemma A.4's d (K+1) eps^2/n. Monte-Carlo over teachers at n = 200 and 6400.
  const std::size_t d = 5;
  const double K = 5, eps = 0.3;
  Summary small, large;
  for (uint64_t seed = 0; seed < 40; ++seed)
    for (std::size_t n : {200, 6400}) {
      Stream s(1000 + seed), draws(5000 + seed), xs(9000 + seed);
      const ReluTeacher f = sample_teacher(d, K, s);
      const ConstrainedPredictor g = sample_predictor(f, n, draws);
      ConstrainedPredictor q = g;
      quantise(q, eps, draws, true);
      std::vector<double> x(d);
      double e = 0;
      for (int t = 0; t < 400; ++t) {
        for (auto& v : x) v = xs.normal();
        e += std::pow(g(x.data()) - q(x.data()), 2);
      }
      (n == 200 ? small : large).add(e / 400);
    }
  // 1/n decay would give a ratio 1/32; coherent errors keep it near 1.
  EXPECT_GT(large.mean / small.mean, 0.5);
  EXPECT_GT(large.mean, d * (K + 1) * eps * eps / 6400);  // Lemma A.4 fails at n = 6400 here
}
