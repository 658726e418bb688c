// C++ world plugins: loaded, checked, run from the task's seed; a plugin that throws fails its task
// alone; one of another interface version, or with a bad declaration, is refused with a sentence.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "scalinglab/core/error.hpp"
#include "scalinglab/external/plugin_library.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/results/results.hpp"
#include "support/cli_process.hpp"

using namespace scalinglab;
using scalinglab::testing::run_cli_args;
namespace fs = std::filesystem;

namespace {

const std::string kPlugins = SCALINGLAB_TEST_PLUGINS;
const std::string kToy = kPlugins + "/libtoy_plugin.so";

std::string refusal(const std::string& path) {
  try {
    external::load_plugin(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

fs::path fresh_dir(const std::string& tag) {
  const fs::path d = fs::temp_directory_path() / ("scalinglab-plugin-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST(PluginLibrary, RegistersItsMeasuresWhichDrawFromTheTasksSeed) {
  const auto names = external::load_plugin(kToy);
  EXPECT_EQ(names, (std::vector<std::string>{"toy.draw", "toy.forgetful"}));
  EXPECT_EQ(external::load_plugin(kToy), names);  // twice: a no-op
  const Measure& m = world_registry().get("toy.draw");
  const Params p = resolve_params(m.params, {{"scale", "2"}, {"k", "3"}}, "t");
  const Record a = run_task(m, p, 5, 0), b = run_task(m, p, 5, 0), c = run_task(m, p, 5, 1);
  EXPECT_EQ(a.get("value"), b.get("value"));
  // A count parameter takes inf (its default) or a positive integer; the plugin sees its own parameters only.
  EXPECT_NO_THROW(run_task(m, resolve_params(m.params, {{"T", "5"}}, "t"), 0, 0));
  EXPECT_THROW(resolve_params(m.params, {{"T", "0"}}, "t"), InputError);
  EXPECT_NE(a.get("value"), c.get("value"));
  EXPECT_GE(a.get("value"), 0);
  EXPECT_LT(a.get("value"), 2);
  ASSERT_EQ(a.series.size(), 1u);
  EXPECT_EQ(a.series[0].second.size(), 3u);
  // Its work estimate and its own check reach the lab's limits.
  EXPECT_EQ(m.work(p), 30);
  EXPECT_THROW(m.check(resolve_params(m.params, {{"scale", "60"}, {"k", "600"}}, "t")), InputError);
  // A throw inside the plugin is the task's failure, with the plugin's message.
  try {
    run_task(m, resolve_params(m.params, {{"scale", "13"}}, "t"), 0, 0);
    ADD_FAILURE() << "no failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("thirteen is unlucky"), std::string::npos) << e.what();
  }
  // A metric declared and never set fails the task, naming it.
  const Measure& f = world_registry().get("toy.forgetful");
  try {
    run_task(f, resolve_params(f.params, {}, "t"), 0, 0);
    ADD_FAILURE() << "no failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("did not set its metric 'value'"), std::string::npos) << e.what();
  }
}

TEST(PluginLibrary, RefusesWhatIsNotAPluginOfThisVersion) {
  EXPECT_NE(refusal(kPlugins + "/libother_abi_plugin.so").find("built against plugin interface version 999"),
            std::string::npos);
  EXPECT_NE(refusal(kPlugins + "/libbad_declaration_plugin.so").find("parameter 'x' is declared twice"), std::string::npos);
  EXPECT_NE(refusal(kPlugins + "/no-such.so").find("no such file"), std::string::npos);
  EXPECT_NE(refusal(kPlugins).find("not a regular file"), std::string::npos);
  const fs::path text = fresh_dir("text");
  fs::create_directories(text);
  std::ofstream(text / "fake.so") << "not a library";
  EXPECT_NE(refusal((text / "fake.so").string()).find("cannot be loaded"), std::string::npos);
  fs::remove_all(text);
  EXPECT_THROW(world_registry().get("twice.x"), InputError);  // nothing of a refused plugin is registered
}

// Through the command line: a sweep in which one grid value makes the plugin throw records every
// other task, writes the failure with its message, exits 1, and --resume runs only the failed one.
TEST(PluginLibrary, ATaskThatThrowsFailsAloneInASweep) {
  const fs::path dir = fresh_dir("sweep");
  fs::create_directories(dir);
  std::ofstream(dir / "s.toml") << "measure = \"toy.draw\"\nruns = 2\n[grid]\nscale = [1, 13, 20]\n";
  const auto r = run_cli_args({"--plugin", kToy, "run", (dir / "s.toml").string(), "--out", (dir / "out").string(), "--quiet"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("2 of 6 tasks failed"), std::string::npos) << r.out;
  EXPECT_EQ(read_results((dir / "out" / "results.jsonl").string()).size(), 4u);
  std::ifstream f(dir / "out" / "failures.jsonl");
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_NE(j["error"].get<std::string>().find("thirteen is unlucky"), std::string::npos);
    EXPECT_EQ(j["params"]["scale"], 13);
    ++n;
  }
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(fs::exists(dir / "out" / "summary.csv"));  // the others are summarised
  const auto again = run_cli_args({"--plugin", kToy, "run", (dir / "s.toml").string(), "--out", (dir / "out").string(),
                                   "--quiet", "--resume"});
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.out.find("2 of 6 tasks failed"), std::string::npos) << again.out;
  EXPECT_EQ(read_results((dir / "out" / "results.jsonl").string()).size(), 4u);  // nothing run twice
  const auto refused = run_cli_args({"--plugin", kPlugins + "/libother_abi_plugin.so", "list"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.out.find("rebuild it against"), std::string::npos) << refused.out;
  fs::remove_all(dir);
}
