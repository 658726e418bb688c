#pragma once
// Each subcommand registers itself on the CLI11 app and, when chosen, stores what to run in
// `action` (returning the exit status). One file per subcommand.
#include <CLI/CLI.hpp>
#include <functional>

namespace scalinglab::cli {

using Action = std::function<int()>;

// --threads: 0 (all cores) up to a sane maximum; negative counts are refused.
inline CLI::Range threads_range() { return CLI::Range(0, 1024); }

void add_list(CLI::App& app, Action& action);
void add_describe(CLI::App& app, Action& action);
void add_eval(CLI::App& app, Action& action);
void add_run(CLI::App& app, Action& action);
void add_merge(CLI::App& app, Action& action);
void add_slurm(CLI::App& app, Action& action);
void add_reproduce(CLI::App& app, Action& action);
void add_claims(CLI::App& app, Action& action);
void add_counterfactuals(CLI::App& app, Action& action);
void add_fit(CLI::App& app, Action& action);
void add_predict(CLI::App& app, Action& action);
void add_frontier(CLI::App& app, Action& action);
void add_extrapolate(CLI::App& app, Action& action);
void add_cache(CLI::App& app, Action& action);

}  // namespace scalinglab::cli
