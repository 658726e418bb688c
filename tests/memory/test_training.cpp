// Trainable memories: gradients against finite differences, optimizer steps against hand-computed
// values, schedules, and deterministic training.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "scalinglab/core/stats.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/memory/associative_model.hpp"
#include "scalinglab/memory/optimizer.hpp"
#include "scalinglab/memory/training.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;

namespace {

ModelParams random_params(std::size_t N, std::size_t M, std::size_t d, uint64_t seed) {
  Stream s(seed);
  ModelParams p;
  p.W.resize(d, d);
  p.E.resize(N, d);
  p.U.resize(M, d);
  s.fill_normal(p.W.data(), d * d, 0.7);
  s.fill_normal(p.E.data(), N * d, 0.7);
  s.fill_normal(p.U.data(), M * d, 0.7);
  return p;
}

// Central differences of the loss with respect to every entry of one tensor.
MatrixRD numeric_gradient(const ModelSpec& spec, ModelParams p, MatrixRD ModelParams::*tensor,
                          const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys,
                          const std::vector<double>& w) {
  const double h = 1e-6;
  MatrixRD g((p.*tensor).rows(), (p.*tensor).cols());
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    const double keep = (p.*tensor).data()[i];
    (p.*tensor).data()[i] = keep + h;
    const double up = loss_and_gradient(spec, p, xs, ys, w, nullptr);
    (p.*tensor).data()[i] = keep - h;
    const double down = loss_and_gradient(spec, p, xs, ys, w, nullptr);
    (p.*tensor).data()[i] = keep;
    g.data()[i] = (up - down) / (2 * h);
  }
  return g;
}

}  // namespace

TEST(AssociativeModel, GradientsMatchFiniteDifferences) {
  const std::size_t N = 6, M = 4, d = 5;
  // A batch with repeated inputs and unequal weights.
  const std::vector<uint32_t> xs = {0, 3, 3, 5, 1}, ys = {1, 0, 0, 3, 2};
  const std::vector<double> w = {0.1, 0.3, 0.2, 0.25, 0.15};
  int checked = 0;
  for (ModelKind kind : {ModelKind::matrix, ModelKind::learnable, ModelKind::relu}) {
    for (bool ln : {false, true}) {
      ModelSpec spec{kind, ln};
      const ModelParams p = random_params(N, M, d, 7 + static_cast<uint64_t>(kind) * 2 + ln);
      ModelParams g;
      loss_and_gradient(spec, p, xs, ys, w, &g);
      auto compare = [&](MatrixRD ModelParams::*t, bool learned, const char* name) {
        const MatrixRD num = numeric_gradient(spec, p, t, xs, ys, w);
        if (learned) {
          EXPECT_LT(((g.*t) - num).cwiseAbs().maxCoeff(), 1e-7) << name << " model " << int(kind) << " ln " << ln;
          EXPECT_GT(num.cwiseAbs().maxCoeff(), 1e-3);  // the check is not vacuous
          ++checked;
        } else {
          EXPECT_EQ((g.*t).cwiseAbs().maxCoeff(), 0.0) << name << " is not learned";
        }
      };
      compare(&ModelParams::W, spec.learns_W(), "W");
      compare(&ModelParams::E, spec.learns_E(), "E");
      compare(&ModelParams::U, spec.learns_U(), "U");
    }
  }
  EXPECT_EQ(checked, 2 * (1 + 3 + 2));
}

TEST(AssociativeModel, LossIsCrossEntropyOfTheLogits) {
  const ModelSpec spec{ModelKind::matrix, false};
  const ModelParams p = random_params(3, 2, 2, 1);
  const MatrixRD Z = all_logits(spec, p);
  const double expect = 0.5 * (std::log(std::exp(Z(1, 0)) + std::exp(Z(1, 1))) - Z(1, 1)) +
                        0.5 * (std::log(std::exp(Z(2, 0)) + std::exp(Z(2, 1))) - Z(2, 0));
  EXPECT_NEAR(loss_and_gradient(spec, p, {1, 2}, {1, 0}, {0.5, 0.5}, nullptr), expect, 1e-12);
}

TEST(Optimizer, SgdAndAdamStepsByHand) {
  ModelSpec spec{ModelKind::matrix, false};
  ModelParams p, g;
  p.W = MatrixRD::Constant(4, 4, 1.0);  // d = 4
  p.E = MatrixRD::Zero(2, 4);
  p.U = MatrixRD::Zero(2, 4);
  g.W = MatrixRD::Zero(4, 4);
  g.W(0, 0) = 2.0;
  g.W(1, 2) = -0.5;
  g.E = MatrixRD::Ones(2, 4);  // not learned by the matrix model: must not move E
  g.U = MatrixRD::Ones(2, 4);
  {
    ModelParams q = p;
    Optimizer sgd({OptimizerKind::sgd, 0.1}, spec, q);
    sgd.step(q, g, 1.0);
    EXPECT_DOUBLE_EQ(q.W(0, 0), 1.0 - 0.1 * 2.0);
    EXPECT_DOUBLE_EQ(q.W(1, 2), 1.0 + 0.1 * 0.5);
    EXPECT_DOUBLE_EQ(q.W(3, 3), 1.0);
    EXPECT_EQ(q.E.cwiseAbs().sum(), 0.0);
    sgd.step(q, g, 0.5);  // schedule factor halves the step
    EXPECT_DOUBLE_EQ(q.W(0, 0), 1.0 - 0.1 * 2.0 - 0.05 * 2.0);
  }
  {
    // betas (0, 0): signSGD with step lr/d on W.
    ModelParams q = p;
    Optimizer adam({OptimizerKind::adam, 0.8, 0.0, 0.0, 1e-8}, spec, q);
    adam.step(q, g, 1.0);
    EXPECT_NEAR(q.W(0, 0), 1.0 - 0.2 * 2.0 / (2.0 + 1e-8), 1e-15);
    EXPECT_NEAR(q.W(1, 2), 1.0 + 0.2 * 0.5 / (0.5 + 1e-8), 1e-15);
    EXPECT_DOUBLE_EQ(q.W(3, 3), 1.0);  // zero gradient: 0 / (0 + eps)
  }
  {
    // betas (0.9, 0.999), two steps with bias correction, computed by hand for one entry.
    ModelParams q = p;
    Optimizer adam({OptimizerKind::adam, 4.0, 0.9, 0.999, 1e-8}, spec, q);  // lr/d = 1
    adam.step(q, g, 1.0);
    double m = 0.1 * 2.0, v = 0.001 * 4.0;
    double theta = 1.0 - (m / 0.1) / (std::sqrt(v / 0.001) + 1e-8);
    EXPECT_NEAR(q.W(0, 0), theta, 1e-12);
    adam.step(q, g, 1.0);
    m = 0.9 * m + 0.1 * 2.0;
    v = 0.999 * v + 0.001 * 4.0;
    theta -= (m / (1 - 0.81)) / (std::sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
    EXPECT_NEAR(q.W(0, 0), theta, 1e-12);
  }
}

// d = 16 learnable model at zero, gradients +1 on W and U, -1 on E.
std::pair<ModelParams, ModelParams> learnable_zero_params_and_unit_grads() {
  ModelParams p, g;
  p.W = MatrixRD::Zero(16, 16);
  p.E = MatrixRD::Zero(3, 16);
  p.U = MatrixRD::Zero(2, 16);
  g = p;
  g.W.setConstant(1.0);
  g.E.setConstant(-1.0);
  g.U.setConstant(1.0);
  return {p, g};
}

TEST(Optimizer, AdamScalesEmbeddingStepsBySqrtD) {
  ModelSpec spec{ModelKind::learnable, false};
  auto [p, g] = learnable_zero_params_and_unit_grads();
  Optimizer adam({OptimizerKind::adam, 1.0, 0.0, 0.0, 0.0}, spec, p);
  adam.step(p, g, 1.0);
  EXPECT_DOUBLE_EQ(p.W(0, 0), -1.0 / 16);
  EXPECT_DOUBLE_EQ(p.E(0, 0), 1.0 / 4);
  EXPECT_DOUBLE_EQ(p.U(1, 3), -1.0 / 4);
}

TEST(Schedule, Factors) {
  ScheduleSpec c;
  EXPECT_EQ(c.factor(123), 1.0);
  ScheduleSpec s{ScheduleKind::step, 10, 0.5, 100};
  EXPECT_EQ(s.factor(9), 1.0);
  EXPECT_EQ(s.factor(10), 0.5);
  EXPECT_EQ(s.factor(25), 0.25);
  ScheduleSpec cos{ScheduleKind::cosine, 1, 0.5, 100};
  EXPECT_DOUBLE_EQ(cos.factor(0), 1.0);
  EXPECT_NEAR(cos.factor(50), 0.5, 1e-15);
  EXPECT_NEAR(cos.factor(100), 0.0, 1e-15);
}

TEST(Training, CurveScheduleIsLogSpacedAndEndsAtTheLastStep) {
  const auto c = curve_schedule(1000, 4);
  EXPECT_EQ(c, (std::vector<long>{1, 10, 100, 1000}));
  const auto d = curve_schedule(5, 20);  // more points than steps: each step once
  EXPECT_EQ(d, (std::vector<long>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(curve_schedule(10, 0).empty());
}

TEST(Training, DeterministicWhateverTheThreads) {
  const Measure& m = world_registry().get("memory.train");
  const Params prm = resolve_params(m.params, {{"N", "30"}, {"d", "12"}, {"T", "300"}, {"batch", "4"},
                                               {"optimizer", "adam"}, {"runs", "6"}, {"curve", "3"}}, "test");
  const auto one = evaluate(m, prm, 1), two = evaluate(m, prm, 2);
  EXPECT_EQ(one.dump(), two.dump());
  EXPECT_EQ(one["metrics"]["updates"]["mean"], 75.0);
}

// A batch past the T samples is one batch of all of them: one step, as batch = T (a batch of
// 1e20 once overflowed the step count to 0 updates).
TEST(Training, ABatchLargerThanTheSamplesIsOneBatchOfAll) {
  const Measure& m = world_registry().get("memory.train");
  auto run = [&](const std::string& batch) {
    return evaluate(m, resolve_params(m.params, {{"N", "30"}, {"d", "12"}, {"T", "300"}, {"batch", batch}}, "test"), 1);
  };
  EXPECT_EQ(run("1e20")["metrics"]["updates"]["mean"], 1.0);
  EXPECT_EQ(run("300")["metrics"]["updates"]["mean"], 1.0);
  const Measure& approx = world_registry().get("memory.sgd_approx");
  auto run_approx = [&](const std::string& batch) {
    return evaluate(approx, resolve_params(approx.params, {{"N", "30"}, {"T", "300"}, {"batch", batch}}, "test"), 1);
  };
  EXPECT_EQ(run_approx("1e20")["metrics"]["updates"]["mean"], 1.0);
  // Counts too large for 64 bits are refused, not wrapped.
  EXPECT_THROW(evaluate(m, resolve_params(m.params, {{"T", "1e19"}}, "test"), 1), InputError);
}

TEST(Training, LearnsTheAssociationsWhenMemoryIsLarge) {
  // d >> N, plenty of data, large step: SGD stores every association (Sec. 4, Fig. 4).
  Stream s(3);
  TrainSpec spec;
  spec.N = 20;
  spec.M = 5;
  spec.d = 200;
  spec.alpha = 0.5;
  spec.optimizer.lr = 10;
  spec.T = 3000;
  spec.batch = 1;
  const TrainResult r = train_memory(spec, s);
  EXPECT_EQ(r.error, 0.0);
  EXPECT_LT(r.loss, 0.05);
}

TEST(Training, SpanUpdateMatchesTheDensePath) {
  // W_t - W_0 stays in span{u_z e_x^T}: the O(M N) update must reproduce dense SGD.
  for (double batch : {1.0, 8.0, std::numeric_limits<double>::infinity()}) {
    TrainSpec spec;
    spec.N = 40;
    spec.M = 4;
    spec.d = 16;
    spec.alpha = 1.0;
    spec.optimizer.lr = 3.0;
    spec.T = 400;
    spec.batch = batch;
    spec.population_steps = 30;
    spec.curve_points = 4;
    spec.schedule.kind = ScheduleKind::cosine;
    ASSERT_TRUE(uses_span_update(spec));
    Stream a(11), b(11);
    const TrainResult fast = train_memory(spec, a);
    spec.span_update = false;
    ASSERT_FALSE(uses_span_update(spec));
    const TrainResult dense = train_memory(spec, b);
    EXPECT_EQ(fast.steps, dense.steps);
    EXPECT_NEAR(fast.loss, dense.loss, 1e-9 * std::max(1.0, dense.loss)) << "batch " << batch;
    EXPECT_EQ(fast.error, dense.error) << "batch " << batch;
    EXPECT_EQ(fast.curve_error, dense.curve_error) << "batch " << batch;
    EXPECT_GT(dense.curve_error.front(), dense.curve_error.back());  // it learnt something
  }
}

TEST(AssociativeModel, SecondMomentOfPerExampleGradients) {
  // sum_i w_i g_i^2 from one call equals the sum over single-example calls.
  for (bool ln : {false, true}) {
    const ModelSpec spec{ModelKind::matrix, ln};
    const ModelParams p = random_params(5, 3, 4, 21);
    const std::vector<uint32_t> xs = {0, 2, 2, 4}, ys = {1, 0, 2, 1};
    const std::vector<double> w = {0.4, 0.1, 0.3, 0.2};
    ModelParams g;
    MatrixRD second;
    loss_and_gradient(spec, p, xs, ys, w, &g, &second);
    MatrixRD expect = MatrixRD::Zero(4, 4);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      ModelParams gi;
      loss_and_gradient(spec, p, {xs[i]}, {ys[i]}, {1.0}, &gi);
      expect += w[i] * gi.W.cwiseAbs2();
    }
    EXPECT_LT((second - expect).cwiseAbs().maxCoeff(), 1e-12) << "ln " << ln;
  }
}

TEST(Optimizer, NormalizedSgdDividesByTheGradientStd) {
  ModelSpec spec{ModelKind::matrix, false};
  ModelParams p, g;
  p.W = MatrixRD::Zero(2, 2);
  p.E = MatrixRD::Zero(1, 2);
  p.U = MatrixRD::Zero(1, 2);
  g.W = MatrixRD::Constant(2, 2, 0.5);
  MatrixRD second = MatrixRD::Constant(2, 2, 0.5 * 0.5 + 0.04);  // variance 0.04, std 0.2
  Optimizer opt({OptimizerKind::sgd_normalized, 0.1, 0, 0, 1e-12}, spec, p);
  opt.step(p, g, 1.0, &second);
  EXPECT_NEAR(p.W(0, 0), -0.1 * 0.5 / 0.2, 1e-9);
}

TEST(Training, ApproximationTracksSgdWhenMemoryIsLarge) {
  // Section 4: with d >> N and W_0 = 0, the scheme of the approximate update (20), followed on the
  // same samples and embeddings, errs like SGD; with d << N it does not.
  auto gap = [](std::size_t d) {
    Summary g, e;
    for (uint64_t seed = 0; seed < 20; ++seed) {
      TrainSpec spec;
      spec.d = d;
      spec.T = 1000;
      spec.track_approx = true;
      spec.zero_init_w = true;
      Stream s(seed);
      const TrainResult r = train_memory(spec, s);
      g.add(r.approx_error - r.error);
      e.add(r.error);
    }
    return std::pair<double, double>{g.mean, e.mean};
  };
  const auto [large_gap, large_error] = gap(1000);
  EXPECT_LT(std::fabs(large_gap), 0.1 * large_error) << large_gap << " vs error " << large_error;
  const auto [small_gap, small_error] = gap(10);
  EXPECT_GT(small_gap, 0.05) << "error " << small_error;
}

TEST(Training, KeptEmbeddingsAndFeaturesReproduceTheReportedError) {
  // The pictures of Figure 9 show features h_x = n(W e_x) against U: the error computed from them
  // (the p-mass of inputs whose true class is not the strict argmax of U h_x) must be the one
  // reported, for every model; and E W^T must be the features of the linear models.
  for (const char* model : {"matrix", "learnable", "relu"}) {
    TrainSpec spec;
    spec.N = 30;
    spec.M = 4;
    spec.d = 3;
    spec.alpha = 1.0;
    spec.model.kind = parse_model(model);
    spec.model.layernorm = std::string(model) == "learnable";
    spec.optimizer.lr = 0.5;
    spec.T = 2000;
    spec.batch = 8;
    spec.keep_embeddings = true;
    Stream s(5);
    const TrainResult r = train_memory(spec, s);
    ASSERT_EQ(r.E.size(), spec.N * spec.d);
    ASSERT_EQ(r.U.size(), spec.M * spec.d);
    ASSERT_EQ(r.features.size(), spec.N * spec.d);
    ASSERT_EQ(r.label.size(), spec.N);
    double z = 0;
    for (std::size_t x = 0; x < spec.N; ++x) z += std::pow(x + 1.0, -spec.alpha);
    double error = 0;
    for (std::size_t x = 0; x < spec.N; ++x) {
      const auto y = static_cast<std::size_t>(r.label[x]);
      EXPECT_EQ(y, x % spec.M);  // f = mod
      double mine = 0, best_other = -INFINITY;
      for (std::size_t k = 0; k < spec.M; ++k) {
        double logit = 0;
        for (std::size_t j = 0; j < spec.d; ++j) logit += r.U[k * spec.d + j] * r.features[x * spec.d + j];
        if (k == y) mine = logit;
        else best_other = std::max(best_other, logit);
      }
      if (!(mine > best_other)) error += std::pow(x + 1.0, -spec.alpha) / z;
    }
    EXPECT_NEAR(error, r.error, 1e-12) << model;
    if (std::string(model) == "relu") {
      for (std::size_t i = 0; i < r.E.size(); i += 7) {  // features = ReLU(E) without layer norm
        EXPECT_EQ(r.features[i], std::max(0.0, r.E[i])) << i;
      }
    }
  }
}

TEST(AssociativeModel, RepeatedInputsEqualOneInputWithTheSummedWeight) {
  // Training compacts each batch: x listed c times with weight 1/b equals x once with weight c/b.
  for (ModelKind kind : {ModelKind::matrix, ModelKind::learnable, ModelKind::relu}) {
    const ModelSpec spec{kind, kind != ModelKind::relu};
    const ModelParams p = random_params(6, 3, 5, 31);
    ModelParams full, compact;
    const double a = loss_and_gradient(spec, p, {4, 1, 4, 4, 0}, {1, 2, 1, 1, 0}, {0.2, 0.2, 0.2, 0.2, 0.2}, &full);
    const double b = loss_and_gradient(spec, p, {4, 1, 0}, {1, 2, 0}, {0.6, 0.2, 0.2}, &compact);
    EXPECT_NEAR(a, b, 1e-14);
    EXPECT_LT((full.W - compact.W).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((full.E - compact.E).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((full.U - compact.U).cwiseAbs().maxCoeff(), 1e-14);
  }
}

TEST(AssociativeModel, FusedSgdStepEqualsTheGradientStep) {
  // sgd_step never forms the d x d gradient; it must move every learned tensor by -lr grad, with
  // every gradient taken before the step.
  for (ModelKind kind : {ModelKind::matrix, ModelKind::learnable, ModelKind::relu}) {
    for (bool ln : {false, true}) {
      const ModelSpec spec{kind, ln};
      const ModelParams p = random_params(7, 3, 6, 41 + static_cast<uint64_t>(kind));
      const std::vector<uint32_t> xs = {2, 5, 0}, ys = {1, 0, 2};
      const std::vector<double> w = {0.5, 0.3, 0.2};
      ModelParams g;
      const double loss = loss_and_gradient(spec, p, xs, ys, w, &g);
      ModelParams q = p;
      EXPECT_NEAR(sgd_step(spec, q, xs, ys, w, 0.7), loss, 1e-14);
      EXPECT_LT((q.W - (p.W - 0.7 * g.W)).cwiseAbs().maxCoeff(), 1e-13) << int(kind) << ln;
      EXPECT_LT((q.E - (p.E - 0.7 * g.E)).cwiseAbs().maxCoeff(), 1e-13) << int(kind) << ln;
      EXPECT_LT((q.U - (p.U - 0.7 * g.U)).cwiseAbs().maxCoeff(), 1e-13) << int(kind) << ln;
    }
  }
}

TEST(Training, FeatureUpdateMatchesTheDensePath) {
  // Matrix model, SGD, layer norm: W acts only through E W^T, so updating those features (O(N d)
  // per input) must reproduce dense SGD (O(d^2)), for mini-batches and the population gradient.
  for (double batch : {1.0, 8.0, std::numeric_limits<double>::infinity()}) {
    TrainSpec spec;
    spec.N = 30;
    spec.M = 4;
    spec.d = 24;
    spec.alpha = 1.0;
    spec.model.layernorm = true;
    spec.optimizer.lr = 2.0;
    spec.T = 400;
    spec.batch = batch;
    spec.population_steps = 30;
    spec.curve_points = 4;
    spec.schedule.kind = ScheduleKind::cosine;
    ASSERT_EQ(state_path(spec), StatePath::features);
    Stream a(12), b(12);
    const TrainResult fast = train_memory(spec, a);
    spec.span_update = false;
    ASSERT_EQ(state_path(spec), StatePath::dense);
    const TrainResult dense = train_memory(spec, b);
    EXPECT_NEAR(fast.loss, dense.loss, 1e-9 * std::max(1.0, dense.loss)) << "batch " << batch;
    EXPECT_EQ(fast.error, dense.error) << "batch " << batch;
    EXPECT_EQ(fast.curve_error, dense.curve_error) << "batch " << batch;
    EXPECT_GT(dense.curve_error.front(), dense.curve_error.back());
  }
  TrainSpec wide;  // N > 2d: the dense step is cheaper
  wide.N = 100, wide.d = 20;
  wide.model.layernorm = true;
  EXPECT_EQ(state_path(wide), StatePath::dense);
}

// ---- Conventions of the authors' code, each an option of memory.train (docs/memory.md). ----

TEST(Optimizer, SignSgdIgnoresTheBetasAndMatchesAdamWithZeroBetas) {
  ModelSpec spec{ModelKind::matrix, false};
  ModelParams p, g;
  p.W = MatrixRD::Ones(4, 4);
  p.E = MatrixRD::Zero(2, 4);
  p.U = MatrixRD::Zero(2, 4);
  g.W = MatrixRD::Zero(4, 4);
  g.W(0, 0) = 2.0;
  g.W(1, 2) = -0.5;
  ModelParams q = p;
  Optimizer sign({OptimizerKind::signsgd, 0.8, 0.9, 0.999, 1e-8}, spec, q);
  sign.step(q, g, 1.0);
  sign.step(q, g, 1.0);  // no moments: the second step is the same sign step
  EXPECT_NEAR(q.W(0, 0), 1.0 - 2 * 0.2 * 2.0 / (2.0 + 1e-8), 1e-15);
  EXPECT_NEAR(q.W(1, 2), 1.0 + 2 * 0.2 * 0.5 / (0.5 + 1e-8), 1e-15);
  EXPECT_DOUBLE_EQ(q.W(3, 3), 1.0);
}

TEST(Optimizer, AdaptiveStepsWithoutLrScalingTakeLrEverywhere) {
  ModelSpec spec{ModelKind::learnable, false};
  auto [p, g] = learnable_zero_params_and_unit_grads();
  OptimizerSpec o{OptimizerKind::signsgd, 0.5, 0.0, 0.0, 0.0};
  o.lr_scaling = false;
  Optimizer sign(o, spec, p);
  sign.step(p, g, 1.0);
  EXPECT_DOUBLE_EQ(p.W(0, 0), -0.5);
  EXPECT_DOUBLE_EQ(p.E(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(p.U(1, 3), -0.5);
}

TEST(Optimizer, ScalarNormalisedSgdDividesByTheStdOfTheEntries) {
  ModelSpec spec{ModelKind::matrix, false};
  ModelParams p, g;
  p.W = MatrixRD::Zero(2, 2);
  p.E = MatrixRD::Zero(1, 2);
  p.U = MatrixRD::Zero(1, 2);
  g.W.resize(2, 2);
  g.W << 1.0, 2.0, 3.0, 6.0;  // mean 3, unbiased variance (4 + 1 + 0 + 9) / 3 = 14/3
  MatrixRD second = MatrixRD::Constant(2, 2, 100.0);  // ignored by the scalar rule
  OptimizerSpec o{OptimizerKind::sgd_normalized, 0.1, 0, 0, 0.0};
  o.normalize_scalar = true;
  Optimizer opt(o, spec, p);
  opt.step(p, g, 1.0, &second);
  const double sd = std::sqrt(14.0 / 3.0);
  EXPECT_NEAR(p.W(0, 0), -0.1 * 1.0 / sd, 1e-12);
  EXPECT_NEAR(p.W(1, 1), -0.1 * 6.0 / sd, 1e-12);
}

TEST(Training, TieRulesOfTheError) {
  // Four inputs, three classes, p = (0.1, 0.2, 0.3, 0.4); labels 1, 0, 2, 1. Logits (rows: classes):
  //   x0: (5, 5, 1) -> true class 1 ties with class 0, which comes first;
  //   x1: (2, 2, 2) -> true class 0 ties with both others, and comes first;
  //   x2: (0, 3, 1) -> true class 2 is below class 1: wrong under every rule;
  //   x3: (0, 4, 1) -> true class 1 strictly largest: right under every rule.
  MatrixRD L(3, 4);
  L << 5, 2, 0, 0,
       5, 2, 3, 4,
       1, 2, 1, 1;
  const std::vector<uint32_t> label{1, 0, 2, 1};
  const std::vector<double> p{0.1, 0.2, 0.3, 0.4};
  EXPECT_NEAR(error_of_logits(L, label, p, TieRule::error), 0.1 + 0.2 + 0.3, 1e-15);
  EXPECT_NEAR(error_of_logits(L, label, p, TieRule::first), 0.1 + 0.3, 1e-15);
  EXPECT_NEAR(error_of_logits(L, label, p, TieRule::random), 0.1 * 0.5 + 0.2 * (2.0 / 3) + 0.3, 1e-15);
  EXPECT_EQ(parse_ties("first"), TieRule::first);
  EXPECT_THROW(parse_ties("last"), std::invalid_argument);
}

TEST(Training, RandomTieRuleIsTheExpectationOfARandomPick) {
  // Monte-Carlo ground truth: break the ties of random integer logits uniformly at random.
  Stream s(11);
  const Eigen::Index M = 4, N = 50;
  MatrixRD L(M, N);
  std::vector<uint32_t> label(N);
  std::vector<double> p(N, 1.0 / N);
  for (Eigen::Index x = 0; x < N; ++x) {
    for (Eigen::Index z = 0; z < M; ++z) L(z, x) = std::floor(3 * s.uniform());
    label[static_cast<std::size_t>(x)] = static_cast<uint32_t>(std::floor(M * s.uniform()));
  }
  const double expected = error_of_logits(L, label, p, TieRule::random);
  double mc = 0;
  const int draws = 20000;
  for (int k = 0; k < draws; ++k) {
    for (Eigen::Index x = 0; x < N; ++x) {
      const double top = L.col(x).maxCoeff();
      std::vector<Eigen::Index> best;
      for (Eigen::Index z = 0; z < M; ++z)
        if (L(z, x) == top) best.push_back(z);
      const auto pick = best[static_cast<std::size_t>(std::floor(best.size() * s.uniform()))];
      if (pick != static_cast<Eigen::Index>(label[static_cast<std::size_t>(x)])) mc += p[static_cast<std::size_t>(x)];
    }
  }
  mc /= draws;
  // The Monte-Carlo mean has standard error below 0.5 / sqrt(N draws) per input, averaged over N.
  EXPECT_NEAR(mc, expected, 4 * 0.5 / std::sqrt(static_cast<double>(draws) * N));
  EXPECT_LT(expected, error_of_logits(L, label, p, TieRule::error));  // some true classes tie here
}

TEST(Training, SphereUnembeddingsHaveUnitNormAndTheSameDirections) {
  TrainSpec spec;
  spec.N = 20;
  spec.M = 5;
  spec.d = 8;
  spec.T = 10;
  spec.keep_embeddings = true;
  Stream a(5), b(5);
  const TrainResult g = train_memory(spec, a);
  spec.u_sphere = true;
  const TrainResult u = train_memory(spec, b);
  for (std::size_t y = 0; y < spec.M; ++y) {
    double ng = 0, nu = 0, dot = 0;
    for (std::size_t i = 0; i < spec.d; ++i) {
      const double gi = g.U[y * spec.d + i], ui = u.U[y * spec.d + i];
      ng += gi * gi, nu += ui * ui, dot += gi * ui;
    }
    EXPECT_NEAR(nu, 1.0, 1e-12);
    EXPECT_NEAR(dot, std::sqrt(ng), 1e-12);  // u = g / |g|: <g, u> = |g|
  }
}

TEST(Training, SignSgdEqualsAdamWithZeroBetasOnTheSameDraws) {
  TrainSpec spec;
  spec.N = 30;
  spec.M = 5;
  spec.d = 12;
  spec.T = 200;
  spec.batch = 4;
  spec.optimizer = {OptimizerKind::adam, 1.0, 0.0, 0.0, 1e-8};
  Stream a(9), b(9);
  const TrainResult adam0 = train_memory(spec, a);
  spec.optimizer = {OptimizerKind::signsgd, 1.0, 0.9, 0.999, 1e-8};
  const TrainResult sign = train_memory(spec, b);
  EXPECT_EQ(adam0.error, sign.error);
  EXPECT_EQ(adam0.loss, sign.loss);
}

TEST(Training, MeasureDefaultsAreRealAdamAndSignSgdIsItsOwnOptimizer) {
  const Measure& m = world_registry().get("memory.train");
  const Params prm = resolve_params(m.params, {{"optimizer", "adam"}}, "test");
  EXPECT_DOUBLE_EQ(prm.real("beta1"), 0.9);
  EXPECT_DOUBLE_EQ(prm.real("beta2"), 0.999);
  EXPECT_TRUE(prm.flag("lr_scaling"));
  EXPECT_EQ(prm.choice("ties"), "error");
  EXPECT_EQ(prm.choice("u_dist"), "gaussian");
  EXPECT_EQ(prm.choice("normalize"), "entrywise");
  EXPECT_NO_THROW(resolve_params(m.params, {{"optimizer", "signsgd"}}, "test"));
}

TEST(Training, GradientVarianceMatchesTheExplicitPerExampleGradients) {
  // Brute force: form every g_x = U^T (softmax(l_x) - e_y) e_x^T (d x d) and its weighted variance.
  Stream s(21);
  const Eigen::Index N = 7, M = 3, d = 5;
  MatrixRD U(M, d), E(N, d), W(d, d);
  s.fill_normal(U.data(), static_cast<std::size_t>(U.size()), 1.0);
  s.fill_normal(E.data(), static_cast<std::size_t>(E.size()), 1.0);
  s.fill_normal(W.data(), static_cast<std::size_t>(W.size()), 0.5);
  const MatrixRD L = U * W * E.transpose();  // M x N
  std::vector<uint32_t> label(N);
  std::vector<double> p(N);
  double total = 0;
  for (Eigen::Index x = 0; x < N; ++x) label[x] = static_cast<uint32_t>(x % M), p[x] = 1.0 / (x + 1), total += p[x];
  for (auto& v : p) v /= total;
  std::vector<MatrixRD> g;
  MatrixRD mean = MatrixRD::Zero(d, d);
  for (Eigen::Index x = 0; x < N; ++x) {
    Eigen::VectorXd delta = (L.col(x).array() - L.col(x).maxCoeff()).exp();
    delta /= delta.sum();
    delta(label[x]) -= 1.0;
    g.push_back(U.transpose() * delta * E.row(x));
    mean += p[x] * g.back();
  }
  double var = 0;
  for (Eigen::Index x = 0; x < N; ++x) var += p[x] * (g[x] - mean).squaredNorm();
  EXPECT_NEAR(gradient_variance(ModelSpec{}, L, label, p, U, E), var, 1e-10 * var);
  EXPECT_GT(var, 0.0);
}
