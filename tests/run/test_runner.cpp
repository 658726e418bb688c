// The runner: results identical whatever the threads, shards or interruptions (SIGKILL + --resume),
// merge, and bad input (exit 2, nothing left behind). `Runner` tests call the library with a tiny
// local measure; `RunnerCli` tests run the built binary on memory.error.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/run/runner.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {

std::atomic<int> g_sleep_ms{0};  // makes the toy measure slow enough to be killed mid-run

const Registry& toy() {
  static const Registry r = [] {
    Registry reg;
    Measure m;
    m.name = "toy.noise";
    m.params = {int_param("N", "10", "size"), int_param("d", "16", "dimension"), count_param("T", "inf", "samples")};
    m.metrics = {{"value", "uniform / N"}, {"gauss", "a normal"}, {"curve", "a series", true}};
    m.fn = [](const Params& p, Stream& s) {
      if (g_sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(g_sleep_ms.load()));
      Record rec;
      rec.set("value", s.uniform() / static_cast<double>(p.integer("N")));
      rec.set("gauss", s.normal());
      rec.set_series("curve", {s.uniform(), s.uniform(), s.uniform()});
      return rec;
    };
    reg.add(std::move(m));
    Measure t;  // a deterministic companion for multi-part sweeps
    t.name = "toy.half";
    t.params = {int_param("N", "10", "size"), int_param("d", "16", "dimension")};
    t.metrics = {{"value", "0.5 / N"}, {"bound", "d"}};
    t.fn = [](const Params& p, Stream&) {
      Record rec;
      rec.set("value", 0.5 / static_cast<double>(p.integer("N")));
      rec.set("bound", static_cast<double>(p.integer("d")));
      return rec;
    };
    reg.add(std::move(t));
    return reg;
  }();
  return r;
}

// 8 points x 3 runs = 24 tasks.
const char* kToySweep = R"(measure = "toy.noise"
runs = 3
seed = 5
[params]
T = "inf"
[grid]
N = [10, 20, 30, 40]
d = [8, 16]
)";

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("scalinglab-runner-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_lines(const fs::path& p) {
  const std::string s = slurp(p);
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Every task's metrics as JSON text (bit-exact doubles); fails the test on a repeated task.
std::map<std::pair<std::string, uint64_t>, std::string> tasks_of(const fs::path& dir) {
  std::map<std::pair<std::string, uint64_t>, std::string> out;
  for (const auto& t : read_results((dir / "results.jsonl").string())) {
    nlohmann::json j = task_to_json(t);
    const bool fresh = out.emplace(std::pair(t.key, t.run), j["metrics"].dump() + j["series"].dump()).second;
    EXPECT_TRUE(fresh) << "task " << t.key << " run " << t.run << " appears twice in " << dir;
  }
  return out;
}

Sweep toy_sweep(const std::vector<std::string>& sets = {}) {
  return parse_sweep(kToySweep, "toy.toml", "", sets, toy());
}

RunOutcome run_toy(const std::string& out, int threads, bool resume = false, int shard = 0, int shards = 1,
                   const std::vector<std::string>& sets = {}) {
  RunOptions o;
  o.out_dir = out;
  o.threads = threads;
  o.resume = resume;
  o.quiet = true;
  o.shard_index = shard;
  o.shard_count = shards;
  o.origin.sets = sets;
  o.registry = &toy();
  return run_sweep(toy_sweep(sets), o);
}

// Waits until `path` has `lines` lines (polling every `poll_ms`, at most `tries` times), then kills
// `child` with SIGKILL; true if the child died of the signal rather than finishing first.
bool kill_after_lines(pid_t child, const fs::path& path, std::size_t lines, int poll_ms, int tries) {
  for (int i = 0; i < tries && count_lines(path) < lines; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFSIGNALED(status);
}

}  // namespace

TEST(Runner, ThreadsDoNotChangeResults) {
  TempDir tmp;
  const RunOutcome one = run_toy(tmp / "t1", 1), two = run_toy(tmp / "t2", 2);
  EXPECT_EQ(one.tasks_total, 24u);
  EXPECT_EQ(one.tasks_run, 24u);
  EXPECT_TRUE(one.aggregated);
  const auto a = tasks_of(tmp.path / "t1");
  EXPECT_EQ(a.size(), 24u);
  EXPECT_EQ(a, tasks_of(tmp.path / "t2"));
  EXPECT_EQ(slurp(tmp.path / "t1" / "summary.csv"), slurp(tmp.path / "t2" / "summary.csv"));
  EXPECT_EQ(count_lines(tmp.path / "t1" / "summary.csv"), 9u);  // header + 8 points
  EXPECT_EQ(slurp(tmp.path / "t1" / "sweep.toml"), kToySweep);
  EXPECT_TRUE(fs::exists(tmp.path / "t1" / "checks.json"));

  // The stream of a task is keyed by (seed, point, run) only: run_task gives the same numbers.
  const Sweep s = toy_sweep();
  const auto points = expand_grid(s, toy().get("toy.noise"));
  const Record direct = run_task(toy().get("toy.noise"), points[5].params, s.seed, 2);
  TaskResult t{5, points[5].key, 2, {}, direct, 0};
  const auto j = task_to_json(t);
  EXPECT_EQ(a.at({points[5].key, 2}), j["metrics"].dump() + j["series"].dump());
}

TEST(Runner, ShardsMergeToTheUnshardedRun) {
  TempDir tmp;
  run_toy(tmp / "all", 2);
  std::size_t total = 0;
  for (int i = 0; i < 3; ++i) {
    const RunOutcome r = run_toy(tmp / ("s" + std::to_string(i)), 2, false, i, 3);
    EXPECT_FALSE(r.aggregated);
    EXPECT_FALSE(fs::exists(tmp.path / ("s" + std::to_string(i)) / "summary.csv"));
    total += r.tasks_total;
  }
  EXPECT_EQ(total, 24u);
  const RunOutcome m = merge_shards({tmp / "s0", tmp / "s1", tmp / "s2"}, tmp / "merged", true, toy());
  EXPECT_TRUE(m.aggregated);
  EXPECT_EQ(m.tasks_skipped, 24u);
  EXPECT_EQ(tasks_of(tmp.path / "merged"), tasks_of(tmp.path / "all"));
  EXPECT_EQ(slurp(tmp.path / "merged" / "summary.csv"), slurp(tmp.path / "all" / "summary.csv"));

  // Identical duplicates are tolerated, and the output may be a shard: merging is idempotent.
  merge_shards({tmp / "s0", tmp / "merged", tmp / "s1"}, tmp / "s0", true, toy());
  EXPECT_EQ(tasks_of(tmp.path / "s0"), tasks_of(tmp.path / "all"));
}

TEST(Runner, MergeRejectsConflictsAndOtherSweeps) {
  TempDir tmp;
  run_toy(tmp / "s0", 1, false, 0, 2);
  run_toy(tmp / "s1", 1, false, 1, 2);
  fs::copy(tmp.path / "s0", tmp.path / "bad");
  auto bad = read_results(tmp / "bad/results.jsonl");
  bad[0].record.scalars[0].second += 1;  // a different number for the same task
  std::ofstream(tmp.path / "bad" / "results.jsonl") << task_to_json(bad[0]).dump() << "\n";
  try {
    merge_shards({tmp / "s0", tmp / "bad", tmp / "s1"}, tmp / "out", true, toy());
    ADD_FAILURE() << "conflict not detected";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("conflicting"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp.path / "out"));

  run_toy(tmp / "other", 1, false, 0, 1, {"seed=6"});
  EXPECT_THROW(merge_shards({tmp / "s0", tmp / "other"}, tmp / "out", true, toy()), InputError);
  EXPECT_THROW(merge_shards({tmp / "nothing"}, tmp / "out", true, toy()), InputError);
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
}

TEST(Runner, ExistingResultsNeedResume) {
  TempDir tmp;
  run_toy(tmp / "r", 1);
  const std::string before = slurp(tmp.path / "r" / "results.jsonl");
  try {
    run_toy(tmp / "r", 1);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(tmp.path / "r" / "results.jsonl"), before);
  const RunOutcome again = run_toy(tmp / "r", 2, true);
  EXPECT_EQ(again.tasks_run, 0u);
  EXPECT_EQ(again.tasks_skipped, 24u);
  const RunOutcome more = run_toy(tmp / "r", 2, true, 0, 1, {"runs=4"});  // one more run per point
  EXPECT_EQ(more.tasks_run, 8u);
  EXPECT_EQ(tasks_of(tmp.path / "r").size(), 32u);
  EXPECT_THROW(run_toy(tmp / "r", 2, true, 0, 1, {"seed=7"}), InputError);  // would mix seeds
}

TEST(Runner, KilledRunResumesWithNothingLostOrRedone) {
  TempDir tmp;
  run_toy(tmp / "reference", 2);
  const fs::path dir = tmp.path / "killed";
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    g_sleep_ms = 20;
    try {
      run_toy(dir.string(), 2);
    } catch (...) {
    }
    ::_exit(0);
  }
  ASSERT_TRUE(kill_after_lines(child, dir / "results.jsonl", 6, 5, 2000))
      << "the run finished before it could be killed";
  const std::size_t done = count_lines(dir / "results.jsonl");
  EXPECT_GE(done, 6u);
  EXPECT_LT(done, 24u);
  std::ofstream(dir / "results.jsonl", std::ios::app) << "{\"point\": 3, \"key\": \"N=";  // a write cut short

  EXPECT_THROW(run_toy(dir.string(), 2), InputError);  // not without --resume
  const RunOutcome r = run_toy(dir.string(), 2, true);
  EXPECT_EQ(r.tasks_skipped, done);
  EXPECT_EQ(r.tasks_run, 24u - done);
  EXPECT_EQ(tasks_of(dir), tasks_of(tmp.path / "reference"));
  EXPECT_EQ(slurp(dir / "summary.csv"), slurp(tmp.path / "reference" / "summary.csv"));
}

// Stands in for the ranks of an MPI job: rebuilds the grid from the sweep's text as a rank does,
// takes tasks from the runner's queue and hands each result back through `done` on the serving
// thread, while the runner's own thread takes tasks from the same queue. Throws (a lost rank) after
// `fail_after` tasks when that is set.
class FakeRanks : public RemoteWorkers {
 public:
  explicit FakeRanks(int fail_after = -1) : fail_after_(fail_after) {}
  int slots() const override { return 1; }
  void serve(const Sweep& sweep, const SweepOrigin& origin, const std::vector<TaskRef>& tasks, TaskQueue& queue,
             const Done& done) override {
    const Sweep rebuilt = parse_sweep(sweep.text, sweep.path, origin.profile, origin.sets, toy());
    const auto points = expand_grid(rebuilt, toy());
    std::size_t i;
    while (queue.next(i)) {
      if (ran == fail_after_) throw std::runtime_error("rank 1 was lost");
      const GridPoint& p = points.at(tasks[i].point);
      EXPECT_EQ(p.key, tasks[i].key);
      done(i, run_task(*p.measure, p.params, rebuilt.seed, tasks[i].run), 0.002);
      ++ran;
    }
  }
  // A one-thread run of the toy sweep into `out` sharing its tasks with these ranks.
  RunOptions options(const std::string& out) {
    RunOptions o;
    o.out_dir = out;
    o.threads = 1;
    o.quiet = true;
    o.registry = &toy();
    o.remote = this;
    return o;
  }
  int ran = 0;

 private:
  int fail_after_;
};

TEST(Runner, RemoteWorkersShareTheTasksAndChangeNoRecord) {
  TempDir tmp;
  run_toy(tmp / "single", 1);
  g_sleep_ms = 2;  // both sides get tasks
  FakeRanks ranks;
  const RunOutcome r = run_sweep(toy_sweep(), ranks.options(tmp / "shared"));
  g_sleep_ms = 0;
  EXPECT_EQ(r.tasks_run, 24u);
  EXPECT_GT(ranks.ran, 0);
  EXPECT_LT(ranks.ran, 24);
  EXPECT_EQ(tasks_of(tmp.path / "shared"), tasks_of(tmp.path / "single"));
  EXPECT_EQ(slurp(tmp.path / "shared" / "summary.csv"), slurp(tmp.path / "single" / "summary.csv"));
}

TEST(Runner, ALostRemoteWorkerEndsTheRunAndResumeFinishesIt) {
  TempDir tmp;
  run_toy(tmp / "single", 1);
  g_sleep_ms = 2;
  FakeRanks ranks(3);
  EXPECT_THROW(run_sweep(toy_sweep(), ranks.options(tmp / "lost")), std::runtime_error);
  g_sleep_ms = 0;
  const std::size_t done = count_lines(tmp.path / "lost" / "results.jsonl");
  EXPECT_GE(done, 3u);
  EXPECT_LT(done, 24u);
  tasks_of(tmp.path / "lost");  // whole lines, each task once
  const RunOutcome r = run_toy(tmp / "lost", 2, /*resume=*/true);
  EXPECT_EQ(r.tasks_skipped, done);
  EXPECT_EQ(tasks_of(tmp.path / "lost"), tasks_of(tmp.path / "single"));
}

TEST(Runner, AProgressCallbackSeesEveryTaskAndCanStopTheRun) {
  TempDir tmp;
  run_toy(tmp / "single", 1);
  const auto with_callback = [&](const std::string& out, int threads, auto callback) {
    RunOptions o;
    o.out_dir = tmp / out;
    o.threads = threads;
    o.quiet = true;
    o.registry = &toy();
    o.on_progress = callback;
    return run_sweep(toy_sweep(), o);
  };
  std::vector<std::size_t> seen;
  with_callback("all", 2, [&](std::size_t done, std::size_t total, double) {
    EXPECT_EQ(total, 24u);
    seen.push_back(done);
    return true;
  });
  std::vector<std::size_t> expect(24);
  std::iota(expect.begin(), expect.end(), std::size_t{1});
  EXPECT_EQ(seen, expect);  // one call at a time, in order

  EXPECT_THROW(with_callback("stopped", 1, [](std::size_t done, std::size_t, double) { return done < 5; }),
               RunStopped);
  EXPECT_EQ(count_lines(tmp.path / "stopped" / "results.jsonl"), 5u);  // one thread: nothing else was running
  EXPECT_THROW(with_callback("thrown", 1,
                             [](std::size_t done, std::size_t, double) -> bool {
                               if (done == 7) throw std::domain_error("callback failed");
                               return true;
                             }),
               std::domain_error);
  EXPECT_EQ(count_lines(tmp.path / "thrown" / "results.jsonl"), 7u);
  run_toy(tmp / "stopped", 2, /*resume=*/true);
  EXPECT_EQ(tasks_of(tmp.path / "stopped"), tasks_of(tmp.path / "single"));
}

TEST(Runner, BadOutputDirectoryLeavesNothingBehind) {
  TempDir tmp;
  std::ofstream(tmp.path / "file") << "x";
  EXPECT_THROW(run_toy(tmp / "file/sub", 1), InputError);
  EXPECT_THROW(run_toy("/proc/scalinglab-test/out", 1), InputError);
  EXPECT_FALSE(fs::exists(tmp.path / "file/sub"));
  // The directory can be created but results.jsonl cannot be opened: what was written goes again.
  fs::create_directories(tmp.path / "d" / "results.jsonl");
  EXPECT_THROW(run_toy(tmp / "d", 1, true), InputError);
  EXPECT_FALSE(fs::exists(tmp.path / "d" / "sweep.toml"));
  EXPECT_FALSE(fs::exists(tmp.path / "d" / "run.json"));
  EXPECT_THROW(run_toy(tmp / "e", 1, false, 2, 2), InputError);  // shard index out of range
  EXPECT_FALSE(fs::exists(tmp.path / "e"));
}

TEST(Runner, CheckSweepRefusesWhatARunWouldRefuse) {
  // Python's overwrite=True calls it before emptying a folder: what run_sweep would refuse before
  // its first task (here a name no results folder can have, and too many tasks), it refuses too.
  EXPECT_EQ(check_sweep(toy_sweep(), toy(), 1).size(), 8u);
  const Sweep unnamed = parse_sweep(kToySweep, "a\tb.toml", "", {}, toy());  // a name no folder can have
  EXPECT_THROW(check_sweep(unnamed, toy(), 1), InputError);
  const Limits saved = limits();
  Limits few = saved;
  few.max_tasks = 10;  // 24 tasks
  set_limits(few);
  EXPECT_THROW(check_sweep(toy_sweep(), toy(), 1), InputError);
  set_limits(saved);
}

// ---- the command line on memory.error ----------------------------------------------------------

namespace {

struct Cli {
  int status = -1;
  std::string out;  // stdout and stderr
};

Cli cli(const std::string& args) {
  Cli o;
  FILE* p = ::popen((std::string(SCALINGLAB_CLI) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) o.out += buf.data();
  const int raw = ::pclose(p);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return o;
}

std::string write_sweep(const TempDir& tmp, const std::string& name, const std::string& text) {
  std::ofstream(tmp.path / name) << text;
  return tmp / name;
}

}  // namespace

TEST(RunnerCli, BadInputExitsTwoWithOneLineAndNoFiles) {
  TempDir tmp;
  const std::string ok = "measure = \"memory.error\"\nruns = 2\n[params]\nN = 100\nd = 16\n[grid]\nT = [10, 100]\n";
  const std::string out = " --quiet --out " + tmp / "out";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {write_sweep(tmp, "a.toml", "measure = \"memory.nope\"\n") + out, "unknown measure"},
      {write_sweep(tmp, "b.toml", ok + "Q = [1, 2]\n") + out, "unknown parameter 'Q'"},
      {write_sweep(tmp, "c.toml", ok + "scheme = [\"q0\", \"q9\"]\n") + out, "scheme='q9'"},
      {write_sweep(tmp, "d.toml", "measure = \"memory.error\"\n[params]\nN = \"abc\"\n") + out, "N='abc'"},
      {write_sweep(tmp, "e.toml", "measure = \"memory.error\"\n[params]\nd = 0\n") + out, "out of range"},
      {write_sweep(tmp, "f.toml", "measure = \"memory.error\"\n[params\n") + out, "f.toml:2"},
      {tmp / "g.toml" + out, "cannot read"},
      {write_sweep(tmp, "h.toml", ok) + " --set Q=1" + out, "--set Q=1"},
      {tmp / "h.toml" + " --shard 2/2" + out, "--shard"},
      {tmp / "h.toml" + " --quiet --out /proc/scalinglab-nope/x", "cannot create output directory"},
  };
  for (const auto& [args, message] : cases) {
    const Cli r = cli("run " + args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("scalinglab: error: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_FALSE(fs::exists(tmp.path / "out")) << args;
  }
  ASSERT_EQ(cli("run " + tmp / "h.toml" + out).status, 0);
  const std::string results = slurp(tmp.path / "out" / "results.jsonl");
  const Cli again = cli("run " + tmp / "h.toml" + out);
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.out.find("--resume"), std::string::npos) << again.out;
  EXPECT_EQ(slurp(tmp.path / "out" / "results.jsonl"), results);
  EXPECT_EQ(cli("merge " + tmp / "m " + tmp / "nothing").status, 2);
  EXPECT_FALSE(fs::exists(tmp.path / "m"));
}

TEST(RunnerCli, ThreadsAndShardsGiveTheSameSummary) {
  TempDir tmp;
  const std::string sweep = write_sweep(tmp, "s.toml", R"(measure = "memory.error"
runs = 5
seed = 2
[params]
N = 100
scheme = "q0"
[grid]
d = [8, 16, 32]
T = [10, 100]
)");
  const std::string common = sweep + " --quiet --no-cache --set runs=2 --out ";  // every run computes its tasks
  ASSERT_EQ(cli("run " + common + tmp / "t1 --threads 1").status, 0);
  ASSERT_EQ(cli("run " + common + tmp / "t2 --threads 2").status, 0);
  const Cli s0 = cli("run " + common + tmp / "s0 --shard 0/2");
  EXPECT_EQ(s0.status, 0);
  EXPECT_NE(s0.out.find("scalinglab merge"), std::string::npos) << s0.out;
  ASSERT_EQ(cli("run " + common + tmp / "s1 --shard 1/2").status, 0);
  const Cli m = cli("merge " + tmp / "m " + tmp / "s0 " + tmp / "s1");
  ASSERT_EQ(m.status, 0) << m.out;
  EXPECT_NE(m.out.find("merged 12 of 12 tasks"), std::string::npos) << m.out;

  const std::string summary = slurp(tmp.path / "t1" / "summary.csv");
  EXPECT_EQ(summary.substr(0, summary.find('\n')).rfind("N,", 0), 0u) << summary;
  EXPECT_NE(summary.find(",2\n"), std::string::npos);  // count column: --set runs=2 was kept by merge
  EXPECT_EQ(summary, slurp(tmp.path / "t2" / "summary.csv"));
  EXPECT_EQ(summary, slurp(tmp.path / "m" / "summary.csv"));
  EXPECT_EQ(tasks_of(tmp.path / "t1"), tasks_of(tmp.path / "m"));
  EXPECT_EQ(nlohmann::json::parse(slurp(tmp.path / "m" / "run.json"))["sets"], nlohmann::json({"runs=2"}));
}

TEST(RunnerCli, SigkilledRunResumesExactly) {
  TempDir tmp;
  // 40 tasks of tens of milliseconds each: slow enough to be killed part-way.
  const std::string sweep = write_sweep(tmp, "k.toml", R"(measure = "memory.error"
runs = 20
seed = 3
[params]
N = 40000
T = "inf"
[grid]
d = [128, 256]
)");
  ASSERT_EQ(cli("run " + sweep + " --quiet --no-cache --threads 2 --out " + tmp / "ref").status, 0);
  const fs::path dir = tmp.path / "killed";
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl(SCALINGLAB_CLI, SCALINGLAB_CLI, "run", sweep.c_str(), "--threads", "2", "--no-cache", "--out", dir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_TRUE(kill_after_lines(child, dir / "results.jsonl", 5, 2, 4000))
      << "the run finished before it could be killed";
  const std::size_t done = count_lines(dir / "results.jsonl");
  EXPECT_GE(done, 5u);
  EXPECT_LT(done, 40u);
  const Cli resumed = cli("run " + sweep + " --resume --no-cache --threads 2 --out " + dir.string());
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("already done"), std::string::npos) << resumed.out;
  const auto tasks = tasks_of(dir);
  EXPECT_EQ(tasks.size(), 40u);
  EXPECT_EQ(count_lines(dir / "results.jsonl"), 40u);
  EXPECT_EQ(tasks, tasks_of(tmp.path / "ref"));
  EXPECT_EQ(slurp(dir / "summary.csv"), slurp(tmp.path / "ref" / "summary.csv"));
}

// A multi-part sweep: one results file and one summary with a `part` column (the union of the
// parts' parameters and metrics), checks across parts, and resume after losing tasks.
TEST(Runner, PartsShareOneSummaryAndResume) {
  const char* text = R"(runs = 400
seed = 3
[grid]
N = [10, 20]
T = [100, "inf"]
[[part]]
name = "noise"
measure = "toy.noise"
[[part]]
name = "half"
measure = "toy.half"
[[check]]
claim = "the mean of U(0,1)/N is 0.5/N"
ordered = { x = "N", y = "value", series = "part", order = ["half", "noise"], where = { T = "inf" } }
)";
  TempDir tmp;
  const Sweep s = parse_sweep(text, "parts.toml", "", {}, toy());
  RunOptions o;
  o.out_dir = tmp / "p";
  o.quiet = true;
  o.threads = 2;
  o.registry = &toy();
  const RunOutcome r = run_sweep(s, o);
  EXPECT_EQ(r.tasks_total, (4u + 2u) * 400u);
  const std::string csv = slurp(tmp.path / "p" / "summary.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "part,N,d,T,value,value_std,value_sem,gauss,gauss_std,gauss_sem,bound,bound_std,bound_sem,count");
  EXPECT_EQ(count_lines(tmp.path / "p" / "summary.csv"), 7u);
  EXPECT_NE(csv.find("\nhalf,10,16,,0.05,0,0,nan,nan,nan,16,0,0,400\n"), std::string::npos) << csv;
  ASSERT_EQ(r.checks.size(), 1u);
  // The check is a statistical statement; with 400 runs noise's mean is 0.5/N +- 0.015/N, so the
  // order may go either way: what matters is that both series were found at each N.
  EXPECT_NE(r.checks[0].measured.find("2 N values"), std::string::npos) << r.checks[0].measured;
  const auto lines = read_results(tmp / "p/results.jsonl");
  std::size_t half = 0;
  for (const auto& l : lines) half += l.params.value("part", "") == "half";
  EXPECT_EQ(half, 2u * 400u);

  // Lose the last 100 tasks, resume: the same results and summary.
  const auto all = tasks_of(tmp.path / "p");
  {
    std::ofstream out(tmp / "p/results.jsonl", std::ios::trunc);
    for (std::size_t i = 0; i + 100 < lines.size(); ++i) out << task_to_json(lines[i]).dump() << "\n";
  }
  o.resume = true;
  const RunOutcome again = run_sweep(s, o);
  EXPECT_EQ(again.tasks_run, 100u);
  EXPECT_EQ(tasks_of(tmp.path / "p"), all);
  EXPECT_EQ(slurp(tmp.path / "p" / "summary.csv"), csv);
}
