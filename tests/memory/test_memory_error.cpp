#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/stats.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/memory/memory_error.hpp"
#include "scalinglab/memory/memory_scheme.hpp"
#include "scalinglab/memory/zipf_task.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;

namespace {
// Independent reference: build the d x d matrix W_q = sum_x q(x) u_{f(x)} e_x^T in double and
// decode every input with explicit loops.
double brute_force_error(const ZipfTask& t, const std::vector<double>& q, const Embeddings& emb) {
  const std::size_t d = static_cast<std::size_t>(emb.E.cols());
  std::vector<double> W(d * d, 0.0);
  for (std::size_t x = 0; x < t.N; ++x)
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j < d; ++j)
        W[i * d + j] += q[x] * emb.U(t.label[x], static_cast<Eigen::Index>(i)) * emb.E(static_cast<Eigen::Index>(x), static_cast<Eigen::Index>(j));
  double err = 0;
  for (std::size_t x = 0; x < t.N; ++x) {
    std::vector<double> We(d, 0.0);
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j < d; ++j) We[i] += W[i * d + j] * emb.E(static_cast<Eigen::Index>(x), static_cast<Eigen::Index>(j));
    std::vector<double> score(t.M, 0.0);
    for (std::size_t y = 0; y < t.M; ++y)
      for (std::size_t i = 0; i < d; ++i) score[y] += emb.U(static_cast<Eigen::Index>(y), static_cast<Eigen::Index>(i)) * We[i];
    bool correct = true;
    for (std::size_t y = 0; y < t.M; ++y)
      if (y != t.label[x] && score[y] >= score[t.label[x]]) correct = false;
    if (!correct) err += t.p[x];
  }
  return err;
}
}  // namespace

TEST(MemoryError, MatchesBruteForceOnTinyCases) {
  int compared = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Stream s(seed);
    const std::size_t N = 5 + seed % 9, M = 2 + seed % 4, d = 2 + seed % 6;
    Stream ls = s.substream(0);
    const ZipfTask t = make_zipf_task(N, M, 0.5 + 0.1 * static_cast<double>(seed % 20), seed % 2 ? "mod" : "random", ls);
    std::vector<double> q(N);
    for (auto& v : q) v = s.uniform() < 0.2 ? 0.0 : s.uniform();
    Stream es = s.substream(1);
    const Embeddings emb = draw_embeddings(N, M, d, seed % 3 ? EmbeddingDist::gaussian : EmbeddingDist::sphere,
                                           EmbeddingDist::sphere, es);
    ErrorWorkspace ws;
    EXPECT_NEAR(memory_error(t, q, emb, ws), brute_force_error(t, q, emb), 1e-12) << "seed " << seed;
    ++compared;
  }
  EXPECT_EQ(compared, 40);
}

TEST(MemoryError, EmptyMemoryIsAllErrors) {
  Stream s(1);
  const ZipfTask t = make_zipf_task(10, 3, 1.0, "mod", s);
  const Embeddings emb = draw_embeddings(10, 3, 8, EmbeddingDist::gaussian, EmbeddingDist::sphere, s);
  ErrorWorkspace ws;
  EXPECT_DOUBLE_EQ(memory_error(t, std::vector<double>(10, 0.0), emb, ws), 1.0);
}

TEST(MemoryError, LargeMemoryStoresEverything) {
  // d >> N: random embeddings are nearly orthogonal, q0 decodes every input.
  Stream s(2);
  const ZipfTask t = make_zipf_task(20, 5, 1.0, "mod", s);
  const Embeddings emb = draw_embeddings(20, 5, 4000, EmbeddingDist::gaussian, EmbeddingDist::sphere, s);
  ErrorWorkspace ws;
  EXPECT_DOUBLE_EQ(memory_error(t, std::vector<double>(20, 1.0), emb, ws), 0.0);
}

TEST(MemoryScheme, EmpiricalWeights) {
  const std::vector<uint64_t> counts = {5, 0, 3, 3, 1};  // T = 12
  auto q0 = scheme_weights({Scheme::q0, 0, 0}, counts);
  EXPECT_EQ(q0, (std::vector<double>{1, 0, 1, 1, 1}));
  auto q1 = scheme_weights({Scheme::rho, 1.0, 0}, counts);
  EXPECT_DOUBLE_EQ(q1[0], 5.0 / 12);
  EXPECT_DOUBLE_EQ(q1[1], 0.0);
  EXPECT_DOUBLE_EQ(q1[4], 1.0 / 12);
  EXPECT_EQ(scheme_weights({Scheme::rho, 0.0, 0}, counts), q0);  // rho = 0 is q0
  // Top-2 by count: x = 0 (5), then the tie 2/3 (3, 3) goes to the smaller index.
  auto th = scheme_weights({Scheme::threshold, 0.0, 2}, counts);
  EXPECT_EQ(th, (std::vector<double>{1, 0, 1, 0, 0}));
  // P larger than the number of seen inputs never stores unseen ones.
  auto all = scheme_weights({Scheme::threshold, 0.0, 10}, counts);
  EXPECT_EQ(all, q0);
}

TEST(MemoryScheme, PopulationWeights) {
  const std::vector<double> p = {0.5, 0.3, 0.2};
  EXPECT_EQ(scheme_weights_population({Scheme::q0, 0, 0}, p), (std::vector<double>{1, 1, 1}));
  auto q = scheme_weights_population({Scheme::rho, 2.0, 0}, p);
  EXPECT_DOUBLE_EQ(q[1], 0.09);
  EXPECT_EQ(scheme_weights_population({Scheme::threshold, 0.0, 2}, p), (std::vector<double>{1, 1, 0}));
}

TEST(MemoryMeasure, DeterministicPerSeedAndRun) {
  const Measure& m = world_registry().get("memory.error");
  const Params prm = resolve_params(m.params, {{"N", "200"}, {"d", "32"}, {"T", "500"}, {"scheme", "q0"}}, "test");
  const Record a = run_task(m, prm, 7, 0), b = run_task(m, prm, 7, 0), c = run_task(m, prm, 7, 1);
  EXPECT_EQ(a.get("error"), b.get("error"));
  EXPECT_NE(a.get("error"), c.get("error"));
}

TEST(MemoryMeasure, Theorem1BoundsHoldOnAverage) {
  // E_{e,u}[error] must lie between (8) and (7): q0 and q = p at T = inf, N = 100, M = 5, alpha = 2.
  const Measure& m = world_registry().get("memory.error");
  for (const char* scheme : {"q0", "rho"}) {
    for (const char* d : {"8", "64", "512"}) {
      const Params prm = resolve_params(
          m.params, {{"d", d}, {"scheme", scheme}, {"rho", "1"}, {"T", "inf"}, {"e_dist", "gaussian"}}, "test");
      Summary err;
      double lower = 0, upper = 0;
      for (uint64_t r = 0; r < 200; ++r) {
        const Record rec = run_task(m, prm, 3, r);
        err.add(rec.get("error"));
        lower = rec.get("bound_lower");
        upper = rec.get("bound_upper");
      }
      EXPECT_GE(err.mean + 3 * err.sem(), lower) << scheme << " d=" << d;
      EXPECT_LE(err.mean - 3 * err.sem(), upper) << scheme << " d=" << d;
    }
  }
}

TEST(MemoryError, StreamedEvaluationMatchesMaterialised) {
  // Block-by-block evaluation (large memories) sees exactly the embeddings a materialised E holds.
  for (uint64_t seed = 0; seed < 4; ++seed) {
    const std::size_t N = 3 * kEmbeddingBlock + 17 * (seed + 1), M = 7, d = 48;
    Stream s(seed);
    Stream ls = s.substream(0);
    const ZipfTask t = make_zipf_task(N, M, 1.1, "random", ls);
    std::vector<double> q(N);
    for (std::size_t x = 0; x < N; ++x) q[x] = x % 3 ? t.p[x] : 0.0;
    const EmbeddingDist e = seed % 2 ? EmbeddingDist::sphere : EmbeddingDist::gaussian;
    Stream es = s.substream(1);
    const Embeddings emb = draw_embeddings(N, M, d, e, EmbeddingDist::sphere, es);
    ErrorWorkspace a, b;
    const double full = memory_error(t, q, emb, a);
    const double streamed = memory_error_streamed(t, q, d, e, EmbeddingDist::sphere, s.substream(1), b);
    EXPECT_GT(full, 0.0);
    // Block and whole-matrix GEMMs may round differently; only an exact near-tie could flip.
    EXPECT_NEAR(streamed, full, 1e-6) << "seed " << seed;
  }
}
