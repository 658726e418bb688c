#pragma once
// The approximation of SGD of Section 4 of "Scaling Laws for Associative Memories" (Cabannes,
// Dohmatob, Bietti), eqs. (19)-(20) and Appendix A.11, eq. (56).
//
// Approximate update (19): the gradient of the cross-entropy at (x, f*(x)) is replaced by
// -(1 - p_W(f*(x)|x)) u_{f*(x)} e_x^T, so SGD started at W = 0 only ever adds multiples of
// u_{f*(x)} e_x^T and W stays of the form W_q = sum_x q(x) u_{f*(x)} e_x^T (eq. 4). With ||u||, ||e||
// ~ 1 the logit of the true class is q(x) and, assuming the M - 1 other logits stay ~0,
//     1 - p_W(f*(x)|x) = (M - 1) / (e^q + M - 1) = 1 / (1 + e^q / (M - 1)).
// One step that sees x with weight c therefore maps q(x) to
//     f(q) = q + lr * c / (1 + e^q / (M - 1)).
// Appendix A.11 derives (M - 1)^-1 in front of e^q; eqs. (20) and (56) of the main text print M^-1.
// We use M - 1 (the derivation's value; it is what makes 1 - p exact when the other logits are 0).
//
// Batch convention: scalinglab averages the cross-entropy over a batch (memory.train), so a step
// on a batch of size b in which x appears c_x times moves q(x) by lr * (c_x / b) * (1 - p); c = c_x/b.
// The paper's (18) sums over the batch instead: its step size is our lr / b.
//
// Schemes (q_gamma of eq. 20 and q_{gamma,b} of eq. 56):
//   batch 1              q(x) = f^{n_x}(0), c = 1, n_x the number of times x was drawn (eq. 20; the
//                        order of the samples does not matter since each step only moves q(x_t)).
//   batch b, sampled     ceil(T / b) steps over consecutive batches of the T samples (the last one
//                        possibly smaller, as in the training loop); each step applies f with
//                        c = c_x / |batch| to every x of the batch (Appendix A.11's "tighter
//                        approximation" with exact counts, used for Figure 13).
//   expected counts      batch 1: q(x) = f^{floor(T p(x))}(0), c = 1 (eq. 20 with n_x = T p(x)
//                        rounded down, see sgd_approx_weights_expected); batch b > 1: ceil(T / b)
//                        steps of f with c = p(x) (eq. 56 in the mean convention, b p(x) / b).
#include <cstdint>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::memory {

// One approximate SGD step on q(x): q + lr * c / (1 + e^q / (M - 1)). Never NaN: for huge q the
// increment underflows to 0. Requires M >= 2.
double sgd_approx_step(double q, double lr, double c, std::size_t M);

// f^n(q0) for the step with weight c.
double sgd_approx_iterate(uint64_t n, double lr, std::size_t M, double c = 1.0, double q0 = 0.0);

// f^0(0), f^1(0), ..., f^{n_max}(0) with c = 1 (Figure 5 left). Length n_max + 1.
std::vector<double> sgd_approx_iterates(uint64_t n_max, double lr, std::size_t M);

// Continuous-time limit of n -> f^n(0) (c = 1), i.e. the solution of dq/dn = lr / (1 + e^q/(M-1)),
// q(0) = 0. Separating variables, q + (e^q - 1)/(M - 1) = lr n, hence with a = lr n + 1/(M - 1):
//     q(n) = a - W_0(e^a / (M - 1)) = log((M - 1) W_0(e^a / (M - 1)))   (W_0: Lambert's W, principal branch).
// f^n(0) - q(n) = O(lr) uniformly in n; for large n both grow like log(lr (M - 1) n).
double sgd_approx_flow(double n, double lr, std::size_t M);

// Batch 1 from the counts n_x: q(x) = f^{n_x}(0). One pass of f up to max n_x (O(max n_x + N log N)).
std::vector<double> sgd_approx_weights(const std::vector<uint64_t>& counts, double lr, std::size_t M);

// Batch b over the sample sequence xs (values in [N]) in consecutive batches; the last batch may be
// smaller and is averaged over its own size. batch = 1 gives exactly sgd_approx_weights(counts of xs).
std::vector<double> sgd_approx_weights_batched(const std::vector<uint32_t>& xs, std::size_t N, double lr,
                                               std::size_t M, std::size_t batch);

// T i.i.d. draws from p taken from `s`: batch 1 uses sample_counts(p, T, s) then f^{n_x}(0); batch b > 1
// draws the samples one by one with an AliasTable(p) from `s` (the same draws as sample_counts while
// T < kCountsBinomialFrom, so batch sizes are compared on identical data) without storing them.
std::vector<double> sgd_approx_weights_sampled(const std::vector<double>& p, uint64_t T, double lr, std::size_t M,
                                               std::size_t batch, Stream& s);

// Expected counts. batch 1: q(x) = f^{floor(T p(x))}(0) (f is only defined for whole steps; floor
// keeps "x is stored iff it is expected at least once" and, since n -> f^n(0) is concave, partly
// offsets Jensen's gap f^{E n}(0) >= E f^n(0)). batch b > 1: ceil(T / b) steps with c = p(x) for
// every x (eq. 56; a last partial batch b' also has c = b' p(x) / b' = p(x)). Costs O(N ceil(T / b)).
std::vector<double> sgd_approx_weights_expected(const std::vector<double>& p, uint64_t T, double lr, std::size_t M,
                                                std::size_t batch);

}  // namespace scalinglab::memory
