#pragma once
// The two dense decompositions the lab needs, from LAPACK (OpenBLAS ships it) rather than Eigen's
// templates: Eigen's BDCSVD and SelfAdjointEigenSolver cost 10-30 s of compile time in every file
// that instantiates them, for matrices that are small (a fit's parameters) or computed once (the
// rank of a task's log-probabilities).
#include <Eigen/Core>
#include <vector>

namespace scalinglab {

// The singular values of `a`, largest first (LAPACK dgesdd, no singular vectors). Throws
// std::runtime_error when LAPACK reports a failure.
std::vector<double> singular_values(Eigen::MatrixXd a);

// Eigenvalues (ascending) and eigenvectors (the columns, in the same order) of the symmetric
// matrix `a` (its lower triangle is read; LAPACK dsyev). Returns false when LAPACK fails.
bool symmetric_eigen(const Eigen::MatrixXd& a, Eigen::VectorXd& values, Eigen::MatrixXd& vectors);

}  // namespace scalinglab
