#pragma once
// Peeling (Section 2.3): a concept is learnt from a text whose other concepts are all learnt, as
// belief-propagation decoding of an LDPC code on the erasure channel recovers an erased symbol from
// a check with one erased neighbour. Queue-based, O(edges): each check keeps the number of its
// unlearnt neighbours and the XOR of their indices, so a check with one left names it directly.
#include <cstdint>
#include <vector>

#include "scalinglab/skills/bipartite_graph.hpp"

namespace scalinglab::skills {

struct PeelResult {
  uint64_t erased = 0;        // variables unknown at the start (all of them for concept learning)
  uint64_t recovered = 0;     // of those, learnt by peeling
  uint64_t stopping_set = 0;  // left unknown: the largest stopping set inside the erased variables
  uint32_t rounds = 0;        // parallel rounds (BP iterations) in which something was learnt
  std::vector<uint8_t> learnt;  // per variable: 1 if known at the end (filled when asked)
};

// Peels the graph. `erased` (one byte per variable, 1 = unknown) defaults to every variable
// erased. With keep_learnt, the result lists which variables are known at the end.
PeelResult peel(const BipartiteGraph& g, const std::vector<uint8_t>* erased = nullptr, bool keep_learnt = false);

}  // namespace scalinglab::skills
