// A long task killed at any point continues from its checkpoint on --resume and ends with the record
// an uninterrupted run writes, bit for bit: SIGKILL at three points (each resume killed again), then
// SIGTERM (the run saves, stops with exit status 3), then a resume to the end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using scalinglab::testing::CliOutcome;

namespace {

// Two factor.train tasks of a few seconds each, saving every 0.1 s.
const char* kLongSweep = R"toml(measure = "factor.train"
runs = 2
seed = 11
[params]
setting = "compression"
input_factors = "4x4"
output_factors = "4x2"
d = 16
h = 32
epochs = 30000
evals = 8
)toml";

// Each task's record as written (the time it took left out), by (grid point, run).
std::map<std::string, std::string> records(const fs::path& results) {
  std::map<std::string, std::string> out;
  std::ifstream in(results);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("seconds");
    out[j.at("key").dump() + "#" + j.at("run").dump()] = j.dump();
  }
  return out;
}

std::size_t checkpoint_files(const fs::path& dir) {
  std::error_code ec;
  std::size_t n = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    n += it->path().extension() == ".state";
  return n;
}

fs::file_time_type newest(const fs::path& dir) {
  fs::file_time_type t = fs::file_time_type::min();  // (the clock's zero is not before every file)
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".state")  // a save's temporary file is not a state yet
      t = std::max(t, fs::last_write_time(it->path(), ec));
  return t;
}

}  // namespace

class Checkpoints : public scalinglab::testing::ScratchDirTest {
 protected:
  std::vector<std::string> args(const std::string& out, bool resume) {
    std::vector<std::string> a = {"run", (dir / "long.toml").string(), "--out", (dir / out).string(), "--threads", "2",
                                  "--quiet", "--checkpoint-every", "0.1s", "--no-cache"};  // every task computed
    if (resume) a.push_back("--resume");
    return a;
  }
  // Starts a run, waits until it has saved a checkpoint newer than any before (120 s at most, for a
  // busy machine), lets it go on for `extra` seconds, then sends `sig`.
  CliOutcome interrupt(bool resume, double extra, int sig) {
    const fs::path saved = dir / "o" / "checkpoints";
    const auto before = newest(saved);
    int fd = -1;
    const pid_t pid = scalinglab::testing::start_cli(args("o", resume), fd);
    const auto start = std::chrono::steady_clock::now();
    while (newest(saved) <= before && std::chrono::steady_clock::now() - start < std::chrono::seconds(120))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::duration<double>(extra));
    ::kill(pid, sig);
    return scalinglab::testing::finish_cli(pid, fd, 120);
  }
};

TEST_F(Checkpoints, AKilledTaskGoesOnFromItsStateToTheSameRecord) {
  write("long.toml", kLongSweep);
  const CliOutcome whole = scalinglab::testing::run_cli_args(args("ref", false), 300);
  ASSERT_EQ(whole.status, 0) << whole.out;
  const auto expected = records(dir / "ref" / "results.jsonl");
  ASSERT_EQ(expected.size(), 2u);
  EXPECT_FALSE(fs::exists(dir / "ref" / "checkpoints")) << "checkpoints are removed once their records are written";

  // Three kills, at different points; each leaves the tasks' saved states behind.
  for (double extra : {0.0, 0.35, 0.7}) {
    const CliOutcome o = interrupt(extra > 0, extra, SIGKILL);
    ASSERT_EQ(o.status, 128 + SIGKILL) << o.out;
    EXPECT_GE(checkpoint_files(dir / "o" / "checkpoints"), 1u);
  }
  // SIGTERM: the running tasks save and the run stops with status 3, naming --resume.
  const CliOutcome term = interrupt(true, 0.3, SIGTERM);
  EXPECT_EQ(term.status, 3) << term.out;
  EXPECT_NE(term.out.find("--resume"), std::string::npos) << term.out;
  EXPECT_GE(checkpoint_files(dir / "o" / "checkpoints"), 1u);

  const CliOutcome last = scalinglab::testing::run_cli_args(
      {"run", (dir / "long.toml").string(), "--out", (dir / "o").string(), "--threads", "2", "--resume", "--no-cache"},
      300);
  ASSERT_EQ(last.status, 0) << last.out;
  EXPECT_NE(last.out.find("went on from"), std::string::npos) << "the resume did not use the saved states\n" << last.out;
  EXPECT_EQ(records(dir / "o" / "results.jsonl"), expected);
  EXPECT_FALSE(fs::exists(dir / "o" / "checkpoints"));
}

// A checkpoints folder that is a link is never written through.
TEST_F(Checkpoints, ALinkedCheckpointsFolderIsRefused) {
  write("long.toml", kLongSweep);
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(dir / "o");
  fs::create_directory_symlink("../elsewhere", dir / "o" / "checkpoints");
  const CliOutcome o = scalinglab::testing::run_cli_args(args("o", false), 300);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("checkpoints is not a folder of this run"), std::string::npos) << o.out;
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere"));
}
