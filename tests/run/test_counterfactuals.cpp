// counterfactuals: a tiny paper whose checks meet a wrong model that breaks them (REJECTS), one that
// does not (ACCEPTS: the check is no evidence), and a check without any (listed as missing).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scalinglab/claims/claims.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/run/counterfactuals.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

// Proposition 1's exact error (deterministic, fast) decays as T^-(1-1/alpha): -1/2 at alpha = 2.
// alpha = 3 changes the rate (the check must fail there); N = 20000 does not (it cannot).
const char* kSweep = R"toml(measure = "memory.infinite_memory_error"
[params]
N = 10000
alpha = 2.0
[grid]
T = "logspace(100, 10000, 5)"
[[check]]
claim = "the rate follows from alpha"
ref = "Prop. 1"
slope = { x = "T", y = "error", expect = -0.5, tol = 0.05 }
counterfactual = { set = "alpha=3", why = "the rate is -(1-1/alpha)" }
[[check]]
claim = "the rate again, against a change it does not see"
ref = "Prop. 1"
slope = { x = "T", y = "error", expect = -0.5, tol = 0.05 }
counterfactual = { set = ["N=20000"], why = "a larger N should not matter" }
[[check]]
claim = "no wrong model given"
ref = "Prop. 1"
slope = { x = "T", y = "error", expect = -0.5, tol = 0.05 }
[[check]]
claim = "a substitute needs none"
ref = "Prop. 1"
substitute = "another setting"
slope = { x = "T", y = "error", expect = -0.5, tol = 0.05 }
)toml";

class CounterfactualsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("scalinglab_test_counterfactuals_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "experiments" / "tiny");
    std::ofstream(root / "experiments" / "tiny" / "prop1.toml") << kSweep;
    std::ofstream(root / "experiments" / "tiny" / "claims.toml")
        << "paper = \"A tiny paper\"\n[[item]]\nid = \"Prop. 1\"\nclaim = \"the error decays as T^-1/2\"\n";
    options.paper = "tiny";
    options.experiments_dir = (root / "experiments").string();
    options.out_dir = (root / "out").string();
    options.quiet = true;
    options.threads = 1;
  }
  void TearDown() override { fs::remove_all(root); }

  fs::path root;
  CounterfactualOptions options;
};

TEST_F(CounterfactualsTest, EachCheckMeetsItsWrongModel) {
  ::testing::internal::CaptureStdout();
  const CounterfactualOutcome r = run_counterfactuals(options);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(r.results.size(), 2u) << out;
  EXPECT_EQ(r.results[0].name(), "prop1 #1");
  EXPECT_TRUE(r.results[0].rejected) << out;  // alpha = 3: slope -2/3
  EXPECT_NE(r.results[0].measured.find("slope -0.66"), std::string::npos) << r.results[0].measured;
  // A deterministic measure runs once: one run stands for every seed.
  EXPECT_TRUE(r.results[0].deterministic);
  EXPECT_EQ(r.results[0].seeds.size(), 1u);
  // The margin of the rejection, in the slope's units: -0.66 against -0.5 +- 0.05.
  EXPECT_EQ(r.results[0].margin_unit, "slope");
  EXPECT_NEAR(r.results[0].margin, 0.16 - 0.05, 0.03);
  EXPECT_FALSE(r.results[1].rejected) << out;  // N = 20000: still -1/2
  EXPECT_LT(r.results[1].margin, 0);
  EXPECT_EQ(r.missing, std::vector<std::string>{"prop1 #3"});
  EXPECT_EQ(r.rejected(), 1u);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(out.find("REJECTS  prop1 #1 with alpha=3, deterministic (one run stands for every seed), margin +0.1"),
            std::string::npos) << out;
  EXPECT_NE(out.find("ACCEPTS  prop1 #2 with N=20000"), std::string::npos) << out;
  EXPECT_NE(out.find("declare no counterfactual: prop1 #3"), std::string::npos) << out;
  // Each variant is a results folder of its own, per seed; the verdicts are kept for CLAIMS.md.
  EXPECT_TRUE(fs::exists(root / "out" / "prop1" / "counterfactual-1" / "seed-0" / "summary.csv"));
  EXPECT_TRUE(fs::exists(root / "out" / "prop1" / "counterfactual-2" / "seed-0" / "summary.csv"));
  EXPECT_FALSE(fs::exists(root / "out" / "prop1" / "counterfactual-1" / "seed-0" / "plot.svg"));  // no figure
  const auto back = read_counterfactuals(options.out_dir);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].set, std::vector<std::string>{"alpha=3"});
  EXPECT_TRUE(back[0].rejected);
  EXPECT_FALSE(back[1].rejected);
  EXPECT_EQ(back[0].margin_unit, "slope");
  EXPECT_DOUBLE_EQ(back[0].margin, r.results[0].margin);
  EXPECT_EQ(back[0].profile, "quick");

  // The ledger refuses a check counted as evidence without a wrong model; marked as a known failure,
  // #3 needs none.
  EXPECT_THROW(load_claims(options.experiments_dir, "tiny"), InputError);
  std::string fixed = kSweep;
  fixed.replace(fixed.find("claim = \"no wrong model given\""), 30,
                "claim = \"no wrong model given\"\nknown_failure = \"measured x\"");
  std::ofstream(root / "experiments" / "tiny" / "prop1.toml") << fixed;

  // CLAIMS.md names each check's wrong model, its verdict, margin and what the check measured on it;
  // the table read back from the file gives the same verdicts.
  const ClaimsIndex index = load_claims(options.experiments_dir, "tiny");
  const std::string md = claims_markdown(index, {"quick profile"}, {{{"reduced", "reproduced at reduced scale"}}}, back);
  EXPECT_NE(md.find("prop1 #1 (rejects alpha=3)"), std::string::npos) << md;
  EXPECT_NE(md.find("prop1 #2 (does not reject N=20000)"), std::string::npos) << md;
  EXPECT_NE(md.find("| prop1 #1 | alpha=3 | the rate is -(1-1/alpha) | REJECTS (deterministic) (quick) | +0.1"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| prop1 #2 | N=20000 | a larger N should not matter | ACCEPTS (deterministic) (quick) | -"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- **wrong models**: 2 declared: 1 rejected at every seed, 1 accepted, 0 declared, not run."),
            std::string::npos) << md;
  const auto kept = counterfactuals_from_markdown(md);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].name(), "prop1 #1");
  EXPECT_TRUE(kept[0].rejected);
  EXPECT_FALSE(kept[1].rejected);
  EXPECT_EQ(claims_markdown(index, {"quick profile"}, {{{"reduced", "reproduced at reduced scale"}}}, kept), md);
  // Without results, the ledger says the wrong models were declared, not run.
  const std::string none = claims_markdown(index, {"quick profile"}, {{{"reduced", "reproduced at reduced scale"}}}, {});
  EXPECT_NE(none.find("prop1 #1 (declared, not run: alpha=3)"), std::string::npos) << none;
  EXPECT_NE(none.find("| declared, not run |"), std::string::npos) << none;
  EXPECT_EQ(none.find("(rejects"), std::string::npos) << none;

  // A second run into the same folder is refused unless resumed; resumed, it runs nothing new.
  EXPECT_THROW(run_counterfactuals(options), InputError);
  options.resume = true;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(run_counterfactuals(options).rejected(), 1u);
  ::testing::internal::GetCapturedStdout();
}

// A random measure runs at every seed, only the grid points its checks read; the wrong model counts
// as rejected only when every seed rejects it.
TEST_F(CounterfactualsTest, ARandomModelRunsAtEverySeedAndOnlyWhereItsChecksLook) {
  std::ofstream(root / "experiments" / "tiny" / "prop1.toml") << R"toml(measure = "memory.error"
runs = 4
seed = 7
[params]
N = 50
M = 5
T = "inf"
scheme = "q0"
[grid]
d = [8, 16, 200, 400]
[[check]]
claim = "q0 overflows below N"
ref = "Prop. 1"
above = { x = "d", y = "error", x_max = 16, bound = "0.2" }
counterfactual = { set = "interference=0.1", why = "a memory with far less interference does not overflow" }
)toml";
  options.seeds = 2;
  ::testing::internal::CaptureStdout();
  const CounterfactualOutcome r = run_counterfactuals(options);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(r.results.size(), 1u) << out;
  const auto& c = r.results[0];
  EXPECT_FALSE(c.deterministic);
  ASSERT_EQ(c.seeds.size(), 2u);
  EXPECT_EQ(c.seeds[0].seed, 7u);
  EXPECT_EQ(c.seeds[1].seed, 8u);
  EXPECT_TRUE(c.rejected) << out;
  EXPECT_EQ(c.margin_unit, "sem");
  EXPECT_DOUBLE_EQ(c.margin, std::min(c.seeds[0].margin, c.seeds[1].margin));
  EXPECT_NE(out.find("rejected at 2/2 seeds, smallest margin"), std::string::npos) << out;
  // Only d = 8 and 16 ran (the check's x range), 4 runs each.
  const fs::path seed7 = root / "out" / "prop1" / "counterfactual-1" / "seed-7";
  std::ifstream in(seed7 / "results.jsonl");
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) {
    ++lines;
    EXPECT_EQ(line.find("\"d\":200"), std::string::npos);
    EXPECT_EQ(line.find("\"d\":400"), std::string::npos);
  }
  EXPECT_EQ(lines, 8u);
  EXPECT_TRUE(fs::exists(root / "out" / "prop1" / "counterfactual-1" / "seed-8" / "results.jsonl"));
}

// The summary over the seeds: one seed that accepts makes the wrong model accepted; the margin is the
// smallest over the seeds, and the measured text that of the seed closest to accepting.
TEST(CounterfactualSummary, EverySeedMustReject) {
  CounterfactualResult r;
  r.seeds = {{1, true, "a", "e", 3.0, "sem", ""}, {2, true, "b", "e", 1.5, "sem", ""}, {3, true, "c", "e", 2.0, "sem", ""}};
  r.summarise();
  EXPECT_TRUE(r.rejected);
  EXPECT_DOUBLE_EQ(r.margin, 1.5);
  EXPECT_EQ(r.measured, "b");
  EXPECT_EQ(r.verdict_text(), "rejected at 3/3 seeds, smallest margin +1.5 sem");
  r.seeds[2] = {3, false, "c", "e", -0.5, "sem", ""};
  r.summarise();
  EXPECT_FALSE(r.rejected);
  EXPECT_DOUBLE_EQ(r.margin, -0.5);
  EXPECT_EQ(r.measured, "c");
  EXPECT_EQ(r.verdict_text(), "accepted at 1/3 seeds, margin at the worst -0.5 sem");
  r.seeds[2] = {3, false, "", "", std::nan(""), "", "the run failed"};
  r.summarise();
  EXPECT_FALSE(r.rejected);
  EXPECT_EQ(r.error, "the run failed");
  // Read back from its JSON record, the same.
  const auto back = CounterfactualResult::from_json(r.to_json());
  EXPECT_EQ(back.seeds.size(), 3u);
  EXPECT_EQ(back.error, "the run failed");
  EXPECT_EQ(back.seeds[1].margin, 1.5);
}

// A --set of the parameter a check's where selects empties the check: that is no rejection.
TEST_F(CounterfactualsTest, ACounterfactualThatLeavesNothingToJudgeIsAnError) {
  std::ofstream(root / "experiments" / "tiny" / "prop1.toml") << R"toml(measure = "memory.infinite_memory_error"
[params]
N = 10000
[grid]
alpha = [2.0, 3.0]
T = "logspace(100, 10000, 5)"
[[check]]
claim = "the rate at alpha = 2"
ref = "Prop. 1"
slope = { x = "T", y = "error", where = { alpha = 2 }, expect = -0.5, tol = 0.05 }
counterfactual = { set = "alpha=3", why = "removes the selected rows" }
)toml";
  ::testing::internal::CaptureStdout();
  const CounterfactualOutcome r = run_counterfactuals(options);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_FALSE(r.results[0].rejected);
  EXPECT_NE(r.results[0].error.find("nothing to judge (no grid point of the wrong model matches its where"), std::string::npos)
      << r.results[0].error;
  EXPECT_FALSE(r.ok());
  EXPECT_NE(out.find("ERROR    prop1 #1 with alpha=3, error: the counterfactual leaves the check nothing to judge"),
            std::string::npos) << out;
}

TEST_F(CounterfactualsTest, BadInputIsRefusedBeforeAnythingRuns) {
  options.only = {"nope"};
  EXPECT_THROW(run_counterfactuals(options), InputError);
  options.only = {};
  std::ofstream(root / "experiments" / "tiny" / "prop1.toml")
      << std::string(kSweep) + "[[check]]\nclaim = \"x\"\nref = \"Prop. 1\"\n"
                               "slope = { x = \"T\", y = \"error\", expect = -0.5, tol = 0.05 }\n"
                               "counterfactual = { set = \"alpha=-1\", why = \"out of range\" }\n";
  EXPECT_THROW(run_counterfactuals(options), InputError);  // alpha = -1 refused when its variant loads
  EXPECT_FALSE(fs::exists(root / "out" / "prop1"));
}

}  // namespace
}  // namespace scalinglab
