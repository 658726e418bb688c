#pragma once
// Training the memories of Section 4 by a single pass over T i.i.d. Zipf samples in consecutive
// batches of size B (the paper's setting: ceil(T / B) steps, the last batch possibly smaller), or by
// `steps` population-gradient steps (B = inf: every input weighted by p(x)). Initialisation as in
// Appendix B.1: W, E, U with i.i.d. N(0, 1/d) entries. The error (5) is measured at the end and,
// optionally, at log-spaced steps along training.
#include <limits>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"
#include "scalinglab/memory/associative_model.hpp"
#include "scalinglab/memory/memory_state.hpp"
#include "scalinglab/memory/optimizer.hpp"

namespace scalinglab::memory {

// Argmax ties in the error (5): `error` counts a tie as a mistake (the true class must have the
// strictly largest logit); `first` takes the first largest class, as torch.argmax (correct when no
// class before the true one ties with it); `random` breaks ties uniformly at random, counted by its
// expectation (a k-way tie costs p(x) (1 - 1/k)). Ties arise e.g. when ReLU(e_x) = 0 at small d.
enum class TieRule { error, first, random };
TieRule parse_ties(const std::string& name);
// The error (5) of logits laid out M x N (column x: the logits of input x) for labels `label`
// and input probabilities `p`.
double error_of_logits(const MatrixRD& L, const std::vector<uint32_t>& label, const std::vector<double>& p,
                       TieRule ties = TieRule::error);

// Total variance sum_x p(x) ||g_x - g||_F^2 of the per-example gradients g_x = U^T (softmax(l_x) -
// e_{f*(x)}) e_x^T of the matrix model's W, with l_x the logits (column x of L, M x N), g = sum_x
// p(x) g_x; computed from the Gram matrices U U^T and E E^T without forming any d x d matrix
// (softmax at uniform predictions when the model does not saturate).
double gradient_variance(const ModelSpec& model, const MatrixRD& L, const std::vector<uint32_t>& label,
                         const std::vector<double>& p, const MatrixRD& U, const MatrixRD& E);

struct TrainSpec {
  std::size_t N = 100, M = 5, d = 100;
  double alpha = 2.0;
  std::string labels = "mod";
  ModelSpec model;
  OptimizerSpec optimizer;
  ScheduleSpec schedule;  // total_steps is set by train_memory
  double T = 10240;       // samples (finite unless batch is inf)
  double batch = 1;       // +inf: population gradient
  long population_steps = 100;
  int curve_points = 0;   // error recorded at this many log-spaced steps (0: only at the end)
  // Use the structured exact updates of memory_state.hpp where they apply (matrix model, plain SGD,
  // N <= kSpanMaxN): the span update without layer norm (O(M N) per distinct input instead of
  // O(d^2)), the feature update with layer norm when N <= 2d (O(N d) instead of O(d^2)).
  // `false` forces the dense path (tests compare them).
  bool span_update = true;
  // Adam and signSGD with a learned W: the two-pass step of adaptive_step.hpp; `false` takes the
  // step by its definition (the full d x d gradient, then Optimizer::step), which tests and the
  // benchmark compare it with.
  bool fused_adaptive = true;
  // Record the logit matrix (u_y^T n(W_t e_x))_{y,x} after this many steps (0: at initialisation;
  // -1: never), for the pictures of Figures 6, 14 and 15.
  long snapshot_step = -1;
  // Also follow the approximate update (19)-(20) of Section 4 on the same samples and embeddings:
  // q(x) += lr_t (c_x / b) / (1 + e^{q(x)} / (M - 1)) for each x seen c_x times in a batch of size b
  // (p(x) for the population gradient), from q = 0, and report the error of W_q with this run's
  // E and U (matrix model only; W_0 is ignored by the approximation, as in the paper).
  bool track_approx = false;
  // Start from W = 0 instead of N(0, 1/d) entries (the approximation above starts from q = 0).
  bool zero_init_w = false;
  // Return the final embeddings E, U, the features and the labels f*(x) (the pictures of Figure 9).
  bool keep_embeddings = false;
  // Initial unembeddings: rows of U with i.i.d. N(0, 1/d) entries, or the same draws scaled to
  // unit norm (uniform on the sphere, as u_y in Sections 2-3 and the authors' code).
  bool u_sphere = false;
  // Matrix model without layer norm: also report the variance of the per-example gradients
  // (gradient_variance) at initialisation, at the end and along the curve (O(N^2 d) each).
  bool track_grad_var = false;
  // How the error (5) counts an input whose true class ties for the largest logit.
  TieRule ties = TieRule::error;
};

// Largest N for the structured updates (they keep the N x N Gram matrix E E^T).
inline constexpr std::size_t kSpanMaxN = 2048;

// The state train_memory will use for `spec` (memory_state.hpp): span or features when they
// apply and span_update is on, else dense.
StatePath state_path(const TrainSpec& spec);
// Whether train_memory will use the span update for `spec`.
bool uses_span_update(const TrainSpec& spec);

struct TrainResult {
  double error = 1.0;
  double loss = 0.0;  // population loss at the end
  long steps = 0;
  std::vector<double> curve_step, curve_error;
  // Matrix model: total variance of the per-example gradients of W under p, E_x ||g_x - E g||^2,
  // at initialisation, at the end, and at the curve's steps (Figure 16, right).
  double grad_var_init = std::numeric_limits<double>::quiet_NaN(), grad_var = grad_var_init;
  std::vector<double> curve_grad_var;
  std::vector<double> snapshot;  // M x N row-major, when snapshot_step >= 0
  double approx_error = std::numeric_limits<double>::quiet_NaN();  // when track_approx
  // When keep_embeddings: E (N x d), U (M x d), the features n(W e_x) (or n(ReLU(e_x))) that U reads
  // (N x d), all row-major, and the labels f*(x).
  std::vector<double> E, U, features, label;
};

// Throws std::invalid_argument for an inconsistent spec (e.g. T = inf with a finite batch).
TrainResult train_memory(const TrainSpec& spec, Stream& stream);

// The log-spaced steps (1 <= s <= steps, distinct, increasing, ending at `steps`) of a curve.
std::vector<long> curve_schedule(long steps, int points);

}  // namespace scalinglab::memory
