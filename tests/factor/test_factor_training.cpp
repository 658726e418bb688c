// Training runs of the factor world: determinism across thread counts, the settings' bookkeeping,
// and that the network learns (compression with d >= chi_bar goes far below the initial loss).
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/factor_training.hpp"

using namespace scalinglab;
using namespace scalinglab::factor;

namespace {

FactorTask small_task(uint64_t seed, const char* in = "2x10", const char* out = "4x2") {
  FactorSpec fs;
  fs.input = parse_factors(in);
  fs.output = parse_factors(out);
  Stream s(seed);
  return FactorTask(fs, s);
}

}  // namespace

TEST(FactorTraining, SameResultsWhateverTheThreadCount) {
  const FactorTask task = small_task(1, "2x11", "4x2");  // N = 2048: two shards of 1024 rows
  for (Setting setting : {Setting::compression, Setting::single_pass, Setting::generalization}) {
    TrainSpec spec;
    spec.setting = setting;
    spec.d = 16, spec.h = 32, spec.epochs = 20, spec.batch = 2500, spec.evals = 5;
    spec.factorized_embedding = setting == Setting::generalization;
    spec.threads = 1;
    Stream a(5), b(5);
    const TrainResult one = train(task, spec, a);
    spec.threads = 2;
    const TrainResult two = train(task, spec, b);
    ASSERT_EQ(one.curve_loss.size(), two.curve_loss.size());
    for (std::size_t i = 0; i < one.curve_loss.size(); ++i) EXPECT_EQ(one.curve_loss[i], two.curve_loss[i]);
    EXPECT_EQ(one.loss, two.loss);
  }
}

TEST(FactorTraining, CurvesAndFlopsAreConsistent) {
  const FactorTask task = small_task(2, "2x6", "4x2");
  TrainSpec spec;
  spec.setting = Setting::generalization;
  spec.factorized_embedding = true;
  spec.d = 16, spec.h = 32, spec.epochs = 50, spec.gamma = 0.75, spec.evals = 10;
  Stream s(3);
  const TrainResult r = train(task, spec, s);
  EXPECT_EQ(r.observed, 48u);  // round(0.75 * 64)
  EXPECT_DOUBLE_EQ(r.flops, 50 * 48 * flops_per_sample(16, 32, 1, 16));
  EXPECT_DOUBLE_EQ(flops_per_sample(16, 32, 1, 16), 3 * (6 * 16 * 32 + 2 * 16 * 16));
  EXPECT_EQ(r.curve_epoch.front(), 0);
  EXPECT_EQ(r.curve_epoch.back(), 50);
  EXPECT_EQ(r.curve_loss.back(), r.loss);
  for (std::size_t i = 0; i < r.curve_epoch.size(); ++i) EXPECT_DOUBLE_EQ(r.curve_flops[i], r.curve_epoch[i] * 48 * flops_per_sample(16, 32, 1, 16));
  spec.gamma = 1.0;
  Stream s2(3);
  EXPECT_THROW(train(task, spec, s2), std::invalid_argument);
}

TEST(FactorTraining, EvaluationEpochsAreLogSpaced) {
  const auto e = evaluation_epochs(1000, 4);
  EXPECT_EQ(e, (std::vector<std::size_t>{0, 1, 10, 100, 1000}));
  EXPECT_EQ(evaluation_epochs(1, 5), (std::vector<std::size_t>{0, 1}));
}

TEST(FactorTraining, CompressionLearnsWhenDReachesChiBar) {
  // 2x6 inputs, 4x2 outputs, two parents: chi_bar = 2 min(4, 4) = 8. With d = 16 the population KL
  // falls by orders of magnitude; with d = 2 < chi_bar it stays far higher.
  const FactorTask task = small_task(4, "2x6", "4x2");
  ASSERT_EQ(task.chi_bar(), 8);
  TrainSpec spec;
  spec.setting = Setting::compression;
  spec.epochs = 2000, spec.evals = 3, spec.lr = 3e-2, spec.schedule = Schedule::custom;
  spec.d = 16, spec.h = 32;
  Stream a(1), b(1);
  const TrainResult wide = train(task, spec, a);
  spec.d = 2, spec.h = 4;
  const TrainResult narrow = train(task, spec, b);
  EXPECT_LT(wide.loss, 1e-3 * wide.curve_loss.front());
  EXPECT_GT(narrow.loss, 100 * wide.loss);
}
