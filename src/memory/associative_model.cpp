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

double loss_and_gradient(const ModelSpec& spec, const ModelParams& p, const std::vector<uint32_t>& xs,
                         const std::vector<uint32_t>& ys, const std::vector<double>& weights, ModelParams* grad,
                         MatrixRD* w_second_moment) {
  const auto B = static_cast<Eigen::Index>(xs.size());
  const Eigen::Index d = p.E.cols(), M = p.U.rows();
  // Per-thread buffers: training calls this once per step, so it must not allocate in steady state.
  thread_local MatrixRD X, H, Hb, Z, dZ, dH;
  thread_local Eigen::VectorXd r;
  X.resize(B, d);
  for (Eigen::Index i = 0; i < B; ++i) X.row(i) = p.E.row(xs[static_cast<std::size_t>(i)]);
  if (spec.kind == ModelKind::relu) H = X.cwiseMax(0.0);
  else H.noalias() = X * p.W.transpose();  // row i: (W e_{x_i})^T
  r.setOnes(B);
  if (spec.layernorm) r = (H.rowwise().squaredNorm().array() + spec.ln_eps).sqrt();
  Hb = H.array().colwise() / r.array();
  Z.noalias() = Hb * p.U.transpose();  // B x M logits
  dZ.resize(B, M);
  double loss = 0;
  for (Eigen::Index i = 0; i < B; ++i) {
    const auto y = static_cast<Eigen::Index>(ys[static_cast<std::size_t>(i)]);
    const double w = weights[static_cast<std::size_t>(i)];
    const double zmax = Z.row(i).maxCoeff();
    dZ.row(i) = (Z.row(i).array() - zmax).exp();
    const double total = dZ.row(i).sum();
    loss += w * (std::log(total) + zmax - Z(i, y));
    dZ.row(i) *= w / total;  // w softmax
    dZ(i, y) -= w;           // d loss / d z
  }
  if (!grad) return loss;
  // Tensors that are not learned keep a zero gradient of the right shape (zeroed once).
  auto reset = [](MatrixRD& g, const MatrixRD& like, bool learned) {
    if (g.rows() != like.rows() || g.cols() != like.cols()) g.setZero(like.rows(), like.cols());
    else if (learned) g.setZero();
  };
  reset(grad->W, p.W, spec.learns_W());
  reset(grad->E, p.E, spec.learns_E());
  reset(grad->U, p.U, spec.learns_U());
  if (spec.learns_U()) grad->U.noalias() = dZ.transpose() * Hb;
  dH.noalias() = dZ * p.U;  // d loss / d Hb
  if (spec.layernorm) {
    // Appendix A.12: for hb = h / r, r = sqrt(|h|^2 + eps), dh = dhb / r - h (h . dhb) / r^3.
    for (Eigen::Index i = 0; i < B; ++i) {
      const double hd = H.row(i).dot(dH.row(i));
      dH.row(i) = dH.row(i) / r(i) - H.row(i) * (hd / (r(i) * r(i) * r(i)));
    }
  }
  if (spec.kind == ModelKind::relu) {
    dH.array() *= (X.array() > 0).cast<double>();
    for (Eigen::Index i = 0; i < B; ++i) grad->E.row(xs[static_cast<std::size_t>(i)]) += dH.row(i);
    return loss;
  }
  grad->W.noalias() = dH.transpose() * X;  // sum_i dh_i e_{x_i}^T
  if (w_second_moment) {
    // g_i = (dh_i / w_i) e_i^T, so sum_i w_i g_i^2 = sum_i (dh_i^2 / w_i) (e_i^2)^T.
    thread_local MatrixRD dH2;
    dH2 = dH.cwiseAbs2();
    for (Eigen::Index i = 0; i < B; ++i) {
      const double w = weights[static_cast<std::size_t>(i)];
      dH2.row(i) = w > 0 ? (dH2.row(i) / w).eval() : Eigen::RowVectorXd::Zero(dH2.cols()).eval();
    }
    w_second_moment->noalias() = dH2.transpose() * X.cwiseAbs2();
  }
  if (spec.learns_E()) {
    H.noalias() = dH * p.W;  // reuse H for d loss / d e: rows (W^T dh_i)^T
    for (Eigen::Index i = 0; i < B; ++i) grad->E.row(xs[static_cast<std::size_t>(i)]) += H.row(i);
  }
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

double model_error(const ModelSpec& spec, const ModelParams& p, const std::vector<double>& prob,
                   const std::vector<uint32_t>& label) {
  const MatrixRD Z = all_logits(spec, p);
  double error = 0;
  for (Eigen::Index x = 0; x < Z.rows(); ++x) {
    const uint32_t y = label[static_cast<std::size_t>(x)];
    double best_other = -INFINITY;
    for (Eigen::Index z = 0; z < Z.cols(); ++z)
      if (z != y) best_other = std::max(best_other, Z(x, z));
    if (!(Z(x, y) > best_other)) error += prob[static_cast<std::size_t>(x)];
  }
  return error;
}

}  // namespace scalinglab::memory
