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
// where w_{i,eps} is the nearest point to w_i of an eps-cover of the sphere. Two quantisers keep
// that point a function of the atom (the draws of one teacher atom all move to the same point, so
// their quantisation errors add up coherently): `nearest`, the nearest point of the cubic lattice
// of spacing 2 eps/sqrt(d) (every point of the sphere is within eps of it: an eps-cover by points
// near, not on, the sphere), and `atom`, the point of the sphere at distance exactly eps in a
// random direction (every atom moved by the full radius: the worst case of ||w_i - w_{i,eps}|| <= eps,
// which is all the lemmas' proofs use; no cover's nearest point does that).
#include <cstdint>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::teacher {

struct ReluTeacher {
  std::size_t d = 0;
  double K = 0;
  double scale = 0;            // sqrt(K + 1)
  std::vector<double> weight;  // theta-bar_w (sums to 1)
  std::vector<double> sign;    // +-1
  std::vector<double> atoms;   // row-major (atoms x d), unit vectors
  std::size_t size() const { return weight.size(); }
  double operator()(const double* x) const;  // F(x)
};

// Departures from the paper's teacher, for counterfactuals: the weights drawn from a Dirichlet
// process of concentration dp_factor K while F keeps the scale sqrt(K + 1), and signs +1 with
// probability sign_p. The defaults are the paper's teacher (and draw the same numbers).
struct TeacherOptions {
  double dp_factor = 1;
  double sign_p = 0.5;
};

ReluTeacher sample_teacher(std::size_t d, double K, Stream& s, double tol = 1e-9, const TeacherOptions& o = {});

// A point uniformly distributed on S^{d-1}.
void uniform_on_sphere(double* out, std::size_t d, Stream& s);

struct ConstrainedPredictor {
  std::size_t d = 0;
  double scale = 0;            // sqrt(K + 1) / n
  std::vector<double> sign;    // sign(theta_{w_i}), times the number of draws merged into entry i
  std::vector<double> atoms;   // w_{i,eps}, row-major (entries x d)
  std::vector<uint32_t> index; // the teacher atom each entry was drawn from
  double operator()(const double* x) const;
};

// How the predictor draws its n atoms: from Categorical(theta-bar) (the paper), or uniformly
// among the teacher's atoms (a predictor that ignores the weights: a counterfactual).
enum class Sampling { theta, uniform };

// The width-n predictor with exact atoms (eps = 0). With `merge`, the draws of one teacher atom
// form one entry weighted by their count (the same function, evaluated in time independent of n);
// the random numbers used are the same either way.
ConstrainedPredictor sample_predictor(const ReluTeacher& f, std::size_t n, Stream& s, bool merge = false,
                                     Sampling sampling = Sampling::theta);

// atom: one random point at distance eps per teacher atom; draw: an independent one per draw (not
// the paper's construction: it needs an unmerged predictor); nearest: the nearest point of the
// lattice (2 eps/sqrt(d)) Z^d, a function of the atom alone (no randomness).
enum class Quantiser { atom, draw, nearest };
// eps-quantisation in place.
void quantise(ConstrainedPredictor& g, double eps, Stream& s, Quantiser q = Quantiser::atom);

// KL(Bernoulli(sigmoid(a)) || Bernoulli(sigmoid(b))), computed with log-sigmoids (no overflow).
double bernoulli_logit_kl(double a, double b);

}  // namespace scalinglab::teacher
