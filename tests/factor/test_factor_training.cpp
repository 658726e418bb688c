// Training runs of the factor world: determinism across thread counts, the settings' bookkeeping,
// and that the network learns (compression with d >= chi_bar goes far below the initial loss).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "scalinglab/core/random.hpp"
#include "scalinglab/core/state_blob.hpp"
#include "scalinglab/factor/factor_task.hpp"
#include "scalinglab/factor/factor_training.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/lab/param.hpp"
#include "support/config_home.hpp"

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

TEST(LrSchedule, CustomLogIsEq7InLogTime) {
  // lambda_t = (cos(pi log(t + 1) / log T) + 1) / 2: eta at t = 0, the geometric mean of eta and
  // 3e-4 at t + 1 = sqrt(T), 3e-4 at the last step t = T - 1.
  EXPECT_NEAR(learning_rate(Schedule::custom_log, 0.03, 0, 1e6), 0.03, 1e-15);
  EXPECT_NEAR(learning_rate(Schedule::custom_log, 0.03, 999, 1e6), std::sqrt(0.03 * 3e-4), 1e-15);
  EXPECT_NEAR(learning_rate(Schedule::custom_log, 0.03, 1e6 - 1, 1e6), 3e-4, 1e-15);
  // lambda = 3/4 at log(t + 1) / log T = 1/3: t + 1 = 100 for T = 1e6.
  EXPECT_NEAR(learning_rate(Schedule::custom_log, 0.03, 99, 1e6), std::exp(0.75 * std::log(0.03) + 0.25 * std::log(3e-4)), 1e-15);
  EXPECT_EQ(parse_schedule("custom_log"), Schedule::custom_log);
}

namespace {

Record run_factor_train(const std::map<std::string, std::string>& given, uint64_t key) {
  const Measure& m = world_registry().get("factor.train");
  const Params p = resolve_params(m.params, given, "test");
  Stream s(key);
  return m.fn(p, s);
}

}  // namespace

TEST(FactorTrainMeasure, TheWorldDoesNotDependOnTheTrainingParameters) {
  // The same stream key with other d, h, epochs, lr, schedule, evals: the same p (entropy, rank,
  // chi) and the same observed inputs (their mean entropy); a different training (losses differ).
  std::map<std::string, std::string> a = {{"setting", "generalization"}, {"input_factors", "2x6"},
                                          {"output_factors", "4x2"},      {"parents", "2"},
                                          {"gamma", "0.5"},               {"d", "16"},
                                          {"epochs", "20"},               {"evals", "2"}};
  std::map<std::string, std::string> b = a;
  b["d"] = "8", b["h"] = "24", b["epochs"] = "30", b["lr"] = "0.01", b["schedule"] = "custom", b["evals"] = "3";
  const Record ra = run_factor_train(a, 42), rb = run_factor_train(b, 42), rc = run_factor_train(a, 43);
  for (const char* name : {"entropy", "test_entropy", "rank_logp", "chi", "chi_bar", "observed"})
    EXPECT_EQ(ra.get(name), rb.get(name)) << name;
  EXPECT_NE(ra.get("loss"), rb.get("loss"));
  // Another key, another world.
  EXPECT_NE(ra.get("entropy"), rc.get("entropy"));
  EXPECT_NE(ra.get("test_entropy"), rc.get("test_entropy"));
  // Same parameters, same key: the same run.
  EXPECT_EQ(ra.get("loss"), run_factor_train(a, 42).get("loss"));
}

TEST(FactorTrainMeasure, GridPointsDifferingInTheLearnerShareTheWorldThroughTheLab) {
  // Through the lab's task streams (seed, parameters, run), as a sweep runs them: points differing
  // only in d, epochs, lr or gamma draw the same world for a run index; other factors or another run
  // draw another one.
  const Measure& m = world_registry().get("factor.train");
  auto run = [&](std::map<std::string, std::string> given, uint64_t r) {
    given.insert({{"setting", "generalization"}, {"input_factors", "2x6"}, {"output_factors", "4x2"}, {"parents", "2"},
                  {"evals", "2"}});
    return run_task(m, resolve_params(m.params, given, "test"), 7, r);
  };
  const Record a = run({{"d", "16"}, {"epochs", "20"}, {"gamma", "0.5"}}, 0);
  const Record b = run({{"d", "8"}, {"epochs", "40"}, {"lr", "0.01"}, {"gamma", "0.7"}}, 0);
  for (const char* name : {"entropy", "rank_logp", "chi", "chi_bar"}) EXPECT_EQ(a.get(name), b.get(name)) << name;
  EXPECT_NE(a.get("entropy"), run({{"d", "16"}, {"epochs", "20"}, {"gamma", "0.5"}}, 1).get("entropy"));
  EXPECT_NE(a.get("entropy"), run({{"d", "16"}, {"epochs", "20"}, {"gamma", "0.5"}, {"alpha", "0.2"}}, 0).get("entropy"));
}

TEST(FactorTrainMeasure, ObservedSetsAreNestedAcrossGamma) {
  // split_inputs takes the first round(gamma N) entries of one permutation: a larger gamma observes
  // a superset (common random numbers across the gamma axis).
  std::vector<uint32_t> small, small_rest, large, large_rest;
  split_inputs(100, 30, Stream(9), small, small_rest);
  split_inputs(100, 70, Stream(9), large, large_rest);
  EXPECT_EQ(small.size(), 30u);
  EXPECT_EQ(large_rest.size(), 30u);
  for (uint32_t x : small) EXPECT_TRUE(std::binary_search(large.begin(), large.end(), x)) << x;
}

// ---- checkpoints (lab/checkpoint.hpp): a run restored from its state ends where it would have ----

namespace {

// The checkpoint file's layout, read independently of TaskCheckpoint: magic, identity, state, MAC.
struct CheckpointFile {
  std::string head, state;
  static CheckpointFile read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t magic = std::string("scalinglab checkpoint 2\n").size();
    uint64_t n = 0;
    std::memcpy(&n, text.data() + magic, 8);
    const std::size_t state_at = magic + 8 + n + 8;
    uint64_t m = 0;
    std::memcpy(&m, text.data() + magic + 8 + n, 8);
    return {text.substr(0, state_at), text.substr(state_at, m)};
  }
};

// A state rebuilt field by field, with `edit` applied to the weights and moments.
std::string edited_state(const std::string& state,
                         const std::function<void(uint64_t&, std::vector<float>&, std::vector<float>&,
                                                  std::vector<float>&, uint64_t&)>& edit) {
  BlobReader r(state, "state");
  uint64_t epoch = r.u64();
  const uint64_t next_eval = r.u64();
  std::vector<std::vector<double>> curves;
  for (int k = 0; k < 3; ++k) curves.push_back(r.doubles());
  std::vector<float> theta = r.floats(), m = r.floats(), v = r.floats();
  uint64_t steps = r.u64();
  edit(epoch, theta, m, v, steps);
  BlobWriter w;
  w.u64(epoch);
  w.u64(next_eval);
  for (const auto& c : curves) w.doubles(c);
  w.floats(theta);
  w.floats(m);
  w.floats(v);
  w.u64(steps);
  while (!r.done()) {
    char c;
    r.bytes(&c, 1);
    w.bytes(&c, 1);
  }
  return w.str();
}

}  // namespace

TEST(FactorTraining, ARunRestoredFromItsCheckpointEndsBitForBitAsTheWholeRun) {
  ScopedConfigHome config;
  const FactorTask task = small_task(4, "2x8", "4x2");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("scalinglab-factor-checkpoint-" + std::to_string(::getpid()) + ".state")).string();
  for (Setting setting : {Setting::compression, Setting::single_pass}) {
    TrainSpec spec;
    spec.setting = setting;
    spec.d = 16, spec.h = 32, spec.epochs = 120, spec.batch = 300, spec.evals = 12;
    // The whole run, which saves its state once, after epoch 37 (a checkpoint asked for then).
    TaskCheckpoint saving(path, "task", 0, false);
    std::size_t epoch = 0;
    spec.on_epoch = [&] {
      if (++epoch == 37) request_checkpoints(false);
    };
    spec.checkpoint = &saving;
    Stream a(9);
    const TrainResult whole = train(task, spec, a);
    ASSERT_TRUE(std::filesystem::exists(path));

    // From the saved state: the remaining epochs only, and the same curve and losses, bit for bit.
    TaskCheckpoint loading(path, "task", 0, true);
    spec.checkpoint = &loading;
    epoch = 0;
    spec.on_epoch = [&] { ++epoch; };
    Stream b(9);
    const TrainResult restored = train(task, spec, b);
    EXPECT_TRUE(loading.restored());
    EXPECT_EQ(epoch, 120u - 37u);
    EXPECT_EQ(restored.curve_epoch, whole.curve_epoch);
    EXPECT_EQ(restored.curve_loss, whole.curve_loss);
    EXPECT_EQ(restored.loss, whole.loss);
    EXPECT_EQ(restored.train_loss, whole.train_loss);

    // A wrong model of the state: Adam's moments left out (zeroed) change the end, so the test sees
    // them. The edited state is saved as a task saves it (signed with the key).
    const std::string saved = CheckpointFile::read(path).state;
    TaskCheckpoint(path, "task", 0, false).save(edited_state(saved, [](auto&, auto&, auto& m, auto& v, auto&) {
      std::fill(m.begin(), m.end(), 0.0f);
      std::fill(v.begin(), v.end(), 0.0f);
    }));
    TaskCheckpoint edited(path, "task", 0, true);
    spec.checkpoint = &edited;
    Stream c(9);
    EXPECT_NE(train(task, spec, c).loss, whole.loss);
    EXPECT_TRUE(edited.restored());
    std::filesystem::remove(path);
  }
}

namespace {

// A 60-epoch compression run on a small task that saves its state once, after epoch 20, into
// `path`: the spec (without its checkpoint) and the whole run's result.
struct SavedRun {
  TrainSpec spec;
  TrainResult whole;
};
SavedRun run_saving_at_epoch_20(const FactorTask& task, const std::string& path) {
  SavedRun r;
  r.spec.d = 16, r.spec.h = 32, r.spec.epochs = 60, r.spec.batch = 300, r.spec.evals = 6;
  TaskCheckpoint saving(path, "task", 0, false);
  std::size_t epoch = 0;
  r.spec.on_epoch = [&] {
    if (++epoch == 20) request_checkpoints(false);
  };
  r.spec.checkpoint = &saving;
  Stream a(9);
  r.whole = train(task, r.spec, a);
  r.spec.on_epoch = nullptr;
  r.spec.checkpoint = nullptr;
  return r;
}

}  // namespace

// A state edited in the folder (weights zeroed, without the key's signature) is set aside: the
// task starts afresh and ends as the whole run does. On the format before signatures, a checksum
// recomputed by the editor was enough to be restored.
TEST(FactorTraining, AStateEditedInTheFolderIsNotRestored) {
  ScopedConfigHome config;
  const FactorTask task = small_task(4, "2x8", "4x2");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("scalinglab-factor-edited-" + std::to_string(::getpid()) + ".state")).string();
  auto [spec, whole] = run_saving_at_epoch_20(task, path);
  const CheckpointFile parts = CheckpointFile::read(path);
  const std::string zeroed = edited_state(parts.state, [](auto&, auto& theta, auto&, auto&, auto&) {
    std::fill(theta.begin(), theta.end(), 0.0f);
  });
  // The editor's files: the zeroed state with a fresh checksum of the kind an editor can compute
  // (the key is not in the folder): the unsigned format's hash of the state, or a MAC-sized tail.
  const std::string identity_part = parts.head.substr(24, parts.head.size() - 24 - 8);  // length + identity
  const uint64_t n = zeroed.size(), hash = stable_hash(zeroed);
  auto forged = [&](const std::string& magic, const std::string& tail) {
    return magic + identity_part + std::string(reinterpret_cast<const char*>(&n), 8) + zeroed + tail;
  };
  const std::string hash_bytes(reinterpret_cast<const char*>(&hash), 8);
  for (const std::string& text : {forged("scalinglab checkpoint 1\n", hash_bytes),
                                  forged("scalinglab checkpoint 2\n", hash_bytes + hash_bytes + hash_bytes + hash_bytes)}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    TaskCheckpoint loading(path, "task", 0, true);
    spec.checkpoint = &loading;
    Stream b(9);
    const TrainResult again = train(task, spec, b);
    EXPECT_FALSE(loading.restored()) << text.substr(0, 23);
    EXPECT_EQ(again.loss, whole.loss) << text.substr(0, 23);
  }
  std::filesystem::remove(path);
}

// A signed state whose fields do not fit the task (its steps, a weight, a moment, its epoch) is
// refused with a sentence: the signature says who saved it, not that it is right.
TEST(FactorTraining, ASignedStateIsCheckedFieldByFieldAgainstTheTask) {
  ScopedConfigHome config;
  const FactorTask task = small_task(4, "2x8", "4x2");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("scalinglab-factor-fields-" + std::to_string(::getpid()) + ".state")).string();
  TrainSpec spec = run_saving_at_epoch_20(task, path).spec;
  const std::string good = CheckpointFile::read(path).state;
  using Edit = std::function<void(uint64_t&, std::vector<float>&, std::vector<float>&, std::vector<float>&, uint64_t&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"steps", [](auto&, auto&, auto&, auto&, auto& steps) { steps += 1; }},
      {"a NaN weight", [](auto&, auto& theta, auto&, auto&, auto&) { theta[3] = std::nanf(""); }},
      {"a negative second moment", [](auto&, auto&, auto&, auto& v, auto&) { v[5] = -1.0f; }},
      {"an epoch past the end", [](auto& e, auto&, auto&, auto&, auto& steps) { e = steps = 60; }},
  };
  for (const auto& [what, edit] : edits) {
    TaskCheckpoint(path, "task", 0, false).save(edited_state(good, edit));
    TaskCheckpoint loading(path, "task", 0, true);
    spec.checkpoint = &loading;
    Stream b(9);
    EXPECT_THROW(train(task, spec, b), InputError) << what;
  }
  // The unedited state is restored (the edits above are what is refused).
  TaskCheckpoint(path, "task", 0, false).save(good);
  TaskCheckpoint loading(path, "task", 0, true);
  spec.checkpoint = &loading;
  Stream c(9);
  train(task, spec, c);
  EXPECT_TRUE(loading.restored());
  std::filesystem::remove(path);
}

