#pragma once
// Trainable associative memories of Section 4 (Cabannes, Dohmatob, Bietti), logit of class y for
// input x:
//   matrix     u_y^T n(W e_x)      E, U fixed random, W learned            (eq. 2)
//   learnable  u_y^T n(W e_x)      E, W, U learned                          (Sec. 4.2)
//   relu       u_y^T n(ReLU(e_x))  E, U learned, no W                      (Fig. 12, "u_y ReLU(e_x)")
// where n is the identity, or with layer norm the row scaling h / sqrt(sum h^2 + 1e-6) (Sec. 4.1,
// Appendix A.12). Loss: cross-entropy, weighted by per-example weights (1/B for a mini-batch,
// p(x) for the population gradient).
//
// Shapes (row-major, double): W is d x d, E is N x d (row x = e_x), U is M x d (row y = u_y).
// Forward and backward are one function (they share the per-example activations).
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

namespace scalinglab::memory {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class ModelKind { matrix, learnable, relu };
ModelKind parse_model(const std::string& name);

struct ModelSpec {
  ModelKind kind = ModelKind::matrix;
  bool layernorm = false;
  double ln_eps = 1e-6;  // h / sqrt(sum h^2 + ln_eps)
  bool learns_W() const { return kind != ModelKind::relu; }
  bool learns_E() const { return kind != ModelKind::matrix; }
  bool learns_U() const { return kind != ModelKind::matrix; }
};

struct ModelParams {
  MatrixRD W, E, U;
};

// Cross-entropy sum_i w_i l(x_i, y_i) and, when `grad` is not null, its gradient with respect to
// the learned tensors (the others are left zero). grad must have the shapes of `p`.
// When `w_second_moment` is not null it receives sum_i w_i g_i^2 (entrywise), g_i the unweighted
// per-example gradient of W: the second moment that variance-normalised SGD needs.
double loss_and_gradient(const ModelSpec& spec, const ModelParams& p, const std::vector<uint32_t>& xs,
                         const std::vector<uint32_t>& ys, const std::vector<double>& weights, ModelParams* grad,
                         MatrixRD* w_second_moment = nullptr);

// Features of every input, N x d: row x is n(W e_x) (relu: n(ReLU(e_x))), what U reads.
MatrixRD all_features(const ModelSpec& spec, const ModelParams& p);

// Logits of every input, N x M.
MatrixRD all_logits(const ModelSpec& spec, const ModelParams& p);

// Error (5): p-mass of inputs whose true class does not have the strictly largest logit.
double model_error(const ModelSpec& spec, const ModelParams& p, const std::vector<double>& prob,
                   const std::vector<uint32_t>& label);

}  // namespace scalinglab::memory
