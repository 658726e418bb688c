#pragma once
// How many of R concepts a model learns from T texts (Section 3.1 and Appendices A.2, B): the
// paper's mapping of peeling to decoding a parent LDPC graph, with (1 - eps) R / eps known dummy
// concepts added, so that the R concepts are an eps fraction of erased symbols:
//   parent ensemble  lambda_T = Binomial(T, p) concepts, rho~_R = Binomial(R / eps, p) texts,
//                    p = d_t / R                                                  (eqs. 14-22)
//   Pr{r not learnt | R, T} = P_b / eps, P_b ~= nu* Q(sqrt(R/eps) (eps* - eps) / alpha)  (3), (24)
//   E[R+] = R (1 - P_b / eps)                                                      (2), (4)
// and the lower bounds on the training error and the excess entropy:
//   P_e,train >= 1 - (1 - d_t P/R)^R - d_t P (1 - d_t P/R)^(R-1),  P = P_b / eps     (31)
//   excess entropy >= P_e,train^2 / 2                                              (8)
// Eq. (7) in the main text prints R - 1 in the first exponent; Appendix B's derivation (the
// expectation over Binomial(R, p) text degrees) gives R, which we use.
// Reading: (24) is the finite-length waterfall around eps*; above the threshold it saturates at
// nu*, whereas the erasure rate tends to density evolution's value eps L(1 - rho(1 - x(eps))),
// which grows towards eps. Taken literally, isoFLOP curves then gain a spurious maximum where
// eps* < eps (T/R ~ 0.7-1 at Chinchilla's budget, E[R+] = R (1 - nu*/eps) with most concepts in
// fact not learnt). We take P_b = max((24), the density-evolution value): the waterfall below the
// threshold, the asymptotic rate above it (and alone when there is no threshold). not_learnt_paper
// keeps (24) as printed; printed_rate = true makes (24) the rate itself (density evolution only
// where the parent graph has no threshold, so (24) has nothing to expand around).
#include "scalinglab/skills/density_evolution.hpp"

namespace scalinglab::skills {

struct ConceptLearning {
  double R = 0, T = 0, d_t = 6;
  double eps = 0.5;   // erasure fraction of the parent graph (the paper: 0.5)
  double beta = 0.0;  // optional shift term of the finite-length approximation
  bool authors = false;  // the authors' code instead of the paper (authors_concept_learning)
  bool printed_rate = false;  // P_b = (24) as printed instead of max((24), density evolution)
};

struct ConceptLearningTheory {
  Threshold threshold;       // of the parent ensemble
  double not_learnt = 0;        // P_b / eps with P_b = max((24), density evolution) (or (24)), eq. (3)
  double learnt = 0;            // E[R+] = R (1 - not_learnt), eq. (4)
  double not_learnt_paper = 0;  // (24) / eps as printed (NaN without a threshold)
  double not_learnt_de = 0;     // eps L(1 - rho(1 - x(eps))) / eps on the parent: the infinite-graph value
  double pe_train = 0;       // (31)
  double excess_entropy = 0; // (8)
};

Ensemble parent_ensemble(const ConceptLearning& c);
ConceptLearningTheory concept_learning(const ConceptLearning& c);

// What the authors' code (nayakanuj/Size_Scaling_Emergence_Plateau, `num_skills_learnt_biterr`)
// computes, for comparison (docs/skills.md): eps* = min(1, min of g over x in [0.1, 1]) (its
// bisection on eps with fixed points sought only in [0.1, 1]), x* the minimiser, nu* = eps* L~(1 -
// rho(1 - x*)) with L~ the concept degrees without degree 0, alpha from (25)-(26) with the three
// subtracted terms added, and Pr{not learnt} = nu* Q(sqrt(R/eps)(eps* - eps)/alpha)/eps, 0 when
// eps* = 1 (no density-evolution floor). `threshold.found` is true unless eps* = 1.
ConceptLearningTheory authors_concept_learning(const ConceptLearning& c);

// The training-error lower bound (31) for R concepts, mean text degree d_t and a fraction P of
// concepts not learnt.
double training_error_bound(double R, double d_t, double P);

}  // namespace scalinglab::skills
