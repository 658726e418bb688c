#pragma once
// The scaling laws the fitters know, each as a function of log-inputs to the log of the loss, with
// its Jacobian, so that one fitter (Huber loss on log residuals + L-BFGS, Hoffmann et al. 2022,
// Approach 3) serves them all.
//   power       y = A x^-a
//   saturating  y = E + A x^-a
//   chinchilla  L(N, D) = E + A / N^alpha + B / D^beta                       (Hoffmann et al. 2022)
//   kaplan      L(N, D) = [(N_c / N)^(alpha_N / alpha_D) + D_c / D]^alpha_D   (Kaplan et al. 2020)
// Each law is optimised in *coordinates* chosen to be well conditioned (logs of scales, exponents);
// the *parameters* it reports are the law's own (A, a, E, ...), plus the compute-optimal exponents
// for the two-input laws.
#include <Eigen/Core>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace scalinglab::fit {

// Points in log space: u = log x (or log N), v = log D (two-input laws only), log_y = log loss.
// `weight` (optional, same length) multiplies each point's loss: a bootstrap replicate is the data
// with multinomial counts as weights, so nothing is copied. `inputs` holds the raw values of every
// input of the law (law.inputs order), which laws given as expressions read; `prepared` is what a
// law computed once from them (shared by copies such as bootstrap replicates).
struct LawData {
  Eigen::ArrayXd u, v, log_y, weight;
  std::vector<Eigen::ArrayXd> inputs;
  std::shared_ptr<const void> prepared;
  Eigen::Index size() const { return log_y.size(); }
};

// Bounds of a parameter in its own units (either side may be infinite).
struct Bounds {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool positive_scale() const { return lo >= 0 && hi == std::numeric_limits<double>::infinity(); }
};

struct ScalingLaw {
  std::string name;
  std::string formula;
  std::vector<std::string> inputs;       // {"x"} or {"N", "D"}, or an expression law's data variables
  std::vector<std::string> coordinates;  // what the optimiser moves
  // Default grid of initialisations: the cartesian product of these lists, one per coordinate.
  // A NaN entry is filled from the data by `complete` (e.g. a scale matched to the data's level).
  std::vector<std::vector<double>> grid;
  std::function<void(const LawData& data, double* theta)> complete;
  // log prediction at every point; when jac is given, d log_pred / d theta (n x coordinates).
  std::function<void(const LawData& data, const double* theta, Eigen::ArrayXd& log_pred, Eigen::ArrayXXd* jac)> predict;
  std::vector<std::string> parameters;  // reported names
  std::function<void(const double* theta, double* values)> report;
  // Whether the law has a compute-optimal frontier under C = 6 N D (two-input laws).
  bool has_frontier = false;
  // Which reported parameter each coordinate is, and whether as its logarithm (bounds given on
  // parameters apply to coordinates through this).
  std::vector<std::string> coordinate_parameter;
  std::vector<bool> coordinate_log;
  // Default Huber threshold on log residuals (infinity: least squares in log space).
  double default_delta = std::numeric_limits<double>::infinity();
  // The law as an expression of its inputs and parameters (built-in laws keep a hand-written
  // Jacobian as a fast path; tests check it against this).
  std::string expression;
  // Bounds of the coordinates (coordinate units; empty: none).
  std::vector<double> lower, upper;
  // Computes `prepared` from `inputs` (laws given as expressions); may be empty.
  std::function<void(LawData& data)> prepare;

  std::size_t dims() const { return coordinates.size(); }
};

// Throws InputError listing the known laws.
const ScalingLaw& scaling_law(const std::string& name);
std::vector<std::string> scaling_law_names();

// Log prediction at one point (convenience for plots and frontier checks).
double law_log_predict(const ScalingLaw& law, const std::vector<double>& theta, double u, double v = 0.0);
// Which of the law's names are data and which parameters, for a message about a count of inputs:
// "taken as data columns: N, D, U; as parameters: E, A, alpha, B, beta, R_D".
std::string law_names_text(const ScalingLaw& law);

// Log prediction at one point given the raw value of every input (law.inputs order).
double law_log_predict_at(const ScalingLaw& law, const std::vector<double>& theta, const std::vector<double>& inputs);

}  // namespace scalinglab::fit
