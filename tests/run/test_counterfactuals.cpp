// counterfactuals: a tiny paper whose checks meet a wrong model that breaks them (REJECTS), one that
// does not (ACCEPTS: the check is no evidence), and a check without any (listed as missing).
#include <gtest/gtest.h>
#include <unistd.h>

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
  EXPECT_FALSE(r.results[1].rejected) << out;  // N = 20000: still -1/2
  EXPECT_EQ(r.missing, std::vector<std::string>{"prop1 #3"});
  EXPECT_EQ(r.rejected(), 1u);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(out.find("REJECTS  prop1 #1 with alpha=3: slope"), std::string::npos) << out;
  EXPECT_NE(out.find("ACCEPTS  prop1 #2 with N=20000"), std::string::npos) << out;
  EXPECT_NE(out.find("declare no counterfactual: prop1 #3"), std::string::npos) << out;
  // Each variant is a results folder of its own; the verdicts are kept for CLAIMS.md.
  EXPECT_TRUE(fs::exists(root / "out" / "prop1" / "counterfactual-1" / "summary.csv"));
  EXPECT_TRUE(fs::exists(root / "out" / "prop1" / "counterfactual-2" / "summary.csv"));
  const auto back = read_counterfactuals(options.out_dir);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].set, std::vector<std::string>{"alpha=3"});
  EXPECT_TRUE(back[0].rejected);
  EXPECT_FALSE(back[1].rejected);

  // The ledger refuses a check counted as evidence without a wrong model; marked as a known failure,
  // #3 needs none.
  EXPECT_THROW(load_claims(options.experiments_dir, "tiny"), InputError);
  std::string fixed = kSweep;
  fixed.replace(fixed.find("claim = \"no wrong model given\""), 30,
                "claim = \"no wrong model given\"\nknown_failure = \"measured x\"");
  std::ofstream(root / "experiments" / "tiny" / "prop1.toml") << fixed;

  // CLAIMS.md names each check's wrong model and what the check measured on it; the table read back
  // from the file gives the same verdicts.
  const ClaimsIndex index = load_claims(options.experiments_dir, "tiny");
  const std::string md = claims_markdown(index, {"quick profile"}, {{{"reduced", "reproduced at reduced scale"}}}, back);
  EXPECT_NE(md.find("prop1 #1 (rejects alpha=3)"), std::string::npos) << md;
  EXPECT_NE(md.find("| prop1 #1 | alpha=3 | the rate is -(1-1/alpha) | REJECTS: slope -0.66"), std::string::npos) << md;
  EXPECT_NE(md.find("| prop1 #2 | N=20000 | a larger N should not matter | ACCEPTS: "), std::string::npos) << md;
  const auto kept = counterfactuals_from_markdown(md);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].name(), "prop1 #1");
  EXPECT_TRUE(kept[0].rejected);
  EXPECT_FALSE(kept[1].rejected);
  EXPECT_EQ(claims_markdown(index, {"quick profile"}, {{{"reduced", "reproduced at reduced scale"}}}, kept), md);

  // A second run into the same folder is refused unless resumed; resumed, it runs nothing new.
  EXPECT_THROW(run_counterfactuals(options), InputError);
  options.resume = true;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(run_counterfactuals(options).rejected(), 1u);
  ::testing::internal::GetCapturedStdout();
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
  EXPECT_NE(r.results[0].error.find("nothing to judge (no rows selected by where {alpha=2}"), std::string::npos)
      << r.results[0].error;
  EXPECT_FALSE(r.ok());
  EXPECT_NE(out.find("ERROR    prop1 #1 with alpha=3: the counterfactual leaves the check nothing to judge"),
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
