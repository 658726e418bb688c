// Proposition 5's construction. Classes are ranked by p(y) (the proof's "p(y) decreasing in y");
// scores are computed only for the stored classes, since every other class has u_y = 0 and scores 0.
#include "scalinglab/memory/class_embeddings.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "scalinglab/memory/quasi_orthogonal.hpp"

namespace scalinglab::memory {

namespace {

enum : uint64_t { kClassUStream = 1, kClassEStream = 2 };

// True when class c (0-based among the stored, score vector s over the stored classes) wins strictly.
// A class outside the stored set scores 0 like every other unstored class: a tie, counted as an error.
bool correct(const Eigen::VectorXd& s, Eigen::Index c, std::size_t unstored) {
  for (Eigen::Index y = 0; y < s.size(); ++y)
    if (y != c && s(y) >= s(c)) return false;
  return unstored == 0 || s(c) > 0;  // the unstored classes score 0
}

}  // namespace

ClassEmbeddingResult class_embedding_memory(const ZipfTask& task, std::size_t d, std::size_t P, ClassScheme scheme,
                                            bool tied, Stream& stream) {
  const std::size_t M = task.M;
  P = std::min(P, M);
  const std::vector<double> py = class_marginal(task);
  std::vector<std::size_t> rank(M);  // classes by decreasing p(y), ties to the smaller index
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return py[a] > py[b]; });
  std::vector<long> slot(M, -1);  // class -> its column among the stored, or -1
  for (std::size_t k = 0; k < P; ++k) slot[rank[k]] = static_cast<long>(k);

  std::vector<double> q(M, 0.0);  // q(y) = sum_{x: f*(x)=y} q0(x)
  for (std::size_t y = 0; y < M; ++y)
    q[y] = scheme == ClassScheme::p ? py[y] : (slot[y] >= 0 ? 1.0 / static_cast<double>(P) : 0.0);
  const double q_inf = *std::max_element(q.begin(), q.end());
  const double q_one = std::accumulate(q.begin(), q.end(), 0.0);

  Stream u_stream = stream.substream(kClassUStream);
  const Eigen::MatrixXd U = sphere_family(d, P, u_stream);  // d x P: the stored unembeddings
  ClassEmbeddingResult r;
  r.eta = coherence(U);
  const double level = 2 * r.eta * q_inf + 2 * r.eta * r.eta * q_one;
  for (std::size_t x = 0; x < task.N; ++x) {
    const std::size_t y = task.label[x];
    if (slot[y] < 0) r.tail_mass += task.p[x];
    if (slot[y] < 0 || q[y] < level) r.bound += task.p[x];
  }
  const std::size_t unstored = M - P;
  Eigen::VectorXd qs(static_cast<Eigen::Index>(P));
  for (std::size_t y = 0; y < M; ++y)
    if (slot[y] >= 0) qs(slot[y]) = q[y];
  const Eigen::MatrixXd gram = U.transpose() * U;  // P x P

  if (tied) {  // scores of class c's inputs: U^T W u_c = G diag(q) G e_c, the same for all its inputs
    const Eigen::MatrixXd S = gram * qs.asDiagonal() * gram;
    for (std::size_t x = 0; x < task.N; ++x) {
      const long c = slot[task.label[x]];
      if (c < 0 || !correct(S.col(c), c, unstored)) r.error += task.p[x];
    }
    return r;
  }
  // Untied: e_x uniform on the sphere, W = sum_x q0(x) u_{f*(x)} e_x^T = U B with B's row k the
  // q0-weighted sum of the stored class k's embeddings (q0(x) = q(y) p(x) / p(y)). Only inputs of
  // stored classes can be right; each e_x is drawn from its own substream, once to build B and once
  // to score it.
  Stream e_stream = stream.substream(kClassEStream);
  auto embedding = [&](std::size_t x) {
    Stream sx = e_stream.substream(x);
    Eigen::VectorXd e(static_cast<Eigen::Index>(d));
    sx.fill_normal(e.data(), d, 1.0);
    return Eigen::VectorXd(e.normalized());
  };
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(P), static_cast<Eigen::Index>(d));
  for (std::size_t x = 0; x < task.N; ++x) {
    const long c = slot[task.label[x]];
    if (c >= 0 && py[task.label[x]] > 0) B.row(c) += (q[task.label[x]] * task.p[x] / py[task.label[x]]) * embedding(x).transpose();
  }
  for (std::size_t x = 0; x < task.N; ++x) {
    const long c = slot[task.label[x]];
    if (c < 0) {
      r.error += task.p[x];
      continue;
    }
    const Eigen::VectorXd s = gram * (B * embedding(x));
    if (!correct(s, c, unstored)) r.error += task.p[x];
  }
  return r;
}

}  // namespace scalinglab::memory
