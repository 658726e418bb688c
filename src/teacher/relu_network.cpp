#include "scalinglab/teacher/relu_network.hpp"

#include <cmath>

namespace scalinglab::teacher {

ReluNetwork::ReluNetwork(std::size_t d, std::size_t n, Stream& s) {
  W.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  a.resize(static_cast<Eigen::Index>(n));
  s.fill_normal(W.data(), n * d, 1.0f / std::sqrt(static_cast<float>(d)));
  s.fill_normal(a.data(), n, 1.0f / std::sqrt(static_cast<float>(n)));
}

namespace {
// log(1 + e^f) - y f, stable for large |f|.
double logistic_loss(double f, double y) { return (f > 0 ? f + std::log1p(std::exp(-f)) : std::log1p(std::exp(f))) - y * f; }
}  // namespace

double ReluNetwork::forward_backward(const MatrixRF& X, const VectorF& y) {
  const Eigen::Index B = X.rows();
  H_.noalias() = X * W.transpose();  // B x n
  f_.resize(B);
  delta_.resize(B);
  double loss = 0;
  const Eigen::Index n = W.rows();
  for (Eigen::Index b = 0; b < B; ++b) {
    float* h = H_.row(b).data();
    float fb = 0;
    for (Eigen::Index i = 0; i < n; ++i) fb += (h[i] > 0 ? h[i] : 0.0f) * a[i];
    f_[b] = fb;
    loss += logistic_loss(fb, y[b]);
    delta_[b] = static_cast<float>((1 / (1 + std::exp(-static_cast<double>(fb))) - y[b]) / static_cast<double>(B));
  }
  // grad_a = A^T delta; then H becomes D = delta_b [H_bi > 0] in place (a_i is applied to the rows
  // of D^T X afterwards), one pass each.
  ga_.setZero(n);
  for (Eigen::Index b = 0; b < B; ++b) {
    float* h = H_.row(b).data();
    const float db = delta_[b];
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool on = h[i] > 0;
      ga_[i] += on ? h[i] * db : 0.0f;
      h[i] = on ? db : 0.0f;
    }
  }
  gW_.noalias() = H_.transpose() * X;  // n x d
  gW_.array().colwise() *= a.array();
  return loss / static_cast<double>(B);
}

double ReluNetwork::loss_and_gradient(const MatrixRF& X, const VectorF& y, MatrixRF& grad_W, VectorF& grad_a) {
  const double loss = forward_backward(X, y);
  grad_W = gW_;
  grad_a = ga_;
  return loss;
}

double ReluNetwork::train_step(const MatrixRF& X, const VectorF& y, const NetworkOptimizer& opt) {
  const double loss = forward_backward(X, y);
  ++t_;
  if (!opt.adam) {
    W.noalias() -= opt.lr * gW_;
    a.noalias() -= opt.lr * ga_;
    return loss;
  }
  if (mW_.size() == 0) {
    mW_.setZero(W.rows(), W.cols());
    vW_.setZero(W.rows(), W.cols());
    ma_.setZero(a.size());
    va_.setZero(a.size());
  }
  const float c1 = 1 - std::pow(opt.beta1, static_cast<float>(t_)), c2 = 1 - std::pow(opt.beta2, static_cast<float>(t_));
  const float step = opt.lr * std::sqrt(c2) / c1;  // PyTorch's formulation, eps added to sqrt(v)/sqrt(c2)
  auto update = [&](float* theta, const float* g, float* m, float* v, Eigen::Index size) {
    const float eps_hat = opt.eps * std::sqrt(c2);
    for (Eigen::Index k = 0; k < size; ++k) {
      m[k] = opt.beta1 * m[k] + (1 - opt.beta1) * g[k];
      v[k] = opt.beta2 * v[k] + (1 - opt.beta2) * g[k] * g[k];
      theta[k] -= step * m[k] / (std::sqrt(v[k]) + eps_hat);
    }
  };
  update(W.data(), gW_.data(), mW_.data(), vW_.data(), W.size());
  update(a.data(), ga_.data(), ma_.data(), va_.data(), a.size());
  return loss;
}

VectorF ReluNetwork::predict(const MatrixRF& X) const {
  MatrixRF H = X * W.transpose();
  return H.cwiseMax(0.0f) * a;
}

}  // namespace scalinglab::teacher
