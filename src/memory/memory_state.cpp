#include "scalinglab/memory/memory_state.hpp"

#include <cmath>
#include <stdexcept>

#include "scalinglab/memory/adaptive_step.hpp"

namespace scalinglab::memory {

const char* path_name(StatePath p) {
  switch (p) {
    case StatePath::dense: return "dense";
    case StatePath::span: return "span";
    case StatePath::features: return "features";
  }
  return "?";
}

namespace {

class DenseState final : public MemoryState {
 public:
  DenseState(const ModelSpec& model, const OptimizerSpec& opt, const ModelParams& init, bool fused_adaptive)
      : model_(model), opt_spec_(opt), p_(init), opt_(opt, model, init), fused_adaptive_(fused_adaptive) {}
  void step(const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys, const std::vector<double>& w,
            double lr_factor) override {
    if (opt_spec_.kind == OptimizerKind::sgd) {  // fused: no d x d gradient
      sgd_step(model_, p_, xs, ys, w, opt_spec_.lr * lr_factor);
      return;
    }
    if (fused_adaptive_ && adaptive_step_applies(model_, opt_spec_)) {  // two passes over W, no d x d gradient
      adaptive_step(model_, p_, opt_, xs, ys, w, lr_factor);
      return;
    }
    const bool normalized = opt_spec_.kind == OptimizerKind::sgd_normalized;
    loss_and_gradient(model_, p_, xs, ys, w, &grad_, normalized ? &second_ : nullptr);
    opt_.step(p_, grad_, lr_factor, normalized ? &second_ : nullptr);
  }
  MatrixRD logits() const override { return all_logits(model_, p_).transpose(); }
  MatrixRD features() const override { return all_features(model_, p_); }
  const ModelParams& params() const override { return p_; }

 private:
  ModelSpec model_;
  OptimizerSpec opt_spec_;
  ModelParams p_, grad_;
  MatrixRD second_;
  Optimizer opt_;
  bool fused_adaptive_;
};

// Logits of every input are L0 + G P with P = A K (M x N), where L0 = U W_0 E^T, G = U U^T,
// K = E E^T, and A the coefficients of W_t - W_0 = U^T A E. A step adds delta (M) to column x of
// A, i.e. delta K[x, :] to P: O(M N) per distinct input.
class SpanState final : public MemoryState {
 public:
  SpanState(const ModelSpec& model, const OptimizerSpec& opt, const ModelParams& init) : model_(model), lr_(opt.lr), p_(init) {
    L0_.noalias() = p_.U * p_.W * p_.E.transpose();
    G_.noalias() = p_.U * p_.U.transpose();
    K_.noalias() = p_.E * p_.E.transpose();
    P_.setZero(p_.U.rows(), p_.E.rows());
  }
  void step(const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys, const std::vector<double>& w,
            double lr_factor) override {
    // Logits of the batch with the current W (all before the step), then the step on P.
    const auto k = static_cast<Eigen::Index>(xs.size()), M = P_.rows();
    dZ_.resize(k, M);
    for (Eigen::Index i = 0; i < k; ++i) {
      const uint32_t x = xs[static_cast<std::size_t>(i)];
      dZ_.row(i) = (L0_.col(x) + G_ * P_.col(x)).transpose();
      logit_gradient(model_, dZ_.row(i), static_cast<Eigen::Index>(ys[static_cast<std::size_t>(i)]), 1.0, true);
    }
    const double lr = lr_ * lr_factor;
    for (Eigen::Index i = 0; i < k; ++i) {
      const uint32_t x = xs[static_cast<std::size_t>(i)];
      P_.noalias() -= (lr * w[static_cast<std::size_t>(i)]) * dZ_.row(i).transpose() * K_.row(x);
    }
  }
  MatrixRD logits() const override { return L0_ + G_ * P_; }
  MatrixRD features() const override { throw std::logic_error("the span state does not keep the features"); }
  const ModelParams& params() const override { return p_; }

 private:
  ModelSpec model_;
  double lr_;
  ModelParams p_;
  MatrixRD L0_, G_, K_, P_, dZ_;
};

// W acts only through H = E W^T (N x d). SGD moves W by -lr dH^T X with X = E[batch], so H moves
// by -lr E X^T dH = -lr K[:, batch] dH with K = E E^T.
class FeatureState final : public MemoryState {
 public:
  FeatureState(const ModelSpec& model, const OptimizerSpec& opt, const ModelParams& init)
      : model_(model), lr_(opt.lr), p_(init) {
    H_.noalias() = p_.E * p_.W.transpose();
    K_.noalias() = p_.E * p_.E.transpose();
  }
  void step(const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys, const std::vector<double>& w,
            double lr_factor) override {
    const auto k = static_cast<Eigen::Index>(xs.size()), N = H_.rows();
    Hb_.resize(k, H_.cols());
    Kb_.resize(N, k);
    for (Eigen::Index i = 0; i < k; ++i) {
      const uint32_t x = xs[static_cast<std::size_t>(i)];
      Hb_.row(i) = H_.row(x);
      Kb_.col(i) = K_.col(x);
    }
    head_step(model_, p_.U, Hb_, ys, w, dH_);
    H_.noalias() -= (lr_ * lr_factor) * (Kb_ * dH_);
  }
  MatrixRD logits() const override { return p_.U * features().transpose(); }
  MatrixRD features() const override {
    MatrixRD F = H_;
    if (model_.layernorm)
      for (Eigen::Index x = 0; x < F.rows(); ++x) F.row(x) /= std::sqrt(F.row(x).squaredNorm() + model_.ln_eps);
    return F;
  }
  const ModelParams& params() const override { return p_; }

 private:
  ModelSpec model_;
  double lr_;
  ModelParams p_;
  MatrixRD H_, K_, Hb_, Kb_, dH_;
};

}  // namespace

std::unique_ptr<MemoryState> make_memory_state(StatePath path, const ModelSpec& model, const OptimizerSpec& opt,
                                               const ModelParams& init, bool fused_adaptive) {
  switch (path) {
    case StatePath::span: return std::make_unique<SpanState>(model, opt, init);
    case StatePath::features: return std::make_unique<FeatureState>(model, opt, init);
    case StatePath::dense: break;
  }
  return std::make_unique<DenseState>(model, opt, init, fused_adaptive);
}

}  // namespace scalinglab::memory
