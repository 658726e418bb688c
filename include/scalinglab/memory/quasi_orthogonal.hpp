#pragma once
// Quasi-orthogonal families (Cabannes, Dohmatob, Bietti, Definition 1 and Lemma 1): unit vectors
// (u_z)_{z in [P]} of R^d with |<u_z, u_z'>| <= eta for z != z'. Lemma 1: for P >= 3 such a family
// exists with eta = 2 sqrt(log(P) / d); its proof (Appendix A.2) draws the vectors uniformly on the
// sphere and bounds the chance that a pair is too correlated, union-bounded over the pairs.
#include <cstddef>

#include <Eigen/Dense>

#include "scalinglab/core/random.hpp"

namespace scalinglab::memory {

// P vectors uniform on the unit sphere of R^d (normalised Gaussians), the columns of a d x P matrix.
Eigen::MatrixXd sphere_family(std::size_t d, std::size_t P, Stream& stream);

// The family's coherence max_{z != z'} |<u_z, u_z'>| (its smallest eta in Definition 1); 0 when P < 2.
double coherence(const Eigen::MatrixXd& U);

// Appendix A.2: a uniform family of P vectors in R^d is eta-quasi-orthogonal with probability at least
// 1 - P (P - 1) / 2 * sqrt(2 / pi) (eta^2 d)^(-1/2) exp(-eta^2 d / 2), clipped to [0, 1] (1 when eta >= 1).
double quasi_orthogonal_probability_bound(std::size_t d, std::size_t P, double eta);

}  // namespace scalinglab::memory
