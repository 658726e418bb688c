#include "scalinglab/factor/gated_mlp.hpp"

#include <Eigen/Dense>
#include <cblas.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "scalinglab/core/denormals.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/vector_exp.hpp"

namespace scalinglab::factor {

namespace {

using MatRF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<MatRF>;
using CMap = Eigen::Map<const MatRF>;
using Idx = Eigen::Index;

constexpr float kRmsEps = 1e-6f;

Idx I(std::size_t n) { return static_cast<Idx>(n); }

// Rows in a shard: the unit of parallel work and of the fixed reduction order.
constexpr std::size_t kShardRows = 1024;
constexpr std::size_t kMaxShards = 16;

}  // namespace

Gate parse_gate(const std::string& name) {
  if (name == "silu") return Gate::silu;
  if (name == "logistic") return Gate::logistic;
  throw std::invalid_argument("unknown gate '" + name + "' (silu or logistic)");
}

GatedMlp::GatedMlp(const MlpShape& s) : shape(s) {
  if (s.N < 1 || s.M < 1 || s.d < 1 || s.h < 1 || s.L < 1) throw std::invalid_argument("N, M, d, h and L must be >= 1");
  theta.assign(w_out_offset() + s.M * s.d, 0.0f);
}

std::size_t GatedMlp::w1_offset(std::size_t l) const { return shape.N * shape.d + l * 3 * shape.h * shape.d; }

void init_default(GatedMlp& net, Stream& s) {
  const MlpShape& sh = net.shape;
  s.fill_normal(net.embedding(), sh.N * sh.d, 1.0f);
  auto uniform = [&](std::size_t offset, std::size_t count, std::size_t fan_in) {
    const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
    for (std::size_t k = 0; k < count; ++k) net.theta[offset + k] = static_cast<float>((2 * s.uniform() - 1) * bound);
  };
  for (std::size_t l = 0; l < sh.L; ++l) {
    uniform(net.w1_offset(l), sh.h * sh.d, sh.d);
    uniform(net.w3_offset(l), sh.h * sh.d, sh.d);
    uniform(net.w2_offset(l), sh.d * sh.h, sh.h);
  }
  uniform(net.w_out_offset(), sh.M * sh.d, sh.d);
}

void set_factorized_embedding(GatedMlp& net, const std::vector<uint32_t>& input, Stream& s) {
  const std::size_t d = net.shape.d, k = input.size();
  std::size_t N = 1;
  for (uint32_t p : input) N *= p;
  if (N != net.shape.N) throw std::invalid_argument("factor sizes do not multiply to N");
  std::vector<std::vector<float>> factor(k);
  for (std::size_t i = 0; i < k; ++i) {
    factor[i].resize(input[i] * d);
    s.fill_normal(factor[i].data(), factor[i].size(), 1.0f / std::sqrt(static_cast<float>(k)));
  }
  for (std::size_t x = 0; x < N; ++x) {
    float* e = net.embedding() + x * d;
    std::fill(e, e + d, 0.0f);
    std::size_t rest = x;
    for (std::size_t i = 0; i < k; ++i) {
      const float* f = factor[i].data() + (rest % input[i]) * d;
      rest /= input[i];
      for (std::size_t c = 0; c < d; ++c) e[c] += f[c];
    }
  }
}

// Per-thread buffers for one chunk of rows (b <= chunk): layer inputs, normalised inputs, their
// inverse RMS, gate pre-activations, gated products, logits, and the backward temporaries.
struct MlpEngine::Workspace {
  std::vector<MatRF> Z, U, A, G, S;
  std::vector<Eigen::VectorXf> rinv;
  MatRF logits, dZ, dU, dS, dA, dG;
  std::vector<float> target;  // one generated target row
  PhaseSeconds phases;        // this worker's share while timing
};

namespace {

// Charges the time since the previous mark to a phase; does nothing unless timing is on.
class PhaseClock {
 public:
  explicit PhaseClock(bool on) : on_(on) {
    if (on_) last_ = std::chrono::steady_clock::now();
  }
  void charge(double& phase) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace

MlpEngine::MlpEngine(const MlpShape& shape) : shape_(shape) {}
MlpEngine::~MlpEngine() = default;
MlpEngine::MlpEngine(MlpEngine&&) noexcept = default;

std::size_t MlpEngine::chunk_rows() const {
  // A chunk's logits (rows x M floats) within about 4 MiB: large enough that the BLAS's packing of
  // W_out is amortised over many rows (256 at M = 4096), small enough for the caches.
  return std::clamp<std::size_t>((1u << 20) / std::max<std::size_t>(shape_.M, 1), 16, 256);
}

namespace {

// Sums in double of float data with 16 independent lanes: the compiler vectorises the conversion
// and the additions without reassociating anything (Eigen's cast<double>() does not vectorise).
constexpr std::size_t kLanes = 16;

double sum_double(const float* a, std::size_t n) {
  double acc[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) acc[k] += static_cast<double>(a[i + k]);
  double total = 0;
  for (; i < n; ++i) total += a[i];
  for (double v : acc) total += v;
  return total;
}

double dot_double(const float* a, const float* b, std::size_t n) {
  double acc[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) acc[k] += static_cast<double>(a[i + k]) * static_cast<double>(b[i + k]);
  double total = 0;
  for (; i < n; ++i) total += static_cast<double>(a[i]) * b[i];
  for (double v : acc) total += v;
  return total;
}

// u = z / sqrt(mean(z^2) + eps) row by row; rinv holds the inverse RMS.
void rms_forward(const MatRF& Z, MatRF& U, Eigen::VectorXf& rinv) {
  const float inv_d = 1.0f / static_cast<float>(Z.cols());
  for (Idx r = 0; r < Z.rows(); ++r) {
    rinv[r] = 1.0f / std::sqrt(Z.row(r).squaredNorm() * inv_d + kRmsEps);
    U.row(r) = Z.row(r) * rinv[r];
  }
}

// dZ += (dU - u mean(dU . u)) / rms, row by row.
void rms_backward(const MatRF& dU, const MatRF& U, const Eigen::VectorXf& rinv, MatRF& dZ, bool accumulate) {
  const float inv_d = 1.0f / static_cast<float>(U.cols());
  for (Idx r = 0; r < U.rows(); ++r) {
    const float m = dU.row(r).dot(U.row(r)) * inv_d;
    if (accumulate)
      dZ.row(r) += (dU.row(r) - m * U.row(r)) * rinv[r];
    else
      dZ.row(r) = (dU.row(r) - m * U.row(r)) * rinv[r];
  }
}


}  // namespace

double MlpEngine::run_chunk(const GatedMlp& net, const uint32_t* inputs, std::size_t rows, const Targets& targets,
                            std::size_t first_row, float scale, float* grad, float* dz0, Workspace& w, bool want_grad,
                            bool want_loss, float* logits_out, bool overwrite_grad) {
  const std::size_t d = shape_.d, h = shape_.h, L = shape_.L, M = shape_.M;
  const Idx b = I(rows);
  if (w.Z.size() != L + 1) {
    w.Z.resize(L + 1), w.U.resize(L + 1), w.rinv.resize(L + 1), w.A.resize(L), w.G.resize(L), w.S.resize(L);
  }
  for (std::size_t l = 0; l <= L; ++l) {
    w.Z[l].resize(b, I(d)), w.U[l].resize(b, I(d)), w.rinv[l].resize(b);
    if (l < L) w.A[l].resize(b, I(h)), w.G[l].resize(b, I(h)), w.S[l].resize(b, I(h));
  }
  w.logits.resize(b, I(M));
  PhaseClock clock(phases_ != nullptr);
  PhaseSeconds& ph = w.phases;
  const float* E = net.embedding();
  for (Idx r = 0; r < b; ++r) w.Z[0].row(r) = Eigen::Map<const Eigen::RowVectorXf>(E + inputs[first_row + r] * d, I(d));
  // Forward through the blocks.
  for (std::size_t l = 0; l < L; ++l) {
    const CMap W1(net.theta.data() + net.w1_offset(l), I(h), I(d)), W3(net.theta.data() + net.w3_offset(l), I(h), I(d)),
        W2(net.theta.data() + net.w2_offset(l), I(d), I(h));
    rms_forward(w.Z[l], w.U[l], w.rinv[l]);
    clock.charge(ph.elementwise);
    w.A[l].noalias() = w.U[l] * W1.transpose();
    w.G[l].noalias() = w.U[l] * W3.transpose();
    clock.charge(ph.products);
    auto a = w.A[l].array();
    if (shape_.gate == Gate::silu)
      w.S[l].array() = a / (1.0f + (-a).exp()) * w.G[l].array();
    else
      w.S[l].array() = 1.0f / (1.0f + (-a).exp()) * w.G[l].array();
    w.Z[l + 1] = w.Z[l];
    clock.charge(ph.elementwise);
    w.Z[l + 1].noalias() += w.S[l] * W2.transpose();
    clock.charge(ph.products);
  }
  rms_forward(w.Z[L], w.U[L], w.rinv[L]);
  clock.charge(ph.elementwise);
  const CMap Wout(net.theta.data() + net.w_out_offset(), I(M), I(d));
  // Straight through the BLAS with beta = 0: Eigen's `C = A * B` on a BLAS zeroes C and then adds
  // the product, an extra pass over the chunk's largest matrix (rows x M).
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(b), static_cast<int>(M), static_cast<int>(d), 1.0f,
              w.U[L].data(), static_cast<int>(d), Wout.data(), static_cast<int>(d), 0.0f, w.logits.data(), static_cast<int>(M));
  clock.charge(ph.products);
  if (logits_out) std::copy(w.logits.data(), w.logits.data() + w.logits.size(), logits_out + first_row * M);

  if (!want_grad && !want_loss) return 0;

  // Loss head, per row: the loss (in double, from the raw logits), then (softmax - target) * scale in
  // place of the logits.
  double loss = 0;
  for (Idx r = 0; r < b; ++r) {
    float* z = w.logits.row(r).data();
    Eigen::Map<Eigen::ArrayXf> row(z, I(M));
    const std::size_t x = inputs[first_row + r];
    const float top = row.maxCoeff();
    double dot = 0, psum = 0, label_logit = 0;
    const float* p = targets.table ? targets.table + x * M : nullptr;
    if (targets.row) {
      clock.charge(ph.head);
      w.target.resize(M);
      targets.row(x, w.target.data());
      p = w.target.data();
      clock.charge(ph.targets);
    }
    if (want_loss) {
      if (targets.labels) {
        label_logit = z[targets.labels[first_row + r]];
      } else {
        dot = dot_double(p, z, M);
        psum = sum_double(p, M);
      }
    }
    // exp(z - top) in place and its sum in one pass (core/vector_exp.hpp: within 1 ulp): the sum in
    // double for the loss, in float (faster) when only the gradient is needed.
    const double sum = want_loss ? exp_shift_sum(z, M, top) : static_cast<double>(exp_shift_sum_float(z, M, top));
    if (want_loss) {
      const double lse = top + std::log(sum);
      // Cross-entropy lse - logit_y, or KL = sum p log p - sum p (logit - lse).
      loss += targets.labels ? lse - label_logit
                             : (targets.neg_entropy ? targets.neg_entropy[x] : 0.0) - (dot - lse * psum);
    }
    if (!want_grad) continue;
    const float inv = static_cast<float>(1 / sum);
    if (targets.labels) {
      row *= inv * scale;
      z[targets.labels[first_row + r]] -= scale;
    } else {
      row = (row * inv - Eigen::Map<const Eigen::ArrayXf>(p, I(M))) * scale;
    }
  }
  clock.charge(ph.head);
  if (!want_grad) return loss;

  // Backward. The chunk's contributions are added to the shard's gradient buffer (written by the
  // shard's first chunk, which saves zeroing the buffer).
  auto add = [overwrite_grad](Map dst, const auto& product) {
    if (overwrite_grad)
      dst.noalias() = product;
    else
      dst.noalias() += product;
  };
  Map gWout(grad + net.w_out_offset(), I(M), I(d));
  add(gWout, w.logits.transpose() * w.U[L]);
  w.dU.resize(b, I(d));
  w.dU.noalias() = w.logits * Wout;
  clock.charge(ph.products);
  w.dZ.resize(b, I(d));
  rms_backward(w.dU, w.U[L], w.rinv[L], w.dZ, false);
  clock.charge(ph.elementwise);
  for (std::size_t l = L; l-- > 0;) {
    const CMap W1(net.theta.data() + net.w1_offset(l), I(h), I(d)), W3(net.theta.data() + net.w3_offset(l), I(h), I(d)),
        W2(net.theta.data() + net.w2_offset(l), I(d), I(h));
    Map gW1(grad + net.w1_offset(l), I(h), I(d)), gW3(grad + net.w3_offset(l), I(h), I(d)),
        gW2(grad + net.w2_offset(l), I(d), I(h));
    add(gW2, w.dZ.transpose() * w.S[l]);
    w.dS.resize(b, I(h));
    w.dS.noalias() = w.dZ * W2;
    clock.charge(ph.products);
    w.dA.resize(b, I(h)), w.dG.resize(b, I(h));
    const auto a = w.A[l].array();
    if (shape_.gate == Gate::silu) {
      const auto s = 1.0f / (1.0f + (-a).exp());
      w.dG.array() = w.dS.array() * a * s;
      w.dA.array() = w.dS.array() * w.G[l].array() * s * (1.0f + a * (1.0f - s));
    } else {
      const auto s = 1.0f / (1.0f + (-a).exp());
      w.dG.array() = w.dS.array() * s;
      w.dA.array() = w.dS.array() * w.G[l].array() * s * (1.0f - s);
    }
    clock.charge(ph.elementwise);
    add(gW1, w.dA.transpose() * w.U[l]);
    add(gW3, w.dG.transpose() * w.U[l]);
    w.dU.noalias() = w.dA * W1;
    w.dU.noalias() += w.dG * W3;
    clock.charge(ph.products);
    rms_backward(w.dU, w.U[l], w.rinv[l], w.dZ, true);
  }
  if (dz0) std::copy(w.dZ.data(), w.dZ.data() + w.dZ.size(), dz0 + first_row * d);
  clock.charge(ph.elementwise);
  return loss;
}

double MlpEngine::loss_and_gradient(const GatedMlp& net, const uint32_t* inputs, std::size_t rows,
                                    const Targets& targets, float* grad, bool train_embedding, bool want_loss,
                                    int threads) {
  if (rows == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t shards = std::min(kMaxShards, (rows + kShardRows - 1) / kShardRows);
  const std::size_t chunk = chunk_rows(), d = shape_.d;
  const int workers = std::max(1, std::min(resolve_threads(threads), static_cast<int>(shards)));
  if (workspaces_.size() < static_cast<std::size_t>(workers)) workspaces_.resize(static_cast<std::size_t>(workers));
  const std::size_t body = net.size() - net.w1_offset(0);  // parameters after the embedding
  const bool want_grad = grad != nullptr;
  if (want_grad) {
    if (shard_grads_.size() < shards) shard_grads_.resize(shards);
    if (train_embedding) dz0_.resize(rows * d);
  }
  std::vector<double> shard_loss(shards, 0.0);
  const float scale = 1.0f / static_cast<float>(rows);
  parallel_for(shards, workers, [&](std::size_t s, int worker) {
    const FlushDenormals ftz;
    const std::size_t begin = rows * s / shards, end = rows * (s + 1) / shards;
    float* g = nullptr;
    if (want_grad) {
      // The shard's buffer covers the body only; offsets are shifted by the embedding's size.
      shard_grads_[s].resize(body);
      g = shard_grads_[s].data() - net.w1_offset(0);
    }
    double loss = 0;
    for (std::size_t r = begin; r < end; r += chunk)
      loss += run_chunk(net, inputs, std::min(chunk, end - r), targets, r, scale, g,
                        want_grad && train_embedding ? dz0_.data() : nullptr, workspaces_[static_cast<std::size_t>(worker)],
                        want_grad, want_loss, nullptr, r == begin);
    shard_loss[s] = loss;
  });
  double loss = 0;
  for (double l : shard_loss) loss += l;
  loss = want_loss ? loss / static_cast<double>(rows) : std::numeric_limits<double>::quiet_NaN();
  if (phases_) {
    for (auto& ws : workspaces_) {
      phases_->products += ws.phases.products, phases_->head += ws.phases.head, phases_->targets += ws.phases.targets;
      phases_->elementwise += ws.phases.elementwise;
      ws.phases = PhaseSeconds{};
    }
  }
  if (!want_grad) return loss;
  PhaseClock clock(phases_ != nullptr);
  double reduction = 0;
  // Fixed-order reductions: shards in index order, embedding rows in batch order.
  // Each element sums the shards in index order, so splitting the elements over threads changes
  // nothing.
  float* body_grad = grad + net.w1_offset(0);
  constexpr std::size_t kBlock = 1 << 15;
  parallel_for((body + kBlock - 1) / kBlock, workers, [&](std::size_t blk, int) {
    const std::size_t lo = blk * kBlock, hi = std::min(body, lo + kBlock);
    std::copy(shard_grads_[0].begin() + static_cast<std::ptrdiff_t>(lo), shard_grads_[0].begin() + static_cast<std::ptrdiff_t>(hi),
              body_grad + lo);
    for (std::size_t s = 1; s < shards; ++s) {
      const float* src = shard_grads_[s].data();
      for (std::size_t k = lo; k < hi; ++k) body_grad[k] += src[k];
    }
  });
  clock.charge(reduction);
  reduction *= workers;  // the shards' sum ran on every worker; the embedding rows below on one
  if (train_embedding) {
    std::fill(grad, grad + shape_.N * d, 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
      float* e = grad + static_cast<std::size_t>(inputs[r]) * d;
      const float* src = dz0_.data() + r * d;
      for (std::size_t c = 0; c < d; ++c) e[c] += src[c];
    }
  }
  clock.charge(reduction);
  if (phases_) phases_->reduction += reduction;
  return loss;
}

std::vector<float> MlpEngine::logits(const GatedMlp& net, const uint32_t* inputs, std::size_t rows) {
  std::vector<float> out(rows * shape_.M);
  if (workspaces_.empty()) workspaces_.resize(1);
  const FlushDenormals ftz;
  for (std::size_t r = 0; r < rows; r += chunk_rows())
    run_chunk(net, inputs, std::min(chunk_rows(), rows - r), Targets{}, r, 1.0f, nullptr, nullptr, workspaces_[0], false,
              false, out.data(), true);
  return out;
}

}  // namespace scalinglab::factor
