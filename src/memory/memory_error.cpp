#include "scalinglab/memory/memory_error.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scalinglab::memory {

EmbeddingDist parse_embedding_dist(const std::string& name) {
  if (name == "gaussian") return EmbeddingDist::gaussian;
  if (name == "sphere") return EmbeddingDist::sphere;
  throw std::invalid_argument("unknown embedding distribution: " + name);
}

namespace {
void fill(MatrixRF& m, std::size_t rows, std::size_t d, EmbeddingDist dist, Stream& s) {
  m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(d));
  s.fill_normal(m.data(), rows * d, 1.0f / std::sqrt(static_cast<float>(d)));
  if (dist == EmbeddingDist::sphere) m.rowwise().normalize();
}
}  // namespace

void draw_embeddings(std::size_t N, std::size_t M, std::size_t d, EmbeddingDist e_dist, EmbeddingDist u_dist,
                     Stream& s, Embeddings& out) {
  fill(out.E, N, d, e_dist, s);
  fill(out.U, M, d, u_dist, s);
}

double memory_error(const ZipfTask& task, const std::vector<double>& q, const Embeddings& emb, ErrorWorkspace& ws) {
  const auto N = static_cast<Eigen::Index>(task.N), M = static_cast<Eigen::Index>(task.M);
  const Eigen::Index d = emb.E.cols();
  if (emb.E.rows() != N || emb.U.rows() != M || emb.U.cols() != d || static_cast<Eigen::Index>(q.size()) != N)
    throw std::invalid_argument("memory_error: shapes do not match");
  // argmax is invariant to scaling q by a positive constant: normalise to max 1 so that tiny
  // weights such as p(x)^rho stay far from float underflow.
  const double qmax = *std::max_element(q.begin(), q.end());
  if (!(qmax > 0)) return 1.0;  // empty memory: every score is 0, a tie everywhere
  ws.B.setZero(M, d);
  for (Eigen::Index x = 0; x < N; ++x) {
    const double w = q[static_cast<std::size_t>(x)] / qmax;
    if (w != 0) ws.B.row(task.label[static_cast<std::size_t>(x)]) += static_cast<float>(w) * emb.E.row(x);
  }
  const MatrixRF G = emb.U * emb.U.transpose();  // M x M
  ws.C.noalias() = G * ws.B;                      // rows: c_y = sum_z <u_y, u_z> b_z
  ws.scores.resize(M, N);
  ws.scores.noalias() = ws.C * emb.E.transpose();  // the one large product (BLAS sgemm)
  double error = 0;
  for (Eigen::Index x = 0; x < N; ++x) {
    const float* s = ws.scores.col(x).data();
    const uint32_t y = task.label[static_cast<std::size_t>(x)];
    float best_other = -INFINITY;
    for (Eigen::Index z = 0; z < M; ++z)
      if (z != y) best_other = std::max(best_other, s[z]);
    if (!(s[y] > best_other)) error += task.p[static_cast<std::size_t>(x)];
  }
  return error;
}

Theorem1Bounds theorem1_bounds(const ZipfTask& task, const std::vector<double>& q, std::size_t d) {
  // Q_inf = max_y sum_{x: f*(x) = y} q(x)^2 and ||q||^2.
  std::vector<double> per_class(task.M, 0.0);
  double q2 = 0;
  for (std::size_t x = 0; x < task.N; ++x) {
    per_class[task.label[x]] += q[x] * q[x];
    q2 += q[x] * q[x];
  }
  const double Qinf = *std::max_element(per_class.begin(), per_class.end());
  const double dd = static_cast<double>(d);
  Theorem1Bounds b;
  b.lower = 0;
  for (std::size_t x = 0; x < task.N; ++x)
    if (3.0 * (dd + 1.0) * q[x] * q[x] <= Qinf) b.lower += task.p[x];
  b.lower /= 20.0;
  // Upper bound (7): inf over gamma of 2 d^-gamma + p({x : d q(x)^2 <= 16 c (Q_inf + 8 c ||q||^2 / d)}),
  // c = log M + gamma log d, on a grid of gamma in (0, 8] (step 0.02). Inputs sorted by q(x)^2 with cumulative
  // p make each gamma a binary search (this runs once per task, so it must stay cheap).
  std::vector<std::pair<double, double>> by_q2(task.N);  // (q(x)^2, p(x))
  for (std::size_t x = 0; x < task.N; ++x) by_q2[x] = {q[x] * q[x], task.p[x]};
  std::sort(by_q2.begin(), by_q2.end());
  std::vector<double> q2_sorted(task.N), cumulative(task.N + 1, 0.0);
  for (std::size_t k = 0; k < task.N; ++k) {
    q2_sorted[k] = by_q2[k].first;
    cumulative[k + 1] = cumulative[k] + by_q2[k].second;
  }
  b.upper = 1.0;
  const double log_m = std::log(static_cast<double>(task.M)), log_d = std::log(dd);
  const double step = 0.02, shrink = std::exp(-step * log_d);  // d^-gamma updated by one product
  double d_pow = 1.0;
  for (int k = 1; k <= 400; ++k) {
    const double gamma = step * k;
    d_pow *= shrink;
    const double c = log_m + gamma * log_d;
    const double cut = 16.0 * c * (Qinf + 8.0 * c * q2 / dd) / dd;  // q(x)^2 <= cut
    const auto n_below = std::upper_bound(q2_sorted.begin(), q2_sorted.end(), cut) - q2_sorted.begin();
    const double value = 2.0 * d_pow + cumulative[static_cast<std::size_t>(n_below)];
    if (value < b.upper) b.upper = value, b.gamma = gamma;
  }
  return b;
}

}  // namespace scalinglab::memory
