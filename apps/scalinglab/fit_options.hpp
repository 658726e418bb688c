#pragma once
// The options `fit` and `frontier` share (fit::FitterOptions: rows, columns, units, bootstrap,
// budgets, threads, the file's format), bound once here for both, as Python's two functions read
// them from one list (fit::fitter_option_keys). A fit's progress on stderr and its Ctrl-C.
#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <csignal>
#include <string>
#include <vector>

#include "commands.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/fit_monitor.hpp"
#include "scalinglab/fit/fit_panels.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/fitter_options.hpp"

namespace scalinglab::cli {

// What the command line takes as text and resolves before any work (a seed, a unit, --where).
struct FitterText {
  std::string file;
  std::vector<std::string> where;
  std::string seed = "1";  // as typed: fit::parse_seed refuses a negative one, as for Python
  std::string N_scale = "1", D_scale = "1", C_scale = "1";  // a factor or a suffix (M, B, ...)
  bool json = false;
  std::string plot_dir;
  std::vector<std::string> plot_panels;  // the figure's panels to draw, in order (empty: all)

  // The text into `o`, then every shared number checked as Python's are, before the file is read.
  void resolve(fit::FitterOptions& o) const {
    o.columns.N_scale = fit::parse_unit_scale(N_scale, "--N-scale");
    o.columns.D_scale = fit::parse_unit_scale(D_scale, "--D-scale");
    o.columns.C_scale = fit::parse_unit_scale(C_scale, "--C-scale");
    fit::add_where(o.columns, where);
    o.boot.seed = fit::parse_seed(seed);
    fit::check_fitter_options(o);
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

// The shared options, one per key of fit::fitter_option_keys (Python's keywords are the same names).
inline void add_fitter_options(CLI::App* cmd, fit::FitterOptions& o, FitterText& t) {
  cmd->add_option("file", t.file,
                  "table with a header row: CSV (a sweep's summary.csv works), or by its name .json (a JSON table, "
                  "e.g. a W&B export) or .jsonl (JSON lines)")->required();
  fit::ColumnChoice& c = o.columns;
  cmd->add_option("--N", c.N, "column of model sizes N (parameters)");
  cmd->add_option("--D", c.D, "column of data sizes D (tokens); derived as C / (6 N) when absent");
  cmd->add_option("--C", c.C, "column of compute budgets C (FLOPs); derived as 6 N D when absent");
  cmd->add_option("--loss", c.loss, "column of losses")->capture_default_str();
  cmd->add_option("--flops", c.flops,
                  "compute C per row as a formula of N, D (the --N and --D columns) and other columns by header "
                  "name, e.g. '6*N*D + 12*n_layer*ctx*D' (needs --N and --D; not with --C; default: C = 6 N D)")
      ->type_name("EXPR");
  cmd->add_option("--where", t.where,
                  "keep rows where COLUMN=VALUE, or where a condition holds, e.g. 'C>=1e19' or '(N>1e8)*(D<1e12)' "
                  "(N, D, C, x, loss and columns by name; repeatable)");
  cmd->add_option("--weight", c.weight,
                  "per-row weights (positive, finite): a column, or an expression of columns, e.g. 'C' or 'sqrt(C)'")
      ->type_name("COL|EXPR");
  cmd->add_option("--best-of", c.best_of,
                  "column of a hyperparameter swept at each (N, D) (or x), e.g. a learning rate: keep only the "
                  "lowest-loss row of each (N, D), after --where and before --drop-top; warns when the best value "
                  "is the smallest or largest tried")
      ->type_name("COL");
  cmd->add_option("--aggregate", c.aggregate,
                  "merge rows with identical inputs (repeated seeds): mean (their mean loss, weighted by their number) "
                  "or min (the lowest loss); the spread within them is reported")
      ->check(CLI::IsMember({"mean", "min"}));
  cmd->add_flag("--drop-missing", c.drop_missing,
                "leave out the rows with a missing value (blank, NaN, NA, null) or an infinite one (a diverged run) in "
                "a column the fit reads, and repeated header lines (two exports joined), and say how many of each "
                "(otherwise such a row is an error)");
  cmd->add_option("--N-scale", t.N_scale,
                  "multiply the N column by this factor, e.g. 1e6 or M for a column in millions of parameters (k, M, "
                  "B or G, T)")->type_name("FACTOR");
  cmd->add_option("--D-scale", t.D_scale, "multiply the D column by this factor, e.g. B for billions of tokens")
      ->type_name("FACTOR");
  cmd->add_option("--C-scale", t.C_scale, "multiply the C column by this factor (FLOPs)")->type_name("FACTOR");
  cmd->add_option("--sep,--delimiter", o.delimiter, "field separator of a CSV file: one character, or 'tab'")
      ->capture_default_str();
  cmd->add_option("--decimal", o.decimal, "decimal separator of a CSV file's numbers: '.' or ',' (with --sep ';')")
      ->capture_default_str();
  cmd->add_option("--format", o.format, "auto (by the file's name), csv, json or jsonl")->capture_default_str();
  // The ranges of these numbers are checked by the fitters' own checks (fitter_options.hpp), which
  // Python calls too: one rule, one sentence for both.
  cmd->add_option("--drop-top", c.drop_top, "drop the k rows with the highest losses")->capture_default_str();
  cmd->add_option("--bootstrap", o.boot.replicates, "bootstrap refits for standard errors and intervals (0: none; "
                  "else 2 to 1000000)")->capture_default_str();
  cmd->add_option("--level", o.boot.level, "coverage of the percentile intervals (0.5 to 0.999)")->capture_default_str();
  cmd->add_option("--seed", t.seed, "seed of the bootstrap resamples (0 to 2^64 - 1)")->capture_default_str();
  cmd->add_option("--at", o.at, "compute budgets at which to report the optimal allocation (repeatable)");
  cmd->add_option("--threads", o.threads, "worker threads (0: all cores; at most 1024)")->capture_default_str();
  cmd->add_flag("--json", t.json, "print the result as JSON on stdout (progress and warnings stay on stderr)");
  auto* plot = cmd->add_option("--plot", t.plot_dir, "write figures (SVG, PNG and PDF) into this directory");
  cmd->add_option("--plot-panels", t.plot_panels,
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

// Ctrl-C during a fit: the first one asks the fit to stop at its next start, refit or resample
// (FitInterrupted, then exit 130 with nothing written); a second one ends the process at once.
inline std::atomic<bool>& fit_interrupted() {
  static std::atomic<bool> flag{false};
  return flag;
}

inline void on_fit_sigint(int) { fit_interrupted().store(true); }

// Progress on stderr in every output mode (stdout holds only the result), and the Ctrl-C above.
inline fit::FitMonitor cli_monitor() {
  struct sigaction sa {};
  sa.sa_handler = on_fit_sigint;
  sa.sa_flags = SA_RESETHAND;  // the second Ctrl-C: the default action
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  fit::FitMonitor m;
  m.stderr_lines = true;
  m.on_progress = [](const std::string&, std::size_t, std::size_t) { return !fit_interrupted().load(); };
  return m;
}

}  // namespace scalinglab::cli
