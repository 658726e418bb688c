// The benchmark measures the methods, not itself: a failed bootstrap replicate keeps its prediction,
// inapplicable methods are known before running and not counted as failures, every prediction is
// scored (the truth reaches out to it), runs are on their budget (the size rounded before D), N_opt
// stays within [1, C/6], and a public table's largest budgets serve as a held-out truth.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "../support/cli_process.hpp"
#include "../support/teacher_bound_world.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/extrapolate/extrapolation_benchmark.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_method.hpp"
#include "scalinglab/fit/isoflop.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;
using namespace scalinglab::extrapolate;
using scalinglab::testing::ScratchDirTest;

namespace {

// Jeon & Van Roy's bound (deterministic, microseconds per point); `extra` replaces or adds keys.
std::string bound_world(const std::string& extra) {
  return std::string(scalinglab::testing::kTeacherBoundHead) + R"([benchmark]
shift = 0.5
horizons = [10, 100]
bootstrap = 0
refine = 0
)" + extra;
}

class ExtrapolationOutcomes : public ScratchDirTest {};

}  // namespace

TEST(ExtrapolationMethods, AFailedBootstrapReplicateKeepsThePrediction) {
  // Noisy, thin IsoFLOP tables of Chinchilla's law: some bootstrap refits of Approach 3 end with
  // alpha or beta <= 0, which has no frontier. The prediction stands and the failures are counted.
  int tables_with_failures = 0;
  for (std::uint64_t seed = 1; seed <= 40 && tables_with_failures < 2; ++seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z;
    ProtocolTable t;
    for (double C : {6e18, 6e19, 6e20}) {
      const double guess = std::sqrt(C / 120);
      for (int k = 0; k < 4; ++k) {
        const double N = guess * std::pow(8.0, -0.5 + k / 3.0), D = C / (6 * N);
        const double L = 1.69 + 406.4 / std::pow(N, 0.34) + 410.7 / std::pow(D, 0.28);
        t.N.push_back(N), t.D.push_back(D), t.C.push_back(C), t.budget.push_back(C), t.loss.push_back(L * std::exp(0.05 * z(rng)));
      }
    }
    MethodOptions o;
    o.bootstrap = 60;
    o.seed = seed;
    const MethodResult r = apply_method(parse_method("approach3:delta=inf"), t, {6e22}, o);
    if (!r.ok) continue;  // the fit itself found no frontier: not this test's case
    EXPECT_EQ(r.bootstrap_total, 60);
    if (r.bootstrap_failed == 0) continue;
    ++tables_with_failures;
    EXPECT_TRUE(std::isfinite(r.at[0].N.value)) << "seed " << seed;
    EXPECT_GT(r.at[0].N.value, 0);
  }
  EXPECT_GE(tables_with_failures, 1) << "no table gave a failed replicate: the test no longer tests";
}

TEST(ExtrapolationMethods, InapplicableMethodsAreKnownFromTheDesign) {
  EXPECT_FALSE(not_applicable(parse_method("bnsl"), 6).empty());
  EXPECT_TRUE(not_applicable(parse_method("bnsl"), 7).empty());
  EXPECT_FALSE(not_applicable(parse_method("porian"), 3).empty());
  EXPECT_TRUE(not_applicable(parse_method("porian"), 4).empty());
  EXPECT_TRUE(not_applicable(parse_method("approach3"), 3).empty());
}

TEST(ExtrapolationMethods, NoptIsHeldToOneParameterAndOneToken) {
  // Kaplan's closed form far from its data: a table whose law has a tiny alpha_N / alpha_D sends
  // N_opt past C/6; held there and flagged, D = C / (6 N) >= 1.
  ProtocolTable t;
  for (double C : {1e6, 1e7, 1e8})
    for (double N : {10.0, 100.0, 1000.0}) {
      const double D = C / (6 * N);
      t.N.push_back(N), t.D.push_back(D), t.C.push_back(C), t.budget.push_back(C);
      t.loss.push_back(std::pow(std::pow(1e3 / N, 0.02) + 1e9 / D, 0.3));
    }
  MethodOptions o;
  o.bootstrap = 0;
  const MethodResult r = apply_method(parse_method("kaplan"), t, {1e9, 1e12}, o);
  ASSERT_TRUE(r.ok) << r.note;
  for (const auto& p : r.at) {
    EXPECT_GE(p.N.value, 1);
    EXPECT_LE(p.N.value, p.C / 6 * (1 + 1e-12));
    EXPECT_GE(p.D.value, 1 - 1e-9);
  }
  bool any = false;
  for (const auto& p : r.at) any = any || p.bounded;
  EXPECT_TRUE(any) << "the law was meant to push N_opt past C/6: " << r.at[1].N.value;
}

TEST_F(ExtrapolationOutcomes, InapplicableCellsAreNotFailuresAndEveryPredictionIsScored) {
  // 3 budgets (one decade, 2 per decade): Porian and BNSL cannot apply, and are not failures.
  const auto f = write("w.toml", bound_world(R"(budgets = [1e8, 1e9]
sizes = [30, 30000]
designs = [{ name = "a", per_decade = 2, sizes = 9, runs = 1 }]
truth_sizes = 9
truth_spread = 1.5
)"));
  BenchmarkOptions o;
  o.quiet = true;
  o.methods = {"approach2", "porian", "bnsl"};
  o.out_dir = (dir / "out").string();
  const auto j = run_benchmark({f.string()}, o);
  for (const auto& r : j["rows"]) {
    const std::string m = r["method"].get<std::string>();
    if (m == "porian" || m == "bnsl") {
      EXPECT_EQ(r["status"], "not applicable") << m;
      EXPECT_EQ(r["failed"].get<int>(), 0) << m;
      EXPECT_NE(r["why"].get<std::string>().find("budgets"), std::string::npos) << r["why"];
    } else {
      EXPECT_EQ(r["status"], "ok") << m;
    }
  }
  // Nothing of an inapplicable method ran: a reason in predictions.csv, no prediction.
  const DataTable p = read_csv((dir / "out/predictions.csv").string());
  std::size_t ci = 0, ni = 0;
  for (std::size_t c = 0; c < p.names.size(); ++c) {
    if (p.names[c] == "method") ci = c;
    if (p.names[c] == "not_applicable") ni = c;
  }
  for (std::size_t r = 0; r < p.rows(); ++r)
    EXPECT_EQ(p.cell(r, ci) == "porian" || p.cell(r, ci) == "bnsl", !p.cell(r, ni).empty()) << r;

  // A prediction 2.5x the true N_opt, outside the slice (a factor 1.5 either side): the truth
  // reaches out to it, and its regret is the bound's own ratio (computed here from its formula).
  const double N10 = j["worlds"][0]["truth"][0]["N_opt"].get<double>(), C10 = j["worlds"][0]["truth"][0]["C"].get<double>();
  o.predictions = write("far.csv", "world,design,replication,horizon,method,N_opt,N_lo,N_hi,L_opt,L_lo,L_hi\n"
                                   "w,a,1,10,far," + std::to_string(2.5 * N10) + ",,,,,\n").string();
  o.resume = true;
  const auto k = run_benchmark({f.string()}, o);
  EXPECT_GT(k["worlds"][0]["reach_points"].get<int>(), 0);
  const auto bound = scalinglab::testing::teacher_bound;
  bool seen = false;
  for (const auto& r : k["rows"])
    if (r["method"] == "far" && r["horizon"] == 10) {
      seen = true;
      EXPECT_EQ(r["regret_unscored"].get<int>(), 0);
      const double regret = r["regret"]["median"].get<double>(), L = k["worlds"][0]["truth"][0]["L_opt"].get<double>();
      // Interpolated between the reach's points (a step of 1.5^(1/4) in N): within 1% of the formula.
      EXPECT_NEAR((1 + regret) * L / bound(2.5 * N10, C10), 1, 0.01) << regret;
    }
  EXPECT_TRUE(seen);
}

TEST_F(ExtrapolationOutcomes, TheSizeIsRoundedBeforeTheDataSoEveryRunIsOnItsBudget) {
  // teacher.train's width n is an integer, its T real: with n = 1 to 12, where rounding moves N by
  // up to 50%, every run's own C = 6 N D equals the budget it was planned for.
  const auto f = write("w.toml", R"(measure = "teacher.train"
seed = 1
[params]
d = 10
K = 10
batch = 64
lr = 1e-2
test = 200
[extrapolate]
size = "n"
data = "T"
N = "n*d"
D = "T/6"
loss = "kl"
[benchmark]
budgets = [1e4, 1e5]
sizes = [1, 12]
horizons = [10]
replications = 1
designs = [{ name = "a", per_decade = 3, sizes = 9, runs = 1 }]
truth_sizes = 5
truth_runs = 1
truth_max_runs = 1
refine = 0
bootstrap = 0
)");
  BenchmarkOptions o;
  o.quiet = true;
  o.methods = {"approach2"};
  o.out_dir = (dir / "out").string();
  run_benchmark({f.string()}, o);
  const DataTable t = read_csv((dir / "out/tables.csv").string());
  const auto C = t.numbers("C"), budget = t.numbers("budget"), N = t.numbers("N");
  ASSERT_GT(C.size(), 10u);
  for (std::size_t i = 0; i < C.size(); ++i) {
    EXPECT_NEAR(C[i] / budget[i], 1, 1e-9) << "N = " << N[i];
    EXPECT_EQ(std::fmod(N[i] / 10, 1.0), 0.0) << "n = N / d is whole";
  }
}

TEST_F(ExtrapolationOutcomes, HeldOutTableIsScoredAgainstItsLargestBudgets) {
  const std::string table = std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/llama3-isoflops-extraction.csv";
  const auto f = write("llama3.toml", "[held_out]\ntable = \"" + table +
                                          "\"\nC = \"compute_budget\"\nD = \"training_tokens\"\nloss = \"validation_loss\"\n"
                                          "held = 2\nbootstrap = 0\n");
  BenchmarkOptions o;
  o.quiet = true;
  o.methods = {"approach2", "bnsl"};
  o.out_dir = (dir / "out").string();
  const auto j = run_benchmark({f.string()}, o);
  // The methods saw the budgets up to 1e21 only.
  for (double C : read_csv((dir / "out/tables.csv").string()).numbers("C")) EXPECT_LE(C, 1e21 * (1 + 1e-9));
  // The truths are the parabolas of the held-out slices, fitted here independently.
  const DataTable t = read_csv(table);
  const auto C = t.numbers("compute_budget"), D = t.numbers("training_tokens"), L = t.numbers("validation_loss");
  const auto& truth = j["worlds"][0]["truth"];
  ASSERT_EQ(truth.size(), 2u);
  for (std::size_t h = 0; h < 2; ++h) {
    const double budget = h == 0 ? 3e21 : 1e22;
    std::vector<double> cs, ns, ls;
    for (std::size_t i = 0; i < C.size(); ++i)
      if (C[i] == budget) cs.push_back(C[i]), ns.push_back(C[i] / (6 * D[i])), ls.push_back(L[i]);
    std::vector<double> logn;
    for (double n : ns) logn.push_back(std::log(n));
    IsoflopSlice slice;
    std::string why;
    ASSERT_TRUE(slice_minimum(logn, ls, std::vector<double>(ls.size(), 1.0), slice, why)) << why;
    EXPECT_NEAR(truth[h]["N_opt"].get<double>() / slice.N_opt, 1, 1e-9);
    EXPECT_NEAR(truth[h]["horizon"].get<double>(), budget / 1e21, 1e-9);
  }
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["kind"], "held-out");
    if (r["method"] == "bnsl") {
      EXPECT_EQ(r["status"], "ok");  // 8 budgets fitted: BNSL applies
    }
    if (r["method"] == "approach2") {
      EXPECT_TRUE(r["N_error"]["median"].is_number());
    }
  }
}
