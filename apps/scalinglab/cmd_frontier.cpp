// `scalinglab frontier FILE --method isoflop|parametric|both|approach1 ...`: the compute-optimal
// exponents N_opt ~ C^a, D_opt ~ C^b with bootstrap intervals (fit::run_frontier, as Python's
// scalinglab.frontier).
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "fit_options.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/table_format.hpp"
#include "scalinglab/fit/frontier_request.hpp"

namespace scalinglab::cli {

void add_frontier(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "frontier",
      "The compute-optimal frontier N_opt ~ C^a, D_opt ~ C^b of runs in a CSV file, with bootstrap intervals.\n"
      "  --method isoflop     Approach 2: runs grouped by budget C, a parabola of loss in log N per budget, its\n"
      "                       minimum, then log N_opt and log D_opt regressed on log C; the minima's loss as\n"
      "                       L_opt = E + A C^-gamma (4+ slices) and as a power law. --trim 5% fits only the\n"
      "                       runs within 5% of each slice's lowest loss; --budget COL groups by a column of\n"
      "                       nominal budgets; --log-loss fits log loss instead. Off-centre slices (minimum in\n"
      "                       the outer 15% of the sizes) and minima far below the slice's losses are warned\n"
      "                       about.\n"
      "  --method parametric  Approach 3: the Chinchilla law fitted (as `fit --law chinchilla`), frontier in\n"
      "                       closed form.\n"
      "  --method both        both, then a table of the two side by side (a, and N_opt, D_opt, loss at each\n"
      "                       --at budget) with a warning wherever their bootstrap intervals are disjoint.\n"
      "  --method approach1   Approach 1 (Hoffmann et al. 2022): rows are checkpoints of learning curves, --run\n"
      "                       names each row's run, --D the tokens seen so far (C = 6 N D) or --C the compute;\n"
      "                       at each compute the lowest loss over the runs (the envelope) and its run's N,\n"
      "                       then N_opt ~ C^a fitted; intervals from resampling whole runs.\n"
      "Every number of the frontier comes with a percentile interval of the bootstrap replicates (--bootstrap,\n"
      "--level). Progress goes to stderr (also with --json); Ctrl-C stops the fit with nothing written.\n"
      "Example: scalinglab frontier isoflops.csv --method isoflop --C compute_budget --D training_tokens "
      "--loss validation_loss --json");
  auto t = std::make_shared<FitterText>();
  auto r = std::make_shared<fit::FrontierRequest>();
  auto trim = std::make_shared<std::string>();
  cmd->add_option("--method", r->method, "isoflop, parametric, both or approach1")->capture_default_str()->check(
      CLI::IsMember({"isoflop", "parametric", "both", "approach1"}));
  add_fitter_options(cmd, *r, *t);
  auto* tolerance = cmd->add_option("--group-tolerance", r->group_tolerance,
                                     "runs whose budgets are within this relative distance share an IsoFLOP slice")
                        ->capture_default_str();
  cmd->add_option("--budget", r->budget,
                  "column of nominal budgets: runs with equal values share an IsoFLOP slice (instead of "
                  "--group-tolerance); the slice's C is still the geometric mean of its runs' C")
      ->excludes(tolerance);
  cmd->add_option("--trim", *trim,
                  "in each slice, drop the runs whose loss exceeds the slice's lowest by more than P "
                  "(5% or 0.05) before fitting its parabola");
  cmd->add_flag("--skip-bad-slices", r->skip_bad_slices,
                "leave out (with a note) slices without an interior minimum instead of stopping");
  cmd->add_flag("--log-loss", r->log_loss,
                "fit each slice's parabola to log loss against log N (its minimum, exp of the vertex, is positive): "
                "for losses spanning decades, such as error rates");
  cmd->add_option("--run", r->run, "approach1: column naming the run of each row (a checkpoint of its learning curve)")
      ->type_name("COL");
  cmd->callback([&action, t, r, trim] {
    action = [t, r, trim] {
      fit::FrontierRequest req = *r;
      t->resolve(req);
      if (!trim->empty()) req.trim = fit::parse_trim(*trim);
      fit::check_frontier_request(req);  // as for Python, before the file is read
      const fit::DataTable table = fit::read_table(t->file, req.table_format());
      const fit::FrontierOutcome out = fit::run_frontier(table, req, cli_monitor());
      // On stderr, but for those the table ends with already (the slices' own, without --json).
      for (const auto& w : out.warnings)
        if (t->json || out.text.find("warning: " + w + "\n") == std::string::npos)
          std::fprintf(stderr, "warning: %s\n", w.c_str());
      std::vector<std::string> figures;
      if (!t->plot_dir.empty()) {
        figures = fit::plot_frontier(out, t->plot_dir, t->plot_panels);
        if (req.method == "approach1") std::fprintf(stderr, "frontier: --plot draws isoflop and parametric frontiers only\n");
      }
      if (t->json) {
        nlohmann::json j = out.json;
        j["file"] = t->file;
        std::cout << j.dump(2) << "\n";
        return 0;
      }
      std::cout << t->file << ": " << fit::rows_text(out.columns) << "\n" << out.text;
      for (const auto& name : figures) std::cout << "figure: " << t->plot_dir << "/" << name << ".svg\n";
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
