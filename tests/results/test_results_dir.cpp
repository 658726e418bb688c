// Results directories: one process at a time (flock), a failed set-up removes only what it made,
// and a folder holding another sweep's outputs is refused. End to end: two runs started together
// on one new folder, 50 times: one finishes, the other is refused, no record is lost or doubled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_process.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/results/results_dir.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

using testing::CliOutcome;
using testing::finish_cli;
using testing::run_cli_args;
using testing::start_cli;

using ResultsDirTest = testing::ScratchDirTest;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(ResultsDirTest, SecondHolderIsRefusedWithTheFirstOnesPid) {
  ResultsDir first(dir / "a" / "b");
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  const std::string msg = message_of([&] { ResultsDir second(dir / "a" / "b"); });
  EXPECT_NE(msg.find("in use by another scalinglab process (pid " + std::to_string(::getpid()) + ")"), std::string::npos)
      << msg;
  // The refused one removed nothing.
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  // Readers (merge reading a shard) are refused too while a run writes it.
  const std::string reading = message_of([&] { ResultsDir r(dir / "a" / "b", ResultsDir::Mode::Shared); });
  EXPECT_NE(reading.find("still being written"), std::string::npos) << reading;
}

TEST_F(ResultsDirTest, ReleasedLockCanBeTakenAgainAndLeavesNoLockFile) {
  {
    ResultsDir first(dir / "x");
    first.keep();
  }
  EXPECT_FALSE(fs::exists(dir / "x" / kLockFile));
  EXPECT_TRUE(fs::is_directory(dir / "x"));
  ResultsDir again(dir / "x");
}

TEST_F(ResultsDirTest, FailedSetUpRemovesOnlyWhatItCreated) {
  fs::create_directories(dir / "kept");
  std::ofstream(dir / "kept" / "notes.txt") << "mine";
  {
    ResultsDir d(dir / "kept" / "new" / "deeper");
    d.write("sweep.toml", "x");
    // no keep(): a failed set-up
  }
  EXPECT_FALSE(fs::exists(dir / "kept" / "new"));
  EXPECT_TRUE(fs::exists(dir / "kept" / "notes.txt"));
  {
    ResultsDir d(dir / "kept");
    d.write("sweep.toml", "x");
  }
  EXPECT_FALSE(fs::exists(dir / "kept" / "sweep.toml"));
  EXPECT_TRUE(fs::exists(dir / "kept" / "notes.txt"));
  // A directory made by someone else meanwhile (not by our mkdir) is never removed.
  {
    ResultsDir d(dir / "race");
    std::ofstream(dir / "race" / "theirs") << "x";
  }
  EXPECT_TRUE(fs::exists(dir / "race" / "theirs"));
}

TEST_F(ResultsDirTest, AnotherSweepsFolderIsRefused) {
  std::ofstream(dir / "run.json") << R"({"profile": "", "sets": [], "name": "fig1", "measures": "memory.error"})";
  ResultsDir d(dir);
  EXPECT_NO_THROW(d.check_owner("fig1", "memory.error"));
  EXPECT_NE(message_of([&] { d.check_owner("fig2", "memory.error"); }).find("holds the outputs of sweep 'fig1'"),
            std::string::npos);
  EXPECT_NE(message_of([&] { d.check_owner("fig1", "memory.train"); }).find("choose another --out"), std::string::npos);
  fs::remove(dir / "run.json");
  std::ofstream(dir / "summary.csv") << "a,b\n";
  EXPECT_NE(message_of([&] { d.check_owner("fig1", "memory.error"); }).find("summary.csv"), std::string::npos);
}

TEST(PlainName, RefusesNamesThatAreNotOneFolder) {
  for (const char* bad : {"", ".", "..", "a/b", "../x", "a\nb", "a\tb", "a\\b"}) EXPECT_FALSE(is_plain_name(bad)) << bad;
  for (const char* good : {"fig1-left", "a.b", "...", "x y", "caf\xc3\xa9"}) EXPECT_TRUE(is_plain_name(good)) << good;
}

const char* kSweep = R"toml(measure = "memory.infinite_memory_error"
runs = 3
[params]
N = 2000
[grid]
T = "logspace(1, 100000, 40)"
alpha = [1.5, 2, 3]
)toml";

// Records of a results.jsonl by (key, run); fails the test on a duplicate.
std::map<std::pair<std::string, uint64_t>, std::string> records(const fs::path& file) {
  std::map<std::pair<std::string, uint64_t>, std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    const bool fresh = out.emplace(std::pair(j["key"].get<std::string>(), j["run"].get<uint64_t>()), j["metrics"].dump()).second;
    EXPECT_TRUE(fresh) << "duplicate record " << line;
  }
  return out;
}

TEST_F(ResultsDirTest, TwoRunsOnOneFolderNeverLoseOrDoubleRecords) {
  const fs::path sweep = dir / "race.toml";
  std::ofstream(sweep) << kSweep;
  // The records of the sweep run alone (logspace rounds some T to the same integer: count them).
  ASSERT_EQ(run_cli_args({"run", sweep.string(), "--out", (dir / "alone").string(), "--quiet"}).status, 0);
  const std::size_t expected = records(dir / "alone" / "results.jsonl").size();
  ASSERT_GT(expected, 300u);
  int refused_busy = 0, refused_done = 0;
  for (int attempt = 0; attempt < 50; ++attempt) {
    const fs::path out = dir / ("out" + std::to_string(attempt));
    int fa = -1, fb = -1;
    const pid_t a = start_cli({"run", sweep.string(), "--out", out.string(), "--quiet", "--threads", "1"}, fa);
    const pid_t b = start_cli({"run", sweep.string(), "--out", out.string(), "--quiet", "--threads", "1"}, fb);
    ASSERT_GT(a, 0);
    ASSERT_GT(b, 0);
    const CliOutcome ra = finish_cli(a, fa), rb = finish_cli(b, fb);
    const CliOutcome& winner = ra.status == 0 ? ra : rb;
    const CliOutcome& loser = ra.status == 0 ? rb : ra;
    ASSERT_EQ(winner.status, 0) << ra.out << rb.out;
    ASSERT_EQ(loser.status, 2) << "attempt " << attempt << ": both ran?\n" << ra.out << rb.out;
    // Refused while the other held the folder, or after it finished (its results are there).
    if (loser.out.find("in use by another scalinglab process (pid ") != std::string::npos) ++refused_busy;
    else if (loser.out.find("already holds results") != std::string::npos) ++refused_done;
    else ADD_FAILURE() << "unexpected refusal: " << loser.out;
    EXPECT_EQ(records(out / "results.jsonl").size(), expected) << "attempt " << attempt;
    EXPECT_TRUE(fs::exists(out / "summary.csv"));
    EXPECT_FALSE(fs::exists(out / kLockFile));
  }
  // Started together, they mostly meet while the first runs (the interesting case).
  EXPECT_GT(refused_busy, 10) << refused_busy << " busy, " << refused_done << " after the end";
}

TEST_F(ResultsDirTest, RunIntoAnotherSweepsFolderIsRefusedAndChangesNothing) {
  const fs::path one = dir / "one.toml", two = dir / "two.toml";
  std::ofstream(one) << kSweep;
  std::ofstream(two) << "measure = \"memory.infinite_memory_error\"\n[grid]\nT = [1, 10]\n";
  ASSERT_EQ(run_cli_args({"run", one.string(), "--out", (dir / "out").string(), "--quiet"}).status, 0);
  const auto before = fs::last_write_time(dir / "out" / "summary.csv");
  std::stringstream csv;
  csv << std::ifstream(dir / "out" / "summary.csv").rdbuf();
  for (const bool resume : {false, true}) {
    std::vector<std::string> args = {"run", two.string(), "--out", (dir / "out").string(), "--quiet"};
    if (resume) args.push_back("--resume");
    const CliOutcome o = run_cli_args(args);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("holds the outputs of sweep 'one'"), std::string::npos) << o.out;
  }
  std::stringstream after;
  after << std::ifstream(dir / "out" / "summary.csv").rdbuf();
  EXPECT_EQ(after.str(), csv.str());
  EXPECT_EQ(fs::last_write_time(dir / "out" / "summary.csv"), before);
}

}  // namespace
}  // namespace scalinglab
