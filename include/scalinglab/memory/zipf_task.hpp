#pragma once
// The data of "Scaling Laws for Associative Memories" (Cabannes, Dohmatob, Bietti), eq. (1):
// inputs x in [N] with Zipf probabilities p(x) ~ (x+1)^-alpha (0-based: token x has rank x+1) and
// deterministic labels y = f*(x) in [M].
#include <cstdint>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::memory {

struct ZipfTask {
  std::size_t N = 0, M = 0;
  double alpha = 0;
  std::vector<double> p;       // p(x), sums to 1
  std::vector<uint32_t> label;  // f*(x)
};

// labels: "mod" gives f*(x) = x mod M (the paper's experiments); "random" draws f*(x) uniformly
// in [M] from `s` (independently of the embeddings, which use other substreams); "block" gives
// f*(x) = floor(x M / N), blocks of N/M consecutive inputs, so that p(y) decays in y like a Zipf law
// of the same exponent (Proposition 5's classes).
ZipfTask make_zipf_task(std::size_t N, std::size_t M, double alpha, const std::string& labels, Stream& s);

// The class marginal p(y) = sum_{x: f*(x)=y} p(x); p_* = max_y p(y) appears in Theorem 1.
std::vector<double> class_marginal(const ZipfTask& task);

}  // namespace scalinglab::memory
