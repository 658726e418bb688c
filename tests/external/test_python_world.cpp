// Python worlds through the command line: measures run by worker processes, records independent of
// the number of workers, a raise fails its task alone with its traceback, a world that cannot be
// imported is refused with a sentence.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "scalinglab/results/results.hpp"
#include "support/cli_process.hpp"

using scalinglab::read_results;
using scalinglab::testing::run_cli_args;
namespace fs = std::filesystem;

namespace {

const std::string kWorlds = std::string(SCALINGLAB_SOURCE_DIR) + "/tests/external/worlds";

fs::path fresh_dir(const std::string& tag) {
  const fs::path d = fs::temp_directory_path() / ("scalinglab-pyworld-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Records without their timing, in task order.
std::vector<std::string> records(const fs::path& out) {
  std::vector<std::string> v;
  for (const auto& r : read_results((out / "results.jsonl").string())) {
    nlohmann::json j = {{"key", r.key}, {"run", r.run}, {"params", r.params}};
    for (const auto& [k, x] : r.record.scalars) j[k] = x;
    for (const auto& [k, x] : r.record.series) j[k] = x;
    v.push_back(j.dump());
  }
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(PythonWorld, RecordsDoNotDependOnTheNumberOfWorkers) {
  const fs::path dir = fresh_dir("threads");
  std::ofstream(dir / "s.toml") << "measure = \"pytoy.draw\"\nruns = 3\n[grid]\nx = [1, 2, 3, 4]\nk = [2, 5]\n";
  const std::string world = kWorlds + "/raising_world.py";
  const auto one = run_cli_args({"--world", world, "run", (dir / "s.toml").string(), "--out", (dir / "one").string(),
                                 "--threads", "1", "--quiet"});
  const auto four = run_cli_args({"--world", world, "run", (dir / "s.toml").string(), "--out", (dir / "four").string(),
                                  "--threads", "4", "--quiet"});
  ASSERT_EQ(one.status, 0) << one.out;
  ASSERT_EQ(four.status, 0) << four.out;
  const auto a = records(dir / "one"), b = records(dir / "four");
  EXPECT_EQ(a.size(), 24u);
  EXPECT_EQ(a, b);
  // eval sees the same draws as the sweep's run 0 at the same seed.
  const auto e = run_cli_args({"--world", world, "eval", "pytoy.draw", "x=2", "k=2", "--json"});
  ASSERT_EQ(e.status, 0) << e.out;
  fs::remove_all(dir);
}

TEST(PythonWorld, ARaiseFailsItsTaskAloneWithItsTraceback) {
  const fs::path dir = fresh_dir("raise");
  std::ofstream(dir / "s.toml") << "measure = \"pytoy.draw\"\n[grid]\nx = [1, 13, 20]\n";
  const auto r = run_cli_args({"--world", kWorlds + "/raising_world.py", "run", (dir / "s.toml").string(), "--out",
                               (dir / "out").string(), "--quiet"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("1 of 3 tasks failed"), std::string::npos) << r.out;
  EXPECT_EQ(read_results((dir / "out" / "results.jsonl").string()).size(), 2u);
  std::ifstream f(dir / "out" / "failures.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(f, line));
  const auto j = nlohmann::json::parse(line);
  EXPECT_NE(j["error"].get<std::string>().find("ZeroDivisionError: thirteen is unlucky"), std::string::npos) << line;
  EXPECT_NE(j["traceback"].get<std::string>().find("raising_world.py"), std::string::npos) << line;
  fs::remove_all(dir);
}

TEST(PythonWorld, RefusalsAreOneSentence) {
  // The world's own check, through the lab's pre-run checks: exit 2 before anything runs.
  const auto check = run_cli_args({"--world", kWorlds + "/raising_world.py", "eval", "pytoy.draw", "x=60", "k=6"});
  EXPECT_EQ(check.status, 2) << check.out;
  EXPECT_NE(check.out.find("x > 50 with k > 5 is refused"), std::string::npos) << check.out;
  // A declared range.
  const auto range = run_cli_args({"--world", kWorlds + "/raising_world.py", "eval", "pytoy.draw", "x=101"});
  EXPECT_EQ(range.status, 2) << range.out;
  // A world that cannot be imported: its traceback, then one sentence, exit 2.
  const auto broken = run_cli_args({"--world", kWorlds + "/broken_world.py", "list"});
  EXPECT_EQ(broken.status, 2) << broken.out;
  EXPECT_NE(broken.out.find("cannot be imported: ModuleNotFoundError"), std::string::npos) << broken.out;
  const auto missing = run_cli_args({"--world", kWorlds + "/no_such_world.py", "list"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("no such file"), std::string::npos) << missing.out;
  const auto not_py = run_cli_args({"--world", kWorlds + "/toy_plugin.cpp", "list"});
  EXPECT_EQ(not_py.status, 2);
  EXPECT_NE(not_py.out.find("expected a Python file"), std::string::npos) << not_py.out;
}
