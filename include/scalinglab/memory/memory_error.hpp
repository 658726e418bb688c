#pragma once
// Outer-product associative memories with random embeddings (Cabannes, Dohmatob, Bietti, Sec. 2-3):
//   W_q = sum_x q(x) u_{f*(x)} e_x^T   (eq. 4),   f_q(x) = argmax_y u_y^T W_q e_x   (eq. 2),
// and the generalization error E(f_q) = sum_x p(x) 1{f_q(x) != f*(x)}   (eq. 5).
//
// Shapes (row-major, one embedding per row): E is N x d (e_x), U is M x d (u_y).
// The scores u_y^T W e_x for all (y, x) are (U U^T) B E^T with B = S E, S the M x N matrix
// S[y, x] = q(x) 1{f*(x) = y}: O(N d + M^2 d) to form C = (U U^T) B, then one GEMM of 2 M N d flops,
// never a d x d matrix. A prediction counts as correct only if the true class has the strictly
// largest score (ties, e.g. an empty memory, are errors).
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "scalinglab/core/random.hpp"
#include "scalinglab/memory/zipf_task.hpp"

namespace scalinglab::memory {

using MatrixRF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// "gaussian": entries N(0, 1/d) (norm ~ 1); "sphere": uniform on the unit sphere; "correlated":
// (z + a g) / sqrt(1 + a^2) with z and one direction g shared by every row both N(0, I/d), a =
// sqrt(rho / (1 - rho)), so that any two embeddings correlate by about rho (`correlation`, 0.9 by
// default: a = 3; a counterfactual to Theorem 1's independent embeddings).
enum class EmbeddingDist { gaussian, sphere, correlated };
EmbeddingDist parse_embedding_dist(const std::string& name);

struct Embeddings {
  MatrixRF E;  // N x d
  MatrixRF U;  // M x d
};

// Rows of E are drawn in blocks of kEmbeddingBlock rows, block b from its own substream, so that any
// block can be regenerated alone: large memories are evaluated block by block (memory O(block d))
// with exactly the embeddings a materialised E would hold.
inline constexpr std::size_t kEmbeddingBlock = 1024;

// Above this many entries of E (128 MB in float) measures evaluate the error block by block
// (memory_error_streamed) instead of holding E; both paths see the same embeddings.
inline constexpr double kMaterialisedEntries = 32.0 * 1024 * 1024;

// Bytes of one error evaluation's embeddings and products (for memory estimates): E, or one block
// of it when streamed, U, B, C, U U^T and the scores (M x N, or M x block), plus the BLAS's buffers.
double error_buffer_bytes(double N, double M, double d, bool materialised);

// Draws E and U from substreams of `s` (the caller passes a dedicated substream) into `out`,
// reusing its storage when the shapes are unchanged (no page faults on large E in repeated runs).
void draw_embeddings(std::size_t N, std::size_t M, std::size_t d, EmbeddingDist e_dist, EmbeddingDist u_dist,
                     Stream& s, Embeddings& out, double correlation = 0.9);
inline Embeddings draw_embeddings(std::size_t N, std::size_t M, std::size_t d, EmbeddingDist e_dist,
                                  EmbeddingDist u_dist, Stream& s, double correlation = 0.9) {
  Embeddings emb;
  draw_embeddings(N, M, d, e_dist, u_dist, s, emb, correlation);
  return emb;
}

// How the memory reads its stored associations: `interference` scales the cross-talk <e_x', e_x>
// (x' != x) between input embeddings in every score, 1 for the paper's memory (eq. 2), 0 for none:
// score(y, x) = c sum_x' q(x') <u_y, u_f(x')> <e_x', e_x> + (1 - c) q(x) <u_y, u_f(x)> |e_x|^2.
// c < 1 is a memory with less interference than random embeddings give, c > 1 one with more (about
// that of embeddings c^-2 times as wide): counterfactuals for claims about finite capacity.
struct Readout {
  double interference = 1.0;
};

// Scratch buffers reused across calls (allocation-free in steady state).
struct ErrorWorkspace {
  MatrixRF B, C;
  Eigen::MatrixXf scores;  // M x N, column-major: column x holds the scores of input x
  MatrixRF block;          // streamed evaluation: one block of E (first pass)
  MatrixRF U;              // streamed evaluation: the unembeddings
  std::vector<MatrixRF> worker_blocks;            // streamed evaluation: a block of E per thread
  std::vector<Eigen::MatrixXf> worker_scores;     // ... and its M x block scores
  std::vector<double> piece_errors;               // error of each piece of the scores, summed in order
};

// The scores are computed in pieces of this many inputs (kEmbeddingBlock when streamed), each one
// single-threaded product, shared among the task's threads (task_threads()): the pieces are fixed,
// so the error is bit-identical whatever the number of threads.
inline constexpr std::size_t kScorePiece = 4096;

// Error (5) of f_q for the memory W_q with weights q (length N) and labels/probabilities of `task`.
// After the call ws.scores holds all M x N scores.
double memory_error(const ZipfTask& task, const std::vector<double>& q, const Embeddings& emb, ErrorWorkspace& ws,
                    const Readout& readout = {});

// The same error for the embeddings draw_embeddings(N, M, d, e_dist, u_dist, s) would give, without
// holding E: two passes over its blocks (B = S E, then the scores), each block drawn twice.
double memory_error_streamed(const ZipfTask& task, const std::vector<double>& q, std::size_t d, EmbeddingDist e_dist,
                             EmbeddingDist u_dist, const Stream& s, ErrorWorkspace& ws, const Readout& readout = {},
                             double correlation = 0.9);

// Theorem 1's bounds for a scheme q (expectation over e ~ N(0, I), u uniform on the sphere):
// upper (7) minimised over gamma on a grid, and lower (8).
struct Theorem1Bounds {
  double lower = 0, upper = 1, gamma = 0;
};
Theorem1Bounds theorem1_bounds(const ZipfTask& task, const std::vector<double>& q, std::size_t d);

}  // namespace scalinglab::memory
