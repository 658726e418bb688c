// The factor world's generator against hand-computed complexities, exact enumeration, and the
// Dirichlet distribution's moments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include <Eigen/Dense>
#include <limits>

#include "scalinglab/factor/factor_task.hpp"

using namespace scalinglab;
using namespace scalinglab::factor;

TEST(FactorTask, ParsesFactorLists) {
  EXPECT_EQ(parse_factors("2x12"), std::vector<uint32_t>(12, 2));
  EXPECT_EQ(parse_factors("2,2,3,5"), (std::vector<uint32_t>{2, 2, 3, 5}));
  EXPECT_EQ(parse_factors("2x3,5"), (std::vector<uint32_t>{2, 2, 2, 5}));
  EXPECT_EQ(parse_factors("4096"), (std::vector<uint32_t>{4096}));
  for (const char* bad : {"", "2x", "x3", "2,,3", "0x2", "2x0", "a", "2.5", "4096x4", "99999999999999999999x2", "2x99999999999999999999"}) EXPECT_THROW(parse_factors(bad), InputError) << bad;
}

TEST(FactorTask, ComplexitiesOfHandCases) {
  // The paper's default: twelve binary input factors, four outputs of size 8, two parents each:
  // |pa_j| = 4, chi = 4 * 8 * 4 = 128, chi_bar = 4 * min(4, 8) = 16 (Fig. 5: "chi_bar = 16").
  const std::vector<uint32_t> in(12, 2), out(4, 8);
  const std::vector<std::vector<uint32_t>> two = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  EXPECT_EQ(statistical_complexity(in, out, two), 128);
  EXPECT_EQ(approximation_complexity(in, out, two), 16);
  // Figure 1's graph, k = 4, l = 3, p = (2, 3, 5, 7), q = (4, 2, 6): pa_1 = (x1, x2), pa_2 = (x4),
  // pa_3 = (x1, x2, x4): |pa| = 6, 7, 42; chi = 4*6 + 2*7 + 6*42 = 290; chi_bar = 4 + 2 + 6 = 12.
  const std::vector<uint32_t> p = {2, 3, 5, 7}, q = {4, 2, 6};
  const std::vector<std::vector<uint32_t>> fig1 = {{0, 1}, {3}, {0, 1, 3}};
  EXPECT_EQ(statistical_complexity(p, q, fig1), 290);
  EXPECT_EQ(approximation_complexity(p, q, fig1), 12);
  // No parent: one configuration.
  EXPECT_EQ(statistical_complexity(p, q, {{}, {}, {}}), 12);
  EXPECT_EQ(approximation_complexity(p, q, {{}, {}, {}}), 3);
}

TEST(FactorTask, ExpectedComplexityMatchesClosedFormsAndDraws) {
  FactorSpec spec;
  spec.input = {2, 2, 3, 5};
  spec.output = {4, 6};
  spec.parents = 2;
  // Fixed |I_j| = 2: E|pa_j| = e_2(p) / C(4, 2) = (4 + 6 + 10 + 6 + 10 + 15) / 6 = 51 / 6.
  ExpectedComplexity e = expected_complexity(spec);
  EXPECT_NEAR(e.chi, (4 + 6) * 51.0 / 6, 1e-12);
  // chi_bar: min(|pa|, 4) + min(|pa|, 6) averaged over the six pairs {4,6,10,6,10,15}.
  EXPECT_NEAR(e.chi_bar, (4 + 4 + 4 + 4 + 4 + 4 + 4 + 6 + 6 + 6 + 6 + 6) / 6.0, 1e-12);
  // Random edges: E|pa_j| = prod_i (1 - beta + beta p_i).
  spec.beta = 0.3;
  e = expected_complexity(spec);
  double pa = 1;
  for (uint32_t pi : spec.input) pa *= 1 - 0.3 + 0.3 * pi;
  EXPECT_NEAR(e.chi, 10 * pa, 1e-12);
  // Monte Carlo over drawn graphs agrees with the enumeration (both modes).
  for (double beta : {-1.0, 0.3}) {
    spec.beta = beta;
    e = expected_complexity(spec);
    Stream s(11);
    double chi = 0, chi_bar = 0;
    const int draws = 40000;
    for (int t = 0; t < draws; ++t) {
      const auto parents = draw_parents(spec, s);
      chi += statistical_complexity(spec.input, spec.output, parents);
      chi_bar += approximation_complexity(spec.input, spec.output, parents);
    }
    EXPECT_NEAR(chi / draws, e.chi, 0.02 * e.chi) << beta;
    EXPECT_NEAR(chi_bar / draws, e.chi_bar, 0.02 * e.chi_bar) << beta;
  }
}

TEST(FactorTask, ParentsHaveTheRightShape) {
  FactorSpec spec;
  spec.input = std::vector<uint32_t>(6, 2);
  spec.output = {3, 3, 3};
  Stream s(3);
  spec.parents = 4;
  for (const auto& I : draw_parents(spec, s)) {
    EXPECT_EQ(I.size(), 4u);
    EXPECT_TRUE(std::is_sorted(I.begin(), I.end()));
    EXPECT_EQ(std::adjacent_find(I.begin(), I.end()), I.end());
  }
  spec.parents = 9;  // clamped to k
  for (const auto& I : draw_parents(spec, s)) EXPECT_EQ(I.size(), 6u);
  // (P3'): each edge present with probability beta.
  spec.beta = 0.25;
  double edges = 0;
  const int draws = 20000;
  for (int t = 0; t < draws; ++t)
    for (const auto& I : draw_parents(spec, s)) edges += static_cast<double>(I.size());
  EXPECT_NEAR(edges / (draws * 18.0), 0.25, 0.005);
}

TEST(FactorTask, DirichletMomentsMatch) {
  // Dirichlet(alpha 1_q): E[p_t] = 1/q, Var[p_t] = (q - 1) / (q^2 (q alpha + 1)).
  for (double alpha : {0.1, 1.0, 5.0}) {
    const std::size_t q = 4;
    Stream s(5);
    std::vector<double> v(q), mean(q, 0), sq(q, 0);
    const int draws = 100000;
    for (int t = 0; t < draws; ++t) {
      draw_dirichlet(alpha, q, s, v.data());
      EXPECT_NEAR(std::accumulate(v.begin(), v.end(), 0.0), 1.0, 1e-12);
      for (std::size_t k = 0; k < q; ++k) mean[k] += v[k], sq[k] += v[k] * v[k];
    }
    const double var = (q - 1.0) / (q * q * (q * alpha + 1));
    for (std::size_t k = 0; k < q; ++k) {
      const double m = mean[k] / draws, vv = sq[k] / draws - m * m;
      EXPECT_NEAR(m, 0.25, 4 * std::sqrt(var / draws)) << alpha;
      EXPECT_NEAR(vv, var, 0.03 * var) << alpha;
    }
  }
  // Tiny alpha does not underflow: nearly a Dirac, still a distribution.
  Stream s(9);
  std::vector<double> v(8);
  draw_dirichlet(1e-3, 8, s, v.data());
  EXPECT_NEAR(std::accumulate(v.begin(), v.end(), 0.0), 1.0, 1e-12);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 0.99);
}

TEST(FactorTask, TableIsTheProductOfFactors) {
  FactorSpec spec;
  spec.input = {2, 3, 2};
  spec.output = {2, 3};
  spec.parents = 2;
  Stream s(21);
  const FactorTask task(spec, s);
  ASSERT_EQ(task.N(), 12u);
  ASSERT_EQ(task.M(), 6u);
  std::vector<float> table(task.N() * task.M()), row(task.M());
  task.table(table.data());
  for (std::size_t x = 0; x < task.N(); ++x) {
    task.row(x, row.data());
    for (std::size_t y = 0; y < task.M(); ++y) EXPECT_NEAR(row[y], table[x * task.M() + y], 2e-7 * table[x * task.M() + y]);
    double sum = 0, entropy = 0;
    for (std::size_t y = 0; y < task.M(); ++y) {
      // Independent computation from the coordinates: p(y|x) = prod_j p(y_j | (x_i)_{i in I_j}).
      double p = 1;
      std::size_t rest_y = y;
      for (std::size_t j = 0; j < 2; ++j) {
        const std::size_t yj = rest_y % spec.output[j];
        rest_y /= spec.output[j];
        std::size_t c = 0, stride = 1;
        for (uint32_t i : task.parents()[j]) {
          std::size_t xi = x;
          for (uint32_t i2 = 0; i2 < i; ++i2) xi /= spec.input[i2];
          c += stride * (xi % spec.input[i]);
          stride *= spec.input[i];
        }
        p *= task.conditional(j)[c * spec.output[j] + yj];
      }
      EXPECT_NEAR(table[x * task.M() + y], p, 1e-7);
      EXPECT_NEAR(task.probability(x, y), p, 1e-15);
      sum += p;
      if (p > 0) entropy -= p * std::log(p);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_NEAR(task.conditional_entropy(x), entropy, 1e-12);
  }
  // p(y|x) depends on x only through the parents: inputs agreeing on every parent coordinate
  // have the same row.
  std::vector<uint32_t> used;
  for (const auto& I : task.parents()) used.insert(used.end(), I.begin(), I.end());
  for (std::size_t a = 0; a < task.N(); ++a)
    for (std::size_t b = 0; b < task.N(); ++b) {
      bool same = true;
      for (uint32_t i : used) same = same && task.input_coordinate(a, i) == task.input_coordinate(b, i);
      if (same) {
        for (std::size_t y = 0; y < task.M(); ++y) EXPECT_EQ(table[a * task.M() + y], table[b * task.M() + y]);
      }
    }
}

TEST(FactorTask, SamplesFollowTheTable) {
  FactorSpec spec;
  spec.input = {2, 2};
  spec.output = {3, 2};
  spec.alpha = 1.0;
  Stream s(4);
  const FactorTask task(spec, s);
  const int draws = 200000;
  for (std::size_t x = 0; x < task.N(); ++x) {
    std::vector<double> count(task.M(), 0);
    for (int t = 0; t < draws; ++t) count[task.sample_output(x, s)] += 1;
    for (std::size_t y = 0; y < task.M(); ++y) {
      const double p = task.probability(x, y);
      EXPECT_NEAR(count[y] / draws, p, 5 * std::sqrt(p * (1 - p) / draws) + 1e-9) << x << " " << y;
    }
  }
}

TEST(FactorTask, RefusesInconsistentHandMadeTasks) {
  EXPECT_THROW(FactorTask({2}, {2}, {{1}}, {{0.5, 0.5, 0.5, 0.5}}), std::invalid_argument);  // parent 1 of 1 factor
  EXPECT_THROW(FactorTask({2}, {2}, {{0}}, {{0.5, 0.5}}), std::invalid_argument);            // table too small
  FactorSpec spec;
  spec.input = {2};
  spec.output = {2};
  spec.alpha = 0;
  Stream s(1);
  EXPECT_THROW(FactorTask(spec, s), std::invalid_argument);
}

namespace {

// Brute force: the full M x N matrix log p(y|x) = sum_j log p(y_j | pa_j(x)), coordinates computed
// here by mixed radix (first factor fastest), every column centred over y, numerical rank by SVD
// with numpy's tolerance.
std::size_t brute_rank_logp(const FactorTask& t) {
  const auto& in = t.input();
  const auto& out = t.output();
  Eigen::MatrixXd L(static_cast<Eigen::Index>(t.M()), static_cast<Eigen::Index>(t.N()));
  for (std::size_t x = 0; x < t.N(); ++x) {
    std::vector<uint32_t> xi(in.size());
    std::size_t rest = x;
    for (std::size_t i = 0; i < in.size(); ++i) xi[i] = static_cast<uint32_t>(rest % in[i]), rest /= in[i];
    for (std::size_t y = 0; y < t.M(); ++y) {
      std::size_t r = y;
      double v = 0;
      for (std::size_t j = 0; j < out.size(); ++j) {
        const std::size_t yj = r % out[j];
        r /= out[j];
        std::size_t c = 0, stride = 1;
        for (uint32_t i : t.parents()[j]) c += stride * xi[i], stride *= in[i];
        v += std::log(t.conditional(j)[c * out[j] + yj]);
      }
      L(static_cast<Eigen::Index>(y), static_cast<Eigen::Index>(x)) = v;
    }
  }
  L.rowwise() -= L.colwise().mean();
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(L);
  const auto& s = svd.singularValues();
  const double tol = s(0) * static_cast<double>(std::max(L.rows(), L.cols())) * std::numeric_limits<double>::epsilon();
  std::size_t rank = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i) rank += s(i) > tol;
  return rank;
}

std::vector<double> dirichlet_table(std::size_t configs, std::size_t q, Stream& s) {
  std::vector<double> t(configs * q);
  for (std::size_t c = 0; c < configs; ++c) draw_dirichlet(0.5, q, s, &t[c * q]);
  return t;
}

}  // namespace

TEST(FactorTask, RankOfLogPAgainstBruteForce) {
  // Random worlds, small enough for an SVD of the full M x N matrix: fixed |I_j| (P3) and random
  // edges (P3'), alpha = 0.1 and 1.
  const char* cases[][2] = {{"2x6", "4x2"}, {"2x5", "8x2"}, {"3,2,2", "3x2"}, {"2x4", "2x3"}, {"4,3", "5,4"}};
  int checked = 0;
  for (auto& c : cases)
    for (int parents : {1, 2, 3})
      for (double beta : {-1.0, 0.5})
        for (double alpha : {0.1, 1.0}) {
          FactorSpec fs;
          fs.input = parse_factors(c[0]), fs.output = parse_factors(c[1]);
          fs.parents = parents, fs.beta = beta, fs.alpha = alpha;
          Stream s(1000 + checked);
          const FactorTask t(fs, s);
          const std::size_t r = t.rank_logp();
          EXPECT_EQ(r, brute_rank_logp(t)) << c[0] << " -> " << c[1] << " parents " << parents << " beta " << beta;
          EXPECT_LE(static_cast<double>(r), t.chi_bar());
          ++checked;
        }
  EXPECT_EQ(checked, 60);
}

TEST(FactorTask, RankOfLogPClosedForms) {
  // Centred log-conditionals of output factor j span (generically) the functions of pa_j when
  // |pa_j| <= q_j - 1, constants included; so with one parent each, rank = 1 + sum over the
  // distinct parents of (p_i - 1), below chi_bar = sum_j min(p_i, q_j).
  Stream s(7);
  const std::vector<uint32_t> in = {3, 3}, out = {8, 8};
  const FactorTask distinct(in, out, {{0}, {1}}, {dirichlet_table(3, 8, s), dirichlet_table(3, 8, s)});
  EXPECT_EQ(distinct.rank_logp(), 5u);  // 1 + 2 + 2
  EXPECT_EQ(distinct.chi_bar(), 6);
  const FactorTask shared(in, out, {{0}, {0}}, {dirichlet_table(3, 8, s), dirichlet_table(3, 8, s)});
  EXPECT_EQ(shared.rank_logp(), 3u);  // functions of x_1 only
  // |pa_j| = 8 > q_j - 1 = 2: the centred block has rank q_j - 1 (chi_bar counts q_j = 3).
  const FactorTask wide({2, 2, 2}, {3}, {{0, 1, 2}}, {dirichlet_table(8, 3, s)});
  EXPECT_EQ(wide.rank_logp(), 2u);
  EXPECT_EQ(wide.chi_bar(), 3);
  // No parents: p(y|x) does not depend on x, every centred column is the same: rank 1.
  const FactorTask none({2, 2}, {4}, {{}}, {dirichlet_table(1, 4, s)});
  EXPECT_EQ(none.rank_logp(), 1u);
}

TEST(FactorTask, RankOfLogPBelowChiBarInTheFiguresWorlds) {
  // rank log p <= chi_bar holds by construction (Eq. 5, AC); this guards it in the worlds the sweeps
  // draw (fig4.toml, fig18-left.toml), which therefore carry no [[check]] of it. Quick sizes also
  // against the brute-force SVD; the paper's sizes through rank_logp alone (N = 4096).
  struct Case {
    const char *in, *out;
    int parents;
    bool brute;
  };
  const Case cases[] = {{"2x8", "8x2", 1, true},  {"2x8", "8x2", 2, true},  {"2x8", "8x2", 3, true},
                        {"2x8", "8x2", 4, true},  {"2x4", "8x2", 1, true},  {"3x4", "8x2", 1, true},
                        {"4x4", "8x2", 1, true},  {"5x4", "8x2", 1, true},  {"2x12", "8x4", 1, false},
                        {"2x12", "8x4", 2, false}, {"2x12", "8x4", 3, false}, {"2x12", "8x4", 4, false},
                        {"6x4", "8x3", 1, false}, {"7x4", "8x3", 1, false}};
  uint64_t seed = 4000;
  for (const auto& c : cases)
    for (int draw = 0; draw < 4; ++draw) {
      FactorSpec fs;
      fs.input = parse_factors(c.in), fs.output = parse_factors(c.out), fs.parents = c.parents;
      Stream s(seed++);
      const FactorTask t(fs, s);
      const std::size_t r = t.rank_logp();
      EXPECT_LE(static_cast<double>(r), t.chi_bar()) << c.in << " -> " << c.out << " parents " << c.parents;
      EXPECT_GE(r, 1u);
      if (c.brute) {
        EXPECT_EQ(r, brute_rank_logp(t)) << c.in << " -> " << c.out << " parents " << c.parents;
      }
      if (c.parents == 1 && fs.input[0] < fs.output[0]) {
        // One parent of size p < q_j each: 1 + (p - 1) x (number of distinct parents).
        std::vector<uint32_t> distinct;
        for (const auto& I : t.parents())
          if (std::find(distinct.begin(), distinct.end(), I[0]) == distinct.end()) distinct.push_back(I[0]);
        EXPECT_EQ(r, 1 + (fs.input[0] - 1) * distinct.size()) << c.in << " -> " << c.out;
      }
    }
}
