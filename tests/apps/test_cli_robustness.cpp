// The command line against careless input: every mistake ends at once with exit status 2 and one
// sentence (no C++ exception text, no signal, no minutes of work before a bad_alloc), and nothing
// that looks like success hides a wrong or missing result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_process.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

using testing::CliOutcome;
using testing::run_cli_args;

class CliRobustness : public testing::ScratchDirTest {
 protected:
  // Exit 2 within `seconds`, the message contains `needle`, and it reads as our sentence rather
  // than a C++ exception's what().
  void expect_refused(const std::vector<std::string>& args, const std::string& needle, double seconds = 10) {
    const CliOutcome o = run_cli_args(args, 60, dir.string());
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    EXPECT_EQ(o.status, 2) << cmd << "\n" << o.out;
    EXPECT_NE(o.out.find(needle), std::string::npos) << cmd << "\n" << o.out;
    EXPECT_EQ(o.out.rfind("scalinglab: error: ", 0), 0u) << cmd << "\n" << o.out;
    for (const char* raw : {"stoull", "stod", "std::", "basic_string", "bad_alloc", "filesystem error"})
      EXPECT_EQ(o.out.find(raw), std::string::npos) << cmd << "\n" << o.out;
    EXPECT_LT(o.seconds, seconds) << cmd;
  }
};

const char* kSweep = R"(measure = "memory.infinite_memory_error"
runs = 2
[grid]
T = [10, 100, 1000]
[profile.quick]
runs = 1
)";

TEST_F(CliRobustness, ShardsAreParsedAsCheckedIntegers) {
  const std::string sweep = write("s.toml", kSweep).string();
  for (const char* bad : {"4294967296/2", "99999999999999999999/3", "3/2", "2/2", "-1/2", "1/0", "1/-2", "a/b", "1/2x",
                          "1", "/2", "1/"})
    expect_refused({"run", sweep, "--shard", bad, "--out", (dir / "o").string()}, "--shard");
  EXPECT_FALSE(fs::exists(dir / "o"));
  // A large but valid shard count works (most shards are empty).
  const CliOutcome o = run_cli_args({"run", sweep, "--shard", "5000000000/9000000000", "--quiet", "--out",
                                     (dir / "big").string()});
  EXPECT_EQ(o.status, 0) << o.out;
}

TEST_F(CliRobustness, NegativeAndNonsenseCountsAreRefused) {
  const std::string sweep = write("s.toml", kSweep).string();
  expect_refused({"run", sweep, "--threads", "-1"}, "--threads");
  expect_refused({"eval", "memory.error", "--threads", "-3"}, "--threads");
  const std::string csv = std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv";
  const std::vector<std::string> fit = {"fit", csv, "--law", "chinchilla", "--N", "Model Size", "--C", "Training FLOP"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = fit;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  expect_refused(with({"--bootstrap", "-5"}), "--bootstrap");
  expect_refused(with({"--seed", "-1"}), "--seed");
  expect_refused(with({"--threads", "-2"}), "--threads");
  expect_refused(with({"--grid", "alpha=nan"}), "not a finite number");
  expect_refused(with({"--grid", "alpha=0.5,inf"}), "not a finite number");
  expect_refused({"frontier", csv, "--N", "Model Size", "--C", "Training FLOP", "--at", "0"}, "--at");
  expect_refused({"frontier", csv, "--N", "Model Size", "--C", "Training FLOP", "--at", "inf"}, "--at");
}

TEST_F(CliRobustness, FitWithNoRowsLeftIsRefusedNotACrash) {
  write("t.csv", "x,loss\n1,3\n2,2\n4,1.5\n");
  for (const char* law : {"power", "saturating"}) {
    expect_refused({"fit", (dir / "t.csv").string(), "--law", law, "--x", "x", "--drop-top", "3"}, "leaves none");
    expect_refused({"fit", (dir / "t.csv").string(), "--law", law, "--x", "x", "--drop-top", "2"}, "points are needed");
  }
}

TEST_F(CliRobustness, FormulasMustGiveFiniteNumbers) {
  expect_refused({"eval", "memory.error", "P=0/0"}, "evaluates to nan");
  expect_refused({"eval", "memory.error", "P=d/0"}, "evaluates to inf");
  expect_refused({"eval", "skills.learnt", "T=0/0"}, "a formula must give a finite number");
  // Deeply nested formulas are refused with a sentence, not a stack overflow.
  expect_refused({"eval", "memory.error", "P=" + std::string(20000, '(') + "1" + std::string(20000, ')')}, "nested too deeply");
  expect_refused({"eval", "memory.error", "P=" + std::string(20000, '-') + "1"}, "nested too deeply");
  std::string chain = "1";
  for (int i = 0; i < 20000; ++i) chain += "^1";
  expect_refused({"eval", "memory.error", "P=" + chain}, "nested too deeply");
  std::string sum = "1";
  for (int i = 0; i < 20000; ++i) sum += "+1";
  expect_refused({"eval", "memory.error", "P=" + sum}, "too long a chain");
}

TEST_F(CliRobustness, NumbersTooLargeForTheirTypeAreSentencesNotExceptions) {
  // Once `stoull` leaked out with exit status 1.
  expect_refused({"eval", "factor.complexity", "input_factors=99999999999999999999x2", "output_factors=2x2"},
                 "bad factor list");
  expect_refused({"eval", "memory.error", "seed=1e30"}, "out of range");
}

TEST_F(CliRobustness, UnknownProfileIsRefused) {
  const std::string sweep = write("s.toml", kSweep).string();
  expect_refused({"run", sweep, "--profile", "quik", "--out", (dir / "o").string()}, "unknown profile 'quik'");
  EXPECT_FALSE(fs::exists(dir / "o"));
  // quick and paper always apply (a file without them runs as written).
  const std::string plain = write("p.toml", "measure = \"memory.infinite_memory_error\"\n").string();
  for (const char* p : {"quick", "paper"})
    EXPECT_EQ(run_cli_args({"run", plain, "--profile", p, "--quiet", "--out", (dir / p).string()}).status, 0);
  fs::create_directories(dir / "exp" / "tiny");
  fs::copy(dir / "s.toml", dir / "exp" / "tiny" / "s.toml");
  expect_refused({"reproduce", "tiny", "--experiments", (dir / "exp").string(), "--profile", "quik"},
                 "unknown profile 'quik'");
}

TEST_F(CliRobustness, LimitsAreCheckedBeforeAnyWork) {
  // A 10^9-point grid and 10^9 runs end at once.
  const std::string huge = write("huge.toml", "measure = \"memory.infinite_memory_error\"\n[grid]\n"
                                              "T = \"linspace(1, 1000000, 1000)\"\nN = \"linspace(1, 1000000, 1000)\"\n"
                                              "alpha = \"linspace(1, 3, 1000)\"\n")
                               .string();
  expect_refused({"run", huge, "--out", (dir / "h").string()}, "grid points, more than the limit", 5);
  EXPECT_FALSE(fs::exists(dir / "h"));
  expect_refused({"eval", "memory.infinite_memory_error", "runs=1e9"}, "--max-tasks", 5);
  expect_refused({"run", write("runs.toml", "measure = \"memory.infinite_memory_error\"\nruns = 1000000000\n").string()},
                 "--max-tasks", 5);
  // The limits can be raised (here: a 2-point grid under a limit of 1 point, then allowed).
  const std::string two = write("two.toml", "measure = \"memory.infinite_memory_error\"\n[grid]\nT = [1, 2]\n").string();
  expect_refused({"run", two, "--max-points", "1", "--out", (dir / "t").string()}, "--max-points");
  EXPECT_EQ(run_cli_args({"run", two, "--max-points", "2", "--quiet", "--out", (dir / "t").string()}).status, 0);
}

TEST_F(CliRobustness, FilesThatAreNotRegularAreRefused) {
  expect_refused({"run", "/dev/zero"}, "not a regular file", 5);
  expect_refused({"run", dir.string()}, "not a regular file", 5);
  expect_refused({"fit", "/dev/zero", "--law", "power", "--x", "x"}, "not a regular file", 5);
  expect_refused({"run", (dir / "missing.toml").string()}, "no such file");
}

TEST_F(CliRobustness, MergeWithMissingTasksIsNotASuccess) {
  const std::string sweep = write("s.toml", kSweep).string();
  for (const char* s : {"0/3", "1/3"})
    ASSERT_EQ(run_cli_args({"run", sweep, "--shard", s, "--quiet", "--out", (dir / ("s" + std::string(1, s[0]))).string()})
                  .status,
              0);
  const CliOutcome partial = run_cli_args({"merge", (dir / "m").string(), (dir / "s0").string(), (dir / "s1").string()});
  EXPECT_EQ(partial.status, 1) << partial.out;
  EXPECT_NE(partial.out.find("2 of 6 tasks are missing"), std::string::npos) << partial.out;
  EXPECT_TRUE(fs::exists(dir / "m" / "summary.csv"));  // what is there is still summarised
  ASSERT_EQ(run_cli_args({"run", sweep, "--shard", "2/3", "--quiet", "--out", (dir / "s2").string()}).status, 0);
  const CliOutcome full = run_cli_args({"merge", (dir / "m").string(), (dir / "s0").string(), (dir / "s1").string(),
                                        (dir / "s2").string()});
  EXPECT_EQ(full.status, 0) << full.out;
}

TEST_F(CliRobustness, ResumeAfterChangingTheMeasureDoesNotReuseItsRecords) {
  // Two measures sharing the parameter names N, alpha and T.
  write("s.toml", "measure = \"memory.infinite_memory_error\"\n[params]\nN = 50\n[grid]\nT = [10, 100]\n");
  ASSERT_EQ(run_cli_args({"run", (dir / "s.toml").string(), "--quiet", "--out", (dir / "o").string()}).status, 0);
  write("s.toml", "measure = \"memory.error\"\n[params]\nN = 50\n[grid]\nT = [10, 100]\n");
  const CliOutcome o = run_cli_args({"run", (dir / "s.toml").string(), "--resume", "--out", (dir / "o").string()});
  // The folder holds the other measure's outputs: refused, nothing mixed.
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("memory.infinite_memory_error"), std::string::npos) << o.out;
}

TEST_F(CliRobustness, TrainedRecordsDoNotDependOnTheThreadCount) {
  // memory.train goes through the BLAS: one BLAS thread per task in every mode.
  const std::string text = R"(measure = "memory.train"
runs = 2
seed = 3
[params]
N = 100
M = 5
model = "matrix"
optimizer = "sgd"
lr = 1
batch = 16
T = 2000
[grid]
d = [100, 300]
)";
  const std::string sweep = write("t.toml", text).string();
  std::string metrics[2];
  for (int threads : {1, 2}) {
    const fs::path out = dir / ("t" + std::to_string(threads));
    ASSERT_EQ(run_cli_args({"run", sweep, "--quiet", "--threads", std::to_string(threads), "--out", out.string()}).status, 0);
    std::ifstream in(out / "results.jsonl");
    std::map<std::string, std::string> by_task;
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line);
      by_task[j["key"].get<std::string>() + "#" + j["run"].dump()] = j["metrics"].dump() + j["series"].dump();
    }
    for (const auto& [k, v] : by_task) metrics[threads - 1] += k + v + "\n";
  }
  EXPECT_EQ(metrics[0], metrics[1]);
  // ... and eval gives the same numbers as the sweep's run 0.
  const CliOutcome e = run_cli_args({"eval", "memory.train", "N=100", "M=5", "model=matrix", "optimizer=sgd", "lr=1",
                                     "batch=16", "T=2000", "d=300", "seed=3", "--json", "--threads", "2"});
  ASSERT_EQ(e.status, 0) << e.out;
  const auto j = nlohmann::json::parse(e.out);
  EXPECT_NE(metrics[0].find("\"error\":" + j["metrics"]["error"]["mean"].dump()), std::string::npos) << metrics[0] << e.out;
}

TEST_F(CliRobustness, ALoneRunSharesItsWorkWithoutChangingItsNumbers) {
  // One run uses every thread inside itself (the scores in fixed pieces, each a one-thread product):
  // held in memory (5 pieces) and streamed block by block (N d past the materialised limit).
  for (const std::vector<std::string>& point : {std::vector<std::string>{"N=20000", "d=64", "T=inf"},
                                                std::vector<std::string>{"N=600000", "M=10", "d=64", "T=100000"}}) {
    std::string out[2];
    for (int threads : {1, 2}) {
      std::vector<std::string> args = {"eval", "memory.error", "--json", "--threads", std::to_string(threads)};
      args.insert(args.end(), point.begin(), point.end());
      const CliOutcome o = run_cli_args(args);
      ASSERT_EQ(o.status, 0) << o.out;
      out[threads - 1] = o.out;
    }
    EXPECT_EQ(out[0], out[1]) << point[0];
  }
}

}  // namespace
}  // namespace scalinglab
