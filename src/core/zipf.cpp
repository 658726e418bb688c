#include "scalinglab/core/zipf.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

namespace scalinglab {

std::vector<double> zipf_probabilities(std::size_t N, double alpha) {
  std::vector<double> p(N);
  double total = 0;
  for (std::size_t x = 0; x < N; ++x) p[x] = std::pow(static_cast<double>(x + 1), -alpha);
  for (std::size_t x = N; x-- > 0;) total += p[x];  // smallest first: less rounding
  for (auto& v : p) v /= total;
  return p;
}

AliasTable::AliasTable(const std::vector<double>& weights) : prob_(weights.size()), alias_(weights.size()) {
  const std::size_t n = weights.size();
  if (n == 0) throw std::invalid_argument("AliasTable: no outcomes");
  double total = 0;
  for (double w : weights) total += w;
  std::vector<double> scaled(n);
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const std::size_t s = small.back(), l = large.back();
    small.pop_back();
    prob_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (std::size_t i : large) prob_[i] = 1.0, alias_[i] = i;
  for (std::size_t i : small) prob_[i] = 1.0, alias_[i] = i;  // rounding leftovers
}

namespace {
// Adapts a Stream to the standard UniformRandomBitGenerator interface.
struct StreamBits {
  using result_type = uint32_t;
  Stream* s;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xFFFFFFFFu; }
  result_type operator()() { return s->next_u32(); }
};
}  // namespace

std::vector<uint64_t> sample_counts(const std::vector<double>& p, uint64_t T, Stream& s) {
  std::vector<uint64_t> counts(p.size(), 0);
  if (T < kCountsBinomialFrom) {
    AliasTable table(p);
    for (uint64_t t = 0; t < T; ++t) ++counts[table.sample(s)];
    return counts;
  }
  // Multinomial by conditional binomials: n_x ~ Bin(remaining, p_x / remaining mass).
  StreamBits bits{&s};
  uint64_t remaining = T;
  double mass = 1.0;
  for (std::size_t x = 0; x + 1 < p.size() && remaining > 0; ++x) {
    const double q = mass > 0 ? std::min(1.0, p[x] / mass) : 1.0;
    std::binomial_distribution<uint64_t> bin(remaining, q);
    counts[x] = bin(bits);
    remaining -= counts[x];
    mass -= p[x];
  }
  if (!p.empty()) counts.back() += remaining;
  return counts;
}

}  // namespace scalinglab
