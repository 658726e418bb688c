// Embedding families and the memories built on them: coherence and Lemma 1's bound (closed forms,
// Monte Carlo), Proposition 5's tied embeddings against a brute-force decoder, and the
// counterfactual memories (lookup table, correlated embeddings) against their definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "scalinglab/core/zipf.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/memory/class_embeddings.hpp"
#include "scalinglab/memory/memory_error.hpp"
#include "scalinglab/memory/quasi_orthogonal.hpp"
#include "scalinglab/memory/zipf_task.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;

namespace {

Record eval_once(const std::string& measure, const std::map<std::string, std::string>& given, uint64_t run = 0) {
  const Measure& m = world_registry().get(measure);
  return run_task(m, resolve_params(m.params, given, measure), 7, run);
}

TEST(QuasiOrthogonal, CoherenceOfKnownFamilies) {
  EXPECT_EQ(coherence(Eigen::MatrixXd::Identity(4, 4)), 0.0);
  Eigen::MatrixXd U(2, 3);
  U << 1, 0.5, -0.6, 0, std::sqrt(0.75), 0.8;  // inner products 0.5, -0.6 and 0.39
  EXPECT_NEAR(coherence(U), 0.6, 1e-12);
  EXPECT_EQ(coherence(Eigen::MatrixXd::Ones(3, 1)), 0.0);
}

TEST(QuasiOrthogonal, ProbabilityBoundIsTheProofsFormula) {
  const double eta = 2 * std::sqrt(std::log(100.0) / 64);
  const double t = eta * eta * 64;  // = 4 log 100
  const double expected = 1 - 4950 * std::sqrt(2 / std::numbers::pi) / std::sqrt(t) * std::exp(-t / 2);
  EXPECT_NEAR(quasi_orthogonal_probability_bound(64, 100, eta), expected, 1e-12);
  // eta^2 d = 4 log P: 1 - (P-1)/(2P) sqrt(2/pi)/(2 sqrt(log P)), positive for P >= 3.
  EXPECT_NEAR(expected, 1 - 99.0 / 200 * std::sqrt(2 / std::numbers::pi) / (2 * std::sqrt(std::log(100.0))), 1e-12);
  EXPECT_EQ(quasi_orthogonal_probability_bound(8, 1000, 1.2), 1.0);  // eta >= 1: every family qualifies
  EXPECT_EQ(quasi_orthogonal_probability_bound(64, 100, 0.01), 0.0);  // the union bound says nothing
}

TEST(QuasiOrthogonal, UniformPairsHaveVarianceOneOverD) {
  Stream s(3);
  const std::size_t d = 16, P = 400;
  const Eigen::MatrixXd U = sphere_family(d, P, s);
  EXPECT_NEAR(U.colwise().norm().minCoeff(), 1.0, 1e-12);
  const Eigen::MatrixXd G = U.transpose() * U;
  double sum = 0;
  for (Eigen::Index i = 0; i < G.rows(); ++i)
    for (Eigen::Index j = 0; j < i; ++j) sum += G(i, j) * G(i, j);
  const double mean_square = sum / (P * (P - 1) / 2.0);
  EXPECT_NEAR(mean_square, 1.0 / d, 0.05 / d);  // E <u, v>^2 = 1/d on the sphere; 80k pairs
}

TEST(QuasiOrthogonal, RandomFamiliesQualifyAtLeastAsOftenAsTheBoundSays) {
  const std::size_t d = 32, P = 10;
  const double eta = 2 * std::sqrt(std::log(static_cast<double>(P)) / d);
  int ok = 0;
  const int n = 400;
  for (int r = 0; r < n; ++r) {
    Stream s(100 + r);
    ok += coherence(sphere_family(d, P, s)) <= eta;
  }
  const double p = ok / static_cast<double>(n), sem = std::sqrt(p * (1 - p) / n);
  EXPECT_GE(p, quasi_orthogonal_probability_bound(d, P, eta) - 3 * sem);
  int half = 0;  // half the lemma's eta: the union bound no longer holds and random families fail
  for (int r = 0; r < n; ++r) {
    Stream s(100 + r);
    half += coherence(sphere_family(d, P, s)) <= eta / 2;
  }
  EXPECT_LT(half, n / 10);
}

// Proposition 5 by brute force: the d x d matrix W = sum_x q0(x) u_{f(x)} e_x^T with e_x = u_{f(x)}
// (u = 0 outside the stored classes), every input decoded with explicit loops.
TEST(ClassEmbeddings, TiedMemoryMatchesABruteForceDecoder) {
  Stream labels(1);
  const ZipfTask task = make_zipf_task(40, 8, 1.5, "block", labels);
  const std::size_t d = 6, P = 3;
  Stream run(11);
  const ClassEmbeddingResult r = class_embedding_memory(task, d, P, ClassScheme::uniform, true, run);

  const std::vector<double> py = class_marginal(task);
  std::vector<std::size_t> rank(task.M);
  for (std::size_t y = 0; y < task.M; ++y) rank[y] = y;
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return py[a] > py[b]; });
  Stream u_stream = run.substream(1);  // class_embedding_memory draws the stored unembeddings there
  const Eigen::MatrixXd Us = sphere_family(d, P, u_stream);
  Eigen::MatrixXd U = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(task.M));
  for (std::size_t k = 0; k < P; ++k) U.col(static_cast<Eigen::Index>(rank[k])) = Us.col(static_cast<Eigen::Index>(k));
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  for (std::size_t x = 0; x < task.N; ++x) {
    const auto y = static_cast<Eigen::Index>(task.label[x]);
    const bool stored = U.col(y).norm() > 0;
    const double q0 = stored ? task.p[x] / py[task.label[x]] / P : 0.0;  // q(y) = 1/P on the stored classes
    W += q0 * U.col(y) * U.col(y).transpose();
  }
  double error = 0, tail = 0;
  for (std::size_t x = 0; x < task.N; ++x) {
    const auto y = static_cast<Eigen::Index>(task.label[x]);
    const Eigen::VectorXd scores = U.transpose() * (W * U.col(y));
    bool correct = true;
    for (Eigen::Index z = 0; z < scores.size(); ++z)
      if (z != y && scores(z) >= scores(y)) correct = false;
    if (!correct) error += task.p[x];
    if (U.col(y).norm() == 0) tail += task.p[x];
  }
  EXPECT_NEAR(r.error, error, 1e-12);
  EXPECT_NEAR(r.tail_mass, tail, 1e-12);
  EXPECT_NEAR(r.eta, coherence(Us), 1e-12);
  EXPECT_LE(r.error, r.bound + 1e-12);  // (49), as its proof derives it
  EXPECT_GE(r.bound, r.tail_mass);
}

TEST(ClassEmbeddings, UntiedEmbeddingsInterfereWhereTiedOnesDoNot) {
  Stream labels(1);
  const ZipfTask task = make_zipf_task(2000, 200, 2.0, "block", labels);
  Stream a(5), b(5);
  const auto tied = class_embedding_memory(task, 256, 8, ClassScheme::uniform, true, a);
  const auto untied = class_embedding_memory(task, 256, 8, ClassScheme::uniform, false, b);
  EXPECT_NEAR(tied.error, tied.tail_mass, 1e-12);  // 8 quasi-orthogonal classes in 256 dimensions: all recalled
  EXPECT_GT(untied.error, tied.error + 0.01);      // 80 random inputs crowd the same 256 dimensions
}

TEST(MemoryCounterfactuals, LookupTableErrsOnTheUnstoredMassOnly) {
  const Record r = eval_once("memory.error",
                             {{"N", "100"}, {"M", "5"}, {"alpha", "2"}, {"scheme", "threshold"}, {"P", "10"},
                              {"d", "16"}, {"memory", "table"}});
  const auto p = zipf_probabilities(100, 2.0);
  double tail = 0;
  for (std::size_t x = 10; x < 100; ++x) tail += p[x];
  EXPECT_NEAR(r.get("error"), 0.8 * tail, 1e-12);
  EXPECT_EQ(eval_once("memory.error", {{"scheme", "q0"}, {"d", "4"}, {"memory", "table"}}).get("error"), 0.0);
}

TEST(MemoryCounterfactuals, CorrelatedEmbeddingsShareADirection) {
  Stream s(9);
  Embeddings emb;
  draw_embeddings(300, 5, 128, EmbeddingDist::correlated, EmbeddingDist::sphere, s, emb);
  double sum = 0;
  int n = 0;
  for (Eigen::Index i = 0; i < 300; i += 7)
    for (Eigen::Index j = 0; j < i; j += 5, ++n)
      sum += emb.E.row(i).dot(emb.E.row(j)) / (emb.E.row(i).norm() * emb.E.row(j).norm());
  EXPECT_NEAR(sum / n, 0.9, 0.03);  // (z + 3 g) / sqrt(10): correlation 9/10
}

TEST(ZipfTask, BlockLabelsFollowTheFrequencyRanks) {
  Stream s(0);
  const ZipfTask t = make_zipf_task(10, 3, 2.0, "block", s);
  const std::vector<uint32_t> expected = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};  // floor(x M / N)
  EXPECT_EQ(t.label, expected);
  const auto py = class_marginal(t);
  EXPECT_GT(py[0], py[1]);
  EXPECT_GT(py[1], py[2]);
}

}  // namespace
