#pragma once
// The compute-optimal frontier as a user asks for it (`scalinglab frontier` and Python's
// `scalinglab.frontier` build the same request, so both give the same numbers): N_opt ~ C^a,
// D_opt ~ C^b with bootstrap intervals by
//   isoflop     Approach 2 (IsoFLOP parabolas, isoflop.hpp),
//   parametric  Approach 3 (the Chinchilla law fitted, frontier in closed form),
//   both        the two, then their comparison (approach_agreement.hpp),
//   approach1   Approach 1 (the envelope of learning curves, envelope_bootstrap.hpp).
// The shared options (rows, columns, units, bootstrap, budgets) are FitterOptions, as for `fit`.
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/envelope_bootstrap.hpp"
#include "scalinglab/fit/fit_monitor.hpp"
#include "scalinglab/fit/fitter_options.hpp"
#include "scalinglab/fit/isoflop.hpp"

namespace scalinglab::fit {

struct FrontierRequest : FitterOptions {
  std::string method = "isoflop";
  double group_tolerance = 0.1;  // IsoflopOptions
  std::string budget;            // column of nominal budgets grouping the slices (isoflop)
  double trim = 0;               // IsoflopOptions::trim, a fraction
  bool skip_bad_slices = false;
  bool log_loss = false;         // IsoflopOptions::log_loss: parabolas of log loss
  std::string run;               // approach1: the column naming each row's run
  FrontierRequest() { boot.replicates = 1000; }
};

struct FrontierOutcome {
  FrontierRequest request;
  FitColumns columns;
  std::vector<std::string> warnings;  // about the data and the frontier (also on stderr while it runs)
  std::unique_ptr<IsoflopFit> isoflop;
  std::unique_ptr<IsoflopBootstrap> isoflop_boot;
  std::unique_ptr<LawFit> law;
  std::unique_ptr<Bootstrap> law_boot;
  std::unique_ptr<Curves> curves;
  std::unique_ptr<Envelope> envelope;
  std::unique_ptr<EnvelopeBootstrap> envelope_boot;
  nlohmann::json json;  // the result: one method's, or {"method": "both", approach2, approach3, comparison}
  std::string text;     // the same as a table
};

void check_frontier_request(const FrontierRequest& r);
// "5%" or "0.05" -> 0.05 (--trim as typed); a bare number of 1 or more is refused.
double parse_trim(const std::string& text);

FrontierOutcome run_frontier(const DataTable& table, const FrontierRequest& request, const FitMonitor& monitor = {});

// The outcome's figures into DIR (frontier.svg, or frontier-isoflop and frontier-parametric for
// both), with only `panels` when given (fit_panels.hpp); returns the names of those written (none
// without gnuplot, or when no panel asked for is one of the figure's). Approach 1 has no figure yet.
std::vector<std::string> plot_frontier(const FrontierOutcome& outcome, const std::string& dir,
                                       const std::vector<std::string>& panels = {});
// What Python's plot_fit draws (fit_figure.hpp): the IsoFLOP figure, else the law's; null for approach1.
nlohmann::json frontier_figure(const FrontierOutcome& outcome);

// A request from its JSON form (Python passes one): keys as the command line's long options.
FrontierRequest frontier_request_from_json(const nlohmann::json& j);
const std::set<std::string>& frontier_option_keys();

}  // namespace scalinglab::fit
