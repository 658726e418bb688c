#pragma once
// A power-law cost model of a sweep's tasks: log seconds regressed on the logs of the tasks' numeric
// parameters (ridge-regularised slopes), fitted to the tasks finished so far. Tasks of a sweep differ
// in cost by orders of magnitude (a width d costs ~d^2, a length T ~T); the model predicts the rest
// from a few timings. Used for the ETA (Progress) and to hand out expensive tasks first (TaskQueue).
#include <cstddef>
#include <vector>

#include <Eigen/Dense>

namespace scalinglab {

class CostModel {
 public:
  // `features[i]`: task i's numeric parameters (NaN where absent). Only features positive and finite
  // for every task and not constant over them enter the model.
  explicit CostModel(const std::vector<std::vector<double>>& features);

  // Fits to the finished tasks `seen` with their `seconds` (parallel arrays). False (and predictions
  // unavailable) with fewer than 3 tasks or a singular fit.
  bool fit(const std::vector<std::size_t>& seen, const std::vector<double>& seconds);
  bool fitted() const { return fitted_; }

  double predict(std::size_t task) const;  // seconds; requires fitted()

 private:
  const std::vector<std::vector<double>>& features_;
  std::vector<std::size_t> cols_;  // the features used
  Eigen::VectorXd coef_;           // intercept, then one slope per used feature
  double smear_ = 1;               // Duan's smearing: mean exp(residual) undoes the log model's bias
  bool fitted_ = false;
};

}  // namespace scalinglab
