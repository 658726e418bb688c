#pragma once
// The data-generating process of Jeon & Van Roy, Section 4.1: an infinite-width ReLU network
//   F(x) = sqrt(K + 1) sum_w theta_w ReLU(w^T x),
// theta-bar ~ DP(K, uniform(S^{d-1})) (stick-breaking: beta_k ~ Beta(1, K), atoms uniform on the
// sphere), theta_w = +-theta-bar_w with probability 1/2, inputs X ~ N(0, I_d), labels
// Y ~ Bernoulli(sigmoid(F(X))). Truncation: sticks are broken until the mass left is below `tol`;
// that remainder goes to one last atom, so the weights are an exact probability vector and the
// truncated teacher is within total variation tol of the process (default 1e-9; about K ln(1/tol)
// atoms, 2100 for K = 100).
// The constrained predictor of Section 4.2: n atoms drawn i.i.d. from Categorical(theta-bar),
//   F~_{n,eps}(x) = sqrt(K + 1) / n sum_i sign(theta_{w_i}) ReLU(w_{i,eps}^T x),
// where w_{i,eps} is a point of an eps-cover of the sphere within eps of w_i. An explicit cover of
// S^{d-1} is out of reach for d = 10; the lemmas only use ||w_i - w_{i,eps}|| <= eps, so we move
// w_i to the point of the sphere at distance exactly eps in a uniformly random direction. As with
// the paper's nearest cover point, that point is a function of the atom (`per_atom`): the draws of
// one teacher atom all move to the same point, so their quantisation errors add up coherently.
#include <cstdint>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::teacher {

struct ReluTeacher {
  std::size_t d = 0;
  double K = 0;
  std::vector<double> weight;  // theta-bar_w (sums to 1)
  std::vector<double> sign;    // +-1
  std::vector<double> atoms;   // row-major (atoms x d), unit vectors
  std::size_t size() const { return weight.size(); }
  double operator()(const double* x) const;  // F(x)
};

ReluTeacher sample_teacher(std::size_t d, double K, Stream& s, double tol = 1e-9);

// A point uniformly distributed on S^{d-1}.
void uniform_on_sphere(double* out, std::size_t d, Stream& s);

struct ConstrainedPredictor {
  std::size_t d = 0;
  double scale = 0;            // sqrt(K + 1) / n
  std::vector<double> sign;    // sign(theta_{w_i})
  std::vector<double> atoms;   // w_{i,eps}, row-major (n x d)
  std::vector<uint32_t> index; // the teacher atom each was drawn from
  double operator()(const double* x) const;
};

// The width-n predictor with exact atoms (eps = 0), then its eps-quantisation in place.
ConstrainedPredictor sample_predictor(const ReluTeacher& f, std::size_t n, Stream& s);
// per_atom = false: an independent direction for every draw (not the paper's construction).
void quantise(ConstrainedPredictor& g, double eps, Stream& s, bool per_atom = true);

// KL(Bernoulli(sigmoid(a)) || Bernoulli(sigmoid(b))), computed with log-sigmoids (no overflow).
double bernoulli_logit_kl(double a, double b);

}  // namespace scalinglab::teacher
