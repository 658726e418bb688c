#include "scalinglab/memory/quasi_orthogonal.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace scalinglab::memory {

Eigen::MatrixXd sphere_family(std::size_t d, std::size_t P, Stream& stream) {
  Eigen::MatrixXd U(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(P));
  stream.fill_normal(U.data(), d * P, 1.0);
  U.colwise().normalize();
  return U;
}

double coherence(const Eigen::MatrixXd& U) {
  if (U.cols() < 2) return 0;
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(U.cols(), U.cols());
  gram.selfadjointView<Eigen::Lower>().rankUpdate(U.transpose());  // the lower triangle of U^T U
  double worst = 0;
  for (Eigen::Index j = 0; j < gram.cols(); ++j)
    for (Eigen::Index i = j + 1; i < gram.rows(); ++i) worst = std::max(worst, std::abs(gram(i, j)));
  return worst;
}

double quasi_orthogonal_probability_bound(std::size_t d, std::size_t P, double eta) {
  if (P < 2 || eta >= 1) return 1;
  if (!(eta > 0)) return 0;
  const double t = eta * eta * static_cast<double>(d);
  const double pairs = 0.5 * static_cast<double>(P) * static_cast<double>(P - 1);
  const double failure = pairs * std::sqrt(2 / std::numbers::pi) / std::sqrt(t) * std::exp(-t / 2);
  return std::clamp(1 - failure, 0.0, 1.0);
}

}  // namespace scalinglab::memory
