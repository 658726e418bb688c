#pragma once
// Discrete distributions used by the worlds: Zipf probabilities, Walker/Vose alias sampling and
// multinomial counts of T i.i.d. draws.
#include <cstdint>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab {

// p(x) = (x+1)^-alpha / H_{N,alpha} for x = 0..N-1 (token x has rank x+1), summed in double.
std::vector<double> zipf_probabilities(std::size_t N, double alpha);

// Vose's alias method: O(N) set-up, O(1) per draw (one uniform and one comparison).
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights);
  std::size_t sample(Stream& s) const {
    const double u = s.uniform() * static_cast<double>(prob_.size());
    const auto i = static_cast<std::size_t>(u);
    return (u - static_cast<double>(i)) < prob_[i] ? i : alias_[i];
  }
  std::size_t size() const { return prob_.size(); }

 private:
  std::vector<double> prob_;
  std::vector<std::size_t> alias_;
};

// Counts of each outcome among T i.i.d. draws from p. Draws one by one with the alias table while T
// is moderate, and switches to conditional binomials (exact multinomial, O(N)) when T is large.
std::vector<uint64_t> sample_counts(const std::vector<double>& p, uint64_t T, Stream& s);

// Threshold above which sample_counts uses the binomial method.
inline constexpr uint64_t kCountsBinomialFrom = 4'000'000;

}  // namespace scalinglab
