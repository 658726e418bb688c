// `scalinglab slurm`: the scripts it writes, run as Slurm would run them (one process per array
// task with SLURM_ARRAY_TASK_ID set, then the merge), give the single-process run's summary byte for
// byte; a hostile output path reaches the scripts quoted; malformed Slurm options are refused.
// (A real Slurm cluster is not needed for this: sbatch only adds the queue.)
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

// Runs a shell command line (the test's own, with paths it quotes itself).
int sh(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  std::string text;
  while (std::fgets(buf.data(), buf.size(), p)) text += buf.data();
  if (out) *out = text;
  const int raw = pclose(p);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST(SlurmCli, ArrayAndMergeScriptsReproduceASingleRun) {
  const fs::path base = fs::temp_directory_path() / ("scalinglab-slurm-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base);
  const std::string cli = SCALINGLAB_CLI;
  const std::string sweep = std::string(SCALINGLAB_SOURCE_DIR) + "/experiments/cabannes2023/fig1-left.toml";
  const fs::path out = base / "w'eird $(touch pwned) dir";
  std::string log;
  ASSERT_EQ(sh("cd " + quoted(base.string()) + " && " + quoted(cli) + " slurm " + quoted(sweep) +
                   " --profile quick --out " + quoted(out.string()) + " --array 3 --cpus 1 --time 10:00 --mem 1G",
               &log),
            0)
      << log;
  const std::string shards = slurp(out / "slurm" / "shards.sbatch");
  EXPECT_NE(shards.find("#SBATCH --array=0-2"), std::string::npos) << shards;
  EXPECT_NE(shards.find("#SBATCH --time=10:00"), std::string::npos);
  EXPECT_NE(shards.find("--resume"), std::string::npos);
  EXPECT_EQ(shards.find("#SBATCH --output"), std::string::npos);  // not a plain path: Slurm's default log
  for (int k = 0; k < 3; ++k)
    ASSERT_EQ(sh("cd " + quoted(base.string()) + " && SLURM_ARRAY_TASK_ID=" + std::to_string(k) +
                     " SLURM_CPUS_PER_TASK=1 bash " + quoted((out / "slurm" / "shards.sbatch").string()),
                 &log),
              0)
        << log;
  ASSERT_EQ(sh("cd " + quoted(base.string()) + " && bash " + quoted((out / "slurm" / "merge.sbatch").string()), &log), 0)
      << log;
  EXPECT_FALSE(fs::exists(base / "pwned"));
  ASSERT_EQ(sh(quoted(cli) + " run " + quoted(sweep) + " --profile quick --quiet --out " + quoted((base / "single").string()),
               &log),
            0)
      << log;
  EXPECT_EQ(slurp(out / "summary.csv"), slurp(base / "single" / "summary.csv"));
  // Outside an array task the shard script stops with a message.
  EXPECT_NE(sh("bash " + quoted((out / "slurm" / "shards.sbatch").string()), &log), 0);
  fs::remove_all(base);
}

TEST(SlurmCli, MalformedOptionsAreRefused) {
  const std::string cli = SCALINGLAB_CLI;
  const std::string sweep = std::string(SCALINGLAB_SOURCE_DIR) + "/experiments/cabannes2023/fig1-left.toml";
  const fs::path out = fs::temp_directory_path() / ("scalinglab-slurm-bad-" + std::to_string(::getpid()));
  std::string log;
  for (const std::string opt : {"--time '1:00;touch x'", "--partition 'a b'", "--mem 16GB", "--array 0"}) {
    EXPECT_EQ(sh(quoted(cli) + " slurm " + quoted(sweep) + " --out " + quoted(out.string()) + " --array 2 " + opt, &log), 2)
        << opt << "\n" << log;
  }
  fs::remove_all(out);
}
