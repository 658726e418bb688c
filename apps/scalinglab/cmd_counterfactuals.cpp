#include <memory>
#include <string>

#include "commands.hpp"
#include "scalinglab/run/counterfactuals.hpp"

namespace scalinglab::cli {

void add_counterfactuals(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "counterfactuals",
      "Run each claim of a paper on a wrong model: every check counted as evidence declares a\n"
      "counterfactual (--set overrides breaking the mechanism the claim rests on, docs/checks.md); the\n"
      "sweep is run again with them (only the grid points its checks read) at --seeds seeds, and the check\n"
      "must FAIL at every one. Prints each check's smallest margin of rejection over the seeds (in\n"
      "standard errors, decades or slope units) and writes OUT/counterfactuals.json.\n"
      "Exit 0 when every check rejects its counterfactual at every seed (a check declared not_evidence\n"
      "accepts it) and none lacks one, 1 otherwise.");
  auto o = std::make_shared<CounterfactualOptions>();
  cmd->add_option("paper", o->paper,
                  "paper folder under experiments/ (e.g. cabannes2023), or one sweep file (e.g. examples/worlds/hutter.toml)")
      ->required();
  cmd->add_option("--profile", o->profile, "sweep profile the counterfactuals run at")->capture_default_str();
  cmd->add_option("--out", o->out_dir, "output folder (default: results/PAPER-PROFILE-counterfactuals)");
  cmd->add_option("--only", o->only, "only these sweeps (file stems, e.g. fig1-left)");
  cmd->add_option("--seeds", o->seeds,
                  "seeds each wrong model runs at (the sweep's seed and the next ones); a check rejects it only "
                  "when it fails at every seed (a deterministic sweep runs once)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--threads", o->threads, "worker threads (default: all cores)")->check(threads_range());
  cmd->add_flag("--resume", o->resume, "keep finished tasks of an earlier run into the same folder");
  cmd->add_flag("--quiet", o->quiet, "no progress bars (the results are still printed)");
  cmd->add_option("--experiments", o->experiments_dir,
                  "experiments folder (default: ./experiments, else the source tree's)");
  cmd->callback([&action, o] {
    action = [o] { return run_counterfactuals(*o).ok() ? 0 : 1; };
  });
}

}  // namespace scalinglab::cli
