// The approximate SGD dynamics of Section 4 (eqs. 19-20, Appendix A.11 eq. 56); conventions and
// choices are documented in the header and in docs/memory.md, "Approximation of SGD (Section 4)".
#include "scalinglab/memory/sgd_approx.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/math/special_functions/lambert_w.hpp>

#include "scalinglab/core/zipf.hpp"

namespace scalinglab::memory {

namespace {

void check_M(std::size_t M) {
  if (M < 2) throw std::invalid_argument("sgd_approx: M must be at least 2");
}

// The step with log(M - 1) precomputed: e^q / (M - 1) = exp(q - log(M - 1)) never overflows before
// the increment has underflowed anyway (1 / (1 + inf) = 0).
struct Step {
  double lr, log_m1;
  double operator()(double q, double c) const { return q + lr * c / (1.0 + std::exp(q - log_m1)); }
};

Step make_step(double lr, std::size_t M) {
  check_M(M);
  return {lr, std::log(static_cast<double>(M - 1))};
}

// Consecutive batches of the samples delivered by next(), T in all; the step at each batch uses the
// weights before the batch (the gradient of a batch is computed at W_t). `seen`/`touched` are the
// per-batch counts, reset after each batch in O(batch).
template <class Next>
std::vector<double> run_batches(std::size_t N, uint64_t T, std::size_t batch, const Step& f, Next next) {
  if (batch == 0) throw std::invalid_argument("sgd_approx: batch must be at least 1");
  std::vector<double> q(N, 0.0);
  std::vector<uint64_t> seen(N, 0);
  std::vector<uint32_t> touched;
  touched.reserve(std::min<uint64_t>(std::min<uint64_t>(batch, T), N));  // distinct inputs of a batch
  for (uint64_t done = 0; done < T;) {
    const uint64_t b = std::min<uint64_t>(batch, T - done);
    for (uint64_t i = 0; i < b; ++i) {
      const uint32_t x = next();
      if (seen[x]++ == 0) touched.push_back(x);
    }
    const double inv_b = 1.0 / static_cast<double>(b);
    for (uint32_t x : touched) {
      q[x] = f(q[x], static_cast<double>(seen[x]) * inv_b);
      seen[x] = 0;
    }
    touched.clear();
    done += b;
  }
  return q;
}

}  // namespace

double sgd_approx_step(double q, double lr, double c, std::size_t M) { return make_step(lr, M)(q, c); }

double sgd_approx_iterate(uint64_t n, double lr, std::size_t M, double c, double q0) {
  const Step f = make_step(lr, M);
  double q = q0;
  for (uint64_t i = 0; i < n; ++i) q = f(q, c);
  return q;
}

std::vector<double> sgd_approx_iterates(uint64_t n_max, double lr, std::size_t M) {
  const Step f = make_step(lr, M);
  std::vector<double> out(n_max + 1);
  out[0] = 0.0;
  for (uint64_t n = 0; n < n_max; ++n) out[n + 1] = f(out[n], 1.0);
  return out;
}

double sgd_approx_flow(double n, double lr, std::size_t M) {
  check_M(M);
  const double m1 = static_cast<double>(M - 1);
  // w = W_0(e^a / (M - 1)) solves w + log w = L with L = a - log(M - 1), so q = a - w = log((M - 1) w):
  // the second form has no cancellation when a is large (q ~ log a while a - w subtracts two ~a).
  const double L = lr * n + 1.0 / m1 - std::log(m1);
  double w;
  if (L < 600) {
    w = boost::math::lambert_w0(std::exp(L));
  } else {  // e^L would overflow: fixed point w = L - log w, contracting since w >> 1
    w = L - std::log(L);
    for (int i = 0; i < 60; ++i) {
      const double next = L - std::log(w);
      if (next == w) break;
      w = next;
    }
  }
  return std::log(m1 * w);
}

std::vector<double> sgd_approx_weights(const std::vector<uint64_t>& counts, double lr, std::size_t M) {
  const Step f = make_step(lr, M);
  const std::size_t N = counts.size();
  std::vector<std::size_t> order(N);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return counts[a] < counts[b]; });
  std::vector<double> q(N, 0.0);
  double value = 0.0;  // f^n(0)
  uint64_t n = 0;
  for (std::size_t x : order) {
    for (; n < counts[x]; ++n) value = f(value, 1.0);
    q[x] = value;
  }
  return q;
}

std::vector<double> sgd_approx_weights_batched(const std::vector<uint32_t>& xs, std::size_t N, double lr,
                                               std::size_t M, std::size_t batch) {
  for (uint32_t x : xs)
    if (x >= N) throw std::invalid_argument("sgd_approx_weights_batched: sample out of range");
  std::size_t i = 0;
  return run_batches(N, xs.size(), batch, make_step(lr, M), [&] { return xs[i++]; });
}

std::vector<double> sgd_approx_weights_sampled(const std::vector<double>& p, uint64_t T, double lr, std::size_t M,
                                               std::size_t batch, Stream& s) {
  if (batch == 1) return sgd_approx_weights(sample_counts(p, T, s), lr, M);
  const AliasTable table(p);
  return run_batches(p.size(), T, batch, make_step(lr, M),
                     [&] { return static_cast<uint32_t>(table.sample(s)); });
}

std::vector<double> sgd_approx_weights_expected(const std::vector<double>& p, uint64_t T, double lr, std::size_t M,
                                                std::size_t batch) {
  if (batch == 0) throw std::invalid_argument("sgd_approx: batch must be at least 1");
  if (batch == 1) {
    std::vector<uint64_t> n(p.size());
    // Rounded down, with a relative 1e-12 of slack so that a product meant to be whole (e.g. T chosen
    // as a multiple of 1/p(x)) is not lost to rounding.
    for (std::size_t x = 0; x < p.size(); ++x)
      n[x] = static_cast<uint64_t>(std::floor(static_cast<double>(T) * p[x] * (1 + 1e-12)));
    return sgd_approx_weights(n, lr, M);
  }
  const Step f = make_step(lr, M);
  const uint64_t steps = (T + batch - 1) / batch;
  std::vector<double> q(p.size(), 0.0);
  for (std::size_t x = 0; x < p.size(); ++x) {
    double v = 0.0;
    for (uint64_t t = 0; t < steps; ++t) v = f(v, p[x]);
    q[x] = v;
  }
  return q;
}

}  // namespace scalinglab::memory
