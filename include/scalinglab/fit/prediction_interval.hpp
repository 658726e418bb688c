#pragma once
// Where a new run's loss should fall, not only where the law's curve is: the prediction interval
// adds the fit's residual scatter to the uncertainty of its parameters. In log space,
//   sigma^2  = sum_i r_i^2 / (n - p)         (r_i the fit's log residuals, n points, p parameters)
//   s_theta  = standard deviation of log L_hat over the bootstrap replicates (0 without them)
//   interval = exp(log L_hat -+ z sqrt(s_theta^2 + sigma^2)),  z the normal quantile at (1 + level) / 2.
#include <vector>

#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

// The residual standard deviation sigma above, from the fit's residual statistics (NaN when the fit
// has no more points than parameters).
double residual_sigma(const ResidualStats& residuals, std::size_t parameters);

// The standard normal quantile: the z with P(Z <= z) = p, for 0 < p < 1.
double normal_quantile(double p);

// The prediction interval at `level` around exp(log_loss); `replicate_log_losses` are log L_hat of
// the bootstrap replicates (may be empty). `se` of the result is sqrt(s_theta^2 + sigma^2), in log
// units.
Interval prediction_interval(double log_loss, const std::vector<double>& replicate_log_losses, double sigma, double level);

}  // namespace scalinglab::fit
