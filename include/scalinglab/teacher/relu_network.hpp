#pragma once
// A two-layer ReLU network of width n trained on the teacher's data (beyond the paper): the
// learned counterpart of the constrained predictor, f(x) = sum_i a_i ReLU(w_i^T x), logistic loss
// on labels Y ~ Bernoulli(sigmoid(F(X))), mini-batches, SGD or Adam. Float32 (as a PyTorch
// reference would be), row-major, per-network buffers reused across steps.
// Shapes: X is B x d (a batch, row b = x_b), W is n x d (row i = w_i), a has n entries.
//   forward   H = X W^T (B x n), A = ReLU(H), f = A a
//   backward  delta = (sigmoid(f) - y) / B, grad_a = A^T delta,
//             D = delta a^T masked by H > 0 (B x n), grad_W = D^T X (n x d)
// The step never holds H in full: it runs over tiles of batch rows, and within a tile over blocks
// of neurons whose weights sit in registers (a larger d in chunks of columns). Pass 1 computes
// the tile of H (kept in cache) and f; pass 2 reads it back once delta is known and accumulates
// grad_a and grad_W in registers. Results are deterministic for a given lane width (the same
// inputs give the same bits); the summation order depends on the lane width.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::teacher {

namespace detail {
// The lane width of the network's kernels: 0 (the default) is the widest this build vectorises
// (16 with AVX-512, 8 with AVX, 4 otherwise); 1 is the scalar code; 4, 8 and 16 are accepted when
// not wider than the default (tests run every width the build has). Process-wide; set it before
// networks are used, not while they run.
void set_relu_kernel_lanes(int lanes);
int relu_kernel_lanes();
}  // namespace detail

using MatrixRF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorF = Eigen::VectorXf;

struct NetworkOptimizer {
  bool adam = true;
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};

class ReluNetwork {
 public:
  // W_ij ~ N(0, 1/d), a_i ~ N(0, 1/n).
  ReluNetwork(std::size_t d, std::size_t n, Stream& s);
  // Mean logistic loss on the batch before the step; one optimizer step.
  double train_step(const MatrixRF& X, const VectorF& y, const NetworkOptimizer& opt);
  // Mean logistic loss and gradients without a step (tests).
  double loss_and_gradient(const MatrixRF& X, const VectorF& y, MatrixRF& grad_W, VectorF& grad_a);
  // The outputs f(x) on the batch of the last train_step, before its update (the online predictions).
  const VectorF& last_outputs() const { return f_; }
  // Outputs f(x) for the rows of X.
  VectorF predict(const MatrixRF& X) const;

  MatrixRF W;
  VectorF a;

 private:
  double forward_backward(const MatrixRF& X, const VectorF& y);  // fills f_, gW_, ga_
  MatrixRF gW_, mW_, vW_;
  VectorF f_, delta_, ga_, ma_, va_;
  // Kernel buffers (resized only when shapes change): W and a packed by blocks of neurons (padded
  // with zeros), the gradients in the same layout, a tile of H, per-row lanes of f.
  std::vector<float> Wp_, ap_, gWp_, gap_, Ht_, facc_;
  long t_ = 0;
};

}  // namespace scalinglab::teacher
