// Planning a sweep: the probes' predictions against measures whose cost is known (they spin for a
// CPU time set by a parameter: probes time CPU, so other programs on the machine do not matter),
// the probes' time bound, the --wall arithmetic and its warning, and the command line (bad
// durations exit 2; --plan writes nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <time.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/run/plan.hpp"
#include "support/cli_process.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {

constexpr double kMsPerUnit = 2;  // the toy task of size n spins for 2n ms of CPU time

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

void spin_ms(double ms) {
  const double end = thread_cpu_ms() + ms;
  volatile double x = 0;
  while (thread_cpu_ms() < end)
    for (int i = 0; i < 1000; ++i) x = x + 1;
}

const Registry& spinners() {
  static const Registry r = [] {
    Registry reg;
    Measure m;  // cost known, not declared: the plan must fit it
    m.name = "toy.spin";
    m.params = {int_param("n", "1", "size"), int_param("k", "1", "a parameter that costs nothing")};
    m.metrics = {{"n", "the size"}};
    m.fn = [](const Params& p, Stream&) {
      spin_ms(kMsPerUnit * static_cast<double>(p.integer("n")));
      Record rec;
      rec.set("n", static_cast<double>(p.integer("n")));
      return rec;
    };
    reg.add(m);
    m.name = "toy.spin_work";  // the same, declaring its work: the plan calibrates a rate
    m.work = [](const Params& p) { return 1e6 * static_cast<double>(p.integer("n")); };
    m.memory = [](const Params& p) { return 1e6 * static_cast<double>(p.integer("n")); };
    reg.add(m);
    return reg;
  }();
  return r;
}

// The true CPU time of the sweeps below: runs x the sum of 2n ms over the grid.
double true_seconds(const std::vector<int>& ns, int runs, int ks) {
  double s = 0;
  for (int n : ns) s += kMsPerUnit * n / 1000;
  return s * runs * ks;
}

const std::vector<int> kSizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 400};

Sweep spin_sweep(const std::string& measure) {
  const std::string text = "measure = \"" + measure + "\"\nruns = 3\nseed = 1\n[grid]\n"
                           "n = [1, 2, 4, 8, 16, 32, 64, 128, 256, 400]\nk = [1, 2]\n";
  return parse_sweep(text, "spin.toml", "", {}, spinners());
}

PlanOptions spin_plan_options(double probe_seconds) {
  PlanOptions o;
  o.probe_seconds = probe_seconds;
  o.registry = &spinners();
  return o;
}

}  // namespace

TEST(Plan, PowerLawFromProbesPredictsKnownCosts) {
  const SweepPlan p = plan_sweep(spin_sweep("toy.spin"), spin_plan_options(1.5));
  EXPECT_EQ(p.points, 20u);
  EXPECT_EQ(p.tasks, 60u);
  ASSERT_EQ(p.measures.size(), 1u);
  const auto& m = p.measures[0];
  EXPECT_NE(m.method.find("power law from"), std::string::npos) << m.method;
  EXPECT_GE(m.probes, 3u);
  const double truth = true_seconds(kSizes, 3, 2);
  EXPECT_NEAR(m.cpu_seconds / truth, 1, 0.2) << m.cpu_seconds << " s predicted, " << truth << " s true";
  EXPECT_NEAR(m.longest_seconds / (kMsPerUnit * 400 / 1000), 1, 0.25) << m.longest_seconds;
  EXPECT_EQ(m.peak_bytes, 0);  // no memory estimate declared
  EXPECT_FALSE(m.lower_bound);
  EXPECT_LT(p.probe_seconds, 1.5 + 0.5);
}

TEST(Plan, WorkTimesRatePredictsKnownCosts) {
  const SweepPlan p = plan_sweep(spin_sweep("toy.spin_work"), spin_plan_options(1.0));
  const auto& m = p.measures.at(0);
  EXPECT_EQ(m.method.find("work x rate"), 0u) << m.method;
  EXPECT_NEAR(m.cpu_seconds / true_seconds(kSizes, 3, 2), 1, 0.15) << m.cpu_seconds;
  EXPECT_NEAR(m.longest_seconds / (kMsPerUnit * 400 / 1000), 1, 0.2) << m.longest_seconds;
  EXPECT_EQ(m.peak_bytes, 400e6);  // the largest declared estimate over the tasks
}

TEST(Plan, EveryPointProbedWhenTheyFit) {
  const Sweep s = parse_sweep("measure = \"toy.spin\"\nruns = 5\n[grid]\nn = [1, 3, 5]\n", "small.toml", "", {}, spinners());
  const SweepPlan p = plan_sweep(s, spin_plan_options(2));
  EXPECT_EQ(p.measures.at(0).method, "every point probed (3)");
  EXPECT_NEAR(p.cpu_seconds() / true_seconds({1, 3, 5}, 5, 1), 1, 0.3);
}

// A task far longer than the budget: the probe is stopped at the budget, and the plan says the times
// are lower bounds instead of inventing them.
TEST(Plan, ProbesStopAtTheBudget) {
  const Sweep s = parse_sweep("measure = \"toy.spin\"\n[grid]\nn = [20000, 40000]\n", "slow.toml", "", {}, spinners());
  const auto start = std::chrono::steady_clock::now();
  const SweepPlan p = plan_sweep(s, spin_plan_options(0.3));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 2.0);
  const auto& m = p.measures.at(0);
  EXPECT_TRUE(m.lower_bound);
  EXPECT_EQ(m.probes, 0u);
  EXPECT_NE(m.method.find("no probe finished"), std::string::npos) << m.method;
  EXPECT_GT(m.cpu_seconds, 0);  // each task took at least the CPU time the stopped probe had
}

TEST(Plan, WallTimesAndTheirErrors) {
  EXPECT_EQ(parse_wall("24h"), 86400);
  EXPECT_EQ(parse_wall("90m"), 5400);
  EXPECT_EQ(parse_wall("3600s"), 3600);
  EXPECT_EQ(parse_wall("2d"), 172800);
  EXPECT_EQ(parse_wall("1.5h"), 5400);
  EXPECT_EQ(parse_wall("600"), 600);  // seconds, as --checkpoint-every reads it
  for (const char* bad : {"24x", "1w", "-1h", "0h", "0", "h", "", "infh", "nanm", "1e400s"})
    EXPECT_THROW(parse_wall(bad), InputError) << bad;
}

TEST(Plan, WallArithmetic) {
  // ceil(total / (wall x cores)): 100 CPU-hours in 24 h on 2-core nodes is 3 nodes (2.08 rounded up).
  EXPECT_EQ(array_size(100 * 3600.0, 24 * 3600.0, 2, 1000), 3u);
  EXPECT_EQ(array_size(96 * 3600.0, 24 * 3600.0, 2, 1000), 2u);
  EXPECT_EQ(array_size(1, 24 * 3600.0, 8, 1000), 1u);          // at least one
  EXPECT_EQ(array_size(1e9, 3600.0, 1, 10), 10u);             // never more than the tasks
}

TEST(Plan, TaskLongerThanTheWallIsFlagged) {
  SweepPlan p;
  p.name = "long";
  p.points = 2;
  p.tasks = 4;
  MeasureEstimate m;
  m.measure = "toy.spin";
  m.tasks = 4;
  m.method = "work x rate";
  m.longest_seconds = 30 * 3600;
  m.cpu_seconds = 100 * 3600;
  p.measures = {m};
  PlanOptions o;
  o.threads = 2;
  o.wall_seconds = 24 * 3600;
  const std::string text = plan_text({p}, o);
  EXPECT_NE(text.find("warning: long: one task takes about 30 h, longer than the wall time 24 h"), std::string::npos) << text;
  EXPECT_NE(text.find("checkpoints"), std::string::npos);
  p.measures[0].longest_seconds = 3600;
  EXPECT_EQ(plan_text({p}, o).find("warning"), std::string::npos) << plan_text({p}, o);
  // The array column: 100 CPU-hours, 24 h, 2 cores: 3.
  EXPECT_NE(plan_text({p}, o).find("      3  work x rate"), std::string::npos) << plan_text({p}, o);
  p.refused = "toy.spin at n=1 needs about 9 GB per run";  // past a limit of this machine: said, not thrown
  EXPECT_NE(plan_text({p}, o).find("warning: long: run would refuse it here: toy.spin"), std::string::npos);
}

using PlanCli = scalinglab::testing::ScratchDirTest;

TEST_F(PlanCli, BadInputExitsTwoBeforeAnyWork) {
  const auto sweep = write("tiny.toml", "measure = \"memory.error\"\nruns = 2\n[grid]\nd = [8, 16]\n").string();
  for (const auto& wall : {"24x", "-3h", "1w", "0m"}) {
    const auto o = scalinglab::testing::run_cli_args({"run", sweep, "--plan", "--wall", wall});
    EXPECT_EQ(o.status, 2) << wall << "\n" << o.out;
    EXPECT_NE(o.out.find("--wall"), std::string::npos) << o.out;
    EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;
    EXPECT_LT(o.seconds, 5);
  }
  const auto r = scalinglab::testing::run_cli_args({"reproduce", "cabannes2023", "--plan", "--wall", "1w"});
  EXPECT_EQ(r.status, 2) << r.out;
  const auto p = scalinglab::testing::run_cli_args({"run", sweep, "--plan", "--probe-seconds", "-1"});
  EXPECT_EQ(p.status, 2) << p.out;
  const auto w = scalinglab::testing::run_cli_args({"run", sweep, "--wall", "24h"});  // a plan's option alone
  EXPECT_EQ(w.status, 2) << w.out;
}

TEST_F(PlanCli, PlanWritesNothing) {
  const auto sweep = write("tiny.toml", "measure = \"memory.error\"\nruns = 2\n[grid]\nd = [8, 16]\n").string();
  const auto out = dir / "out";
  const auto o = scalinglab::testing::run_cli_args(
      {"run", sweep, "--plan", "--wall", "1h", "--probe-seconds", "0.5", "--out", out.string()}, 60, dir.string());
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("memory.error"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("nothing was written"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir / "results"));  // nor the default folder

  // A paper of two sweeps: one row each and the total line; no results folder either.
  fs::create_directories(dir / "experiments" / "tiny");
  fs::copy_file(sweep, dir / "experiments" / "tiny" / "a.toml");
  std::ofstream(dir / "experiments" / "tiny" / "b.toml") << "measure = \"memory.error\"\n[grid]\nN = [50, 100]\n";
  const auto r = scalinglab::testing::run_cli_args(
      {"reproduce", "tiny", "--plan", "--experiments", (dir / "experiments").string(), "--wall", "2d",
       "--probe-seconds", "0.5"},
      60, dir.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\na "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nb "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total (2 sweeps)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "results"));
}
