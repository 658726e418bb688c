// `scalinglab extrapolate FILE.toml`: the fit-and-extrapolate protocol run on a world;
// `scalinglab extrapolate --benchmark WORLD.toml...`: every fitting method scored on many worlds.
#include <iostream>

#include "commands.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/extrapolate/extrapolate.hpp"
#include "scalinglab/extrapolate/extrapolation_benchmark.hpp"
#include "scalinglab/fit/fit_method.hpp"

namespace scalinglab::cli {

void add_extrapolate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "extrapolate",
      "Test the scaling-law protocol on a world with known ground truth: IsoFLOP sweeps at small budgets, "
      "fits, predicted compute-optimal size and loss at a larger budget, then that budget run and the predictions "
      "scored. FILE is a sweep file with an [extrapolate] table (docs/fit.md). With --benchmark: the benchmark of "
      "fitting methods over worlds whose files add a [benchmark] table (experiments/extrapolate/, "
      "docs/extrapolation.md): each small-budget design replicated with fresh seeds, every method's predictions at "
      "10-1000x scored against a truth the methods never see; writes a leaderboard (md, csv, json) and figures.");
  auto o = std::make_shared<extrapolate::ExtrapolateOptions>();
  auto b = std::make_shared<extrapolate::BenchmarkOptions>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto benchmark = std::make_shared<bool>(false);
  auto laws = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "the protocol file (TOML); with --benchmark, one or more world files")->required();
  cmd->add_option("--out", o->out_dir,
                  "output directory (default results/<file stem>; with --benchmark results/extrapolation-benchmark)");
  cmd->add_option("--profile", o->profile, "apply the files' [profile.NAME] (e.g. quick)");
  cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")->capture_default_str()->check(threads_range());
  cmd->add_flag("--resume", o->resume, "keep finished runs of an interrupted protocol");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_flag("--json", *json, "print the report as JSON");
  cmd->add_flag("--benchmark", *benchmark, "run the benchmark of fitting methods on the world files");
  std::string defaults;
  for (const auto& m : fit::default_methods()) defaults += (defaults.empty() ? "" : " ") + m;
  cmd->add_option("--methods", b->methods,
                  "--benchmark: methods to score (default: " + defaults + "); each KIND[:KEY=VALUE], or law:EXPR");
  cmd->add_flag("--plan", b->plan_only,
                "--benchmark: print what the files would run (runs, FLOPs, fits) and exit without running");
  cmd->add_option("--law", *laws, "--benchmark: a law of N, D (and C) to score as a method, e.g. 'E + A/N^a + B/D^b' "
                                  "(repeatable)");
  cmd->add_option("--replications", b->replications, "--benchmark: replications of every design (default: the files')")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--bootstrap", b->bootstrap, "--benchmark: bootstrap replicates of each method's intervals "
                                               "(0: none; default: the files')")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--predictions", b->predictions,
                  "--benchmark: a CSV of predictions made elsewhere (columns world, design, replication, horizon, "
                  "method, N_opt, N_lo, N_hi, L_opt, L_lo, L_hi) scored with the others");
  cmd->callback([&action, o, b, files, json, benchmark, laws] {
    action = [o, b, files, json, benchmark, laws] {
      if (!*benchmark) {
        if (files->size() != 1) throw InputError("extrapolate: give one protocol file (several need --benchmark)");
        if (!b->methods.empty() || !laws->empty() || b->replications || b->bootstrap >= 0 || !b->predictions.empty() ||
            b->plan_only)
          throw InputError("extrapolate: --methods, --law, --replications, --bootstrap, --predictions and --plan need --benchmark");
        const auto report = extrapolate::run_extrapolation(files->front(), *o);
        std::cout << (*json ? report.dump(2) + "\n" : terminal_text(extrapolate::extrapolation_text(report)));
        return 0;
      }
      extrapolate::BenchmarkOptions bo = *b;
      bo.out_dir = o->out_dir;
      bo.profile = o->profile;
      bo.threads = o->threads;
      bo.resume = o->resume;
      bo.quiet = o->quiet;
      if (bo.methods.empty() && !laws->empty()) bo.methods = fit::default_methods();
      for (const auto& l : *laws) bo.methods.push_back("law:" + l);
      const auto report = extrapolate::run_benchmark(*files, bo);
      if (bo.plan_only) {
        std::cout << (*json ? report.dump(2) + "\n" : terminal_text(report["plan_text"].get<std::string>()));
        return 0;
      }
      std::cout << (*json ? report.dump(2) + "\n" : terminal_text(extrapolate::leaderboard_markdown(report)));
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
