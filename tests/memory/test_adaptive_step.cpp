// The two-pass Adam / signSGD step against the step by definition (the full gradient from
// loss_and_gradient, then Optimizer::step), over several steps so that the moments matter.
#include <gtest/gtest.h>

#include <algorithm>

#include "scalinglab/core/random.hpp"
#include "scalinglab/memory/adaptive_step.hpp"
#include "scalinglab/memory/training.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;

namespace {

ModelParams random_params(Eigen::Index N, Eigen::Index M, Eigen::Index d, uint64_t seed) {
  Stream s(seed);
  ModelParams p;
  p.W.resize(d, d), p.E.resize(N, d), p.U.resize(M, d);
  s.fill_normal(p.W.data(), static_cast<std::size_t>(d * d), 0.5);
  s.fill_normal(p.E.data(), static_cast<std::size_t>(N * d), 0.5);
  s.fill_normal(p.U.data(), static_cast<std::size_t>(M * d), 0.5);
  return p;
}

double max_diff(const MatrixRD& a, const MatrixRD& b) { return (a - b).cwiseAbs().maxCoeff(); }

struct Batch {
  std::vector<uint32_t> xs, ys;
  std::vector<double> w;
};

// Distinct inputs (as train_memory compacts them), labels x mod M, weights summing to 1.
Batch batch_of(std::size_t step, uint32_t N, uint32_t M) {
  Batch b;
  const uint32_t first = static_cast<uint32_t>(step * 3) % N;
  const std::size_t k = 1 + step % 6;
  for (std::size_t i = 0; i < k; ++i) {
    const uint32_t x = (first + static_cast<uint32_t>(i * 2)) % N;
    if (std::find(b.xs.begin(), b.xs.end(), x) != b.xs.end()) continue;
    b.xs.push_back(x), b.ys.push_back(x % M), b.w.push_back(1.0 + static_cast<double>(i));
  }
  double total = 0;
  for (double v : b.w) total += v;
  for (double& v : b.w) v /= total;
  return b;
}

}  // namespace

TEST(AdaptiveStep, EqualsTheFullGradientStepForEveryModelAndOptimizer) {
  // d = 37: the vector body, the scalar columns and a last block of rows smaller than the others.
  const Eigen::Index N = 13, M = 5, d = 37;
  const std::vector<OptimizerSpec> optimizers = {{OptimizerKind::adam, 0.9, 0.9, 0.999, 1e-8},
                                                 {OptimizerKind::adam, 0.9, 0.0, 0.0, 1e-8},
                                                 {OptimizerKind::signsgd, 0.9, 0.9, 0.999, 1e-8},
                                                 {OptimizerKind::adam, 0.3, 0.5, 0.9, 1e-3, false}};
  for (ModelKind kind : {ModelKind::matrix, ModelKind::learnable}) {
    for (bool ln : {false, true}) {
      for (const OptimizerSpec& o : optimizers) {
        const ModelSpec spec{kind, ln};
        ASSERT_TRUE(adaptive_step_applies(spec, o));
        ModelParams ref = random_params(N, M, d, 7 + static_cast<uint64_t>(kind) + (ln ? 10 : 0));
        ModelParams fused = ref;
        Optimizer opt_ref(o, spec, ref), opt_fused(o, spec, fused);
        for (std::size_t t = 0; t < 6; ++t) {
          const Batch b = batch_of(t, N, M);
          const double scale = 1.0 / (1.0 + static_cast<double>(t));
          ModelParams g;
          const double loss = loss_and_gradient(spec, ref, b.xs, b.ys, b.w, &g);
          opt_ref.step(ref, g, scale);
          const ModelParams before = fused;
          EXPECT_NEAR(adaptive_step(spec, fused, opt_fused, b.xs, b.ys, b.w, scale), loss, 1e-13);
          const std::string where = "model " + std::to_string(int(kind)) + " ln " + std::to_string(ln) + " beta1 " +
                                    std::to_string(o.beta1) + " step " + std::to_string(t);
          // The steps are O(lr / d) to O(lr / sqrt(d)); rounding of the sums leaves ~1e-16.
          EXPECT_LT(max_diff(fused.W, ref.W), 1e-13) << where;
          EXPECT_LT(max_diff(fused.E, ref.E), 1e-13) << where;
          EXPECT_LT(max_diff(fused.U, ref.U), 1e-13) << where;
          EXPECT_GT(max_diff(fused.W, before.W), 1e-3) << where;  // the step did move W
          if (kind == ModelKind::matrix) {
            EXPECT_EQ(max_diff(fused.E, before.E), 0.0) << where;
          }
        }
      }
    }
  }
}

TEST(AdaptiveStep, WithoutMomentsOnlyTheTouchedEmbeddingsMoveAndWithMomentsAllDo) {
  const Eigen::Index N = 9, M = 3, d = 8;
  const ModelSpec spec{ModelKind::learnable, false};
  for (const OptimizerSpec& o :
       {OptimizerSpec{OptimizerKind::signsgd, 1.0, 0, 0, 1e-8}, OptimizerSpec{OptimizerKind::adam, 1.0, 0.9, 0.99, 1e-8}}) {
    ModelParams p = random_params(N, M, d, 3);
    Optimizer opt(o, spec, p);
    adaptive_step(spec, p, opt, {1, 4}, {1, 1}, {0.5, 0.5}, 1.0);  // rows 1 and 4 get moments
    const ModelParams before = p;
    adaptive_step(spec, p, opt, {2}, {2}, {1.0}, 1.0);
    for (Eigen::Index x = 0; x < N; ++x) {
      const double moved = (p.E.row(x) - before.E.row(x)).cwiseAbs().maxCoeff();
      if (x == 2) {
        EXPECT_GT(moved, 0.0);
      } else if (o.beta1 == 0) {
        EXPECT_EQ(moved, 0.0) << x;  // exact: g / (|g| + eps) = 0
      } else if (x == 1 || x == 4) {
        EXPECT_GT(moved, 0.0) << x;  // their first moments still push them
      } else {
        EXPECT_EQ(moved, 0.0) << x;  // never touched: zero moments
      }
    }
  }
}

TEST(AdaptiveStep, TrainingGivesTheErrorAndLossOfTheStepByDefinition) {
  // A whole single-pass training run, learned embeddings, at betas 0 (the paper's Adam) and at the
  // defaults: the two-pass step against the full-gradient step, same draws.
  for (double beta : {0.0, 0.9}) {
    TrainSpec spec;
    spec.N = 40, spec.M = 5, spec.d = 24, spec.batch = 8, spec.T = 800, spec.curve_points = 4;
    spec.model.kind = ModelKind::learnable;
    spec.optimizer = {OptimizerKind::adam, 1.0, beta, beta > 0 ? 0.999 : 0.0, 1e-8};
    Stream a(5), b(5);
    const TrainResult fused = train_memory(spec, a);
    spec.fused_adaptive = false;
    const TrainResult definition = train_memory(spec, b);
    EXPECT_EQ(fused.error, definition.error) << beta;
    EXPECT_EQ(fused.curve_error, definition.curve_error) << beta;
    EXPECT_NEAR(fused.loss, definition.loss, 1e-10 * definition.loss) << beta;
    EXPECT_LT(fused.error, 0.5) << beta;  // it learned something: the comparison is not of two untrained memories
  }
}
