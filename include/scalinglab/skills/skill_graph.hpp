#pragma once
// Simulated skill graphs (beyond the paper): Erdos-Renyi graphs and their connected components by
// union-find, to check the giant-component fraction (10)-(11) and the emergence recursion.
#include <cstdint>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::skills {

// Union-find with path halving and union by size.
class UnionFind {
 public:
  explicit UnionFind(uint32_t n);
  uint32_t find(uint32_t x);
  bool unite(uint32_t a, uint32_t b);  // true if a and b were in different sets
  uint32_t size_of(uint32_t x) { return size_[find(x)]; }
  uint32_t sets() const { return sets_; }

 private:
  std::vector<uint32_t> parent_, size_;
  uint32_t sets_;
};

struct ErdosRenyiComponents {
  uint32_t largest = 0;     // nodes in the largest component
  uint32_t components = 0;  // number of components
  uint64_t edges = 0;
};

// G(n, p): each of the n(n-1)/2 pairs an edge with probability p, drawn by geometric skips over the
// pairs (O(n + edges)), merged by union-find.
ErdosRenyiComponents erdos_renyi_components(uint32_t n, double p, Stream& s);

}  // namespace scalinglab::skills
