#pragma once
// Proposition 1 (finite data, infinite memory): a learner that predicts every seen input correctly
// has expected error E_T = sum_x p(x) (1 - p(x))^T, which for Zipf(alpha > 1) data, p(x) = C x^-alpha,
// and large N behaves as  C^(1/alpha) Gamma(1 - 1/alpha)/alpha T^-(1 - 1/alpha)  (Hutter 2021).
//
// Note on the paper: Appendix A.1 writes the constant of the integral
// int_1^inf x^-alpha exp(-T x^-alpha) dx as alpha / Gamma((alpha-1)/alpha); substituting
// u = T x^-alpha gives Gamma(1 - 1/alpha) / alpha (for the integral from 0; the lower limit 1
// changes it by a term exponentially small in T), and the normaliser C enters as C^(1/alpha) because
// it multiplies T inside the exponential. We use this; tests check it against the exact sum.
#include <cstddef>
#include <vector>

namespace scalinglab::memory {

// Exact expected error; T = +inf gives 0. Uses exp(T log1p(-p)) for accuracy at large T.
double infinite_memory_error(const std::vector<double>& p, double T);

// The asymptote C^(1/alpha) Gamma(1 - 1/alpha)/alpha T^-(1 - 1/alpha) with C = 1/H_{N,alpha} (the
// normaliser of p for the given N). NaN when alpha <= 1.
double infinite_memory_asymptote(std::size_t N, double alpha, double T);

}  // namespace scalinglab::memory
