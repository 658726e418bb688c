#include "scalinglab/skills/bipartite_graph.hpp"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace scalinglab::skills {

namespace {

// Poisson(mean) by inversion: fine for the small means of text degrees (a few to a few tens).
uint32_t poisson(double mean, Stream& s) {
  if (mean > 500) throw std::invalid_argument("poisson_graph: check_mean above 500 is not supported");
  const double u = s.uniform();
  double term = std::exp(-mean), cumulative = term;
  uint32_t k = 0;
  while (cumulative < u && term > 0) {
    ++k;
    term *= mean / k;
    cumulative += term;
  }
  return k;
}

void check_size(uint64_t edges) {
  if (edges >= std::numeric_limits<uint32_t>::max())
    throw std::invalid_argument("graph too large: more than 4e9 edges");
}

}  // namespace

void index_variables(BipartiteGraph& g) {
  g.var_start.assign(static_cast<std::size_t>(g.variables) + 1, 0);
  for (uint32_t v : g.check_vars) ++g.var_start[v + 1];
  std::partial_sum(g.var_start.begin(), g.var_start.end(), g.var_start.begin());
  g.var_checks.resize(g.check_vars.size());
  std::vector<uint64_t> fill(g.var_start.begin(), g.var_start.end() - 1);
  for (uint32_t c = 0; c < g.checks; ++c)
    for (uint64_t e = g.check_start[c]; e < g.check_start[c + 1]; ++e) g.var_checks[fill[g.check_vars[e]]++] = c;
}

BipartiteGraph binomial_graph(uint32_t concepts, uint32_t texts, double p, Stream& s) {
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("binomial_graph: p must be in [0, 1]");
  BipartiteGraph g;
  g.variables = concepts;
  g.checks = texts;
  g.check_start.resize(static_cast<std::size_t>(texts) + 1);
  g.check_vars.reserve(static_cast<std::size_t>(1.05 * p * concepts * texts + 16));
  // Gaps between successive edges of a text are Geometric(p): floor(log U / log(1 - p)).
  const double inv_log_q = p < 1 ? 1.0 / std::log1p(-p) : 0.0;
  for (uint32_t t = 0; t < texts; ++t) {
    g.check_start[t] = g.check_vars.size();
    if (p <= 0) continue;
    double v = -1;
    for (;;) {
      v += 1 + (p < 1 ? std::floor(std::log(s.uniform_pos()) * inv_log_q) : 0.0);
      if (v >= concepts) break;
      g.check_vars.push_back(static_cast<uint32_t>(v));
    }
  }
  g.check_start[texts] = g.check_vars.size();
  check_size(g.edges());
  index_variables(g);
  return g;
}

BipartiteGraph regular_graph(uint32_t variables, uint32_t l, uint32_t r, Stream& s) {
  const uint64_t sockets = static_cast<uint64_t>(variables) * l;
  if (r == 0 || sockets % r) throw std::invalid_argument("regular_graph: variables * l must be a multiple of r");
  check_size(sockets);
  BipartiteGraph g;
  g.variables = variables;
  g.checks = static_cast<uint32_t>(sockets / r);
  // Variable sockets in order (l per variable), shuffled (Fisher-Yates), then dealt to the checks
  // r at a time.
  g.check_vars.resize(sockets);
  for (uint64_t i = 0; i < sockets; ++i) g.check_vars[i] = static_cast<uint32_t>(i / l);
  for (uint64_t i = sockets; i > 1; --i) std::swap(g.check_vars[i - 1], g.check_vars[s.below(i)]);
  g.check_start.resize(static_cast<std::size_t>(g.checks) + 1);
  for (uint32_t c = 0; c <= g.checks; ++c) g.check_start[c] = static_cast<uint64_t>(c) * r;
  index_variables(g);
  return g;
}

BipartiteGraph poisson_graph(uint32_t variables, uint32_t checks, double check_mean, Stream& s) {
  if (!(check_mean >= 0)) throw std::invalid_argument("poisson_graph: check_mean must be >= 0");
  BipartiteGraph g;
  g.variables = variables;
  g.checks = checks;
  g.check_start.resize(static_cast<std::size_t>(checks) + 1);
  g.check_vars.reserve(static_cast<std::size_t>(1.05 * check_mean * checks + 16));
  for (uint32_t c = 0; c < checks; ++c) {
    g.check_start[c] = g.check_vars.size();
    const uint32_t k = variables ? poisson(check_mean, s) : 0;
    for (uint32_t i = 0; i < k; ++i) g.check_vars.push_back(static_cast<uint32_t>(s.below(variables)));
  }
  g.check_start[checks] = g.check_vars.size();
  check_size(g.edges());
  index_variables(g);
  return g;
}

}  // namespace scalinglab::skills
