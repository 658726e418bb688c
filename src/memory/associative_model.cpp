#include "scalinglab/memory/associative_model.hpp"

#include <cmath>
#include <stdexcept>

namespace scalinglab::memory {

ModelKind parse_model(const std::string& name) {
  if (name == "matrix") return ModelKind::matrix;
  if (name == "learnable") return ModelKind::learnable;
  if (name == "relu") return ModelKind::relu;
  throw std::invalid_argument("unknown model: " + name);
}

double logit_gradient(const ModelSpec& spec, Eigen::Ref<Eigen::RowVectorXd> row, Eigen::Index y, double w, bool divide) {
  const double zmax = row.maxCoeff(), zy = row(y);
  row = (row.array() - zmax).exp();
  const double total = row.sum();
  if (spec.saturating && divide) row /= total;  // softmax (callers of this form pass w = 1)
  else if (spec.saturating) row *= w / total;   // w softmax
  else row.setConstant(w / static_cast<double>(row.size()));
  row(y) -= w;  // d loss / d z
  return w * (std::log(total) + zmax - zy);
}

namespace {

// Per-thread step buffers: training calls the step once per batch, so it must not allocate in
// steady state. X: embeddings of the batch (k x d); H: features before the norm; Hb: after;
// dZ: d loss / d logits (weighted); dH: d loss / d H.
struct Activations {
  MatrixRD X, H, Hb, Z, dZ, dH, dE;
  Eigen::VectorXd r;
};

Activations& activations() {
  thread_local Activations a;
  return a;
}

// Forward from the features H (k x d, already in a.H) to the loss, then back to a.dH. Also leaves
// a.Hb (the normalised features) and a.dZ for the gradient of U.
double head_forward_backward(const ModelSpec& spec, const MatrixRD& U, const std::vector<uint32_t>& ys,
                             const std::vector<double>& weights, Activations& a) {
  const Eigen::Index k = a.H.rows(), M = U.rows();
  a.r.setOnes(k);
  if (spec.layernorm) a.r = (a.H.rowwise().squaredNorm().array() + spec.ln_eps).sqrt();
  a.Hb = a.H.array().colwise() / a.r.array();
  a.Z.noalias() = a.Hb * U.transpose();  // k x M logits
  a.dZ.resize(k, M);
  double loss = 0;
  for (Eigen::Index i = 0; i < k; ++i) {
    a.dZ.row(i) = a.Z.row(i);
    loss += logit_gradient(spec, a.dZ.row(i), static_cast<Eigen::Index>(ys[static_cast<std::size_t>(i)]),
                           weights[static_cast<std::size_t>(i)]);
  }
  a.dH.noalias() = a.dZ * U;  // d loss / d Hb
  if (spec.layernorm) {
    // Appendix A.12: for hb = h / r, r = sqrt(|h|^2 + eps), dh = dhb / r - h (h . dhb) / r^3.
    for (Eigen::Index i = 0; i < k; ++i) {
      const double hd = a.H.row(i).dot(a.dH.row(i));
      a.dH.row(i) = a.dH.row(i) / a.r(i) - a.H.row(i) * (hd / (a.r(i) * a.r(i) * a.r(i)));
    }
  }
  return loss;
}

// The batch's embeddings and features: X = E[xs], H = X W^T (or ReLU(X)).
void features_of_batch(const ModelSpec& spec, const ModelParams& p, const std::vector<uint32_t>& xs, Activations& a) {
  const auto k = static_cast<Eigen::Index>(xs.size());
  a.X.resize(k, p.E.cols());
  for (Eigen::Index i = 0; i < k; ++i) a.X.row(i) = p.E.row(xs[static_cast<std::size_t>(i)]);
  if (spec.kind == ModelKind::relu) a.H = a.X.cwiseMax(0.0);
  else a.H.noalias() = a.X * p.W.transpose();  // row i: (W e_{x_i})^T
}

}  // namespace

namespace {

double gradient(const ModelSpec& spec, const ModelParams& p, const std::vector<uint32_t>& xs,
                const std::vector<uint32_t>& ys, const std::vector<double>& weights, ModelParams* grad,
                MatrixRD* w_second_moment) {
  Activations& a = activations();
  features_of_batch(spec, p, xs, a);
  const double loss = head_forward_backward(spec, p.U, ys, weights, a);
  if (!grad) return loss;
  // Tensors that are not learned keep a zero gradient of the right shape (zeroed once); W's
  // gradient is overwritten whole, E's is accumulated row by row.
  auto shape = [](MatrixRD& g, const MatrixRD& like) {
    if (g.rows() != like.rows() || g.cols() != like.cols()) g.setZero(like.rows(), like.cols());
  };
  shape(grad->W, p.W);
  shape(grad->E, p.E);
  shape(grad->U, p.U);
  if (spec.learns_E()) grad->E.setZero();
  if (spec.learns_U()) grad->U.noalias() = a.dZ.transpose() * a.Hb;
  if (spec.kind == ModelKind::relu) {
    a.dH.array() *= (a.X.array() > 0).cast<double>();
    for (std::size_t i = 0; i < xs.size(); ++i) grad->E.row(xs[i]) += a.dH.row(static_cast<Eigen::Index>(i));
    return loss;
  }
  grad->W.noalias() = a.dH.transpose() * a.X;  // sum_i dh_i e_{x_i}^T
  if (w_second_moment) {
    // g_i = (dh_i / w_i) e_i^T, so sum_i w_i g_i^2 = sum_i (dh_i^2 / w_i) (e_i^2)^T.
    thread_local MatrixRD dH2;
    dH2 = a.dH.cwiseAbs2();
    for (Eigen::Index i = 0; i < dH2.rows(); ++i) {
      const double w = weights[static_cast<std::size_t>(i)];
      dH2.row(i) = w > 0 ? (dH2.row(i) / w).eval() : Eigen::RowVectorXd::Zero(dH2.cols()).eval();
    }
    w_second_moment->noalias() = dH2.transpose() * a.X.cwiseAbs2();
  }
  if (spec.learns_E()) {
    a.dE.noalias() = a.dH * p.W;  // rows (W^T dh_i)^T
    for (std::size_t i = 0; i < xs.size(); ++i) grad->E.row(xs[i]) += a.dE.row(static_cast<Eigen::Index>(i));
  }
  return loss;
}

}  // namespace

double loss_and_gradient(const ModelSpec& spec, const ModelParams& p, const std::vector<uint32_t>& xs,
                         const std::vector<uint32_t>& ys, const std::vector<double>& weights, ModelParams* grad,
                         MatrixRD* w_second_moment) {
  return gradient(spec, p, xs, ys, weights, grad, w_second_moment);
}

double sgd_step(const ModelSpec& spec, ModelParams& p, const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys,
                const std::vector<double>& weights, double lr) {
  Activations& a = activations();
  features_of_batch(spec, p, xs, a);
  const double loss = head_forward_backward(spec, p.U, ys, weights, a);
  // Every gradient is taken at the parameters before the step: E's and U's are computed first.
  if (spec.kind == ModelKind::relu) {
    a.dH.array() *= (a.X.array() > 0).cast<double>();
    if (spec.learns_U()) p.U.noalias() -= lr * (a.dZ.transpose() * a.Hb);
    for (std::size_t i = 0; i < xs.size(); ++i) p.E.row(xs[i]) -= lr * a.dH.row(static_cast<Eigen::Index>(i));
    return loss;
  }
  if (spec.learns_E()) a.dE.noalias() = a.dH * p.W;
  if (spec.learns_U()) p.U.noalias() -= lr * (a.dZ.transpose() * a.Hb);
  p.W.noalias() -= lr * (a.dH.transpose() * a.X);  // a rank-k update, one pass over W
  if (spec.learns_E())
    for (std::size_t i = 0; i < xs.size(); ++i) p.E.row(xs[i]) -= lr * a.dE.row(static_cast<Eigen::Index>(i));
  return loss;
}

double head_step(const ModelSpec& spec, const MatrixRD& U, const MatrixRD& H, const std::vector<uint32_t>& ys,
                 const std::vector<double>& weights, MatrixRD& dH, MatrixRD* grad_U) {
  Activations& a = activations();
  a.H = H;
  const double loss = head_forward_backward(spec, U, ys, weights, a);
  dH = a.dH;
  if (grad_U) grad_U->noalias() = a.dZ.transpose() * a.Hb;
  return loss;
}

MatrixRD all_features(const ModelSpec& spec, const ModelParams& p) {
  MatrixRD H;
  if (spec.kind == ModelKind::relu) H = p.E.cwiseMax(0.0);
  else H.noalias() = p.E * p.W.transpose();  // row x: (W e_x)^T
  if (spec.layernorm)
    for (Eigen::Index x = 0; x < H.rows(); ++x) H.row(x) /= std::sqrt(H.row(x).squaredNorm() + spec.ln_eps);
  return H;
}

MatrixRD all_logits(const ModelSpec& spec, const ModelParams& p) { return all_features(spec, p) * p.U.transpose(); }


}  // namespace scalinglab::memory
