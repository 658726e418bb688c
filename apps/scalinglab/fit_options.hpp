#pragma once
// Options shared by `fit`, `frontier`: which columns, filters, bootstrap.
#include <CLI/CLI.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "commands.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/fit_panels.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::cli {

struct FitCommandOptions {
  std::string file;
  fit::ColumnChoice columns;
  std::vector<std::string> where;
  fit::BootstrapOptions boot;
  std::string seed = "1";  // as typed: fit::parse_seed refuses a negative one, as for Python
  std::vector<double> at;  // budgets for frontier predictions
  bool json = false;
  std::string plot_dir;
  std::vector<std::string> plot_panels;  // the figure's panels to draw, in order (empty: all)
  int threads = 0;
  std::string delimiter = ",";
  std::string N_scale = "1", D_scale = "1", C_scale = "1";  // as typed: a factor or a suffix (M, B, ...)

  fit::ColumnChoice resolved_columns() const {
    fit::ColumnChoice c = columns;
    c.N_scale = fit::parse_unit_scale(N_scale, "--N-scale");
    c.D_scale = fit::parse_unit_scale(D_scale, "--D-scale");
    c.C_scale = fit::parse_unit_scale(C_scale, "--C-scale");
    for (const auto& w : where) {
      if (fit::is_condition(w)) c.conditions.push_back(w);
      else c.where.push_back(fit::parse_filter(w));
    }
    return c;
  }

  // The bootstrap options, the budgets and the threads checked as Python's are (fit_request.hpp),
  // before any file is read.
  fit::BootstrapOptions checked_bootstrap() const {
    fit::BootstrapOptions b = boot;
    b.seed = fit::parse_seed(seed);
    fit::check_bootstrap_options(b);
    fit::check_budgets(at);
    fit::check_threads(threads);
    return b;
  }
};

// A number that is not NaN or infinite (CLI11's PositiveNumber lets "inf" through).
inline CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(s, &used);
          if (used == s.size() && std::isfinite(v)) return "";
        } catch (const std::exception&) {
        }
        return "'" + s + "' is not a finite number";
      },
      "FINITE");
}

inline void add_fit_options(CLI::App* cmd, FitCommandOptions& o, bool with_x) {
  cmd->add_option("file", o.file, "CSV file with a header row (a sweep's summary.csv works)")->required();
  if (with_x) cmd->add_option("--x", o.columns.x, "column of the single input x (power, saturating laws)");
  cmd->add_option("--N", o.columns.N, "column of model sizes N (parameters)");
  cmd->add_option("--D", o.columns.D, "column of data sizes D (tokens); derived as C / (6 N) when absent");
  cmd->add_option("--C", o.columns.C, "column of compute budgets C (FLOPs); derived as 6 N D when absent");
  cmd->add_option("--loss", o.columns.loss, "column of losses")->capture_default_str();
  cmd->add_option("--flops", o.columns.flops,
                  "compute C per row as a formula of N, D (the --N and --D columns) and other columns by header "
                  "name, e.g. '6*N*D + 12*n_layer*ctx*D' (needs --N and --D; not with --C; default: C = 6 N D)")
      ->type_name("EXPR");
  cmd->add_option("--where", o.where,
                  "keep rows where COLUMN=VALUE, or where a condition holds, e.g. 'C>=1e19' or '(N>1e8)*(D<1e12)' "
                  "(N, D, C, x, loss and columns by name; repeatable)");
  cmd->add_option("--weight", o.columns.weight, "column of per-row weights (positive, finite)")->type_name("COL");
  cmd->add_option("--best-of", o.columns.best_of,
                  "column of a hyperparameter swept at each (N, D) (or x), e.g. a learning rate: keep only the "
                  "lowest-loss row of each (N, D), after --where and before --drop-top; warns when the best value "
                  "is the smallest or largest tried")
      ->type_name("COL");
  // fit and frontier alike: frontier's own warning about repeated seeds recommends it.
  cmd->add_option("--aggregate", o.columns.aggregate,
                  "merge rows with identical inputs (repeated seeds): mean (their mean loss, weighted by their number) "
                  "or min (the lowest loss); the spread within them is reported")
      ->check(CLI::IsMember({"mean", "min"}));
  cmd->add_flag("--drop-missing", o.columns.drop_missing,
                "leave out the rows with a missing value (blank, NaN, NA, null) in a column the fit reads, and say how "
                "many per column (otherwise such a cell is an error)");
  cmd->add_option("--N-scale", o.N_scale,
                  "multiply the N column by this factor, e.g. 1e6 or M for a column in millions of parameters (k, M, "
                  "B or G, T)")->type_name("FACTOR");
  cmd->add_option("--D-scale", o.D_scale, "multiply the D column by this factor, e.g. B for billions of tokens")
      ->type_name("FACTOR");
  cmd->add_option("--C-scale", o.C_scale, "multiply the C column by this factor (FLOPs)")->type_name("FACTOR");
  cmd->add_option("--delimiter", o.delimiter, "field separator of the file: one character, or 'tab'")->capture_default_str();
  // The ranges of these numbers are checked by the fitters' own checks (fit_request.hpp), which
  // Python calls too: one rule, one sentence for both.
  cmd->add_option("--drop-top", o.columns.drop_top, "drop the k rows with the highest losses")->capture_default_str();
  cmd->add_option("--bootstrap", o.boot.replicates, "bootstrap refits for standard errors and intervals (0: none; "
                  "else 2 to 1000000)")->capture_default_str();
  cmd->add_option("--level", o.boot.level, "coverage of the percentile intervals (0.5 to 0.999)")->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of the bootstrap resamples (0 to 2^64 - 1)")->capture_default_str();
  cmd->add_option("--at", o.at, "compute budgets at which to report the optimal allocation (repeatable)");
  cmd->add_option("--threads", o.threads, "worker threads (0: all cores; at most 1024)")->capture_default_str();
  cmd->add_flag("--json", o.json, "print the result as JSON");
  auto* plot = cmd->add_option("--plot", o.plot_dir, "write figures (SVG, PNG and PDF) into this directory");
  // Names checked (and spelt as the figures know them) as the command line is read, before any file.
  cmd->add_option("--plot-panels", o.plot_panels,
                  "draw only these panels of the --plot figure, in this order (comma-separated; one panel is 3.3 in "
                  "wide, a column of a two-column paper): " + fit::every_panel())
      ->delimiter(',')
      ->transform(CLI::Validator(
          [](std::string& s) {
            try {
              s = fit::panel_name(s);
              return std::string();
            } catch (const InputError& e) {
              return std::string(e.what());
            }
          },
          ""))
      ->type_name("NAMES")
      ->needs(plot);
}

}  // namespace scalinglab::cli
