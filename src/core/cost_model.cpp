#include "scalinglab/core/cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace scalinglab {

CostModel::CostModel(const std::vector<std::vector<double>>& features) : features_(features) {
  if (features_.empty()) return;
  const std::size_t m = features_.front().size();
  for (std::size_t k = 0; k < m; ++k) {
    double lo = INFINITY, hi = -INFINITY;
    bool usable = true;
    for (const auto& f : features_) {
      if (f.size() != m || !(f[k] > 0) || !std::isfinite(f[k])) usable = false;
      else lo = std::min(lo, f[k]), hi = std::max(hi, f[k]);
    }
    if (usable && hi > lo) cols_.push_back(k);
  }
}

bool CostModel::fit(const std::vector<std::size_t>& seen, const std::vector<double>& seconds) {
  fitted_ = false;
  if (seen.size() < 3 || seen.size() != seconds.size()) return false;
  const auto n = static_cast<Eigen::Index>(seen.size()), p = static_cast<Eigen::Index>(cols_.size() + 1);
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const auto& f = features_[seen[static_cast<std::size_t>(r)]];
    X(r, 0) = 1;
    for (std::size_t c = 0; c < cols_.size(); ++c) X(r, static_cast<Eigen::Index>(c + 1)) = std::log(f[cols_[c]]);
    y[r] = std::log(std::max(seconds[static_cast<std::size_t>(r)], 1e-6));
  }
  // A small ridge on the slopes only: a parameter seen at one value so far gets slope 0.
  Eigen::MatrixXd A = X.transpose() * X;
  for (Eigen::Index k = 1; k < p; ++k) A(k, k) += 1e-9 * static_cast<double>(n);
  coef_ = A.ldlt().solve(X.transpose() * y);
  if (!coef_.allFinite()) return false;
  smear_ = (y - X * coef_).array().exp().mean();
  fitted_ = std::isfinite(smear_);
  return fitted_;
}

double CostModel::predict(std::size_t task) const {
  double z = coef_[0];
  for (std::size_t c = 0; c < cols_.size(); ++c)
    z += coef_[static_cast<Eigen::Index>(c + 1)] * std::log(features_[task][cols_[c]]);
  return std::exp(z) * smear_;
}

}  // namespace scalinglab
