// `scalinglab fit FILE --law L ...`: a scaling law (by name or as an expression) fitted by Huber
// loss or least squares of log residuals + L-BFGS from a grid of starts (Approach 3), with bootstrap
// errors, held-out rows, cross-validation and compared laws; `scalinglab predict FIT.json ...`.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "fit_options.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/table_format.hpp"
#include "scalinglab/fit/fit_plot.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/lab/limits.hpp"

namespace scalinglab::cli {

void add_fit(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "fit",
      "Fit a scaling law to the rows of a CSV file: Huber loss or least squares of log residuals, L-BFGS from a grid "
      "of starts (Hoffmann et al. 2022, Approach 3), bootstrap standard errors.\n"
      "Laws by name: power (y = A x^-a), saturating (y = E + A x^-a), chinchilla (L = E + A/N^alpha + B/D^beta), "
      "kaplan, porian (E + A C^-gamma), muennighoff and muennighoff-full (data-constrained: a column U of unique tokens), bnsl "
      "(one break); or any expression: --law 'E + A/N^alpha + B/D^beta' (N, D, C, x are data, and so are column names "
      "in a law that reads none of them; every other name is a parameter, also one a column shares).\n"
      "Example: scalinglab fit data.csv --law chinchilla --N 'Model Size' --C 'Training FLOP' --loss loss "
      "--drop-top 5 --holdout 'C>=1e21' --json");
  auto o = std::make_shared<FitterText>();
  auto r = std::make_shared<fit::FitRequest>();
  auto save = std::make_shared<std::string>();
  cmd->add_option("--law", r->law, "a law's name, or an expression of the data and parameters")->capture_default_str();
  add_fitter_options(cmd, *r, *o);
  cmd->add_option("--x", r->columns.x, "column of the single input x (power, saturating laws)");
  cmd->add_option("--compare", r->compare, "another law fitted on the same rows and compared in one table (repeatable)");
  cmd->add_option("--input-column", r->input_columns,
                  "a column a law reads by its own name besides N, D, C, x, e.g. N_no_emb in 'E + A/N_no_emb^alpha + "
                  "B/D^beta' (repeatable); in a law that reads N, D, C or x, a name no option maps is a parameter, "
                  "also when a column has it")
      ->type_name("COL");
  cmd->add_option("--bounds", r->bounds,
                  "bounds on parameters, NAME=LOW:HIGH,... (either side may be empty). NAME=0: marks a positive scale, "
                  "fitted as its logarithm; other bounds are enforced by L-BFGS-B");
  cmd->add_option("--grid", r->grid,
                  "initial values of one parameter, NAME=v1,v2,... or NAME=first:step:last, or log(NAME)=... for a "
                  "positive scale (repeatable); replaces the law's default list");
  cmd->add_option("--delta", r->delta,
                  "Huber threshold on log residuals; inf: least squares (default: the law's; least squares except "
                  "chinchilla and kaplan, fitted as Hoffmann et al. with 1e-3)");
  cmd->add_option("--objective", r->objective,
                  "huber: minimise the summed Huber loss (least squares with --delta inf) of log residuals (Hoffmann "
                  "et al.); mle: maximise the likelihood of the log residuals under that loss's density with a fitted "
                  "noise scale, reported as sigma (Besiroglu et al. 2024)")
      ->check(CLI::IsMember({"huber", "mle"}))
      ->capture_default_str();
  cmd->add_option("--holdout", r->columns.holdout,
                  "rows held out of the fit and scored, a condition such as 'C>=1e21' (N, D, C, x, loss, columns)");
  cmd->add_option("--cv", r->cv, "cross-validation: leave-one-budget-out (budgets: C within 10%; x for one-input laws)")
      ->check(CLI::IsMember({"leave-one-budget-out"}));
  cmd->add_option("--x-min", r->x_min, "keep rows with x (two-input laws: N) at least this")->check(finite_number());
  cmd->add_option("--bootstrap-starts", r->boot.starts,
                  "each bootstrap refit starts from the optimum and this many of the best grid starts (0: all)")
      ->capture_default_str();
  cmd->add_option("--polish", r->polish,
                  "screen a large grid with a loose tolerance (1e-5), then continue only this many best-ending starts "
                  "to the full tolerance (1e-10); 0: every start to the full tolerance")
      ->capture_default_str();
  cmd->add_option("--save", *save, "write the fit, with its bootstrap replicates, for `scalinglab predict`");
  cmd->callback([&action, o, r, save] {
    action = [o, r, save] {
      fit::FitRequest req = *r;
      o->resolve(req);
      fit::check_fit_request(req);  // as for Python, before the file is read
      const fit::DataTable table = fit::read_table(o->file, req.table_format());
      const fit::FitOutcome outcome = fit::run_fit(table, req, cli_monitor());
      const fit::LawOutcome& main = outcome.laws.front();
      const auto& inputs = main.law->inputs;
      const bool plottable = inputs.size() == 1 || (inputs.size() == 2 && inputs[0] == "N" && inputs[1] == "D");
      bool plotted = false;  // a figure written (gnuplot present, a panel asked for that it has)
      if (!o->plot_dir.empty()) {
        if (plottable)
          plotted = fit::plot_law_fit(o->plot_dir, "fit", main.fit, outcome.train_columns, main.boot.get(),
                                      req.boot.level, o->plot_panels);
        else
          std::fprintf(stderr, "fit: --plot draws laws of x or of (N, D); this law reads %zu inputs\n", inputs.size());
      }
      // Whole or not at all, fsynced, and a full disk or an unwritable path is an error (exit 2).
      if (!save->empty()) write_file(*save, fit::fit_outcome_saved(outcome).dump(1) + "\n");
      if (o->json) {
        nlohmann::json j = fit::fit_outcome_json(outcome);
        j["file"] = o->file;
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << o->file << ": " << fit::rows_text(outcome.columns, main.test.size()) << "\n"
                  << fit::fit_outcome_table(outcome);
        if (plotted) std::cout << "figure: " << o->plot_dir << "/fit.svg\n";
        if (!save->empty()) std::cout << "saved: " << *save << "\n";
      }
      return 0;
    };
  });
}

void add_predict(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "predict",
      "Predict the loss of a saved fit (scalinglab fit ... --save FIT.json) at new inputs, with two intervals:\n"
      "  the bootstrap's percentile interval of the law's curve (its parameters' uncertainty only: where the\n"
      "  mean loss lies), and the prediction interval of a new run's loss (that plus the fit's residual\n"
      "  scatter in log loss; see docs/fit.md).\nExample: scalinglab predict fit.json N=7e10 D=1.4e12");
  auto file = std::make_shared<std::string>();
  auto points = std::make_shared<std::vector<std::string>>();
  auto level = std::make_shared<double>(0.95);
  auto json = std::make_shared<bool>(false);
  cmd->add_option("fit", *file, "a fit saved by `scalinglab fit --save`")->required();
  cmd->add_option("inputs", *points, "NAME=VALUE[,VALUE...] for every input of the law (lists are zipped)")->required();
  cmd->add_option("--level", *level, "coverage of the interval (0.5 to 0.999)")->capture_default_str();
  cmd->add_flag("--json", *json, "print JSON");
  cmd->callback([&action, file, points, level, json] {
    action = [file, points, level, json] {
      fit::check_level(*level);
      // A range of inputs counts against --max-points, as the points of a sweep do.
      std::map<std::string, std::vector<double>> inputs;
      for (const auto& p : *points) {
        const auto [name, values] = fit::parse_grid_option(p, "predict", limits().max_points, "--max-points");
        if (inputs.count(name)) throw InputError("predict: " + name + " given twice");
        inputs[name] = values;
      }
      const nlohmann::json saved = fit::parse_json(read_file(*file, kMaxSavedFitBytes, "saved fit"), "predict: " + *file);
      const nlohmann::json p = fit::predict_saved(saved, inputs, *level);
      if (*json) {
        std::cout << p.dump(2) << "\n";
        return 0;
      }
      std::cout << "law: " << p["law"].get<std::string>() << "\n";
      const bool has_pi = p.contains("log_residual_sigma");
      const bool has_boot = p["bootstrap_replicates"].get<std::size_t>() > 0;
      if (has_boot || has_pi) {
        std::cout << fmt::format("{:.0f}% intervals: ", 100 * *level);
        if (has_boot)
          std::cout << fmt::format("'law' from the {} bootstrap refits (the parameters' uncertainty only: where the law's "
                                   "curve lies)", p["bootstrap_replicates"].get<std::size_t>());
        if (has_boot && has_pi) std::cout << "; ";
        if (has_pi)
          std::cout << fmt::format("'new run' adds the fit's residual scatter (sigma = {:.3g} in log loss): where a new "
                                   "run's loss should fall", p["log_residual_sigma"].get<double>());
        std::cout << "\n";
      }
      auto present = [](const nlohmann::json& row, const char* key) { return row.contains(key) && !row[key].is_null(); };
      for (const auto& row : p["predictions"]) {
        std::string where;
        for (const auto& k : p["inputs"])
          where += (where.empty() ? "" : ", ") + k.get<std::string>() + " = " + fmt::format("{:.4g}", row[k.get<std::string>()].get<double>());
        std::cout << where << ": loss " << fmt::format("{:.5g}", row["loss"].is_null() ? NAN : row["loss"].get<double>());
        if (present(row, "loss_lo"))
          std::cout << fmt::format("  (law {:.5g} to {:.5g})", row["loss_lo"].get<double>(), row["loss_hi"].get<double>());
        if (present(row, "loss_pi_lo"))
          std::cout << fmt::format("  (new run {:.5g} to {:.5g})", row["loss_pi_lo"].get<double>(),
                                   row["loss_pi_hi"].get<double>());
        std::cout << "\n";
      }
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
