#pragma once
// Memory weighting schemes q(x) of Section 3.2, eqs. (10)-(12), in their empirical version (from the
// counts of T samples) and their population version (T = inf, counts replaced by p):
//   q0         q(x) = 1{x seen}                                   (population: 1)
//   rho        q(x) = phat(x)^rho for seen x, 0 otherwise          (population: p(x)^rho)
//   threshold  q(x) = phat(x)^rho 1{x in top_P}, top_P the P most frequent inputs of the sample
//              (population: p(x)^rho 1{x < P}, i.e. the P most probable inputs)
// Ties in top_P are broken towards the smaller index (the more probable token); unseen inputs are
// never stored, even when fewer than P inputs were seen. With rho = 0, `rho` equals `q0`.
#include <cstdint>
#include <string>
#include <vector>

namespace scalinglab::memory {

enum class Scheme { q0, rho, threshold };
Scheme parse_scheme(const std::string& name);

struct SchemeParams {
  Scheme scheme = Scheme::q0;
  double rho = 0;
  std::size_t P = 0;  // threshold only
};

// Empirical weights from counts (T = sum of counts).
std::vector<double> scheme_weights(const SchemeParams& s, const std::vector<uint64_t>& counts);
// Population weights (T = inf).
std::vector<double> scheme_weights_population(const SchemeParams& s, const std::vector<double>& p);

}  // namespace scalinglab::memory
