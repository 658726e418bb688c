// Random concept-text graphs: degree statistics against their distributions, and the two CSR views
// holding the same edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "scalinglab/core/stats.hpp"
#include "scalinglab/skills/bipartite_graph.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;

namespace {

// Every edge of the check side appears on the variable side, with the same multiplicity.
void expect_consistent(const BipartiteGraph& g) {
  ASSERT_EQ(g.check_start.size(), g.checks + 1u);
  ASSERT_EQ(g.var_start.size(), g.variables + 1u);
  ASSERT_EQ(g.var_checks.size(), g.check_vars.size());
  std::map<std::pair<uint32_t, uint32_t>, int> count;
  for (uint32_t c = 0; c < g.checks; ++c)
    for (uint64_t e = g.check_start[c]; e < g.check_start[c + 1]; ++e) ++count[{c, g.check_vars[e]}];
  for (uint32_t v = 0; v < g.variables; ++v)
    for (uint64_t e = g.var_start[v]; e < g.var_start[v + 1]; ++e) --count[{g.var_checks[e], v}];
  for (const auto& [edge, n] : count) EXPECT_EQ(n, 0) << edge.first << "-" << edge.second;
}

}  // namespace

TEST(BipartiteGraph, BinomialDegreesHaveTheirMeansAndVariances) {
  const uint32_t R = 2000, T = 3000;
  const double p = 6.0 / R;
  Stream s(1);
  const BipartiteGraph g = binomial_graph(R, T, p, s);
  // Total edges ~ Binomial(R T, p): within 5 standard deviations.
  const double mean = double(R) * T * p, sd = std::sqrt(mean * (1 - p));
  EXPECT_NEAR(static_cast<double>(g.edges()), mean, 5 * sd);
  Summary text, concepts;
  for (uint32_t t = 0; t < T; ++t) {
    text.add(g.check_degree(t));
    // A text's concepts are distinct and increasing (no multi-edges in this ensemble).
    for (uint64_t e = g.check_start[t] + 1; e < g.check_start[t + 1]; ++e) EXPECT_LT(g.check_vars[e - 1], g.check_vars[e]);
  }
  for (uint32_t r = 0; r < R; ++r) concepts.add(g.var_degree(r));
  EXPECT_NEAR(text.mean, R * p, 5 * std::sqrt(R * p * (1 - p) / T));
  EXPECT_NEAR(text.std() * text.std(), R * p * (1 - p), 0.1 * R * p);
  EXPECT_NEAR(concepts.mean, T * p, 5 * std::sqrt(T * p * (1 - p) / R));
  EXPECT_NEAR(concepts.std() * concepts.std(), T * p * (1 - p), 0.1 * T * p);
  expect_consistent(g);
  // Concepts are hit uniformly: the first and second halves get about the same number of edges.
  uint64_t low = g.var_start[R / 2], high = g.edges() - low;
  EXPECT_NEAR(double(low) / double(high), 1.0, 0.05);
}

TEST(BipartiteGraph, RegularAndPoissonEnsembles) {
  Stream s(2);
  const BipartiteGraph g = regular_graph(600, 3, 6, s);
  EXPECT_EQ(g.checks, 300u);
  EXPECT_EQ(g.edges(), 1800u);
  for (uint32_t v = 0; v < g.variables; ++v) EXPECT_EQ(g.var_degree(v), 3u);
  for (uint32_t c = 0; c < g.checks; ++c) EXPECT_EQ(g.check_degree(c), 6u);
  expect_consistent(g);
  EXPECT_THROW(regular_graph(7, 3, 6, s), std::invalid_argument);

  const BipartiteGraph q = poisson_graph(1000, 4000, 5.0, s);
  Summary deg;
  for (uint32_t c = 0; c < q.checks; ++c) deg.add(q.check_degree(c));
  EXPECT_NEAR(deg.mean, 5.0, 5 * std::sqrt(5.0 / 4000));
  EXPECT_NEAR(deg.std() * deg.std(), 5.0, 0.4);  // Poisson: variance = mean
  expect_consistent(q);
}

TEST(BipartiteGraph, SameStreamSameGraph) {
  Stream a(9), b(9);
  const BipartiteGraph x = binomial_graph(500, 800, 0.01, a), y = binomial_graph(500, 800, 0.01, b);
  EXPECT_EQ(x.check_vars, y.check_vars);
  EXPECT_EQ(x.check_start, y.check_start);
}
