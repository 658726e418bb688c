#pragma once
// --plan, --wall and --probe-seconds, shared by `run` and `reproduce` (scalinglab/run/plan.hpp).
#include <CLI/CLI.hpp>
#include <string>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/param.hpp"
#include "scalinglab/run/plan.hpp"

namespace scalinglab::cli {

struct PlanCommandOptions {
  bool plan = false;
  std::string wall;
  double probe_seconds = 2;
  bool probe_given = false;

  void add_to(CLI::App* cmd) {
    cmd->add_flag("--plan", plan,
                  "print the tasks, CPU time, longest task and memory per task, timed on a few of the cheapest\n"
                  "tasks, without running the sweep (nothing is written; docs/sweeps.md)");
    cmd->add_option("--wall", wall, "with --plan: the Slurm array size that finishes within this wall time (24h, 90m, 2d; a bare number is seconds)");
    cmd->add_option_function<double>(
        "--probe-seconds", [this](double s) { probe_seconds = s, probe_given = true; },
        "with --plan: time the probes of one sweep may take (default 2)");
  }

  // Any of the three: the command plans instead of running (an option of a plan alone is refused).
  bool requested() const { return plan || !wall.empty() || probe_given; }

  // Checked before any work: a bad duration or budget is exit 2 with one sentence.
  PlanOptions resolved(int threads) const {
    if (!plan && (!wall.empty() || probe_given)) throw InputError("--wall and --probe-seconds size a plan: add --plan");
    PlanOptions o;
    if (!wall.empty()) o.wall_seconds = parse_wall(wall);
    if (!(probe_seconds > 0 && probe_seconds <= 3600))
      throw InputError("--probe-seconds " + format_number(probe_seconds) + ": expected a time in seconds, above 0 and at most 3600");
    o.probe_seconds = probe_seconds;
    o.threads = threads;
    return o;
  }
};

}  // namespace scalinglab::cli
