#include "scalinglab/memory/memory_error.hpp"

#include "scalinglab/core/parallel.hpp"
#include "scalinglab/lab/measure.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scalinglab::memory {

EmbeddingDist parse_embedding_dist(const std::string& name) {
  if (name == "gaussian") return EmbeddingDist::gaussian;
  if (name == "sphere") return EmbeddingDist::sphere;
  if (name == "correlated") return EmbeddingDist::correlated;
  throw std::invalid_argument("unknown embedding distribution: " + name);
}

namespace {

enum : uint64_t { kEStream = 1, kUStream = 2 };

// The substream of a matrix's stream holding the direction its rows share (correlated only).
constexpr uint64_t kCommonDirection = ~uint64_t{0};

// `base`: the stream of the whole matrix, whose kCommonDirection substream gives the shared direction.
void fill_rows(float* out, std::size_t rows, std::size_t d, EmbeddingDist dist, Stream& s, const Stream& base,
               double correlation) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  s.fill_normal(out, rows * d, scale);
  Eigen::Map<MatrixRF> m(out, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(d));
  if (dist == EmbeddingDist::sphere) m.rowwise().normalize();
  if (dist == EmbeddingDist::correlated) {  // (z_x + a g) / sqrt(1 + a^2): any two rows correlate by about rho
    Stream c = base.substream(kCommonDirection);
    Eigen::RowVectorXf g(static_cast<Eigen::Index>(d));
    c.fill_normal(g.data(), d, scale);
    // rho = 0.9 gives a = 3 exactly as before the parameter existed (the same draws).
    const float a = correlation == 0.9 ? 3.0f : static_cast<float>(std::sqrt(correlation / (1 - correlation)));
    m = (m.rowwise() + a * g) / std::sqrt(1 + a * a);
  }
}

// Rows [b * kEmbeddingBlock, ...) of E, `rows` of them, into `out`.
void fill_block(float* out, std::size_t b, std::size_t rows, std::size_t d, EmbeddingDist dist, const Stream& e,
                double correlation) {
  Stream block = e.substream(b);
  fill_rows(out, rows, d, dist, block, e, correlation);
}

// Scores of the inputs x0.. (columns) with the cross-talk between input embeddings scaled by c:
// c score + (1 - c) q(x)/qmax |e_x|^2 G[:, f*(x)] (Readout).
void scale_interference(Eigen::Ref<Eigen::MatrixXf> scores, const Eigen::Ref<const MatrixRF>& rows, const MatrixRF& G,
                        const ZipfTask& task, const std::vector<double>& q, double qmax, std::size_t x0, double c) {
  if (c == 1.0) return;
  for (Eigen::Index i = 0; i < scores.cols(); ++i) {
    const std::size_t x = x0 + static_cast<std::size_t>(i);
    scores.col(i) *= static_cast<float>(c);
    const double w = q[x] / qmax;
    if (w == 0) continue;
    const float self = static_cast<float>((1 - c) * w * rows.row(i).squaredNorm());
    scores.col(i) += self * G.row(task.label[x]).transpose();  // G is symmetric
  }
}

void fill_u(MatrixRF& U, std::size_t M, std::size_t d, EmbeddingDist dist, const Stream& s) {
  U.resize(static_cast<Eigen::Index>(M), static_cast<Eigen::Index>(d));
  Stream u = s.substream(kUStream);
  fill_rows(U.data(), M, d, dist, u, u, 0.9);
}

// B[f*(x)] += q(x)/qmax e_x for the rows x0.. of a block of E.
void accumulate(MatrixRF& B, const ZipfTask& task, const std::vector<double>& q, double qmax,
                const Eigen::Ref<const MatrixRF>& rows, std::size_t x0) {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const std::size_t x = x0 + static_cast<std::size_t>(i);
    const double w = q[x] / qmax;
    if (w != 0) B.row(task.label[x]) += static_cast<float>(w) * rows.row(i);
  }
}

// p-mass of the inputs x0.. whose true class does not have the strictly largest score.
double mistakes(const Eigen::Ref<const Eigen::MatrixXf>& scores, Eigen::Index cols, const ZipfTask& task,
                std::size_t x0) {
  const Eigen::Index M = scores.rows();
  double error = 0;
  for (Eigen::Index c = 0; c < cols; ++c) {
    const float* s = scores.col(c).data();
    const std::size_t x = x0 + static_cast<std::size_t>(c);
    const uint32_t y = task.label[x];
    float best_other = -INFINITY;
    for (Eigen::Index z = 0; z < M; ++z)
      if (z != y) best_other = std::max(best_other, s[z]);
    if (!(s[y] > best_other)) error += task.p[x];
  }
  return error;
}

// argmax is invariant to scaling q by a positive constant: normalise to max 1 so that tiny
// weights such as p(x)^rho stay far from float underflow.
double max_weight(const std::vector<double>& q) { return q.empty() ? 0.0 : *std::max_element(q.begin(), q.end()); }

}  // namespace

void draw_embeddings(std::size_t N, std::size_t M, std::size_t d, EmbeddingDist e_dist, EmbeddingDist u_dist,
                     Stream& s, Embeddings& out, double correlation) {
  out.E.resize(static_cast<Eigen::Index>(N), static_cast<Eigen::Index>(d));
  const Stream e = s.substream(kEStream);
  for (std::size_t b = 0, x0 = 0; x0 < N; ++b, x0 += kEmbeddingBlock)
    fill_block(out.E.data() + x0 * d, b, std::min(kEmbeddingBlock, N - x0), d, e_dist, e, correlation);
  fill_u(out.U, M, d, u_dist, s);
}

double memory_error(const ZipfTask& task, const std::vector<double>& q, const Embeddings& emb, ErrorWorkspace& ws,
                    const Readout& readout) {
  const auto N = static_cast<Eigen::Index>(task.N), M = static_cast<Eigen::Index>(task.M);
  const Eigen::Index d = emb.E.cols();
  if (emb.E.rows() != N || emb.U.rows() != M || emb.U.cols() != d || static_cast<Eigen::Index>(q.size()) != N)
    throw std::invalid_argument("memory_error: shapes do not match");
  const double qmax = max_weight(q);
  if (!(qmax > 0)) {  // empty memory: every score is 0, a tie everywhere
    ws.scores.setZero(M, N);
    return 1.0;
  }
  ws.B.setZero(M, d);
  accumulate(ws.B, task, q, qmax, emb.E, 0);
  const MatrixRF G = emb.U * emb.U.transpose();  // M x M
  ws.C.noalias() = G * ws.B;                      // rows: c_y = sum_z <u_y, u_z> b_z
  ws.scores.resize(M, N);
  const auto piece = static_cast<Eigen::Index>(kScorePiece);
  const auto pieces = static_cast<std::size_t>((N + piece - 1) / piece);
  ws.piece_errors.assign(pieces, 0.0);
  parallel_for(pieces, task_threads(), [&](std::size_t k, int) {  // the large product (BLAS sgemm), in pieces
    const Eigen::Index x0 = static_cast<Eigen::Index>(k) * piece, cols = std::min(piece, N - x0);
    ws.scores.middleCols(x0, cols).noalias() = ws.C * emb.E.middleRows(x0, cols).transpose();
    scale_interference(ws.scores.middleCols(x0, cols), emb.E.middleRows(x0, cols), G, task, q, qmax,
                       static_cast<std::size_t>(x0), readout.interference);
    ws.piece_errors[k] = mistakes(ws.scores.middleCols(x0, cols), cols, task, static_cast<std::size_t>(x0));
  });
  double error = 0;
  for (double e : ws.piece_errors) error += e;
  return error;
}

double memory_error_streamed(const ZipfTask& task, const std::vector<double>& q, std::size_t d, EmbeddingDist e_dist,
                             EmbeddingDist u_dist, const Stream& s, ErrorWorkspace& ws, const Readout& readout,
                             double correlation) {
  const std::size_t N = task.N;
  const auto M = static_cast<Eigen::Index>(task.M), D = static_cast<Eigen::Index>(d);
  if (q.size() != N) throw std::invalid_argument("memory_error_streamed: shapes do not match");
  const double qmax = max_weight(q);
  if (!(qmax > 0)) return 1.0;
  fill_u(ws.U, task.M, d, u_dist, s);
  const Stream e = s.substream(kEStream);
  ws.block.resize(static_cast<Eigen::Index>(kEmbeddingBlock), D);
  ws.B.setZero(M, D);
  for (std::size_t b = 0, x0 = 0; x0 < N; ++b, x0 += kEmbeddingBlock) {
    const std::size_t rows = std::min(kEmbeddingBlock, N - x0);
    // Blocks with nothing stored add nothing to B (common: a threshold scheme stores few inputs).
    if (std::all_of(q.begin() + static_cast<std::ptrdiff_t>(x0), q.begin() + static_cast<std::ptrdiff_t>(x0 + rows),
                    [](double w) { return w == 0; }))
      continue;
    fill_block(ws.block.data(), b, rows, d, e_dist, e, correlation);
    accumulate(ws.B, task, q, qmax, ws.block.topRows(static_cast<Eigen::Index>(rows)), x0);
  }
  const MatrixRF G = ws.U * ws.U.transpose();
  ws.C.noalias() = G * ws.B;
  // Second pass: each block of E drawn again and scored, the blocks shared among the task's threads.
  const std::size_t blocks = (N + kEmbeddingBlock - 1) / kEmbeddingBlock;
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(task_threads()), blocks));
  ws.worker_blocks.resize(static_cast<std::size_t>(workers));
  ws.worker_scores.resize(static_cast<std::size_t>(workers));
  ws.piece_errors.assign(blocks, 0.0);
  parallel_for(blocks, workers, [&](std::size_t b, int w) {
    const std::size_t x0 = b * kEmbeddingBlock;
    const auto rows = static_cast<Eigen::Index>(std::min(kEmbeddingBlock, N - x0));
    MatrixRF& block = ws.worker_blocks[static_cast<std::size_t>(w)];
    Eigen::MatrixXf& scores = ws.worker_scores[static_cast<std::size_t>(w)];
    block.resize(static_cast<Eigen::Index>(kEmbeddingBlock), D);
    scores.resize(M, static_cast<Eigen::Index>(kEmbeddingBlock));
    fill_block(block.data(), b, static_cast<std::size_t>(rows), d, e_dist, e, correlation);
    scores.leftCols(rows).noalias() = ws.C * block.topRows(rows).transpose();
    scale_interference(scores.leftCols(rows), block.topRows(rows), G, task, q, qmax, x0, readout.interference);
    ws.piece_errors[b] = mistakes(scores.leftCols(rows), rows, task, x0);
  });
  double error = 0;
  for (double v : ws.piece_errors) error += v;
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

double error_buffer_bytes(double N, double M, double d, bool materialised) {
  // Streamed: the first pass's block and one block and its scores per thread of the task.
  const double threads = resolve_threads(0);
  const double rows = materialised ? N : std::min(N, static_cast<double>(kEmbeddingBlock) * (1 + threads));
  return 4 * (rows * d + 3 * M * d + M * M + M * rows) + kProductWorkspaceBytes;
}

}  // namespace scalinglab::memory
