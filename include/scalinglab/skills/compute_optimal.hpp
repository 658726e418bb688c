#pragma once
// Compute-optimal allocation (Section 3.1, eq. 1): maximise E[R+] over R subject to R T = C' with
// C' = C / (6 varsigma tau) (model size N = varsigma R, data D = tau T, compute 6 N D = C).
// R and T are treated as real numbers. The search scans log R where T / R runs from 0.1 to 1000,
// then refines the best point by golden-section search in log R.
#include "scalinglab/skills/concept_learning.hpp"

namespace scalinglab::skills {

struct ComputeBudget {
  double C = 5.76e23;  // FLOPs (Chinchilla's budget)
  double varsigma = 2e5, tau = 8e5;  // parameters per concept, tokens per text (Figure 3)
  double d_t = 6, eps = 0.5, beta = 0;
  bool authors = false;  // the authors' code: their E[R+], and R searched in [0.2, 0.6] sqrt(C')
  bool printed_rate = false;  // E[R+] with (24) as printed (ConceptLearning::printed_rate)
  double p_edge = 0;  // if > 0: a dense graph, every pair an edge with probability p_edge (d_t = p_edge R)
};

struct ComputeOptimum {
  double R = 0, T = 0, N = 0, D = 0;  // the maximiser and N = varsigma R, D = tau T
  ConceptLearningTheory theory;       // at the maximiser
};

// E[R+] at R with T = C' / R (one point of an isoFLOP curve).
ConceptLearningTheory isoflop_point(const ComputeBudget& b, double R);
ComputeOptimum compute_optimum(const ComputeBudget& b);

}  // namespace scalinglab::skills
