// The extrapolation benchmark end to end on tiny worlds: the methods never see the truth, each
// replication draws fresh runs, predictions made elsewhere are scored with the others, and bad
// parameters are refused before any work.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "../support/cli_process.hpp"
#include "../support/teacher_bound_world.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/extrapolate/extrapolation_benchmark.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;
using namespace scalinglab::extrapolate;
using scalinglab::testing::ScratchDirTest;

namespace {

// The bound of Jeon & Van Roy's Corollary 4.2 (deterministic, microseconds per point).
std::string bound_world(const std::string& truth) {
  return std::string(scalinglab::testing::kTeacherBoundHead) + R"([benchmark]
budgets = [1e8, 1e10]
sizes = [30, 30000]
shift = 0.5
horizons = [10, 100]
designs = [{ name = "a", per_decade = 2, sizes = 9, runs = 1 }]
bootstrap = 0
)" + truth;
}

// Associative memories on 1000 tokens (noisy: replications differ).
const char* kMemoryWorld = R"(measure = "memory.error"
seed = 3
[params]
N = 1000
M = 5
alpha = 2.0
scheme = "threshold"
P = "d/8"
[extrapolate]
size = "d"
data = "T"
N = "d^2"
D = "T"
loss = "error"
[benchmark]
budgets = [1e4, 1e5]
sizes = [4, 40]
shift = 0.5
horizons = [10]
replications = 3
designs = [{ name = "a", per_decade = 2, sizes = 5, runs = 1 }]
truth_sizes = 7
truth_runs = 8
bootstrap = 0
)";

std::map<std::string, std::vector<std::string>> column_text(const DataTable& t) {
  std::map<std::string, std::vector<std::string>> out;
  for (std::size_t c = 0; c < t.names.size(); ++c)
    for (std::size_t r = 0; r < t.rows(); ++r) out[t.names[c]].emplace_back(t.cell(r, c));
  return out;
}

class ExtrapolationBenchmark : public ScratchDirTest {};

}  // namespace

TEST_F(ExtrapolationBenchmark, MethodsNeverSeeTheTruth) {
  // Two truths of the same world, evaluated differently (a coarse and a fine slice): every
  // prediction is the same, bit for bit, while the truth moved.
  const auto a = write("bound.toml", bound_world("truth_sizes = 161\ntruth_spread = 10\n"));
  BenchmarkOptions o;
  o.quiet = true;
  o.methods = {"approach2", "approach3", "porian"};
  o.out_dir = (dir / "fine").string();
  const auto ja = run_benchmark({a.string()}, o);
  std::filesystem::create_directories(dir / "other");
  const auto b = write("other/bound.toml", bound_world("truth_sizes = 9\ntruth_spread = 3\n"));
  o.out_dir = (dir / "coarse").string();
  const auto jb = run_benchmark({b.string()}, o);
  const auto pa = column_text(read_csv((dir / "fine/predictions.csv").string()));
  const auto pb = column_text(read_csv((dir / "coarse/predictions.csv").string()));
  for (const char* col : {"method", "N_opt", "N_lo", "L_opt", "D_opt", "ok"}) EXPECT_EQ(pa.at(col), pb.at(col)) << col;
  EXPECT_NE(pa.at("regret"), pb.at("regret"));  // scored against different truths
  const double ta = ja["worlds"][0]["truth"][0]["N_opt"].get<double>(), tb = jb["worlds"][0]["truth"][0]["N_opt"].get<double>();
  EXPECT_NE(ta, tb);
  EXPECT_NEAR(ta / tb, 1, 0.02);  // the same optimum, found on slices of different resolution
  // The methods' table holds the small budgets only: no run at or near a target.
  for (double C : read_csv((dir / "fine/tables.csv").string()).numbers("C")) EXPECT_LE(C, 1e10 * 1.05);
  // The fine truth is the bound's minimum: the bound at 0.99 and 1.01 times N_opt is higher.
  // (teacher.bound's corollary: d K ln(1 + n/K)(ln(e 36 T K) + (2/d) ln(2n)) / (2T) + 3K/n, N = 10 n, T = 6 D.)
  const auto bound = scalinglab::testing::teacher_bound;
  const double C = ja["worlds"][0]["truth"][0]["C"].get<double>();
  EXPECT_LT(bound(ta, C), bound(ta * 0.99, C));
  EXPECT_LT(bound(ta, C), bound(ta * 1.01, C));
  EXPECT_NEAR(ja["worlds"][0]["truth"][0]["L_opt"].get<double>() / bound(ta, C), 1, 1e-6);
}

TEST_F(ExtrapolationBenchmark, ReplicationsDrawFreshRunsAndExternalPredictionsAreScored) {
  const auto w = write("mem.toml", kMemoryWorld);
  // An oracle made elsewhere: predicts the truth itself, with an interval around it.
  BenchmarkOptions o;
  o.quiet = true;
  o.methods = {"approach3"};
  o.out_dir = (dir / "out").string();
  const auto j = run_benchmark({w.string()}, o);
  const DataTable t = read_csv((dir / "out/tables.csv").string());
  const auto rep = t.numbers("replication"), loss = t.numbers("loss");
  std::map<int, std::vector<double>> by_rep;
  for (std::size_t i = 0; i < rep.size(); ++i) by_rep[static_cast<int>(rep[i])].push_back(loss[i]);
  ASSERT_EQ(by_rep.size(), 3u);
  EXPECT_NE(by_rep[1], by_rep[2]);
  EXPECT_NE(by_rep[2], by_rep[3]);
  const auto& truth = j["worlds"][0]["truth"][0];
  ASSERT_TRUE(truth["N_opt"].is_number()) << truth.dump();
  const double N = truth["N_opt"].get<double>(), L = truth["L_opt"].get<double>();
  std::string csv = "world,design,replication,horizon,method,N_opt,N_lo,N_hi,L_opt,L_lo,L_hi\n";
  for (int r = 1; r <= 3; ++r)
    csv += "mem,a," + std::to_string(r) + ",10,oracle," + std::to_string(N) + "," + std::to_string(N * 0.9) + "," +
           std::to_string(N * 1.1) + "," + std::to_string(L) + ",,\n";
  o.predictions = write("oracle.csv", csv).string();
  o.resume = true;  // the runs are kept: only the scoring is new
  const auto j2 = run_benchmark({w.string()}, o);
  bool seen = false;
  for (const auto& row : j2["rows"])
    if (row["method"] == "oracle") {
      seen = true;
      EXPECT_EQ(row["N_coverage"]["covered"].get<int>(), 3);
      EXPECT_NEAR(row["N_error"]["median"].get<double>(), 0, 1e-5);
      EXPECT_NEAR(row["regret"]["median"].get<double>(), 0, 1e-9);
      EXPECT_EQ(row["L_coverage"]["total"].get<int>(), 0);  // no L interval given
    }
  EXPECT_TRUE(seen);
}

TEST_F(ExtrapolationBenchmark, RefusesBadParametersBeforeAnyWork) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"budgets = [1e10, 1e8]\n", "budgets"},          {"sizes = [0, 10]\n", "sizes"},
      {"horizons = [0.5]\n", "horizons"},              {"replications = 2.5\n", "replications"},
      {"truth_sizes = 3\n", "truth_sizes"},            {"truth_spread = 1\n", "truth_spread"},
      {"bootstrap = 5\n", "bootstrap"},                {"shift = 2\n", "shift"},
      {"designs = [{ name = \"a/b\" }]\n", "designs"}, {"main = \"zzz\"\n", "main"},
      {"colour = 3\n", "unknown key"},
  };
  for (const auto& [line, key] : bad) {
    std::string text = bound_world("");
    // The bad line replaces the key it names (or adds one).
    const auto k = line.substr(0, line.find(' '));
    if (auto p = text.find("\n" + k + " ="); p != std::string::npos) text.erase(p + 1, text.find('\n', p + 1) - p);
    text += line;
    const auto f = write("w.toml", text);
    BenchmarkOptions o;
    o.quiet = true;
    o.out_dir = (dir / "never").string();
    try {
      run_benchmark({f.string()}, o);
      ADD_FAILURE() << "accepted " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "never")) << line;
  }
  BenchmarkOptions o;
  o.out_dir = (dir / "never").string();
  o.methods = {"approach9"};
  EXPECT_THROW(run_benchmark({write("ok.toml", bound_world("")).string()}, o), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "never"));
}
