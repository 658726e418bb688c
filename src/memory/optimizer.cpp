#include "scalinglab/memory/optimizer.hpp"

#include <cmath>
#include <stdexcept>

namespace scalinglab::memory {

OptimizerKind parse_optimizer(const std::string& name) {
  if (name == "sgd") return OptimizerKind::sgd;
  if (name == "adam") return OptimizerKind::adam;
  if (name == "signsgd") return OptimizerKind::signsgd;
  if (name == "sgd_normalized") return OptimizerKind::sgd_normalized;
  throw std::invalid_argument("unknown optimizer: " + name);
}

ScheduleKind parse_schedule(const std::string& name) {
  if (name == "constant") return ScheduleKind::constant;
  if (name == "step") return ScheduleKind::step;
  if (name == "cosine") return ScheduleKind::cosine;
  throw std::invalid_argument("unknown schedule: " + name);
}

double ScheduleSpec::factor(long t) const {
  switch (kind) {
    case ScheduleKind::constant: return 1.0;
    case ScheduleKind::step: return std::pow(gamma, static_cast<double>(t / std::max(1L, step_size)));
    case ScheduleKind::cosine:
      return 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(t) / static_cast<double>(std::max(1L, total_steps))));
  }
  return 1.0;
}

Optimizer::Optimizer(const OptimizerSpec& spec, const ModelSpec& model, const ModelParams& shape)
    : spec_(spec), model_(model), d_(static_cast<double>(shape.E.cols())) {
  if (spec_.kind == OptimizerKind::signsgd) spec_.beta1 = spec_.beta2 = 0;  // Adam with betas (0, 0)
  if (spec_.kind == OptimizerKind::adam && !(spec_.beta1 == 0 && spec_.beta2 == 0)) {  // signSGD keeps no state
    m_.W.setZero(shape.W.rows(), shape.W.cols());
    m_.E.setZero(shape.E.rows(), shape.E.cols());
    m_.U.setZero(shape.U.rows(), shape.U.cols());
    v_ = m_;
  }
}

void Optimizer::update(MatrixRD& theta, const MatrixRD& g, MatrixRD& m, MatrixRD& v, double lr) {
  if (spec_.kind == OptimizerKind::sgd) {
    theta.noalias() -= lr * g;
    return;
  }
  update_entries(theta.data(), g.data(), m.size() ? m.data() : nullptr, v.size() ? v.data() : nullptr, theta.size(), lr);
}

void Optimizer::update_entries(double* th, const double* gr, double* mm, double* vv, Eigen::Index n, double lr) const {
  if (spec_.kind == OptimizerKind::sgd) {
    for (Eigen::Index i = 0; i < n; ++i) th[i] -= lr * gr[i];
    return;
  }
  // One pass over the entries (the update is memory-bound at large d).
  const double b1 = spec_.beta1, b2 = spec_.beta2, eps = spec_.eps;
  if (b1 == 0 && b2 == 0) {
    // m = g, v = g^2 and no bias correction: the step is g / (|g| + eps) (sqrt(g^2) = |g| exactly).
    for (Eigen::Index i = 0; i < n; ++i) th[i] -= lr * gr[i] / (std::fabs(gr[i]) + eps);
    return;
  }
  const double c1 = 1 - std::pow(b1, static_cast<double>(t_)), c2 = 1 - std::pow(b2, static_cast<double>(t_));
  for (Eigen::Index i = 0; i < n; ++i) {
    mm[i] = b1 * mm[i] + (1 - b1) * gr[i];
    vv[i] = b2 * vv[i] + (1 - b2) * gr[i] * gr[i];
    th[i] -= lr * (mm[i] / c1) / (std::sqrt(vv[i] / c2) + eps);
  }
}

void Optimizer::step(ModelParams& p, const ModelParams& g, double scale, const MatrixRD* w_second_moment) {
  ++t_;
  if (spec_.kind == OptimizerKind::sgd_normalized) {
    if (!w_second_moment || model_.kind != ModelKind::matrix)
      throw std::invalid_argument("sgd_normalized needs the matrix model and the gradients' second moment");
    const double lr = spec_.lr * scale;
    if (spec_.normalize_scalar) {
      // One scalar: the unbiased standard deviation of the entries of W's gradient.
      const double n = static_cast<double>(g.W.size());
      const double mean = g.W.mean();
      const double var = n > 1 ? (g.W.array() - mean).square().sum() / (n - 1) : 0.0;
      p.W -= (lr / std::sqrt(var + spec_.eps)) * g.W;
      return;
    }
    // Var = E[g^2] - (E g)^2 with E over the batch weights (which sum to 1).
    p.W.array() -= lr * g.W.array() / ((*w_second_moment).array() - g.W.array().square() + spec_.eps).max(spec_.eps).sqrt();
    return;
  }
  const bool adam = spec_.adaptive() && spec_.lr_scaling;
  const double lr = spec_.lr * scale;
  // Maximal-update scaling for Adam (Appendix B.1): sign-like steps of size lr/d on W and
  // lr/sqrt(d) on the embeddings keep ||W e_x|| and ||e_x|| of order 1.
  const double lr_w = adam ? lr / d_ : lr, lr_emb = adam ? lr / std::sqrt(d_) : lr;
  if (model_.learns_W()) update(p.W, g.W, m_.W, v_.W, lr_w);
  if (model_.learns_E()) update(p.E, g.E, m_.E, v_.E, lr_emb);
  if (model_.learns_U()) update(p.U, g.U, m_.U, v_.U, lr_emb);
}

void Optimizer::step(ModelParams& p, const ModelParams& g, const FactoredGradient& w_grad, double scale) {
  if (spec_.kind != OptimizerKind::sgd && !spec_.adaptive())
    throw std::invalid_argument("a factored gradient is for sgd, adam and signsgd");
  ++t_;
  const bool adam = spec_.adaptive() && spec_.lr_scaling;
  const double lr = spec_.lr * scale;
  const double lr_w = adam ? lr / d_ : lr, lr_emb = adam ? lr / std::sqrt(d_) : lr;
  if (model_.learns_W()) {
    // Rows [r, r + rows) of A^T B in a buffer that stays in cache, then their update.
    const Eigen::Index d = p.W.rows(), cols = p.W.cols(), rows = std::min<Eigen::Index>(d, 32);
    block_.resize(rows, cols);
    const bool moments = m_.W.size() > 0;
    for (Eigen::Index r = 0; r < d; r += rows) {
      const Eigen::Index h = std::min(rows, d - r);
      block_.topRows(h).noalias() = w_grad.A.middleCols(r, h).transpose() * w_grad.B;
      const Eigen::Index at = r * cols;
      update_entries(p.W.data() + at, block_.data(), moments ? m_.W.data() + at : nullptr,
                     moments ? v_.W.data() + at : nullptr, h * cols, lr_w);
    }
  }
  if (model_.learns_E()) update(p.E, g.E, m_.E, v_.E, lr_emb);
  if (model_.learns_U()) update(p.U, g.U, m_.U, v_.U, lr_emb);
}

}  // namespace scalinglab::memory
