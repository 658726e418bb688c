// `scalinglab extrapolate FILE.toml`: the fit-and-extrapolate protocol run on a world.
#include <iostream>

#include "commands.hpp"
#include "scalinglab/fit/extrapolate.hpp"

namespace scalinglab::cli {

void add_extrapolate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "extrapolate",
      "Test the scaling-law protocol on a world with known ground truth: IsoFLOP sweeps at small budgets, "
      "Approach 2 and 3 fits, predicted compute-optimal size and loss at a larger budget, then that budget run "
      "and the predictions scored. FILE is a sweep file with an [extrapolate] table (docs/fit.md).");
  auto o = std::make_shared<fit::ExtrapolateOptions>();
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("file", *file, "the protocol file (TOML)")->required();
  cmd->add_option("--out", o->out_dir, "output directory (default results/<file stem>)");
  cmd->add_option("--profile", o->profile, "apply the file's [profile.NAME] (e.g. quick)");
  cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")->capture_default_str()->check(threads_range());
  cmd->add_flag("--resume", o->resume, "keep finished runs of an interrupted protocol");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_flag("--json", *json, "print the report as JSON");
  cmd->callback([&action, o, file, json] {
    action = [o, file, json] {
      const auto report = fit::run_extrapolation(*file, *o);
      std::cout << (*json ? report.dump(2) + "\n" : fit::extrapolation_text(report));
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
