// Running a sweep: the task list, resume, shards and merge; then summary.csv, plot and checks.
#include "scalinglab/run/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <thread>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/progress.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/plot/figure.hpp"
#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/results/task_cache.hpp"

namespace scalinglab {

namespace fs = std::filesystem;

bool RunOutcome::all_passed() const {
  for (const auto& c : checks)
    if (!c.ok()) return false;
  return true;
}

std::string outcome_summary(const RunOutcome& r) {
  std::string files = "results.jsonl";
  if (r.aggregated) files += ", summary.csv" + std::string(r.plotted ? ", plot.svg, plot.png, plot.pdf" : "") + ", checks.json";
  std::size_t failed = 0;
  for (const auto& c : r.checks) failed += !c.ok();
  std::string out = r.out_dir + "/: " + files;
  if (!r.checks.empty())
    out += " (" + std::to_string(r.checks.size() - failed) + " checks passed, " + std::to_string(failed) + " failed)";
  if (r.tasks_failed > 0)
    out += "; " + std::to_string(r.tasks_failed) + " task" + (r.tasks_failed > 1 ? "s" : "") +
           " failed (failures.jsonl: parameters, error, traceback; --resume runs them again)";
  return out;
}

namespace {

const char* kResults = "results.jsonl";

// Every task of the run is recorded: what is left in OUT/checkpoints of ours (states, and the
// temporary files of saves cut by a kill) goes, and the folder with it when nothing else is there.
// Names are matched, links removed as links, never followed.
void remove_checkpoints(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) return;
  static const std::regex ours(R"([0-9a-f]{16}\.state(\.tmp\.[0-9]+\.[0-9]+)?)");
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), ours)) stale.push_back(it->path());
  for (const auto& p : stale) remove_entry(dir.string(), p.filename().string());  // never through a link
  ::rmdir(dir.c_str());  // only when empty; a link is not a folder and stays
}

// A small file of a results folder (sweep.toml, run.json), read without following a link.
std::string read_small(const fs::path& path, const std::string& what) {
  auto text = read_entry(path.parent_path().string(), path.filename().string(), kMaxSweepFileBytes, what);
  if (!text) throw InputError(path.string() + ": no " + what + " there");
  return std::move(*text);
}

std::string run_json(const Sweep& sweep, const SweepOrigin& origin) {
  return nlohmann::json{{"profile", origin.profile},
                        {"sets", origin.sets},
                        {"name", sweep.name},
                        {"measures", sweep.measures_text()}}
             .dump(2) +
         "\n";
}

// Results belong to this sweep when made with its seed (the key excludes the seed).
bool same_seed(const TaskResult& r, uint64_t seed) {
  return r.params.contains("seed") && r.params["seed"] == nlohmann::json(seed);
}

bool same_record(const Record& a, const Record& b) {
  auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  if (a.scalars.size() != b.scalars.size() || a.series.size() != b.series.size()) return false;
  for (std::size_t i = 0; i < a.scalars.size(); ++i)
    if (a.scalars[i].first != b.scalars[i].first || !same(a.scalars[i].second, b.scalars[i].second)) return false;
  for (std::size_t i = 0; i < a.series.size(); ++i) {
    const auto &x = a.series[i], &y = b.series[i];
    if (x.first != y.first || x.second.size() != y.second.size()) return false;
    for (std::size_t k = 0; k < x.second.size(); ++k)
      if (!same(x.second[k], y.second[k])) return false;
  }
  return true;
}

struct Finished {
  std::vector<CheckResult> checks;
  bool plotted = false;
  std::size_t missing = 0;
};

Finished finish(const Sweep& sweep, const fs::path& dir, const Registry& registry,
                const std::function<bool(const GridPoint&)>& keep_point = nullptr, bool plot = true) {
  auto points = expand_grid(sweep, registry);
  if (keep_point) points.erase(std::remove_if(points.begin(), points.end(), [&](const GridPoint& p) { return !keep_point(p); }),
                               points.end());
  std::vector<TaskResult> results;
  for (auto& r : read_results((dir / kResults).string()))
    if (same_seed(r, sweep.seed) && r.run < static_cast<uint64_t>(sweep.runs)) results.push_back(std::move(r));
  const Table table = aggregate(points, results);
  std::size_t present = 0;
  for (const auto& row : table.rows) present += row.count;
  const std::size_t expected = points.size() * static_cast<std::size_t>(sweep.runs);
  Finished f;
  f.missing = expected > present ? expected - present : 0;
  if (f.missing)  // worth a warning even in quiet runs
    std::fprintf(stderr, "warning: %zu of %zu tasks have no result yet; summarising what is there\n", f.missing,
                 expected);
  write_csv(table, (dir / "summary.csv").string());
  if (plot) f.plotted = draw_figure(sweep, {table, points, results}, dir.string(), "plot");
  f.checks = evaluate_checks(sweep, table, &results);
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : f.checks) checks.push_back(c.to_json());
  write_file((dir / "checks.json").string(), checks.dump(2) + "\n");
  return f;
}

}  // namespace

std::vector<CheckResult> finish_sweep(const Sweep& sweep, const std::string& out_dir, bool /*quiet*/,
                                      const Registry& registry) {
  const ResultsDir held(out_dir);
  return finish(sweep, out_dir, registry).checks;
}

std::vector<GridPoint> check_sweep(const Sweep& sweep, const Registry& registry, int threads, uint64_t shards) {
  if (!is_plain_name(sweep.name))
    throw InputError(sweep.path + ": the sweep's name '" + sweep.name +
                     "' cannot name a results folder (use a plain file name)");
  auto points = expand_grid(sweep, registry);
  check_limit(static_cast<double>(points.size()) * static_cast<double>(sweep.runs) / static_cast<double>(shards),
              limits().max_tasks, sweep.path, "tasks (grid points x runs)", "--max-tasks");
  const int concurrent = resolve_threads(threads);
  for (const auto& p : points) check_task(*p.measure, p.params, concurrent);
  return points;
}

RunOutcome run_sweep(const Sweep& sweep, const RunOptions& options) {
  const Registry& registry = options.registry ? *options.registry : world_registry();
  const uint64_t shards = options.shard_count, shard = options.shard_index;
  if (shards < 1 || shard >= shards)
    throw InputError("--shard " + std::to_string(shard) + "/" + std::to_string(shards) + ": expected i/n with 0 <= i < n");
  const auto points = check_sweep(sweep, registry, options.threads, shards);
  const int threads = resolve_threads(options.threads);

  RunOutcome out;
  out.out_dir = options.out_dir.empty() ? "results/" + sweep.name : options.out_dir;
  const fs::path dir = out.out_dir, results_path = dir / kResults;

  // The folder is this process's from here to the end of the run (a second run on it is refused).
  ResultsDir held(dir);
  held.check_owner(sweep.name, sweep.measures_text());

  // What is done already: decided under the lock, before anything is written.
  std::set<std::pair<std::string, uint64_t>> done;
  std::error_code ec;
  if (fs::exists(results_path, ec)) {
    if (!options.resume && fs::file_size(results_path, ec) > 0)
      throw InputError(results_path.string() +
                       " already holds results: pass --resume to continue that run, or choose another --out");
    for (const auto& r : read_results(results_path.string())) {
      if (!same_seed(r, sweep.seed))
        throw InputError(results_path.string() + " holds results of seed " + r.params.value("seed", nlohmann::json()).dump() +
                         " but the sweep has seed " + std::to_string(sweep.seed) + ": choose another --out");
      done.emplace(r.key, r.run);
    }
  }

  // Records any sweep computed before, keyed by exactly what determines them.
  std::unique_ptr<TaskCache> cache;
  if (!options.cache_dir.empty()) {
    cache = std::make_unique<TaskCache>(options.cache_dir);
    out.cache_dir = options.cache_dir;
  }

  // This shard's tasks in the deterministic order: points in grid order, runs inner.
  struct Task {
    const GridPoint* point;
    uint64_t run;
  };
  std::vector<Task> todo;
  std::vector<TaskResult> reused;
  const auto runs = static_cast<uint64_t>(sweep.runs);
  const auto task_params = [](const GridPoint& p) {
    nlohmann::json params = p.params.to_json();
    if (!p.part.empty()) params["part"] = p.part;
    return params;
  };
  for (const auto& p : points)
    for (uint64_t r = 0; r < runs; ++r) {
      if ((p.index * runs + r) % shards != shard) continue;
      if (options.keep_point && !options.keep_point(p)) continue;
      ++out.tasks_total;
      if (done.count({p.key, r})) {
        ++out.tasks_skipped;
      } else if (auto hit = cache ? cache->find(*p.measure, p.params.to_json(), sweep.seed, r) : std::nullopt) {
        hit->point = p.index;
        hit->key = p.key;
        hit->run = r;
        hit->params = task_params(p);
        hit->reused = true;
        reused.push_back(std::move(*hit));
      } else {
        todo.push_back({&p, r});
      }
    }
  out.tasks_reused = reused.size();
  if (cache) {
    out.cache_refused = cache->refused();
    if (cache->refused() > 0)
      std::fprintf(stderr, "scalinglab: %zu task cache entr%s refused (%s); %s run again\n", cache->refused(),
                   cache->refused() > 1 ? "ies" : "y", terminal_text(cache->first_refusal()).c_str(),
                   cache->refused() > 1 ? "those tasks are" : "that task is");
  }

  held.write("sweep.toml", sweep.text);
  held.write("run.json", run_json(sweep, options.origin));
  held.note(kResults);
  ResultsWriter writer(results_path.string());
  held.keep();
  for (const auto& t : reused) writer.append(t);

  // One BLAS thread per task whatever the thread count: a product's rounding then never depends on
  // --threads, so records are bit-identical across thread counts, eval and shards.
  set_blas_threads(1);
  set_task_threads(todo.size() > 1 ? 1 : threads);
  std::string label = sweep.name;
  if (shards > 1) label += " [shard " + std::to_string(shard) + "/" + std::to_string(shards) + "]";
  const int workers = threads + (options.remote ? options.remote->slots() : 0);
  Progress progress(out.tasks_total, out.tasks_skipped + out.tasks_reused, label, options.quiet);
  // The cost model (ETA, task order) reads each task's numeric parameters (the same names for every
  // task of a measure; other parts' names read as absent).
  std::vector<std::vector<double>> features;
  {
    std::vector<std::string> names;
    for (const auto& t : todo)
      for (const auto& e : t.point->params.entries())
        if (std::find(names.begin(), names.end(), e.spec->name) == names.end()) names.push_back(e.spec->name);
    for (const auto& t : todo) {
      std::vector<double> f(names.size(), NAN);
      for (const auto& e : t.point->params.entries())
        f[static_cast<std::size_t>(std::find(names.begin(), names.end(), e.spec->name) - names.begin())] = e.number;
      features.push_back(std::move(f));
    }
  }
  progress.set_tasks(features, workers);
  TaskQueue queue(std::move(features), /*cost_order=*/workers > 1);

  // The caller's progress callback: one call at a time; false or an exception stops the run.
  std::mutex report_mutex;
  std::size_t reported = out.tasks_skipped + out.tasks_reused;  // counted here: each call sees one more task done
  bool stopped = false;
  std::exception_ptr report_error;
  double eta = NAN;
  auto eta_at = std::chrono::steady_clock::now() - std::chrono::hours(1);
  const auto report = [&] {
    if (!options.on_progress) return;
    std::lock_guard<std::mutex> lock(report_mutex);
    if (stopped) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - eta_at > std::chrono::milliseconds(500)) {  // the cost model is refitted for each estimate
      eta = progress.seconds_left();
      eta_at = now;
    }
    bool go_on = false;
    try {
      go_on = options.on_progress(++reported, out.tasks_total, eta);
    } catch (...) {
      report_error = std::current_exception();
    }
    if (!go_on) {
      stopped = true;
      queue.stop();
    }
  };
  const auto record_task = [&](std::size_t i, Record&& record, double seconds) {
    const Task& t = todo[i];
    const TaskResult result{t.point->index, t.point->key, t.run, task_params(*t.point), std::move(record), seconds};
    writer.append(result);
    if (cache) cache->store(*t.point->measure, t.point->params.to_json(), sweep.seed, t.run, result);
    progress.advance(i, seconds);
    queue.finished(i, seconds);
    report();
  };
  // A task whose measure throws fails alone: the failure is kept (OUT/failures.jsonl at the end),
  // the other tasks run, and --resume runs it again (it has no record).
  std::mutex failure_mutex;
  std::vector<nlohmann::json> failures;
  const auto fail_task = [&](std::size_t i, const std::string& what, double seconds) {
    const Task& t = todo[i];
    nlohmann::json f = {{"point", t.point->index}, {"key", t.point->key}, {"run", t.run}, {"params", t.point->params.to_json()},
                        {"seconds", seconds}};
    if (!t.point->part.empty()) f["params"]["part"] = t.point->part;
    const auto nl = what.find('\n');
    f["error"] = what.substr(0, nl);
    if (nl != std::string::npos) f["traceback"] = what.substr(nl + 1);
    {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (failures.empty())
        std::fprintf(stderr, "\nscalinglab: a task failed (the others go on): %s\n", terminal_text(what).c_str());
      failures.push_back(std::move(f));
    }
    progress.advance(i, seconds);
    queue.finished(i, seconds);
    report();
  };
  // Long tasks keep checkpoints in OUT/checkpoints (made when the first one saves).
  const fs::path checkpoint_dir = dir / "checkpoints";
  const CheckpointSettings checkpoints{fs::absolute(checkpoint_dir).string(), options.checkpoint_every, options.resume};
  const auto checkpoint_of = [&](const Task& t) {
    return make_task_checkpoint(checkpoints, t.point->measure->name, t.point->params, sweep.seed, t.run);
  };
  std::atomic<bool> interrupted{false};
  std::atomic<std::size_t> continued{0};  // tasks that went on from a saved state
  const auto run_here = [&] {
    parallel_for(static_cast<std::size_t>(threads), threads, [&](std::size_t, int) {
      std::size_t i;
      while (queue.next(i)) {
        try {
          const Task& t = todo[i];
          const auto start = std::chrono::steady_clock::now();
          const auto checkpoint = checkpoint_of(t);
          Record record;
          std::string failure;
          {
            CheckpointScope scope(checkpoint.get());
            try {
              record = run_task(*t.point->measure, t.point->params, sweep.seed, t.run);
            } catch (const TaskInterrupted&) {
              throw;
            } catch (const std::bad_alloc&) {
              throw;  // memory is every task's: the run stops
            } catch (const InputError&) {
              throw;  // the run's input (its checkpoints folder, a limit): every task's, the run stops (exit 2)
            } catch (const std::exception& e) {
              failure = e.what();  // this task's own failure: recorded, the others go on
            }
          }
          const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (!failure.empty()) {
            fail_task(i, failure, seconds);
            continue;
          }
          record_task(i, std::move(record), seconds);
          if (checkpoint->used()) checkpoint->remove();  // the record is written: the state is no longer needed
          if (checkpoint->restored()) ++continued;
        } catch (const TaskInterrupted&) {
          interrupted = true;  // saved; the run stops
          queue.stop();
          return;
        } catch (...) {
          queue.stop();  // the first failure ends the run; tasks running elsewhere finish
          throw;
        }
      }
    });
  };
  // SIGUSR1: every running long task saves and goes on. SIGTERM (this process alone; under MPI
  // the job's own stop handling stays): they save and the run stops; tasks that keep no checkpoint
  // are abandoned (redone on --resume) once the others have saved.
  if (options.handle_signals) install_checkpoint_signals(!options.remote);
  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    while (!finished.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!stop_requested()) continue;
      queue.stop();
      const auto asked = std::chrono::steady_clock::now();
      while (!finished.load() && !running_tasks_saved() && std::chrono::steady_clock::now() - asked < std::chrono::seconds(60))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      // A moment for the workers to return on their own; tasks without checkpoints do not.
      for (int k = 0; k < 50 && !finished.load(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (finished.load()) return;
      std::fprintf(stderr, "\nscalinglab: interrupted: %zu of %zu tasks done in %s, long tasks' states in %s; run again "
                   "with --resume to continue\n", progress.done(), out.tasks_total, results_path.c_str(),
                   checkpoint_dir.c_str());
      std::_Exit(kExitInterrupted);  // results.jsonl is written line by line: nothing is lost
    }
  });
  struct Stop {
    std::atomic<bool>& finished;
    std::thread& watchdog;
    ~Stop() {
      finished = true;
      watchdog.join();
      restore_checkpoint_signals();
    }
  } stop_watch{finished, watchdog};
  if (!options.remote) {
    run_here();
  } else {
    std::vector<TaskRef> refs;
    for (const auto& t : todo) refs.push_back({t.point->index, t.run, t.point->key});
    options.remote->attach(refs, queue);
    options.remote->set_checkpoints(checkpoints);
    options.remote->set_task_failure(fail_task);
    std::exception_ptr local_error;
    std::thread here([&] {
      try {
        run_here();
      } catch (...) {
        local_error = std::current_exception();
      }
    });
    try {
      options.remote->serve(sweep, options.origin, refs, queue, record_task);
    } catch (...) {
      queue.stop();
      here.join();
      throw;
    }
    here.join();
    if (local_error) std::rethrow_exception(local_error);
  }
  progress.finish();
  if (continued > 0)
    std::fprintf(stderr, "%zu task%s went on from %s checkpoint\n", continued.load(), continued > 1 ? "s" : "",
                 continued > 1 ? "their" : "its");
  if (report_error) std::rethrow_exception(report_error);
  if (interrupted || stop_requested())
    throw RunInterrupted("interrupted: " + std::to_string(progress.done()) + " of " + std::to_string(out.tasks_total) +
                         " tasks done in " + results_path.string() + ", long tasks' states in " +
                         checkpoint_dir.string() + "; run again with --resume to continue");
  // The failures of this run (a stale file of an earlier run goes once none failed).
  out.tasks_failed = failures.size();
  if (!failures.empty()) {
    std::string text;
    for (const auto& f : failures) text += f.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    held.write("failures.jsonl", text);
    out.first_failure = failures.front().value("error", std::string());
  } else {
    remove_entry(dir.string(), "failures.jsonl");
  }
  remove_checkpoints(checkpoint_dir);
  if (stopped) {
    const std::size_t done = progress.done();
    throw RunStopped("stopped with " + std::to_string(done) + " of " + std::to_string(out.tasks_total) +
                     " tasks done, all in " + results_path.string() + ": run again with --resume to finish");
  }
  out.tasks_run = todo.size();
  if (cache && cache->store_failures() > 0)
    std::fprintf(stderr, "scalinglab: %zu record%s could not be stored in the task cache %s (a full disk?); the results "
                 "are complete\n", cache->store_failures(), cache->store_failures() > 1 ? "s" : "",
                 terminal_text(cache->path().string()).c_str());
  if (shards > 1) return out;  // shards are summarised by `merge`

  Finished f = finish(sweep, dir, registry, options.keep_point, options.plot);
  out.aggregated = true;
  out.plotted = f.plotted;
  out.tasks_missing = f.missing;
  out.checks = std::move(f.checks);
  return out;
}

RunOutcome merge_shards(const std::vector<std::string>& shard_dirs, const std::string& out_dir, bool /*quiet*/,
                        const Registry& registry) {
  if (shard_dirs.empty()) throw InputError("merge: name at least one shard directory");
  const fs::path first = shard_dirs.front();
  std::error_code ec;
  if (!fs::exists(first / "sweep.toml", ec) || !fs::exists(first / "run.json", ec))
    throw InputError(first.string() + ": not a results directory of `scalinglab run` (no sweep.toml/run.json)");
  const std::string sweep_text = read_small(first / "sweep.toml", "sweep file"),
                    origin_text = read_small(first / "run.json", "run.json");
  SweepOrigin origin;
  std::string name;
  try {
    const auto j = parse_json(origin_text, (first / "run.json").string());
    origin.profile = j.at("profile").get<std::string>();
    origin.sets = j.at("sets").get<std::vector<std::string>>();
    name = j.value("name", "");
  } catch (const nlohmann::json::exception& e) {
    throw InputError((first / "run.json").string() + ": malformed: " + json_error_text(e));
  }
  if (!name.empty() && !is_plain_name(name))
    throw InputError((first / "run.json").string() + ": the sweep name " + nlohmann::json(name).dump() +
                     " is not a plain file name");
  Sweep sweep = parse_sweep(sweep_text, (first / "sweep.toml").string(), origin.profile, origin.sets, registry);
  if (!name.empty()) sweep.name = name;

  // The output folder is held for the whole merge; shards still being written by a run are refused.
  ResultsDir held(out_dir);
  held.check_owner(sweep.name, sweep.measures_text());
  std::vector<std::unique_ptr<ResultsDir>> reading;
  for (const auto& d : shard_dirs)
    if (!fs::equivalent(d, out_dir, ec)) reading.push_back(std::make_unique<ResultsDir>(d, ResultsDir::Mode::Shared));

  // Sources: every shard, plus results already in the output directory (merging is idempotent).
  std::vector<fs::path> sources(shard_dirs.begin(), shard_dirs.end());
  if (fs::exists(fs::path(out_dir) / kResults, ec)) sources.emplace_back(out_dir);
  for (const auto& d : sources) {
    if (!fs::exists(d / kResults, ec)) throw InputError(d.string() + ": no " + kResults + " (did that shard run?)");
    if (!fs::exists(d / "sweep.toml", ec) || read_small(d / "sweep.toml", "sweep file") != sweep_text ||
        !fs::exists(d / "run.json", ec) || read_small(d / "run.json", "run.json") != origin_text)
      throw InputError(d.string() + ": ran a different sweep than " + first.string() +
                       " (sweep.toml or run.json differ)");
  }

  const auto points = expand_grid(sweep, registry);
  std::map<std::string, std::size_t> point_of;
  for (const auto& p : points) point_of.emplace(p.key, p.index);
  std::map<std::pair<std::size_t, uint64_t>, std::pair<TaskResult, fs::path>> merged;  // task order
  for (const auto& d : sources)
    for (auto& r : read_results((d / kResults).string())) {
      auto it = point_of.find(r.key);
      if (it == point_of.end() || r.run >= static_cast<uint64_t>(sweep.runs) || !same_seed(r, sweep.seed)) continue;
      r.point = it->second;
      auto [at, fresh] = merged.try_emplace({r.point, r.run}, r, d);
      if (!fresh && !same_record(at->second.first.record, r.record))
        throw InputError("merge: conflicting results for " + r.key + " run " + std::to_string(r.run) + " in " +
                         at->second.second.string() + " and " + d.string());
    }

  std::string lines;
  for (const auto& [task, entry] : merged) lines += task_to_json(entry.first).dump() + "\n";
  held.write("sweep.toml", sweep_text);
  held.write("run.json", origin_text);
  held.write(kResults, lines);
  held.keep();
  RunOutcome out;
  out.out_dir = out_dir;
  out.tasks_total = points.size() * static_cast<std::size_t>(sweep.runs);
  out.tasks_skipped = merged.size();
  Finished f = finish(sweep, out_dir, registry);
  out.aggregated = true;
  out.plotted = f.plotted;
  out.tasks_missing = f.missing;
  out.checks = std::move(f.checks);
  return out;
}

}  // namespace scalinglab
