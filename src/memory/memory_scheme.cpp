#include "scalinglab/memory/memory_scheme.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace scalinglab::memory {

Scheme parse_scheme(const std::string& name) {
  if (name == "q0") return Scheme::q0;
  if (name == "rho") return Scheme::rho;
  if (name == "threshold") return Scheme::threshold;
  throw std::invalid_argument("unknown memory scheme: " + name);
}

namespace {
// 0^0 := 1 for stored inputs: pow() already does so, and only stored (positive-frequency) inputs
// reach this function.
double weight(double freq, double rho) { return rho == 0 ? 1.0 : std::pow(freq, rho); }
}  // namespace

std::vector<double> scheme_weights(const SchemeParams& s, const std::vector<uint64_t>& counts) {
  const std::size_t N = counts.size();
  const double T = static_cast<double>(std::accumulate(counts.begin(), counts.end(), uint64_t{0}));
  std::vector<double> q(N, 0.0);
  if (T == 0) return q;
  switch (s.scheme) {
    case Scheme::q0:
      for (std::size_t x = 0; x < N; ++x) q[x] = counts[x] > 0 ? 1.0 : 0.0;
      break;
    case Scheme::rho:
      for (std::size_t x = 0; x < N; ++x)
        if (counts[x] > 0) q[x] = weight(static_cast<double>(counts[x]) / T, s.rho);
      break;
    case Scheme::threshold: {
      std::vector<uint32_t> order(N);
      std::iota(order.begin(), order.end(), 0u);
      const std::size_t P = std::min(s.P, N);
      // Stable: equal counts keep index order, so ties go to the smaller index.
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return counts[a] > counts[b]; });
      for (std::size_t k = 0; k < P; ++k) {
        const uint32_t x = order[k];
        if (counts[x] == 0) break;
        q[x] = weight(static_cast<double>(counts[x]) / T, s.rho);
      }
      break;
    }
  }
  return q;
}

std::vector<double> scheme_weights_population(const SchemeParams& s, const std::vector<double>& p) {
  const std::size_t N = p.size();
  std::vector<double> q(N, 0.0);
  switch (s.scheme) {
    case Scheme::q0: std::fill(q.begin(), q.end(), 1.0); break;
    case Scheme::rho:
      for (std::size_t x = 0; x < N; ++x) q[x] = weight(p[x], s.rho);
      break;
    case Scheme::threshold:
      // p is decreasing in x, so the P most probable inputs are 0..P-1.
      for (std::size_t x = 0; x < std::min(s.P, N); ++x) q[x] = weight(p[x], s.rho);
      break;
  }
  return q;
}

}  // namespace scalinglab::memory
