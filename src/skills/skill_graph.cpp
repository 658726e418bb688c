#include "scalinglab/skills/skill_graph.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace scalinglab::skills {

UnionFind::UnionFind(uint32_t n) : parent_(n), size_(n, 1), sets_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }

uint32_t UnionFind::find(uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];  // path halving
    x = parent_[x];
  }
  return x;
}

bool UnionFind::unite(uint32_t a, uint32_t b) {
  a = find(a), b = find(b);
  if (a == b) return false;
  if (size_[a] < size_[b]) std::swap(a, b);
  parent_[b] = a;
  size_[a] += size_[b];
  --sets_;
  return true;
}

ErdosRenyiComponents erdos_renyi_components(uint32_t n, double p, Stream& s) {
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("edge probability must be in [0, 1]");
  UnionFind uf(n);
  ErdosRenyiComponents out;
  if (n >= 2 && p > 0) {
    // Pairs (i, j), i < j, enumerated row by row: pair index k; gaps between edges ~ Geometric(p).
    const double inv_log_q = p < 1 ? 1.0 / std::log1p(-p) : 0.0;
    const double pairs = 0.5 * double(n) * double(n - 1);
    double k = -1;
    uint32_t i = 0;
    double row_start = 0;  // index of pair (i, i + 1)
    for (;;) {
      k += 1 + (p < 1 ? std::floor(std::log(s.uniform_pos()) * inv_log_q) : 0.0);
      if (k >= pairs) break;
      while (k >= row_start + double(n - 1 - i)) row_start += double(n - 1 - i), ++i;  // advance to k's row
      const auto j = static_cast<uint32_t>(i + 1 + (k - row_start));
      uf.unite(i, j);
      ++out.edges;
    }
  }
  out.components = uf.sets();
  for (uint32_t x = 0; x < n; ++x) out.largest = std::max(out.largest, uf.size_of(x));
  return out;
}

}  // namespace scalinglab::skills
