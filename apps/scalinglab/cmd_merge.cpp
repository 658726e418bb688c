#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/run/runner.hpp"

namespace scalinglab::cli {

void add_merge(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "merge", "Join the results of `run --shard` directories into OUT_DIR and finish the sweep\n"
               "(summary.csv, plot, checks). Each task is kept once; conflicting duplicates are an error.\n"
               "Exit status: 0 all tasks present and all checks pass, 1 a check fails or tasks are missing, 2 bad input.");
  struct Opts {
    std::string out;
    std::vector<std::string> shards;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("out_dir", o->out, "directory for the merged results (may be one of the shards)")->required();
  cmd->add_option("shard_dirs", o->shards, "the shards' results directories")->required();
  cmd->add_flag("--quiet", o->quiet, "only print the checks");
  cmd->callback([&action, o] {
    action = [o] {
      const RunOutcome r = merge_shards(o->shards, o->out, o->quiet);
      for (const auto& c : r.checks) std::printf("%s\n", c.line().c_str());
      if (!o->quiet) std::printf("merged %zu of %zu tasks; outputs in %s\n", r.tasks_skipped, r.tasks_total,
                                 terminal_text(outcome_summary(r)).c_str());
      if (r.tasks_missing > 0) {  // an incomplete merge is never a success, whatever its checks say
        std::fprintf(stderr,
                     "scalinglab: error: merge: %zu of %zu tasks are missing (has every shard run to the end? run the "
                     "missing shards, with --resume where they stopped, then merge again)\n",
                     r.tasks_missing, r.tasks_total);
        return 1;
      }
      return r.all_passed() ? 0 : 1;
    };
  });
}

}  // namespace scalinglab::cli
