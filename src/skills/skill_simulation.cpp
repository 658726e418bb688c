#include "scalinglab/skills/skill_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "scalinglab/skills/peeling.hpp"
#include "scalinglab/skills/skill_graph.hpp"

namespace scalinglab::skills {

namespace {

// Distinct unordered concept pairs that share a text, as (min << 32 | max).
std::vector<uint64_t> cooccurring_pairs(const BipartiteGraph& g) {
  std::vector<uint64_t> pairs;
  for (uint32_t t = 0; t < g.checks; ++t)
    for (uint64_t i = g.check_start[t]; i < g.check_start[t + 1]; ++i)
      for (uint64_t j = i + 1; j < g.check_start[t + 1]; ++j) {
        const uint64_t a = g.check_vars[i], b = g.check_vars[j];  // increasing within a text
        pairs.push_back(a << 32 | b);
      }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// log C(n, k).
double log_choose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

}  // namespace

PipelineResult simulate_pipeline(const PipelineSpec& spec, Stream& s) {
  if (spec.S < 2 || spec.L < 1 || spec.R < 2) throw std::invalid_argument("pipeline needs S >= 2, L >= 1, R >= 2");
  if (static_cast<uint64_t>(spec.S) * spec.S > 400'000'000ULL) throw std::invalid_argument("pipeline: S too large (S^2 counters)");
  // As skills.emergence: sigma_l counts prerequisites, a finite number >= 0 at every level.
  for (int l = 2; l <= spec.L; ++l) {
    const double sigma = spec.sigma(l);
    if (!(sigma >= 0) || !(sigma < 9e18))
      throw std::invalid_argument("sigma_l must be a finite number >= 0 at every level (sigma_" + std::to_string(l) +
                                  " = " + std::to_string(sigma) + ")");
  }
  Stream graph_stream = s.substream(0), skill_stream = s.substream(1);
  const BipartiteGraph g = binomial_graph(spec.R, spec.T, spec.d_t / spec.R, graph_stream);
  const PeelResult peeled = peel(g, nullptr, true);
  PipelineResult out;
  out.learnt_fraction = double(peeled.recovered) / spec.R;
  const std::vector<uint64_t> pairs = cooccurring_pairs(g);
  out.concept_pairs = pairs.size();

  const uint32_t S = spec.S;
  const auto L = static_cast<std::size_t>(spec.L);
  out.largest.assign(L + 1, 0.0);
  out.acquired.assign(L + 1, 0.0);
  out.same_component.assign(L + 1, std::vector<double>(static_cast<std::size_t>(spec.max_m) + 1, 0.0));
  out.largest[0] = out.acquired[0] = 1.0;
  for (auto& p : out.same_component[0]) p = 1.0;
  std::vector<uint8_t> acquired_prev(S, 1), acquired(S), prereq_ok(S);
  std::vector<uint32_t> skill_of(spec.R), counts(static_cast<std::size_t>(S) * S);
  for (std::size_t l = 1; l <= L; ++l) {
    // Concepts to skills, and each skill's prerequisites at the level below.
    for (auto& k : skill_of) k = static_cast<uint32_t>(skill_stream.below(S));
    const auto sigma = l == 1 ? 0L : std::lround(spec.sigma(static_cast<int>(l)));
    for (uint32_t k = 0; k < S; ++k) {
      bool ok = true;
      for (long i = 0; i < sigma; ++i) ok = acquired_prev[skill_stream.below(S)] && ok;
      prereq_ok[k] = ok;
    }
    std::fill(acquired.begin(), acquired.end(), 0);
    for (uint32_t r = 0; r < spec.R; ++r)
      if (peeled.learnt[r] && prereq_ok[skill_of[r]]) acquired[skill_of[r]] = 1;
    // Concept-pair paths between skill pairs, then the links.
    std::fill(counts.begin(), counts.end(), 0u);
    for (uint64_t key : pairs) {
      uint32_t a = skill_of[key >> 32], b = skill_of[key & 0xffffffffu];
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      ++counts[static_cast<std::size_t>(a) * S + b];
    }
    const double eta = spec.eta(static_cast<int>(l));
    UnionFind uf(S);
    for (uint32_t a = 0; a < S; ++a)
      for (uint32_t b = a + 1; b < S; ++b)
        if (counts[static_cast<std::size_t>(a) * S + b] >= eta && prereq_ok[a] && prereq_ok[b]) uf.unite(a, b);
    std::vector<uint32_t> sizes;
    for (uint32_t k = 0; k < S; ++k)
      if (uf.find(k) == k) sizes.push_back(uf.size_of(k));
    uint32_t largest = 0, acquired_count = 0;
    for (uint32_t c : sizes) largest = std::max(largest, c);
    for (uint8_t a : acquired) acquired_count += a;
    out.largest[l] = double(largest) / S;
    out.acquired[l] = double(acquired_count) / S;
    for (int m = 0; m <= spec.max_m; ++m) {
      double p = 0;
      if (m <= 1) p = 1;
      else if (static_cast<uint32_t>(m) <= S)
        for (uint32_t c : sizes)
          if (c >= static_cast<uint32_t>(m)) p += std::exp(log_choose(c, m) - log_choose(S, m));
      out.same_component[l][static_cast<std::size_t>(m)] = p;
    }
    acquired_prev = acquired;
  }
  return out;
}

}  // namespace scalinglab::skills
