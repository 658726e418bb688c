#include "scalinglab/memory/optimizer.hpp"

#include <cmath>
#include <stdexcept>

#include "scalinglab/core/simd.hpp"

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

namespace {

// Adam on entries [from, to), L at a time (the square root keeps the scalar loop from vectorising).
template <int L>
void adam_entries(double* __restrict th, const double* __restrict gr, double* __restrict mm, double* __restrict vv,
                  Eigen::Index from, Eigen::Index to, double lr, double b1, double b2, double eps, double c1, double c2) {
  using V = simd::Simd<double, L>;
  const V vb1 = simd::splat<double, L>(b1), vc1 = simd::splat<double, L>(1 - b1), vb2 = simd::splat<double, L>(b2),
          vc2 = simd::splat<double, L>(1 - b2), vlr = simd::splat<double, L>(lr), veps = simd::splat<double, L>(eps),
          bias1 = simd::splat<double, L>(c1), bias2 = simd::splat<double, L>(c2);
  for (Eigen::Index i = from; i + L <= to; i += L) {
    const V g = simd::load<double, L>(gr + i);
    const V m = vb1 * simd::load<double, L>(mm + i) + vc1 * g;
    const V v = vb2 * simd::load<double, L>(vv + i) + vc2 * g * g;
    simd::store<double, L>(mm + i, m);
    simd::store<double, L>(vv + i, v);
    simd::store<double, L>(th + i, simd::load<double, L>(th + i) - vlr * (m / bias1) / (simd::sqrt<double, L>(v / bias2) + veps));
  }
}

}  // namespace

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
  apply(theta.data(), g.data(), m.size() ? m.data() : nullptr, v.size() ? v.data() : nullptr, theta.size(), lr);
}

void Optimizer::apply(double* th, const double* gr, double* mm, double* vv, Eigen::Index n, double lr) const {
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
  constexpr int L = simd::kLanes<double>;
  const Eigen::Index body = n - n % L;
  adam_entries<L>(th, gr, mm, vv, 0, body, lr, b1, b2, eps, c1_, c2_);
  adam_entries<1>(th, gr, mm, vv, body, n, lr, b1, b2, eps, c1_, c2_);
}

void Optimizer::begin_step() {
  ++t_;
  c1_ = 1 - std::pow(spec_.beta1, static_cast<double>(t_));
  c2_ = 1 - std::pow(spec_.beta2, static_cast<double>(t_));
}

double Optimizer::tensor_lr(Tensor which, double scale) const {
  // Maximal-update scaling for Adam (Appendix B.1): sign-like steps of size lr/d on W and
  // lr/sqrt(d) on the embeddings keep ||W e_x|| and ||e_x|| of order 1.
  const bool scaled = spec_.adaptive() && spec_.lr_scaling;
  const double lr = spec_.lr * scale;
  if (!scaled) return lr;
  return which == Tensor::W ? lr / d_ : lr / std::sqrt(d_);
}

void Optimizer::update_entries(Tensor which, MatrixRD& theta, Eigen::Index offset, Eigen::Index count, const double* g,
                               double scale) {
  if (spec_.kind != OptimizerKind::sgd && !spec_.adaptive())
    throw std::invalid_argument("update_entries is for sgd, adam and signsgd");
  MatrixRD& m = which == Tensor::W ? m_.W : which == Tensor::E ? m_.E : m_.U;
  MatrixRD& v = which == Tensor::W ? v_.W : which == Tensor::E ? v_.E : v_.U;
  apply(theta.data() + offset, g, m.size() ? m.data() + offset : nullptr, v.size() ? v.data() + offset : nullptr, count,
        tensor_lr(which, scale));
}

void Optimizer::step(ModelParams& p, const ModelParams& g, double scale, const MatrixRD* w_second_moment) {
  begin_step();
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
  const double lr_w = tensor_lr(Tensor::W, scale), lr_emb = tensor_lr(Tensor::E, scale);
  if (model_.learns_W()) update(p.W, g.W, m_.W, v_.W, lr_w);
  if (model_.learns_E()) update(p.E, g.E, m_.E, v_.E, lr_emb);
  if (model_.learns_U()) update(p.U, g.U, m_.U, v_.U, lr_emb);
}

}  // namespace scalinglab::memory
