// Peeling: hand-made graphs, and the XOR-queue implementation against a naive one (repeated scans
// of every check) on random small graphs; the result must be the largest stopping set inside the
// erased variables.
#include <gtest/gtest.h>

#include "scalinglab/skills/peeling.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;

namespace {

BipartiteGraph from_checks(uint32_t variables, const std::vector<std::vector<uint32_t>>& checks) {
  BipartiteGraph g;
  g.variables = variables;
  g.checks = static_cast<uint32_t>(checks.size());
  g.check_start.push_back(0);
  for (const auto& c : checks) {
    g.check_vars.insert(g.check_vars.end(), c.begin(), c.end());
    g.check_start.push_back(g.check_vars.size());
  }
  index_variables(g);
  return g;
}

// Naive peeling: scan all checks until none has exactly one unknown neighbour.
std::vector<uint8_t> naive_known(const BipartiteGraph& g, const std::vector<uint8_t>& erased) {
  std::vector<uint8_t> known(g.variables);
  for (uint32_t v = 0; v < g.variables; ++v) known[v] = !erased[v];
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t c = 0; c < g.checks; ++c) {
      int unknown = 0;
      uint32_t last = 0;
      for (uint64_t e = g.check_start[c]; e < g.check_start[c + 1]; ++e)
        if (!known[g.check_vars[e]]) ++unknown, last = g.check_vars[e];
      if (unknown == 1) known[last] = 1, changed = true;
    }
  }
  return known;
}

}  // namespace

TEST(Peeling, HandMadeGraphs) {
  // A chain: text 0 = {0}, text 1 = {0, 1}, text 2 = {1, 2}: three rounds learn everything.
  auto chain = peel(from_checks(3, {{0}, {0, 1}, {1, 2}}));
  EXPECT_EQ(chain.recovered, 3u);
  EXPECT_EQ(chain.stopping_set, 0u);
  EXPECT_EQ(chain.rounds, 3u);
  // A cycle of texts {0,1}, {1,2}, {2,0}: every text has two unknowns; nothing is learnt.
  auto cycle = peel(from_checks(3, {{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_EQ(cycle.recovered, 0u);
  EXPECT_EQ(cycle.stopping_set, 3u);
  EXPECT_EQ(cycle.rounds, 0u);
  // Two texts naming concept 0 alone learn it in one round, once.
  auto twice = peel(from_checks(2, {{0}, {0}, {0, 1}}));
  EXPECT_EQ(twice.recovered, 2u);
  EXPECT_EQ(twice.rounds, 2u);
  // A double edge carries no information (v xor v = 0 in the parity).
  auto doubled = peel(from_checks(1, {{0, 0}}));
  EXPECT_EQ(doubled.recovered, 0u);
  // Known variables (erasure channel): only the erased ones count.
  const std::vector<uint8_t> erased = {1, 0, 1};
  auto partial = peel(from_checks(3, {{0, 1}, {1, 2}, {2, 0}}), &erased, true);
  EXPECT_EQ(partial.erased, 2u);
  EXPECT_EQ(partial.recovered, 2u);
  EXPECT_EQ(partial.learnt, (std::vector<uint8_t>{1, 1, 1}));
}

TEST(Peeling, MatchesNaivePeelingAndEndsOnAStoppingSet) {
  Stream s(4);
  int stuck = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t n = 5 + static_cast<uint32_t>(s.below(40));
    const BipartiteGraph g = trial % 3 == 0 ? binomial_graph(n, n + static_cast<uint32_t>(s.below(30)), 0.12, s)
                             : trial % 3 == 1 ? poisson_graph(n, n, 2.5, s)
                                              : regular_graph(2 * n, 3, 6, s);
    std::vector<uint8_t> erased(g.variables);
    const double eps = 0.2 + 0.8 * s.uniform();
    for (auto& e : erased) e = s.uniform() < eps;
    const PeelResult r = peel(g, &erased, true);
    const std::vector<uint8_t> naive = naive_known(g, erased);
    ASSERT_EQ(r.learnt, naive) << "trial " << trial;
    // Stopping set: no check has exactly one unknown neighbour.
    for (uint32_t c = 0; c < g.checks; ++c) {
      int unknown = 0;
      for (uint64_t e = g.check_start[c]; e < g.check_start[c + 1]; ++e) unknown += !r.learnt[g.check_vars[e]];
      EXPECT_NE(unknown, 1) << "trial " << trial << " check " << c;
    }
    stuck += r.stopping_set > 0;
  }
  EXPECT_GT(stuck, 30);  // the comparison saw both outcomes
  EXPECT_LT(stuck, 290);
}
