// A results folder received from someone else (a tarball, a shared disk) is not trusted: no entry of
// it makes the lab write a file outside it. Each planted entry below once made `run`, `slurm` or
// gnuplot write through it; each must now be refused (exit 2) or replaced, the outside file intact.
// And a full disk, a device or a file-size limit is an error with a sentence, never a success.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdlib>
#include <string>

#include "support/cli_process.hpp"
#include "scalinglab/plot/gnuplot.hpp"

namespace fs = std::filesystem;
using scalinglab::testing::CliOutcome;
using scalinglab::testing::run_cli_args;

namespace {

const char* kSweep = R"(measure = "memory.infinite_memory_error"
[params]
N = 100
[grid]
T = [10, 100, 1000]
[plot]
x = "T"
y = "error"
)";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class FolderTrust : public scalinglab::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    sweep = write("tiny.toml", kSweep);
    victim = write("victim", "precious\n");
    fs::create_directories(dir / "o");
  }
  CliOutcome run(const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"run", sweep.string(), "--out", (dir / "o").string(), "--quiet"};
    args.insert(args.end(), more.begin(), more.end());
    return run_cli_args(args);
  }
  void expect_victim_intact() {
    EXPECT_EQ(slurp(victim), "precious\n");
    struct stat st {};
    ASSERT_EQ(::stat(victim.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u) << "the outside file's mode changed";
  }
  fs::path sweep, victim;
};

TEST_F(FolderTrust, APlantedLockLinkIsNeitherTruncatedNorWritten) {
  fs::create_symlink("../victim", dir / "o" / ".lock");
  const CliOutcome o = run();
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("symbolic link"), std::string::npos) << o.out;
  expect_victim_intact();
}

TEST_F(FolderTrust, ALockThatIsAHardLinkIsRefused) {
  fs::create_hard_link(victim, dir / "o" / ".lock");
  const CliOutcome o = run();
  EXPECT_EQ(o.status, 2) << o.out;
  expect_victim_intact();
}

TEST_F(FolderTrust, ADanglingResultsLinkGetsNoRecords) {
  fs::create_symlink("../elsewhere.jsonl", dir / "o" / "results.jsonl");
  const CliOutcome o = run();
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_FALSE(fs::exists(dir / "elsewhere.jsonl")) << "records were appended through the link";
}

TEST_F(FolderTrust, AResultsFileThatIsAHardLinkGetsNoRecords) {
  ASSERT_EQ(run().status, 0);  // a finished run, then its results.jsonl swapped for a link to the victim
  fs::remove(dir / "o" / "results.jsonl");
  fs::create_hard_link(victim, dir / "o" / "results.jsonl");
  const CliOutcome o = run({"--resume"});
  EXPECT_EQ(o.status, 2) << o.out;
  expect_victim_intact();
}

TEST_F(FolderTrust, AFigureLinkIsReplacedNotDrawnThrough) {
  ASSERT_EQ(run().status, 0);
  for (const char* f : {"plot.png", "plot.svg", "plot.pdf"}) {
    fs::remove(dir / "o" / f);
    fs::create_symlink("../victim", dir / "o" / f);
  }
  fs::remove(dir / "o" / "results.jsonl");  // the resumed run redoes every task and redraws
  const CliOutcome o = run({"--resume"});
  EXPECT_EQ(o.status, 0) << o.out;
  expect_victim_intact();
  if (scalinglab::gnuplot_available()) {
    for (const char* f : {"plot.png", "plot.svg", "plot.pdf"}) EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "o" / f))) << f;
  }
}

TEST_F(FolderTrust, TheUsersOwnFigureIsAnotherRunsOutput) {
  write("o/plot.pdf", "my figure\n");
  const CliOutcome o = run();
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("plot.pdf"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(dir / "o" / "plot.pdf"), "my figure\n");
}

TEST_F(FolderTrust, SlurmScriptsReplaceAPlantedLinkAndAFolderLinkIsRefused) {
  fs::create_directories(dir / "o" / "slurm");
  fs::create_symlink("../../victim", dir / "o" / "slurm" / "shards.sbatch");
  CliOutcome o = run_cli_args({"slurm", sweep.string(), "--out", (dir / "o").string(), "--array", "2"});
  EXPECT_EQ(o.status, 0) << o.out;
  expect_victim_intact();
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "o" / "slurm" / "shards.sbatch")));
  fs::create_directories(dir / "p");
  fs::create_directories(dir / "elsewhere");
  fs::create_symlink("../elsewhere", dir / "p" / "slurm");
  o = run_cli_args({"slurm", sweep.string(), "--out", (dir / "p").string(), "--array", "2"});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere"));
}

TEST_F(FolderTrust, ADeviceIsNeverWrittenAsAFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const CliOutcome o = run_cli_args({"claims", "ldpc2024", "--write", "/dev/full", "--experiments",
                                     std::string(SCALINGLAB_SOURCE_DIR) + "/experiments"});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("not a regular file"), std::string::npos) << o.out;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// Past `ulimit -f` a write fails with EFBIG: an error naming the file, not a silent SIGXFSZ.
TEST_F(FolderTrust, AFileSizeLimitIsAnErrorNotASignal) {
  const std::string cmd = "ulimit -f 1; exec \"" + std::string(SCALINGLAB_CLI) + "\" claims ldpc2024 --write \"" +
                          (dir / "claims.md").string() + "\" --experiments \"" + SCALINGLAB_SOURCE_DIR + "/experiments\"";
  const int status = std::system(("bash -c '" + cmd + "' > " + (dir / "log").string() + " 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal";
  EXPECT_EQ(WEXITSTATUS(status), 2) << slurp(dir / "log");
  EXPECT_NE(slurp(dir / "log").find("file too large"), std::string::npos) << slurp(dir / "log");
}

// Standard output on a full device: the table never reached its file, so the command fails with a
// sentence (once exit 0 with nothing written).
TEST_F(FolderTrust, OutputThatCannotBeWrittenIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string experiments = std::string(SCALINGLAB_SOURCE_DIR) + "/experiments";
  for (const std::string& args : std::vector<std::string>{"eval skills.gcc", "describe memory.train",
                                                          "claims ldpc2024 --experiments \"" + experiments + "\""}) {
    const std::string cmd = "exec \"" + std::string(SCALINGLAB_CLI) + "\" " + args + " > /dev/full";
    const int status = std::system(("bash -c '" + cmd + "' 2> " + (dir / "log").string()).c_str());
    ASSERT_TRUE(WIFEXITED(status)) << args << ": killed by a signal";
    EXPECT_EQ(WEXITSTATUS(status), 2) << args << "\n" << slurp(dir / "log");
    EXPECT_NE(slurp(dir / "log").find("the output could not be written"), std::string::npos) << slurp(dir / "log");
  }
}

// A full file system: the write fails with a sentence and the old file stays (a tmpfs of 64 KB;
// skipped where mounting is not permitted).
TEST_F(FolderTrust, AFullDiskIsAnErrorAndTheOldFileStays) {
  fs::create_directories(dir / "small");
  if (std::system(("mount -t tmpfs -o size=64k none " + (dir / "small").string() + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a small file system here";
  struct Unmount {
    fs::path at;
    ~Unmount() { std::system(("umount " + at.string()).c_str()); }
  } unmount{dir / "small"};
  std::ofstream(dir / "small" / "claims.md") << "old\n";
  std::ofstream(dir / "small" / "filler") << std::string(40000, 'x');
  const CliOutcome o = run_cli_args({"claims", "cabannes2023", "--write", (dir / "small" / "claims.md").string(),
                                     "--experiments", std::string(SCALINGLAB_SOURCE_DIR) + "/experiments"});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("no space left on device"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(dir / "small" / "claims.md"), "old\n");
}

}  // namespace
