#include "scalinglab/memory/training.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "scalinglab/core/zipf.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab::memory {

namespace {
enum : uint64_t { kLabels = 0, kInit = 1, kData = 2 };

void gaussian(MatrixRD& m, std::size_t rows, std::size_t cols, double sd, Stream& s) {
  m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  s.fill_normal(m.data(), rows * cols, sd);
}

// Error (5) from logits laid out M x N (column x: the logits of input x).
double error_of_logits(const MatrixRD& L, const ZipfTask& task) {
  double error = 0;
  for (Eigen::Index x = 0; x < L.cols(); ++x) {
    const uint32_t y = task.label[static_cast<std::size_t>(x)];
    double best_other = -INFINITY;
    for (Eigen::Index z = 0; z < L.rows(); ++z)
      if (z != y) best_other = std::max(best_other, L(z, x));
    if (!(L(y, x) > best_other)) error += task.p[static_cast<std::size_t>(x)];
  }
  return error;
}

// The span update's state: logits of every input are L0 + G P with P = A K (M x N), where
// L0 = U W_0 E^T, G = U U^T, K = E E^T, and A the coefficients of W_t - W_0 = U^T A E.
// A step adds delta (M) to column x of A, i.e. delta K[x, :] to P: O(M N).
struct SpanState {
  MatrixRD L0, G, K, P;
  SpanState(const ModelParams& p) {
    L0.noalias() = p.U * p.W * p.E.transpose();
    G.noalias() = p.U * p.U.transpose();
    K.noalias() = p.E * p.E.transpose();
    P.setZero(p.U.rows(), p.E.rows());
  }
  MatrixRD logits() const { return L0 + G * P; }
};

}  // namespace

bool uses_span_update(const TrainSpec& spec) {
  // The span update never forms W, which the features n(W e_x) of keep_embeddings need.
  return spec.span_update && !spec.keep_embeddings && spec.model.kind == ModelKind::matrix && !spec.model.layernorm &&
         spec.optimizer.kind == OptimizerKind::sgd && spec.N <= kSpanMaxN;
}

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

  const auto batch = population ? spec.N : static_cast<std::size_t>(spec.batch);
  const long steps = population ? spec.population_steps
                                : static_cast<long>((static_cast<uint64_t>(spec.T) + batch - 1) / batch);
  ScheduleSpec schedule = spec.schedule;
  schedule.total_steps = steps;
  Optimizer opt(spec.optimizer, spec.model, p);
  ModelParams grad;
  MatrixRD second;

  std::vector<uint32_t> xs, ys;
  std::vector<double> weights;
  if (population) {
    for (uint32_t x = 0; x < spec.N; ++x) xs.push_back(x), ys.push_back(task.label[x]);
    weights = task.p;
  }
  const AliasTable table(task.p);
  const bool span = uses_span_update(spec);
  std::optional<SpanState> st;
  if (span) st.emplace(p);
  Stream data = stream.substream(kData);
  const std::vector<long> curve = curve_schedule(steps, spec.curve_points);
  std::size_t next_curve = 0;
  TrainResult result;
  uint64_t seen = 0;
  MatrixRD Zb, dZ;
  auto current_error = [&] {
    return span ? error_of_logits(st->logits(), task) : model_error(spec.model, p, task.p, task.label);
  };
  auto logits_mn = [&]() -> MatrixRD {
    if (span) return st->logits();
    return all_logits(spec.model, p).transpose();
  };
  auto take_snapshot = [&] {
    const MatrixRD L = logits_mn();
    result.snapshot.assign(L.data(), L.data() + L.size());  // row-major M x N
  };
  if (spec.snapshot_step == 0) take_snapshot();
  if (spec.track_approx && spec.model.kind != ModelKind::matrix)
    throw std::invalid_argument("the SGD approximation applies to the matrix model (E and U fixed)");
  std::vector<double> q_approx(spec.track_approx ? spec.N : 0, 0.0), step_count(q_approx.size(), 0.0);
  const double others = static_cast<double>(spec.M) - 1.0;
  auto approx_step = [&](double lr) {
    // Counts of this batch (weights sum to 1: c_x / b, or p(x) for the population), then one
    // application of the map to every input seen, all from the pre-step q.
    for (std::size_t i = 0; i < xs.size(); ++i) step_count[xs[i]] += weights[i];
    for (std::size_t i = 0; i < xs.size(); ++i) {
      double& c = step_count[xs[i]];
      if (c == 0) continue;
      q_approx[xs[i]] += lr * c / (1.0 + std::exp(q_approx[xs[i]]) / others);
      c = 0;
    }
  };
  for (long t = 0; t < steps; ++t) {
    if (!population) {
      const std::size_t b = std::min<uint64_t>(batch, static_cast<uint64_t>(spec.T) - seen);
      seen += b;
      xs.resize(b);
      ys.resize(b);
      weights.assign(b, 1.0 / static_cast<double>(b));  // cross-entropy averaged over the batch
      for (std::size_t i = 0; i < b; ++i) {
        xs[i] = static_cast<uint32_t>(table.sample(data));
        ys[i] = task.label[xs[i]];
      }
    }
    if (span) {
      // Logits of the batch with the current W, then the SGD step on the coefficients.
      const auto B = static_cast<Eigen::Index>(xs.size()), M = static_cast<Eigen::Index>(spec.M);
      Zb.resize(B, M);
      dZ.resize(B, M);
      for (Eigen::Index i = 0; i < B; ++i) {
        const uint32_t x = xs[static_cast<std::size_t>(i)];
        Zb.row(i) = (st->L0.col(x) + st->G * st->P.col(x)).transpose();
        const double zmax = Zb.row(i).maxCoeff();
        dZ.row(i) = (Zb.row(i).array() - zmax).exp();
        dZ.row(i) /= dZ.row(i).sum();
        dZ(i, ys[static_cast<std::size_t>(i)]) -= 1.0;
      }
      const double lr = spec.optimizer.lr * schedule.factor(t);
      for (Eigen::Index i = 0; i < B; ++i) {
        const uint32_t x = xs[static_cast<std::size_t>(i)];
        st->P.noalias() -= (lr * weights[static_cast<std::size_t>(i)]) * dZ.row(i).transpose() * st->K.row(x);
      }
    } else {
      const bool normalized = spec.optimizer.kind == OptimizerKind::sgd_normalized;
      loss_and_gradient(spec.model, p, xs, ys, weights, &grad, normalized ? &second : nullptr);
      opt.step(p, grad, schedule.factor(t), normalized ? &second : nullptr);
    }
    if (spec.track_approx) approx_step(spec.optimizer.lr * schedule.factor(t));
    if (spec.snapshot_step == t + 1) take_snapshot();
    if (next_curve < curve.size() && curve[next_curve] == t + 1) {
      result.curve_step.push_back(static_cast<double>(t + 1));
      result.curve_error.push_back(current_error());
      ++next_curve;
    }
  }
  result.steps = steps;
  result.error = current_error();
  if (spec.keep_embeddings) {
    result.E.assign(p.E.data(), p.E.data() + p.E.size());
    result.U.assign(p.U.data(), p.U.data() + p.U.size());
    const MatrixRD H = all_features(spec.model, p);
    result.features.assign(H.data(), H.data() + H.size());
    result.label.assign(task.label.begin(), task.label.end());
  }
  if (spec.track_approx) {
    // Logits of W_q = sum_x q(x) u_{f*(x)} e_x^T: (U U^T) B E^T with B[y] = sum_{f*(x) = y} q(x) e_x.
    MatrixRD B = MatrixRD::Zero(static_cast<Eigen::Index>(spec.M), static_cast<Eigen::Index>(spec.d));
    for (std::size_t x = 0; x < spec.N; ++x) B.row(task.label[x]) += q_approx[x] * p.E.row(static_cast<Eigen::Index>(x));
    const MatrixRD L = (p.U * p.U.transpose()) * B * p.E.transpose();
    result.approx_error = error_of_logits(L, task);
  }
  std::vector<uint32_t> all_x(spec.N), all_y(spec.N);
  for (uint32_t x = 0; x < spec.N; ++x) all_x[x] = x, all_y[x] = task.label[x];
  if (span) {
    // W = W_0 + U^T A E is never formed; the loss follows from the logits.
    const MatrixRD L = st->logits();
    double loss = 0;
    for (Eigen::Index x = 0; x < L.cols(); ++x) {
      const double zmax = L.col(x).maxCoeff();
      loss += task.p[static_cast<std::size_t>(x)] *
              (std::log((L.col(x).array() - zmax).exp().sum()) + zmax - L(task.label[static_cast<std::size_t>(x)], x));
    }
    result.loss = loss;
  } else {
    result.loss = loss_and_gradient(spec.model, p, all_x, all_y, task.p, nullptr);
  }
  return result;
}

}  // namespace scalinglab::memory
