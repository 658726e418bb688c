#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "plan_options.hpp"
#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/run/report.hpp"
#include "scalinglab/run/runner.hpp"

namespace scalinglab::cli {

void add_reproduce(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "reproduce", "Run every sweep of a paper (experiments/PAPER/*.toml, in name order), check its claims\n"
                   "and write OUT/report.md (+ report.html). Exit 0 if every claim passes, 1 otherwise, 3 when\n"
                   "stopped by SIGTERM (finish with --resume).");
  auto o = std::make_shared<ReproduceOptions>();
  auto every = std::make_shared<std::string>("10m");
  cmd->add_option("paper", o->paper, "paper folder under experiments/, e.g. cabannes2023")->required();
  cmd->add_option("--profile", o->profile, "sweep profile: quick (minutes) or paper (the papers' sizes)")
      ->capture_default_str();
  cmd->add_option("--out", o->out_dir, "output folder (default: results/PAPER-PROFILE)");
  cmd->add_option("--threads", o->threads, "worker threads (default: all cores)")->check(threads_range());
  cmd->add_flag("--resume", o->resume, "keep finished tasks of an earlier run into the same folder");
  cmd->add_flag("--quiet", o->quiet, "no progress bars (claims and the summary are still printed)");
  cmd->add_option("--experiments", o->experiments_dir,
                  "experiments folder (default: ./experiments, else the source tree's)");
  cmd->add_option("--checkpoint-every", *every,
                  "long tasks save their state this often (default 10m; 0: only on signals); SIGUSR1 saves at once, "
                  "SIGTERM saves and stops (exit 3)");
  auto plan = std::make_shared<PlanCommandOptions>();
  plan->add_to(cmd);
  cmd->callback([&action, o, every, plan] {
    action = [o, every, plan] {
      if (plan->requested()) {
        const PlanOptions options = plan->resolved(o->threads);
        std::fputs(terminal_text(plan_text(plan_paper(*o, options), options)).c_str(), stdout);
        return 0;
      }
      o->checkpoint_every = parse_duration(*every, "--checkpoint-every");
      o->handle_signals = true;
      ReproduceOutcome r;
      try {
        r = reproduce(*o);
      } catch (const RunInterrupted& e) {
        std::fprintf(stderr, "scalinglab: %s\n", terminal_text(e.what()).c_str());
        return kExitInterrupted;
      }
      return r.failed > 0 ? 1 : 0;
    };
  });
}

}  // namespace scalinglab::cli
