#pragma once
// The model of Arnal et al. (2024), Section 4.1 "Model specification": an embedding of the N
// inputs, L residual gated blocks (the feed-forward of Mistral's reference transformer) and a
// linear read-out to the M outputs, no biases, softmax:
//   z_0 = e_x
//   z_{l+1} = z_l + W2_l^T ( g(W1_l n(z_l)) (.) W3_l n(z_l) ),  n(z) = z / sqrt(mean(z^2) + 1e-6)
//   logits = W_out n(z_L),  p^(y|x) = softmax(logits)_y
// g is SiLU (Mistral's code, the default) or the logistic function (the paper's text says
// "logistic"; see docs/factor.md). n has no gain. Float32, as a PyTorch reference would be.
//
// Parameters live in one contiguous buffer (PyTorch's layouts, row-major):
//   [E (N x d)] [per layer l: W1 (h x d), W3 (h x d), W2 (d x h)] [W_out (M x d)]
// E is nn.Embedding's weight (N(0, 1)); W1, W3, W2 and W_out are nn.Linear weights (uniform
// +-1/sqrt(fan_in)). With a frozen (factorization-compatible) embedding, E holds the fixed e_x and
// is not trained.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"

namespace scalinglab::factor {

enum class Gate { silu, logistic };
Gate parse_gate(const std::string& name);  // "silu" | "logistic"

struct MlpShape {
  std::size_t N = 0, M = 0, d = 0, h = 0, L = 1;
  Gate gate = Gate::silu;
};

struct GatedMlp {
  MlpShape shape;
  std::vector<float> theta;

  explicit GatedMlp(const MlpShape& s);  // zero parameters
  std::size_t size() const { return theta.size(); }
  // Offsets of the named views into theta.
  std::size_t embedding_offset() const { return 0; }
  std::size_t w1_offset(std::size_t l) const;
  std::size_t w3_offset(std::size_t l) const { return w1_offset(l) + shape.h * shape.d; }
  std::size_t w2_offset(std::size_t l) const { return w1_offset(l) + 2 * shape.h * shape.d; }
  std::size_t w_out_offset() const { return w1_offset(shape.L); }
  float* embedding() { return theta.data(); }
  const float* embedding() const { return theta.data(); }
};

// PyTorch's default initialisation: E ~ N(0, 1), Linear weights ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
void init_default(GatedMlp& net, Stream& s);

// The factorization-compatible embedding (4): e_x = sum_i E_i[:, x_i], each factor embedding a
// Gaussian vector N(0, I_d / k) (so that e_x has unit variance per coordinate, like nn.Embedding).
// `input` are the factor sizes (p_i), first factor fastest in x.
void set_factorized_embedding(GatedMlp& net, const std::vector<uint32_t>& input, Stream& s);

// What a batch is scored against: soft targets (rows of the N x M table p(y|x), indexed by input)
// or hard labels (one per row of the batch).
struct Targets {
  const float* table = nullptr;           // N x M; row x = p(.|x)
  // Or a generator of the row p(.|x) (M floats), called once per batch row: saves streaming an
  // N x M table from memory every epoch when rows are cheap to compute (a product of factors).
  std::function<void(std::size_t x, float* row)> row;
  const double* neg_entropy = nullptr;    // N: sum_y p log p (so the soft loss is the KL); optional
  const uint32_t* labels = nullptr;       // one label per batch row (hard targets)
};

// Forward and backward passes over a batch, in fixed shards of rows processed in parallel; the
// result does not depend on the number of threads (shards and their reduction order are fixed by
// the batch size alone). Buffers are reused across calls.
// Where a step's CPU time goes (seconds summed over the workers): the matrix products, the loss
// head (exp, normaliser, softmax - target, the loss), the generated target rows, the elementwise
// rest of the blocks (RMS norms, gates, gathers) and the reduction of the shards' gradients. Off
// unless asked for (MlpEngine::time_phases): a profile of the step for the benchmark.
struct PhaseSeconds {
  double products = 0, head = 0, targets = 0, elementwise = 0, reduction = 0;
  double total() const { return products + head + targets + elementwise + reduction; }
};

class MlpEngine {
 public:
  explicit MlpEngine(const MlpShape& shape);
  // Adds each phase's CPU time of the following calls to *into (nullptr: stop timing).
  void time_phases(PhaseSeconds* into) { phases_ = into; }
  ~MlpEngine();
  MlpEngine(MlpEngine&&) noexcept;
  // Mean loss over the batch rows (KL with soft targets when neg_entropy is given, cross-entropy
  // otherwise; NaN unless want_loss) and, when grad is not null, its gradient w.r.t. theta
  // (written, not accumulated; the embedding block is left alone when train_embedding is false).
  double loss_and_gradient(const GatedMlp& net, const uint32_t* inputs, std::size_t rows, const Targets& targets,
                           float* grad, bool train_embedding, bool want_loss, int threads);
  // Logits for the given inputs (rows x M, row-major): tests and inspection.
  std::vector<float> logits(const GatedMlp& net, const uint32_t* inputs, std::size_t rows);
  // Rows per chunk: the row count of the products the engine gives the BLAS (the benchmark's bound).
  std::size_t chunk_rows() const;

 private:
  struct Workspace;
  double run_chunk(const GatedMlp& net, const uint32_t* inputs, std::size_t rows, const Targets& targets,
                   std::size_t first_row, float scale, float* grad_shard, float* dz0, Workspace& w, bool want_grad,
                   bool want_loss, float* logits_out, bool overwrite_grad);
  MlpShape shape_;
  std::vector<Workspace> workspaces_;
  std::vector<std::vector<float>> shard_grads_;
  std::vector<float> dz0_;
  PhaseSeconds* phases_ = nullptr;
};

}  // namespace scalinglab::factor
