#pragma once
// Density evolution of peeling (belief propagation on the binary erasure channel) for an ensemble
// (lambda, rho) of variable and check degrees (Richardson & Urbanke, Modern Coding Theory,
// Secs. 3.9-3.12): the erasure probability of a variable-to-check message after l rounds is
//   x_{l+1} = f(x_l, eps) = eps lambda(1 - rho(1 - x_l)),  x_0 = eps,
// and it converges to the largest fixed point x(eps) of f in [0, eps]. A fixed point x satisfies
// eps = g(x) := x / lambda(1 - rho(1 - x)).
//
// The BP threshold eps* is where x(eps) jumps. Without degree-1 variables (lambda(0) = 0) it is
// the classical inf{eps : f(x, eps) = x has a solution in (0, 1]} = min over x of g(x). Where
// lambda(0) > 0 (binomial and Poisson variable degrees: some variables have degree 1, or 0 in the
// node perspective) there is an erasure floor: x(eps) > 0 for every eps > 0, and we define eps* as
// the value at which the largest fixed point jumps, x* as the fixed point it jumps from (a
// tangency of f, a local minimum of g), and report the jump's size. When x(eps) is continuous (no
// tangency) there is no threshold: found = false; except without erasure floor (lambda(0) = 0),
// where the classical threshold is then lim_{x->0} g(x) = 1 / (lambda'(0) rho'(1)) (ensembles with
// degree-2 variables only, e.g. (2, r)): found, with x* = 0 and alpha undefined.
// eps* is an infimum over eps in [0, 1] (eq. 23): a jump at a level above 1 (an ensemble whose
// fixed point stays continuous for every erasure probability, e.g. many texts per concept) is not
// a threshold, and the result is found = false with eps* = NaN, never a value > 1.
#include "scalinglab/skills/degree_distribution.hpp"

namespace scalinglab::skills {

struct Ensemble {
  DegreeDistribution lambda;  // variables (concepts)
  DegreeDistribution rho;     // checks (texts)
};

// f(x, eps) and g(x) above.
double de_map(const Ensemble& e, double x, double eps);
double de_g(const Ensemble& e, double x);

struct Threshold {
  bool found = false;
  double epsilon_star = 0;  // the threshold (NaN when not found)
  double x_star = 0;        // the critical fixed point at eps*
  double jump_from = 0;     // x(eps) just below eps*: 0 without erasure floor
  double nu_star = 0;       // eps* L(1 - rho(1 - x*)): fraction of variables left erased at the tangency
  double alpha = 0;         // finite-length scaling parameter (R&U Sec. 3.23; Amraoui et al. 2009)
};

// The threshold to about 1e-12 (g is evaluated on a grid of (0, 1], local minima refined by
// Brent's method, the jump's foot by TOMS 748).
Threshold bp_threshold(const Ensemble& e);

// The largest fixed point x(eps) of f in [0, eps] (the limit of density evolution from x_0 = eps).
double de_fixed_point(const Ensemble& e, double eps);
// x_l after `rounds` iterations from x_0 = eps (for tests and pictures of the recursion).
double de_iterate(const Ensemble& e, double eps, int rounds);
// The fraction of variables still erased after decoding on an infinite graph:
// eps L(1 - rho(1 - x(eps))).
double de_erasure_rate(const Ensemble& e, double eps);

// Finite-length approximation of the post-decoding bit erasure rate on a graph with n variables
// (R&U Sec. 3.23, the paper's eq. 24):
//   P_b ~= nu* Q( sqrt(n) (eps* - beta n^(-2/3) - eps) / alpha ),  Q the Gaussian tail.
// beta = 0 drops the shift term.
double finite_length_erasure_rate(const Threshold& t, double n, double eps, double beta = 0.0);

// Gaussian tail Q(z) = P(Z > z).
double gaussian_tail(double z);

}  // namespace scalinglab::skills
