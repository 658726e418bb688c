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
// Forward and backward are one function (they share the per-example activations). A batch may list
// an input several times or once with the summed weight: the loss and gradients are the same.
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
  // false: the logits' gradient is taken at uniform predictions p_W = 1/M at every step, so that an
  // update never shrinks as its association is stored (counterfactual: no saturation of (20)).
  bool saturating = true;
  // false: E and U stay at their random start even in the models that learn them (counterfactual: an
  // optimiser not given the embeddings).
  bool train_embeddings = true;
  bool learns_W() const { return kind != ModelKind::relu; }
  bool learns_E() const { return kind != ModelKind::matrix && train_embeddings; }
  bool learns_U() const { return kind != ModelKind::matrix && train_embeddings; }
};

// d loss / d logits of one example into `row` (softmax(z) - e_y, or 1/M - e_y when not saturating),
// times `w`; returns the example's cross-entropy. `divide`: the softmax as exp / sum rather than
// exp * (w / sum) (the two round differently; each caller keeps the form its results were made with).
double logit_gradient(const ModelSpec& spec, Eigen::Ref<Eigen::RowVectorXd> row, Eigen::Index y, double w,
                      bool divide = false);

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

// One plain SGD step in place, theta -= lr grad for every learned tensor, without forming the
// d x d gradient (W moves by a rank-k update); returns the loss before the step. Equal to
// loss_and_gradient followed by theta -= lr grad, up to rounding.
double sgd_step(const ModelSpec& spec, ModelParams& p, const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys,
                const std::vector<double>& weights, double lr);

// The head alone, from given features H (k x d, before the norm) of inputs with labels ys: the
// loss, and in dH its gradient with respect to H; in grad_U, when given, the gradient of U.
double head_step(const ModelSpec& spec, const MatrixRD& U, const MatrixRD& H, const std::vector<uint32_t>& ys,
                 const std::vector<double>& weights, MatrixRD& dH, MatrixRD* grad_U = nullptr);

// Logits of every input, N x M.
MatrixRD all_logits(const ModelSpec& spec, const ModelParams& p);


}  // namespace scalinglab::memory
