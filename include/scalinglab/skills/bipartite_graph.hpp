#pragma once
// The concept-text bipartite graph of the skills world (Section 2.2 of "An Information Theory of
// Compute-Optimal Size Scaling, Emergence, and Plateaus in Language Models"), in the language of
// LDPC codes: variable nodes are concepts (codeword symbols), check nodes are texts (parity
// checks). Stored twice in CSR form (checks -> variables and variables -> checks), 4-byte indices:
// about 8 bytes per edge plus 4 per node, built in time proportional to the number of edges.
#include <cstdint>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::skills {

struct BipartiteGraph {
  uint32_t variables = 0, checks = 0;
  std::vector<uint64_t> check_start;  // checks + 1 offsets into check_vars
  std::vector<uint32_t> check_vars;   // the variables of each check, check by check
  std::vector<uint64_t> var_start;    // variables + 1 offsets into var_checks
  std::vector<uint32_t> var_checks;   // the checks of each variable (a multi-edge appears twice)

  uint64_t edges() const { return check_vars.size(); }
  uint32_t check_degree(uint32_t c) const { return static_cast<uint32_t>(check_start[c + 1] - check_start[c]); }
  uint32_t var_degree(uint32_t v) const { return static_cast<uint32_t>(var_start[v + 1] - var_start[v]); }
};

// The paper's ensemble: every (text, concept) pair is an edge independently with probability p =
// d_t / R, so text degrees are Binomial(R, p) and concept degrees Binomial(T, p). Each text's
// concepts are drawn by geometric skips, O(edges) in all.
BipartiteGraph binomial_graph(uint32_t concepts, uint32_t texts, double p, Stream& s);

// The regular (l, r) ensemble (configuration model): `variables` nodes of degree l, variables * l / r
// checks of degree r (refused unless that is an integer), sockets matched by a uniform random
// permutation; multi-edges are kept (as in the standard ensemble).
BipartiteGraph regular_graph(uint32_t variables, uint32_t l, uint32_t r, Stream& s);

// The Poisson ensemble: each check has a Poisson(check_mean) number of edges, each to a variable
// chosen uniformly with replacement (variable degrees are then about Poisson(checks check_mean /
// variables)).
BipartiteGraph poisson_graph(uint32_t variables, uint32_t checks, double check_mean, Stream& s);

// Fills the variable-side CSR from the check side (counting sort: O(edges)).
void index_variables(BipartiteGraph& g);

}  // namespace scalinglab::skills
