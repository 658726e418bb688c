#include <charconv>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "plan_options.hpp"
#include "scalinglab/cluster/job_environment.hpp"
#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/results/task_cache.hpp"
#include "scalinglab/run/runner.hpp"
#ifdef SCALINGLAB_HAVE_MPI
#include "scalinglab/cluster/mpi_run.hpp"
#endif

namespace scalinglab::cli {

namespace {
// "i/n" -> {i, n}, both checked 64-bit integers with 0 <= i < n.
std::pair<uint64_t, uint64_t> parse_shard(const std::string& s) {
  const auto bad = [&] { return InputError("--shard '" + s + "': expected i/n with 0 <= i < n, e.g. --shard 0/4"); };
  const auto slash = s.find('/');
  if (slash == std::string::npos) throw bad();
  uint64_t v[2];
  const std::string parts[2] = {s.substr(0, slash), s.substr(slash + 1)};
  for (int k = 0; k < 2; ++k) {
    const char *b = parts[k].data(), *e = b + parts[k].size();
    const auto [end, ec] = std::from_chars(b, e, v[k]);
    if (parts[k].empty() || ec != std::errc() || end != e) throw bad();
  }
  if (v[1] < 1 || v[0] >= v[1]) throw bad();
  return {v[0], v[1]};
}

// "12 run now, 8 done before, 40 reused from results/.cache"
std::string task_counts(const RunOutcome& r) {
  std::string s = std::to_string(r.tasks_run) + " run now, " + std::to_string(r.tasks_skipped) + " done before";
  if (r.tasks_reused > 0) s += ", " + std::to_string(r.tasks_reused) + " reused from " + terminal_text(r.cache_dir);
  return s;
}
}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "run", "Run a sweep file (TOML; see docs/sweeps.md): every grid point x run on a thread pool,\n"
             "appended to DIR/results.jsonl as tasks finish; then DIR/summary.csv, the plot and the checks.\n"
             "Under mpirun (mpirun -np K scalinglab run ...), rank 0 runs the sweep and hands tasks to every\n"
             "rank; the outputs are those of a single process (docs/cluster.md).\n"
             "Exit status: 0 all checks pass, 1 a check fails, 2 bad input, 3 stopped mid-run (SIGTERM, or an\n"
             "MPI job stopped): finish with --resume.");
  struct Opts {
    std::string file, out, shard, profile, checkpoint_every = "10m", cache;
    std::vector<std::string> sets;
    int threads = 0;
    bool resume = false, quiet = false, no_cache = false;
  };
  auto o = std::make_shared<Opts>();
  auto plan = std::make_shared<PlanCommandOptions>();
  cmd->add_option("file", o->file, "the sweep file, e.g. experiments/cabannes2023/fig1-left.toml")->required();
  cmd->add_option("--out", o->out, "results directory (default: results/<file stem>)");
  cmd->add_option("--threads", o->threads,
                  "worker threads (per rank under mpirun; default: all cores, shared among a node's ranks)")->check(threads_range());
  cmd->add_flag("--resume", o->resume, "continue an interrupted run in DIR: tasks already in results.jsonl are kept");
  cmd->add_option("--set", o->sets, "override a fixed parameter (removing its grid axis), runs or seed: --set N=200")
      ->allow_extra_args(false);
  cmd->add_option("--shard", o->shard, "run only tasks i, i+n, i+2n, ... of the task list (i/n); join with `merge`");
  cmd->add_option("--profile", o->profile, "apply the file's [profile.NAME] overrides (e.g. quick, paper)");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_option("--cache", o->cache,
                  "the task cache: a task any earlier run computed (same measure, parameters, seed, run and lab build) "
                  "is copied from it, not run again (default: .cache next to DIR, e.g. results/.cache; see "
                  "`scalinglab cache`)");
  cmd->add_flag("--no-cache", o->no_cache, "neither read nor write the task cache: every task runs");
  cmd->add_option("--checkpoint-every", o->checkpoint_every,
                  "long tasks (factor.train) save their state into DIR/checkpoints this often (default 10m; 0: only "
                  "on signals); SIGUSR1 saves at once, SIGTERM saves and stops (exit 3): --resume continues bit for bit");
  plan->add_to(cmd);
  cmd->callback([&action, o, plan] {
    action = [o, plan] {
      if (plan->requested()) {
        const PlanOptions options = plan->resolved(o->threads);
        if (!o->shard.empty()) throw InputError("--plan estimates the whole sweep: drop --shard");
        const Sweep sweep = load_sweep(o->file, o->profile, o->sets);
        require_known_profile(sweep, o->profile);
        std::fputs(terminal_text(plan_text({plan_sweep(sweep, options)}, options)).c_str(), stdout);
        return 0;
      }
      const bool as_rank = launched_as_mpi_job();
#ifdef SCALINGLAB_HAVE_MPI
      // Ranks other than 0 only compute; rank 0 (below) does everything a single process does.
      std::unique_ptr<MpiJob> job;
      if (as_rank) {
        job = std::make_unique<MpiJob>();
        if (job->rank() > 0) return job->serve_tasks(o->threads ? o->threads : default_threads_per_rank());
      }
#else
      if (as_rank)
        throw InputError("this scalinglab was built without MPI (libopenmpi-dev was missing at build time), so each "
                         "rank would run the whole sweep: rebuild it with MPI, or run without mpirun");
#endif
      RunOptions opts;
      opts.checkpoint_every = parse_duration(o->checkpoint_every, "--checkpoint-every");
      opts.handle_signals = true;
      if (!o->shard.empty()) std::tie(opts.shard_index, opts.shard_count) = parse_shard(o->shard);
      const Sweep sweep = load_sweep(o->file, o->profile, o->sets);
      require_known_profile(sweep, o->profile);
      opts.out_dir = o->out;
      opts.threads = o->threads ? o->threads : (as_rank ? default_threads_per_rank() : 0);
      opts.resume = o->resume;
      opts.quiet = o->quiet;
      opts.origin = {o->profile, o->sets};
      if (o->no_cache && !o->cache.empty()) throw InputError("--cache names a task cache and --no-cache uses none: give one of them");
      if (!o->no_cache) opts.cache_dir = o->cache.empty() ? default_cache_dir(o->out.empty() ? "results/" + sweep.name : o->out) : o->cache;
#ifdef SCALINGLAB_HAVE_MPI
      if (job) opts.remote = &job->workers();
#endif
      RunOutcome r;
      try {
        r = run_sweep(sweep, opts);
      } catch (const RunInterrupted& e) {
        std::fprintf(stderr, "scalinglab: %s\n", terminal_text(e.what()).c_str());
        return kExitInterrupted;
      }
      if (!r.aggregated) {
        if (r.tasks_failed > 0)
          std::fprintf(stderr, "scalinglab: %zu tasks of this shard failed (the first: %s): see %s/failures.jsonl\n",
                       r.tasks_failed, terminal_text(r.first_failure).c_str(), terminal_text(r.out_dir).c_str());
        std::printf("shard %llu/%llu: %zu tasks (%s) in %s\n", static_cast<unsigned long long>(opts.shard_index),
                    static_cast<unsigned long long>(opts.shard_count), r.tasks_total, task_counts(r).c_str(),
                    terminal_text(r.out_dir).c_str());
        std::printf("when all %llu shards have run (each with its own --out), join them and finish the sweep with:\n"
                    "  scalinglab merge results/%s %s OTHER_SHARD_DIR...\n",
                    static_cast<unsigned long long>(opts.shard_count), terminal_text(sweep.name).c_str(),
                    terminal_text(r.out_dir).c_str());
        return r.tasks_failed > 0 ? 1 : 0;
      }
      for (const auto& c : r.checks) std::printf("%s\n", c.line().c_str());
      if (!o->quiet) std::printf("%zu tasks (%s); outputs in %s\n", r.tasks_total, task_counts(r).c_str(),
                                 terminal_text(outcome_summary(r)).c_str());
      if (r.tasks_failed > 0)
        std::fprintf(stderr, "scalinglab: %zu of %zu tasks failed (the first: %s); each is in %s/failures.jsonl with its "
                     "traceback: fix the world and run again with --resume\n", r.tasks_failed, r.tasks_total,
                     terminal_text(r.first_failure).c_str(), terminal_text(r.out_dir).c_str());
      return r.all_passed() && r.tasks_failed == 0 ? 0 : 1;
    };
  });
}

}  // namespace scalinglab::cli
