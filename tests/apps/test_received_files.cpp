// A received results folder, round three: special and huge files in it, and hostile tables. A pipe
// never blocks a reader, a huge or newline-free file is refused (or scanned) in bounded memory and
// linear time, and bad input is refused before any task runs. Each case once hung, took gigabytes
// or minutes, or ran work before refusing.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using scalinglab::testing::CliOutcome;
using scalinglab::testing::run_cli_args;

namespace {

const char* kReceivedSweep = R"(measure = "memory.infinite_memory_error"
[params]
N = 100
[grid]
T = [10, 100, 1000]
)";

// The largest resident set of any child waited for so far, in MB.
double children_peak_mb() {
  rusage u {};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) / 1024;
}

}  // namespace

class ReceivedFiles : public scalinglab::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    sweep = write("tiny.toml", kReceivedSweep);
  }
  CliOutcome run_into(const fs::path& out, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"run", sweep.string(), "--out", out.string(), "--quiet"};
    args.insert(args.end(), more.begin(), more.end());
    return run_cli_args(args, 60);
  }
  fs::path sweep;
};

// B4: a pipe planted as a shard's .lock once blocked `merge` in open(2) forever.
TEST_F(ReceivedFiles, APipeAsTheLockDoesNotHangMerge) {
  ASSERT_EQ(run_into(dir / "a").status, 0);
  ASSERT_EQ(::mkfifo((dir / "a" / ".lock").c_str(), 0644), 0);
  const CliOutcome o = run_cli_args({"merge", (dir / "m").string(), (dir / "a").string(), "--quiet"}, 20);
  EXPECT_FALSE(o.timed_out) << "merge hung on a pipe";
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("not a regular file"), std::string::npos) << o.out;
}

// B5: a 1 GB sparse results.jsonl (a newline-free run of zero bytes after the records) was read
// whole (2.1 GB resident) and merged with exit 0. It is streamed, refused at the first line longer
// than a record can be, in bounded memory.
TEST_F(ReceivedFiles, AHugeResultsFileIsRefusedInBoundedMemory) {
  ASSERT_EQ(run_into(dir / "a").status, 0);
  const fs::path results = dir / "a" / "results.jsonl";
  const auto records = fs::file_size(results);
  fs::resize_file(results, records + (std::uintmax_t{1} << 30));  // sparse: no disk used
  const CliOutcome o = run_cli_args({"merge", (dir / "m").string(), (dir / "a").string(), "--quiet"}, 60);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("a line longer than 64 MiB"), std::string::npos) << o.out;
  EXPECT_LT(o.seconds, 10.0);
  EXPECT_LT(children_peak_mb(), 400.0) << "the file was held in memory";
}

// B6: resuming a folder whose results.jsonl ends in a long newline-free tail was quadratic (40 MB:
// 20 s user and 133 s system). The tail is scanned once: a cut line is dropped and its tasks run
// again; a tail longer than any record is refused, the file kept as it is.
TEST_F(ReceivedFiles, ANewlineFreeTailIsScannedOnce) {
  ASSERT_EQ(run_into(dir / "a").status, 0);
  const fs::path results = dir / "a" / "results.jsonl";
  std::string lines;
  {
    std::ifstream in(results);
    std::string line;
    std::getline(in, line);  // keep the first record: two tasks are left to run
    lines = line + "\n";
  }
  { std::ofstream(results, std::ios::trunc) << lines << std::string(40u << 20, 'x'); }
  CliOutcome o = run_into(dir / "a", {"--resume"});
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_LT(o.seconds, 10.0) << "the tail was not scanned linearly";
  std::ifstream in(results);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  EXPECT_EQ(n, 3u) << "the cut tail is dropped and the two missing tasks recorded";
  // A tail longer than a record can be (sparse, 100 MB) is not a cut line of ours: refused.
  const auto size = fs::file_size(results);
  fs::resize_file(results, size + (100u << 20));
  o = run_into(dir / "a", {"--resume"});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_LT(o.seconds, 10.0);
  EXPECT_EQ(fs::file_size(results), size + (100u << 20)) << "nothing is cut from a file that is not ours";
}

// B9: a CSV header of 200,000 names took 70 s in the duplicate check, which compared every pair.
TEST_F(ReceivedFiles, AWideHeaderIsCheckedInLinearTime) {
  std::string header, row;
  for (int j = 0; j < 200000; ++j) header += (j ? ",c" : "c") + std::to_string(j);
  {
    std::ofstream out(dir / "wide.csv");
    out << header << ",c7\n";
  }
  CliOutcome o = run_cli_args({"fit", (dir / "wide.csv").string(), "--law", "power", "--x", "c0", "--loss", "c1"}, 60);
  EXPECT_EQ(o.status, 2) << o.out.substr(0, 400);
  EXPECT_NE(o.out.find("names column 'c7' twice (fields 8 and 200001)"), std::string::npos) << o.out.substr(0, 400);
  EXPECT_LT(o.seconds, 5.0);
  // The same width without the repeated name: read, and refused for its one row, as fast.
  {
    std::ofstream out(dir / "wide.csv", std::ios::trunc);
    out << header << "\n";
    for (int j = 0; j < 200000; ++j) out << (j ? ",1" : "1");
    out << "\n";
  }
  o = run_cli_args({"fit", (dir / "wide.csv").string(), "--law", "power", "--x", "c0", "--loss", "c1"}, 60);
  EXPECT_EQ(o.status, 2) << o.out.substr(0, 400);
  EXPECT_LT(o.seconds, 5.0);
}

// B14: C = 6 N D overflowing to inf on some rows was fitted with a warning and exit 0; a literal inf
// cell was already refused. The derived value is refused the same way, naming the row.
TEST_F(ReceivedFiles, ADerivedComputeThatOverflowsIsRefused) {
  std::string csv = "N,D,loss\n";
  for (int i = 0; i < 12; ++i)
    csv += std::to_string(1e6 * (1 + i % 4)) + "," + std::to_string(1e9 * (1 + i / 4)) + "," +
           std::to_string(2 + 1.0 / (1 + i)) + "\n";
  csv += "1e200,1e200,1.9\n";
  write("t.csv", csv);
  const CliOutcome o = run_cli_args({"fit", (dir / "t.csv").string(), "--N", "N", "--D", "D", "--bootstrap", "0"}, 60);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("C (derived: C = 6 N D) = inf"), std::string::npos) << o.out;
}

// B15: a task its measure refuses (factor.train's gamma leaving no unobserved input) was refused
// only after the tasks before it had run. Every task is checked first: nothing runs, nothing is
// written.
TEST_F(ReceivedFiles, ATaskItsMeasureRefusesStopsTheRunBeforeTheFirstTask) {
  write("g.toml", R"(measure = "factor.train"
runs = 1
[params]
setting = "generalization"
input_factors = "2x3"
output_factors = "2x2"
epochs = 2000
[grid]
gamma = [0.5, 0.6, 0.999]
)");
  const CliOutcome o = run_cli_args({"run", (dir / "g.toml").string(), "--out", (dir / "g").string(), "--quiet"}, 60);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("gamma = 0.999"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(dir / "g" / "results.jsonl")) << "tasks ran before the refusal";
}
