#include "scalinglab/memory/training.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "scalinglab/core/zipf.hpp"
#include "scalinglab/memory/memory_state.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab::memory {

namespace {
enum : uint64_t { kLabels = 0, kInit = 1, kData = 2 };

void gaussian(MatrixRD& m, std::size_t rows, std::size_t cols, double sd, Stream& s) {
  m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  s.fill_normal(m.data(), rows * cols, sd);
}

double error_of_logits(const MatrixRD& L, const ZipfTask& task, TieRule ties) {
  return memory::error_of_logits(L, task.label, task.p, ties);
}

// Cross-entropy of logits laid out M x N, weighted by p.
double loss_of_logits(const MatrixRD& L, const ZipfTask& task) {
  double loss = 0;
  for (Eigen::Index x = 0; x < L.cols(); ++x) {
    const double zmax = L.col(x).maxCoeff();
    loss += task.p[static_cast<std::size_t>(x)] *
            (std::log((L.col(x).array() - zmax).exp().sum()) + zmax - L(task.label[static_cast<std::size_t>(x)], x));
  }
  return loss;
}

// Collapses repeated inputs of a batch into one entry of weight count / b, in order of first
// appearance: exact, since a batch's loss is a weighted sum over its examples. `slot` (size N,
// all -1) is restored before returning.
void compact_batch(std::vector<uint32_t>& xs, std::vector<uint32_t>& ys, std::vector<double>& w,
                   std::vector<int32_t>& slot) {
  const double b = static_cast<double>(xs.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    int32_t& s = slot[xs[i]];
    if (s < 0) {
      s = static_cast<int32_t>(k);
      xs[k] = xs[i], ys[k] = ys[i], w[k] = 0;
      ++k;
    }
    w[static_cast<std::size_t>(s)] += 1;
  }
  xs.resize(k), ys.resize(k), w.resize(k);
  for (std::size_t i = 0; i < k; ++i) w[i] /= b, slot[xs[i]] = -1;
}

}  // namespace

TieRule parse_ties(const std::string& name) {
  if (name == "error") return TieRule::error;
  if (name == "first") return TieRule::first;
  if (name == "random") return TieRule::random;
  throw std::invalid_argument("unknown tie rule: " + name);
}

double error_of_logits(const MatrixRD& L, const std::vector<uint32_t>& label, const std::vector<double>& p,
                       TieRule ties) {
  double error = 0;
  for (Eigen::Index x = 0; x < L.cols(); ++x) {
    const uint32_t y = label[static_cast<std::size_t>(x)];
    const double ly = L(y, x);
    double best_other = -INFINITY;
    int tied = 0;              // other classes with exactly the true class's logit
    bool tied_before = false;  // ... one of them before y
    for (Eigen::Index z = 0; z < L.rows(); ++z) {
      if (z == y) continue;
      best_other = std::max(best_other, L(z, x));
      if (L(z, x) == ly) ++tied, tied_before = tied_before || z < y;
    }
    const double px = p[static_cast<std::size_t>(x)];
    if (ly > best_other) continue;  // strictly largest: correct under every rule
    if (!(ly == best_other) || ties == TieRule::error) {  // below another class (or NaN), or a tie counted wrong
      error += px;
    } else if (ties == TieRule::first) {
      if (tied_before) error += px;
    } else {
      error += px * (1.0 - 1.0 / (tied + 1));
    }
  }
  return error;
}

double gradient_variance(const ModelSpec& model, const MatrixRD& L, const std::vector<uint32_t>& label,
                         const std::vector<double>& p, const MatrixRD& U, const MatrixRD& E) {
  // delta_x = softmax(l_x) - e_y (M), g_x = U^T delta_x e_x^T: <g_x, g_x'>_F = (delta_x^T G delta_x') K[x, x'].
  const Eigen::Index M = L.rows(), N = L.cols();
  MatrixRD D(M, N);
  Eigen::RowVectorXd row(M);
  for (Eigen::Index x = 0; x < N; ++x) {
    row = L.col(x).transpose();
    logit_gradient(model, row, static_cast<Eigen::Index>(label[static_cast<std::size_t>(x)]), 1.0, true);
    D.col(x) = row.transpose();
  }
  const MatrixRD G = U * U.transpose();
  const MatrixRD K = E * E.transpose();
  const MatrixRD C = (D.transpose() * G * D).cwiseProduct(K);  // N x N: <g_x, g_x'>
  Eigen::VectorXd w(N);
  for (Eigen::Index x = 0; x < N; ++x) w(x) = p[static_cast<std::size_t>(x)];
  double second = 0;
  for (Eigen::Index x = 0; x < N; ++x) second += w(x) * C(x, x);
  const double mean_sq = w.dot(C * w);
  return std::max(0.0, second - mean_sq);
}

StatePath state_path(const TrainSpec& spec) {
  const bool structured = spec.span_update && spec.model.kind == ModelKind::matrix &&
                          spec.optimizer.kind == OptimizerKind::sgd && spec.N <= kSpanMaxN;
  if (!structured) return StatePath::dense;
  // The span update never forms W, which the features n(W e_x) of keep_embeddings need.
  if (!spec.model.layernorm && !spec.keep_embeddings) return StatePath::span;
  // Features: N k d per step against about 2 k d^2 for the dense step.
  return spec.N <= 2 * spec.d ? StatePath::features : StatePath::dense;
}

bool uses_span_update(const TrainSpec& spec) { return state_path(spec) == StatePath::span; }

std::vector<long> curve_schedule(long steps, int points) {
  std::vector<long> out;
  if (points <= 0 || steps <= 0) return out;
  for (int i = 0; i < points; ++i) {
    const double f = points > 1 ? static_cast<double>(i) / (points - 1) : 1.0;
    const long s = std::lround(std::pow(static_cast<double>(steps), f));
    if (out.empty() || s > out.back()) out.push_back(std::min(s, steps));
  }
  if (out.back() != steps) out.push_back(steps);
  return out;
}

TrainResult train_memory(const TrainSpec& spec, Stream& stream) {
  const bool population = std::isinf(spec.batch);
  if (!population && std::isinf(spec.T))
    throw std::invalid_argument("T = inf needs batch = inf (population gradient); give a finite T");
  if (spec.optimizer.kind == OptimizerKind::sgd_normalized && spec.model.kind != ModelKind::matrix)
    throw std::invalid_argument("optimizer sgd_normalized is implemented for model=matrix only");
  Stream label_stream = stream.substream(kLabels);
  const ZipfTask task = make_zipf_task(spec.N, spec.M, spec.alpha, spec.labels, label_stream);

  ModelParams p;
  Stream init = stream.substream(kInit);
  const double sd = 1.0 / std::sqrt(static_cast<double>(spec.d));
  gaussian(p.W, spec.d, spec.d, sd, init);
  gaussian(p.E, spec.N, spec.d, sd, init);
  gaussian(p.U, spec.M, spec.d, sd, init);
  if (spec.zero_init_w) p.W.setZero();  // after the draws, so E and U do not change
  if (spec.u_sphere) p.U.rowwise().normalize();  // the same draws, projected on the sphere

  const auto batch = population ? spec.N : static_cast<std::size_t>(spec.batch);
  const long steps = population ? spec.population_steps
                                : static_cast<long>((static_cast<uint64_t>(spec.T) + batch - 1) / batch);
  ScheduleSpec schedule = spec.schedule;
  schedule.total_steps = steps;
  const auto state = make_memory_state(state_path(spec), spec.model, spec.optimizer, p, spec.fused_adaptive);

  std::vector<uint32_t> xs, ys;
  std::vector<double> weights;
  if (population) {
    for (uint32_t x = 0; x < spec.N; ++x) xs.push_back(x), ys.push_back(task.label[x]);
    weights = task.p;
  }
  std::vector<int32_t> slot(population ? 0 : spec.N, -1);
  const AliasTable table(task.p);
  Stream data = stream.substream(kData);
  const std::vector<long> curve = curve_schedule(steps, spec.curve_points);
  std::size_t next_curve = 0;
  TrainResult result;
  uint64_t seen = 0;
  auto take_snapshot = [&] {
    const MatrixRD L = state->logits();
    result.snapshot.assign(L.data(), L.data() + L.size());  // row-major M x N
  };
  if (spec.snapshot_step == 0) take_snapshot();
  // Figure 16 (right): the spread of the per-example gradients (matrix model: E and U stay fixed).
  const bool grad_var = spec.track_grad_var && spec.model.kind == ModelKind::matrix && !spec.model.layernorm;
  auto gradient_spread = [&] { return gradient_variance(spec.model, state->logits(), task.label, task.p, p.U, p.E); };
  if (grad_var) result.grad_var_init = gradient_spread();
  if (spec.track_approx && spec.model.kind != ModelKind::matrix)
    throw std::invalid_argument("the SGD approximation applies to the matrix model (E and U fixed)");
  std::vector<double> q_approx(spec.track_approx ? spec.N : 0, 0.0);
  const double others = static_cast<double>(spec.M) - 1.0;
  auto approx_step = [&](double lr) {
    // The batch is compacted (weight c_x / b, or p(x) for the population): one application of the
    // map to every input seen, all from the pre-step q.
    for (std::size_t i = 0; i < xs.size(); ++i)
      q_approx[xs[i]] += lr * weights[i] / (1.0 + std::exp(q_approx[xs[i]]) / others);
  };
  for (long t = 0; t < steps; ++t) {
    if (!population) {
      const std::size_t b = std::min<uint64_t>(batch, static_cast<uint64_t>(spec.T) - seen);
      seen += b;
      xs.resize(b);
      ys.resize(b);
      weights.resize(b);  // cross-entropy averaged over the batch: count / b after compaction
      for (std::size_t i = 0; i < b; ++i) {
        xs[i] = static_cast<uint32_t>(table.sample(data));
        ys[i] = task.label[xs[i]];
      }
      compact_batch(xs, ys, weights, slot);
    }
    state->step(xs, ys, weights, schedule.factor(t));
    if (spec.track_approx) approx_step(spec.optimizer.lr * schedule.factor(t));
    if (spec.snapshot_step == t + 1) take_snapshot();
    if (next_curve < curve.size() && curve[next_curve] == t + 1) {
      result.curve_step.push_back(static_cast<double>(t + 1));
      result.curve_error.push_back(error_of_logits(state->logits(), task, spec.ties));
      if (grad_var) result.curve_grad_var.push_back(gradient_spread());
      ++next_curve;
    }
  }
  result.steps = steps;
  const MatrixRD L = state->logits();
  result.error = error_of_logits(L, task, spec.ties);
  result.loss = loss_of_logits(L, task);
  if (grad_var) result.grad_var = gradient_spread();
  if (spec.keep_embeddings) {
    const ModelParams& q = state->params();
    result.E.assign(q.E.data(), q.E.data() + q.E.size());
    result.U.assign(q.U.data(), q.U.data() + q.U.size());
    const MatrixRD H = state->features();
    result.features.assign(H.data(), H.data() + H.size());
    result.label.assign(task.label.begin(), task.label.end());
  }
  if (spec.track_approx) {
    // Logits of W_q = sum_x q(x) u_{f*(x)} e_x^T: (U U^T) B E^T with B[y] = sum_{f*(x) = y} q(x) e_x.
    MatrixRD B = MatrixRD::Zero(static_cast<Eigen::Index>(spec.M), static_cast<Eigen::Index>(spec.d));
    for (std::size_t x = 0; x < spec.N; ++x) B.row(task.label[x]) += q_approx[x] * p.E.row(static_cast<Eigen::Index>(x));
    const MatrixRD La = (p.U * p.U.transpose()) * B * p.E.transpose();
    result.approx_error = error_of_logits(La, task, spec.ties);
  }
  return result;
}

}  // namespace scalinglab::memory
