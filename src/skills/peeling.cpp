#include "scalinglab/skills/peeling.hpp"

#include <algorithm>
#include <stdexcept>

namespace scalinglab::skills {

namespace {
// Per check: the number of unknown neighbours (with multiplicity) and the XOR of their indices.
// Kept together so that one cache line serves both.
struct CheckState {
  uint32_t unknown;
  uint32_t xor_of_unknown;
};
}  // namespace

PeelResult peel(const BipartiteGraph& g, const std::vector<uint8_t>* erased, bool keep_learnt) {
  if (erased && erased->size() != g.variables) throw std::invalid_argument("peel: erased mask has the wrong size");
  std::vector<CheckState> state(g.checks);
  std::vector<uint8_t> known(g.variables, 0);
  PeelResult r;
  if (erased)
    for (uint32_t v = 0; v < g.variables; ++v) known[v] = (*erased)[v] == 0;
  std::vector<uint32_t> frontier, next;
  for (uint32_t c = 0; c < g.checks; ++c) {
    CheckState st{0, 0};
    const uint64_t from = g.check_start[c], to = g.check_start[c + 1];
    if (!erased) {  // every neighbour unknown: no lookups
      st.unknown = static_cast<uint32_t>(to - from);
      for (uint64_t e = from; e < to; ++e) st.xor_of_unknown ^= g.check_vars[e];
    } else {
      for (uint64_t e = from; e < to; ++e) {
        const uint32_t v = g.check_vars[e];
        const uint32_t unknown = known[v] ^ 1u;
        st.unknown += unknown;
        st.xor_of_unknown ^= v & (0u - unknown);  // branch-free: v if unknown, else 0
      }
    }
    state[c] = st;
    if (st.unknown == 1) frontier.push_back(c);
  }
  for (uint32_t v = 0; v < g.variables; ++v) r.erased += !known[v];

  // Round by round: every check with one unknown neighbour at the start of a round names it. The
  // frontier is handled in blocks: the block's variables are named first, then their edges are
  // walked as one list with the check states fetched ahead (the states are the random accesses).
  constexpr std::size_t kBlock = 256, kAhead = 16;
  std::vector<uint32_t> edge_check, edge_var;
  edge_check.reserve(4096);
  edge_var.reserve(4096);
  while (!frontier.empty()) {
    uint64_t learnt_now = 0;
    next.clear();
    for (std::size_t b = 0; b < frontier.size(); b += kBlock) {
      const std::size_t end = std::min(frontier.size(), b + kBlock);
      edge_check.clear();
      edge_var.clear();
      for (std::size_t i = b; i < end; ++i) {
        const CheckState& st = state[frontier[i]];
        if (st.unknown != 1) continue;  // its last unknown was learnt earlier in this round
        const uint32_t v = st.xor_of_unknown;
        if (known[v]) continue;         // named by another check of this block
        known[v] = 1;
        ++learnt_now;
        edge_check.insert(edge_check.end(), g.var_checks.begin() + static_cast<std::ptrdiff_t>(g.var_start[v]),
                          g.var_checks.begin() + static_cast<std::ptrdiff_t>(g.var_start[v + 1]));
        edge_var.resize(edge_check.size(), v);
      }
      const std::size_t m = edge_check.size();
      for (std::size_t i = 0; i < m; ++i) {
        if (i + kAhead < m) __builtin_prefetch(&state[edge_check[i + kAhead]], 1);
        CheckState& st = state[edge_check[i]];
        st.xor_of_unknown ^= edge_var[i];
        if (--st.unknown == 1) next.push_back(edge_check[i]);
      }
    }
    r.recovered += learnt_now;
    if (learnt_now) ++r.rounds;
    frontier.swap(next);
  }
  r.stopping_set = r.erased - r.recovered;
  if (keep_learnt) r.learnt = std::move(known);
  return r;
}

}  // namespace scalinglab::skills
