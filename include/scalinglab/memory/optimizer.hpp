#pragma once
// Optimizers and learning-rate schedules for the trainable memories, with the conventions of the
// paper's experiments (Appendix B.1):
//   sgd   theta -= lr_t g, the same step for every tensor;
//   adam  m = b1 m + (1-b1) g, v = b2 v + (1-b2) g^2, theta -= lr_theta mhat / (sqrt(vhat) + eps) with
//         bias correction and, with lr_scaling, per-tensor steps lr/d for W and lr/sqrt(d) for E and U
//         (maximal-update scaling, Appendix B.1; without it every tensor takes lr).
//   signsgd  Adam with betas (0, 0): theta -= lr_theta g / (|g| + eps), the paper's idealisation of
//         Adam (Figures 8, 12, 15, 16), with the same per-tensor steps; the betas are ignored.
//   sgd_normalized  theta -= lr g / sqrt(Var_i[g_i] + eps) for W, the variance of the per-example
//         gradients under the batch weights (p(x) for the population gradient): "SGD with normalised
//         variance" of Appendix B.2 (Figures 15-16). The paper says "dividing the gradient by the
//         variance"; we divide by its square root, which makes the update's noise unit-variance
//         (dividing by the variance itself is not scale-invariant). Matrix model only.
//         With normalize_scalar (the authors' code): theta -= lr g / std(g), one scalar, the
//         (unbiased) standard deviation of the d x d entries of W's gradient.
// Schedules scale lr by: constant 1; step gamma^floor(t / step_size) (PyTorch's StepLR);
// cosine (1 + cos(pi t / steps)) / 2 (CosineAnnealingLR to 0 over the run).
#include <string>

#include "scalinglab/memory/associative_model.hpp"

namespace scalinglab::memory {

enum class OptimizerKind { sgd, adam, signsgd, sgd_normalized };
OptimizerKind parse_optimizer(const std::string& name);

struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::sgd;
  double lr = 1.0;
  double beta1 = 0.0, beta2 = 0.0, eps = 1e-8;
  bool lr_scaling = true;         // adam, signsgd: lr/d on W and lr/sqrt(d) on E and U
  bool normalize_scalar = false;  // sgd_normalized: divide by std over W's gradient entries
  // Adam or signSGD (the adaptive, per-entry steps).
  bool adaptive() const { return kind == OptimizerKind::adam || kind == OptimizerKind::signsgd; }
};

enum class ScheduleKind { constant, step, cosine };
ScheduleKind parse_schedule(const std::string& name);

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::constant;
  long step_size = 1;
  double gamma = 0.5;
  long total_steps = 1;
  double factor(long t) const;  // multiplier of lr at step t (0-based)
};

class Optimizer {
 public:
  Optimizer(const OptimizerSpec& spec, const ModelSpec& model, const ModelParams& shape);
  // One update of the learned tensors of `p` with gradient `g`, learning-rate multiplier `scale`.
  // sgd_normalized also needs the weighted second moment of W's per-example gradients.
  void step(ModelParams& p, const ModelParams& g, double scale, const MatrixRD* w_second_moment = nullptr);

  // A step taken a block of rows at a time (adaptive_step.hpp): begin_step once, then update_rows
  // for the rows of each learned tensor, each with its gradient; rows not updated stay as they are.
  // The same arithmetic as step(), entry by entry (sgd, adam, signsgd).
  enum class Tensor { W, E, U };
  void begin_step();
  void update_rows(Tensor which, MatrixRD& theta, Eigen::Index first, Eigen::Index rows, const double* g, double scale) {
    update_entries(which, theta, first * theta.cols(), rows * theta.cols(), g, scale);
  }
  // Entries [offset, offset + count) of theta's row-major storage, g their gradient.
  void update_entries(Tensor which, MatrixRD& theta, Eigen::Index offset, Eigen::Index count, const double* g,
                      double scale);
  // Whether the step keeps moments (adam with nonzero betas): a zero gradient then still moves an entry.
  bool keeps_moments() const { return m_.W.size() > 0; }
  const OptimizerSpec& spec() const { return spec_; }

 private:
  void update(MatrixRD& theta, const MatrixRD& g, MatrixRD& m, MatrixRD& v, double lr);
  // The update of n entries starting at `at` of a tensor (and of its moments m, v when kept).
  void apply(double* theta, const double* g, double* m, double* v, Eigen::Index n, double lr) const;
  double tensor_lr(Tensor which, double scale) const;
  OptimizerSpec spec_;
  ModelSpec model_;
  ModelParams m_, v_;
  long t_ = 0;
  double c1_ = 1, c2_ = 1;  // Adam's bias corrections at step t_
  double d_;
};

}  // namespace scalinglab::memory
