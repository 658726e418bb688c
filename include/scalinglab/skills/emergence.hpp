#pragma once
// Emergence and plateaus (Sections 3.3-3.4, Appendix C). At each level l the skills form an
// Erdos-Renyi graph on S^(l) nodes whose edge probability p_l is the probability that a pair of
// skills is composed in training: at least eta_l distinct concept pairs co-occur in texts, and the
// prerequisites of both skills are acquired. The fraction of skills in the giant component,
//   gamma_l = 1 - exp(-p_l S gamma_l) = 1 + W_0(-c e^(-c)) / c,  c = p_l S      (10), (11)
// is the probability that a skill can be composed with the others; a task needing m skills of level
// l succeeds with probability at least gamma_l^m (12), and a mixture q(l, m) of such tasks with
// sum_{l,m} q(l, m) gamma_l^m (13). With p_rr = (1/S^2)(1 - (1 - d_t^2/R^2)^T), the number of
// concept-pair paths between two skills is X ~ Binomial(R(R-1)/2, p_rr) and (9)/(32) bound
//   p_l >= Pr(X >= eta_l) gamma_{l-1}^(2 sigma_l),
//   Pr(X >= eta) >= 1 - exp(-n D(eta/n || p_rr))                   if eta <= n p_rr,
//                   exp(-n D(eta/n || p_rr)) / sqrt(8 eta (1 - eta/n))   otherwise,
// from gamma_0 = 1 (level-1 skills need no prerequisites).
#include <functional>
#include <vector>

namespace scalinglab::skills {

// Giant-component fraction of an Erdos-Renyi graph of mean degree c (0 for c <= 1): the Lambert-W
// expression (11), or for c within 0.05 of 1 (where W_0 is evaluated near its branch point) the
// root of gamma = 1 - exp(-c gamma) found directly.
double giant_component_fraction(double c);

// The lower bound on Pr(Binomial(n, p) >= eta) of (32). Its first branch, 1 - exp(-n D), tends to
// 0 as eta approaches n p from below while the second is about 1/sqrt(8 n p) just above: the bound
// dips to 0 around eta = n p although Pr(X >= eta) decreases with eta. Through the prerequisites
// (gamma_{l-1}^(2 sigma_l)) a dip at one level erases every level above it, so the emergence curves
// of the literal bound are spiky. monotone = true takes, for eta <= n p, the larger of the first
// branch and the second branch at eta = n p (a valid bound, since Pr(X >= eta) >= Pr(X >= n p)).
// eta may be real (eta_l = exp(7 l / L)): "at least eta paths" is X >= ceil(eta), and the bound is
// evaluated at k = ceil(eta) (the authors' code rounds eta to the nearest integer instead).
double composition_chernoff_bound(double n, double p, double eta, bool monotone = false);

struct SkillHierarchy {
  double R = 0, T = 0, d_t = 6;
  double S = 1e3;   // skills per level
  int L = 100;      // levels
  std::function<double(int)> eta;    // eta_l: concept-pair paths needed to compose two skills
  std::function<double(int)> sigma;  // sigma_l: prerequisites of a skill (sigma_1 = 0)
  bool monotone_bound = true;        // see composition_chernoff_bound
};

struct SkillLevels {
  std::vector<double> gamma;  // gamma_0 = 1, gamma_1..gamma_L
  std::vector<double> p;      // p_0 = NaN, p_1..p_L (the lower bound (9))
  double p_rr = 0;            // probability of one concept-pair path between two given skills
};

SkillLevels skill_levels(const SkillHierarchy& h);

// sum_l q_l sum_m q_m gamma_l^m over levels 0..L (q_l[l]) and task sizes m (q_m[m]).
double task_accuracy(const SkillLevels& s, const std::vector<double>& q_l, const std::vector<double>& q_m);

// q(l) = sum_i w_i Binomial(L, pi_i)(l), l = 0..L (weights normalised).
std::vector<double> binomial_mixture(int L, const std::vector<double>& weights, const std::vector<double>& pis);

}  // namespace scalinglab::skills
