// The task cache: a stored record comes back bit for bit under its exact key and under no other;
// entries that do not parse or hold another task are refused; links are never followed; prune
// keeps this build's entries and waits for no run; a sweep with more runs computes only its new
// tasks, and its records equal a run without the cache.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/keyed_mac.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/results/task_cache.hpp"
#include "scalinglab/run/runner.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {

struct CacheDir {
  fs::path path;
  CacheDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("scalinglab-task-cache-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~CacheDir() { fs::remove_all(path); }
};

const Registry& cache_toy() {
  static const Registry r = [] {
    Registry reg;
    Measure m;
    m.name = "toy.cached";
    m.params = {int_param("N", "10", "size")};
    m.metrics = {{"value", "uniform / N"}, {"curve", "a series", true}};
    m.fn = [](const Params& p, Stream& s) {
      Record rec;
      rec.set("value", s.uniform() / static_cast<double>(p.integer("N")));
      rec.set_series("curve", {s.normal(), s.normal()});
      return rec;
    };
    reg.add(std::move(m));
    return reg;
  }();
  return r;
}

TaskResult sample_result() {
  TaskResult t;
  t.record.set("value", 0.1 + 0.2);  // not a short decimal: the round trip must be exact
  t.record.set("nan", std::nan(""));
  t.record.set_series("curve", {1e-300, -0.0, INFINITY});
  t.seconds = 1.25;
  return t;
}

std::vector<fs::path> entries_of(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".json") out.push_back(e.path());
  return out;
}

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(TaskCache, StoredRecordComesBackExactlyUnderItsKeyOnly) {
  CacheDir dir;
  const Measure& m = cache_toy().get("toy.cached");
  const nlohmann::json params = {{"N", 10}};
  TaskCache cache(dir.path);
  EXPECT_FALSE(cache.find(m, params, 5, 0));
  cache.store(m, params, 5, 0, sample_result());
  const auto hit = cache.find(m, params, 5, 0);
  ASSERT_TRUE(hit);
  EXPECT_EQ(task_to_json(*hit)["metrics"].dump(), task_to_json(sample_result())["metrics"].dump());
  EXPECT_EQ(task_to_json(*hit)["series"].dump(), task_to_json(sample_result())["series"].dump());
  EXPECT_EQ(hit->seconds, 1.25);
  // Any other part of the key misses: seed, run, a parameter, the world's code.
  EXPECT_FALSE(cache.find(m, params, 6, 0));
  EXPECT_FALSE(cache.find(m, params, 5, 1));
  EXPECT_FALSE(cache.find(m, {{"N", 11}}, 5, 0));
  Measure edited = m;
  edited.code = "python " + digest_hex("an edited world");
  EXPECT_FALSE(cache.find(edited, params, 5, 0));
  EXPECT_EQ(cache.refused(), 0u);
  EXPECT_EQ(entries_of(dir.path).size(), 1u);
}

TEST(TaskCache, EntryThatDoesNotParseOrHoldsAnotherTaskIsRefusedThenReplaced) {
  CacheDir dir;
  const Measure& m = cache_toy().get("toy.cached");
  TaskCache cache(dir.path);
  cache.store(m, {{"N", 10}}, 5, 0, sample_result());
  cache.store(m, {{"N", 20}}, 5, 0, sample_result());
  auto files = entries_of(dir.path);
  ASSERT_EQ(files.size(), 2u);
  // One entry cut short (a crash mid-write), the other a copy of its neighbour (another task's key).
  const std::string whole = slurp(files[0]);
  write_text(files[0], whole.substr(0, whole.size() / 2));
  write_text(files[1], whole);
  EXPECT_FALSE(cache.find(m, {{"N", 10}}, 5, 0));
  EXPECT_FALSE(cache.find(m, {{"N", 20}}, 5, 0));
  EXPECT_EQ(cache.refused(), 2u);
  EXPECT_NE(cache.first_refusal().find(".json"), std::string::npos) << cache.first_refusal();
  // Storing the recomputed records replaces both.
  cache.store(m, {{"N", 10}}, 5, 0, sample_result());
  cache.store(m, {{"N", 20}}, 5, 0, sample_result());
  EXPECT_TRUE(cache.find(m, {{"N", 10}}, 5, 0));
  EXPECT_TRUE(cache.find(m, {{"N", 20}}, 5, 0));
}

TEST(TaskCache, LinksAreNeverFollowed) {
  CacheDir dir;
  const Measure& m = cache_toy().get("toy.cached");
  fs::create_directories(dir.path / "real");
  fs::create_directory_symlink(dir.path / "real", dir.path / "link");
  EXPECT_THROW(TaskCache(dir.path / "link"), InputError);
  // An entry replaced by a link to a valid entry elsewhere is refused, not read through.
  {
    TaskCache cache(dir.path / "real");
    cache.store(m, {{"N", 10}}, 5, 0, sample_result());
  }
  const fs::path entry = entries_of(dir.path / "real").front();
  fs::rename(entry, dir.path / "elsewhere.json");
  fs::create_symlink(dir.path / "elsewhere.json", entry);
  TaskCache cache(dir.path / "real");
  EXPECT_FALSE(cache.find(m, {{"N", 10}}, 5, 0));
  EXPECT_EQ(cache.refused(), 1u);
}

TEST(TaskCache, PruneKeepsThisBuildAndWaitsForNoRun) {
  CacheDir dir;
  const Measure& m = cache_toy().get("toy.cached");
  {
    TaskCache cache(dir.path);
    cache.store(m, {{"N", 10}}, 5, 0, sample_result());
    cache.store(m, {{"N", 20}}, 5, 0, sample_result());
    cache.store(m, {{"N", 30}}, 5, 0, sample_result());
  }
  auto files = entries_of(dir.path);
  ASSERT_EQ(files.size(), 3u);
  // One entry of another build, one that does not parse, one temporary of a cut write.
  auto j = nlohmann::json::parse(slurp(files[0]));
  j["cache"]["build"] = "0.0.1+0000000000000000";
  write_text(files[0], j.dump());
  write_text(files[1], "{\"cache\":");
  write_text(files[2].parent_path() / ".tmp.1.1", "{");
  const CacheStats before = cache_stats(dir.path);
  EXPECT_EQ(before.entries, 3u);
  EXPECT_EQ(before.this_build, 1u);
  EXPECT_EQ(before.unreadable, 1u);
  EXPECT_EQ(before.temporaries, 1u);
  EXPECT_EQ(before.by_measure.at("toy.cached"), 2u);
  {
    TaskCache running(dir.path);  // a run holds the cache: prune is refused, nothing removed
    EXPECT_THROW(prune_cache(dir.path, {}, 0), InputError);
    EXPECT_EQ(cache_stats(dir.path).entries, 3u);
  }
  const PruneOutcome r = prune_cache(dir.path, {}, 0);
  EXPECT_EQ(r.removed, 3u);
  EXPECT_EQ(r.kept, 1u);
  const CacheStats after = cache_stats(dir.path);
  EXPECT_EQ(after.entries, 1u);
  EXPECT_EQ(after.this_build, 1u);
  PruneOptions old;
  old.older_than = 3600;
  EXPECT_EQ(prune_cache(dir.path, old, 1e12).removed, 1u);  // "now" far in the future: every entry is old
}

TEST(TaskCache, MoreRunsComputeOnlyTheNewTasksWithEqualRecords) {
  CacheDir dir;
  const auto sweep = [](int runs) {
    return parse_sweep("measure = \"toy.cached\"\nruns = " + std::to_string(runs) + "\nseed = 3\n[grid]\nN = [10, 20]\n",
                       "toy.toml", "", {}, cache_toy());
  };
  const auto run = [&](const std::string& out, int runs, bool cached) {
    RunOptions o;
    o.out_dir = (dir.path / out).string();
    o.quiet = true;
    o.threads = 2;
    o.registry = &cache_toy();
    if (cached) o.cache_dir = (dir.path / ".cache").string();
    return run_sweep(sweep(runs), o);
  };
  const RunOutcome first = run("a", 2, true);
  EXPECT_EQ(first.tasks_run, 4u);
  EXPECT_EQ(first.tasks_reused, 0u);
  const RunOutcome more = run("b", 3, true);
  EXPECT_EQ(more.tasks_run, 2u);
  EXPECT_EQ(more.tasks_reused, 4u);
  const RunOutcome fresh = run("c", 3, false);
  EXPECT_EQ(fresh.tasks_run, 6u);
  std::map<std::pair<std::string, uint64_t>, std::string> b, c;
  std::size_t marked = 0;
  for (const auto& t : read_results((dir.path / "b" / "results.jsonl").string())) {
    const auto j = task_to_json(t);
    b[{t.key, t.run}] = j["metrics"].dump() + j["series"].dump();
    marked += t.reused;
  }
  for (const auto& t : read_results((dir.path / "c" / "results.jsonl").string())) {
    const auto j = task_to_json(t);
    c[{t.key, t.run}] = j["metrics"].dump() + j["series"].dump();
  }
  EXPECT_EQ(marked, 4u);
  EXPECT_EQ(b, c);
  EXPECT_EQ(slurp(dir.path / "b" / "summary.csv"), slurp(dir.path / "c" / "summary.csv"));
}

TEST(TaskCache, DefaultFolderIsNextToTheResults) {
  EXPECT_EQ(default_cache_dir("results/fig1"), "results/.cache");
  EXPECT_EQ(default_cache_dir("results/fig1/"), "results/.cache");
  EXPECT_EQ(default_cache_dir("fig1"), ".cache");
  EXPECT_EQ(default_cache_dir("/tmp/x/run"), "/tmp/x/.cache");
}
