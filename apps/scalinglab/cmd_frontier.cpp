// `scalinglab frontier FILE --method isoflop|parametric ...`: the compute-optimal exponents
// N_opt ~ C^a, D_opt ~ C^b with bootstrap intervals, by Approach 2 (IsoFLOP parabolas) or from a
// fitted Chinchilla law in closed form (Approach 3).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "fit_options.hpp"
#include "scalinglab/fit/approach_agreement.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_plot.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/fit_request.hpp"

namespace scalinglab::cli {

namespace {

// "5%" or "0.05" -> 0.05. A bare number of 1 or more is refused: "5" is more likely 5% than 500%.
double parse_trim(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string digits = percent ? text.substr(0, text.size() - 1) : text;
  double v = NAN;
  try {
    std::size_t used = 0;
    v = std::stod(digits, &used);
    if (used != digits.size()) v = NAN;
  } catch (const std::exception&) {
  }
  if (!std::isfinite(v) || v < 0)
    throw InputError("--trim '" + text + "': give a percentage such as 5% or a fraction such as 0.05");
  if (!percent && v >= 1)
    throw InputError("--trim " + text + ": a fraction must be below 1; for percent write " + text + "%");
  return percent ? v / 100 : v;
}

// The budget column's value for each kept row, matched by file line (choose_columns filters rows).
std::vector<double> budget_labels(const fit::DataTable& table, const fit::FitColumns& cols, const std::string& column) {
  std::map<int, std::size_t> row_of_line;
  for (std::size_t r = 0; r < table.lines.size(); ++r) row_of_line[table.lines[r]] = r;
  std::vector<std::size_t> rows;
  for (const int line : cols.lines) rows.push_back(row_of_line.at(line));
  // Only the kept rows are parsed, so a bad cell in a filtered-out row does not matter.
  try {
    return table.select(rows).numbers(column);
  } catch (const InputError& e) {
    throw InputError(std::string("--budget: ") + e.what());
  }
}

}  // namespace

void add_frontier(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "frontier",
      "The compute-optimal frontier N_opt ~ C^a, D_opt ~ C^b of runs in a CSV file, with bootstrap intervals.\n"
      "  --method isoflop     Approach 2: runs grouped by budget C, a parabola of loss in log N per budget, its\n"
      "                       minimum, then log N_opt and log D_opt regressed on log C; the minima's loss as\n"
      "                       L_opt = E + A C^-gamma (4+ slices) and as a power law. --trim 5% fits only the\n"
      "                       runs within 5% of each slice's lowest loss; --budget COL groups by a column of\n"
      "                       nominal budgets. Off-centre slices (minimum in the outer 15% of the sizes) are\n"
      "                       warned about.\n"
      "  --method parametric  Approach 3: the Chinchilla law fitted (as `fit --law chinchilla`), frontier in\n"
      "                       closed form.\n"
      "  --method both        both, then a table of the two side by side (a, and N_opt, D_opt, loss at each\n"
      "                       --at budget) with a warning wherever their bootstrap intervals are disjoint.\n"
      "Every number of the frontier (N_opt, D_opt, the loss, E of L_opt = E + A C^-gamma) comes with a percentile\n"
      "interval of the bootstrap replicates (--bootstrap, --level).\n"
      "Example: scalinglab frontier isoflops.csv --method isoflop --C compute_budget --D training_tokens "
      "--loss validation_loss --json");
  auto o = std::make_shared<FitCommandOptions>();
  auto method = std::make_shared<std::string>("isoflop");
  auto iso = std::make_shared<fit::IsoflopOptions>();
  auto trim = std::make_shared<std::string>();
  auto budget = std::make_shared<std::string>();
  o->boot.replicates = 1000;
  cmd->add_option("--method", *method, "isoflop, parametric or both")->capture_default_str()->check(
      CLI::IsMember({"isoflop", "parametric", "both"}));
  add_fit_options(cmd, *o, false);
  auto* tolerance = cmd->add_option("--group-tolerance", iso->group_tolerance,
                                     "runs whose budgets are within this relative distance share an IsoFLOP slice")
                        ->capture_default_str();
  cmd->add_option("--budget", *budget,
                  "column of nominal budgets: runs with equal values share an IsoFLOP slice (instead of "
                  "--group-tolerance); the slice's C is still the geometric mean of its runs' C")
      ->excludes(tolerance);
  cmd->add_option("--trim", *trim,
                  "in each slice, drop the runs whose loss exceeds the slice's lowest by more than P "
                  "(5% or 0.05) before fitting its parabola");
  cmd->add_flag("--skip-bad-slices", iso->skip_bad_slices,
                "leave out (with a note) slices without an interior minimum instead of stopping");
  cmd->callback([&action, o, method, iso, trim, budget] {
    action = [o, method, iso, trim, budget] {
      if (*method == "parametric" && (!trim->empty() || !budget->empty()))
        throw InputError("--trim and --budget apply to --method isoflop (or both) only");
      o->boot = o->checked_bootstrap();  // as for Python, before the file is read
      if (!trim->empty()) iso->trim = parse_trim(*trim);
      const fit::DataTable table = fit::read_csv(o->file, fit::parse_delimiter(o->delimiter));
      const fit::FitColumns cols = fit::choose_columns(table, o->resolved_columns(), false);
      const std::string header = o->file + ": " + std::to_string(cols.loss.size()) + " runs" +
                                 (cols.derived.empty() ? "" : "; " + cols.derived) + "\n";
      for (const auto& w : cols.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
      const bool both = *method == "both";
      // Plots of both approaches share the directory: frontier-isoflop and frontier-parametric.
      const std::string plot2 = both ? "frontier-isoflop" : "frontier", plot3 = both ? "frontier-parametric" : "frontier";
      nlohmann::json j2, j3;
      std::string text;
      std::unique_ptr<fit::IsoflopFit> iso_fit;
      std::unique_ptr<fit::IsoflopBootstrap> boot2;
      if (*method != "parametric") {
        if (!budget->empty()) iso->budget_labels = budget_labels(table, cols, *budget);
        iso_fit = std::make_unique<fit::IsoflopFit>(fit::fit_isoflop(cols.C, cols.N, cols.loss, *iso, cols.lines, cols.weight));
        if (o->boot.replicates > 0)
          boot2 = std::make_unique<fit::IsoflopBootstrap>(
              fit::bootstrap_isoflop(*iso_fit, cols.N, cols.loss, o->boot, o->at, o->threads, cols.weight));
        if (!o->plot_dir.empty()) fit::plot_isoflop(o->plot_dir, plot2, *iso_fit, cols, boot2.get(), o->boot.level, o->plot_panels);
        j2 = fit::isoflop_json(*iso_fit, boot2.get(), o->boot, o->at);
        text += fit::isoflop_table(*iso_fit, boot2.get(), o->boot, o->at);
      }
      std::unique_ptr<fit::LawFit> law_fit;
      std::unique_ptr<fit::Bootstrap> boot3;
      if (*method != "isoflop") {
        const fit::ScalingLaw& law = fit::scaling_law("chinchilla");
        fit::FitOptions fo;
        fo.threads = o->threads;
        fit::LawData data = fit::make_law_data(law, cols.N, cols.D, cols.loss, cols.lines);
        if (!cols.weight.empty()) data.weight = Eigen::Map<const Eigen::ArrayXd>(cols.weight.data(), static_cast<Eigen::Index>(cols.weight.size()));
        for (const auto& w : fit::design_warnings(cols, law.dims(), true)) std::fprintf(stderr, "warning: %s\n", w.c_str());
        law_fit = std::make_unique<fit::LawFit>(fit::fit_law(law, data, fo));
        if (o->boot.replicates > 0) {
          if (!o->json) std::fprintf(stderr, "frontier: %d bootstrap refits...\n", o->boot.replicates);
          boot3 = std::make_unique<fit::Bootstrap>(fit::bootstrap_law_fit(*law_fit, data, fo, o->boot));
        }
        if (!o->plot_dir.empty()) fit::plot_law_fit(o->plot_dir, plot3, *law_fit, cols, boot3.get(), o->boot.level, o->plot_panels);
        j3 = fit::law_fit_json(*law_fit, fo, boot3.get(), o->boot, o->at);
        j3["method"] = "parametric";
        if (both) text += "\nApproach 3 (the Chinchilla law fitted, frontier in closed form)\n";
        text += fit::law_fit_table(*law_fit, fo, boot3.get(), o->boot, o->at);
      }
      nlohmann::json j = both ? nlohmann::json{{"method", "both"}, {"approach2", j2}, {"approach3", j3}}
                              : *method == "isoflop" ? j2 : j3;
      if (both) {
        const fit::ApproachComparison c =
            fit::compare_approaches(*iso_fit, boot2.get(), *law_fit, boot3.get(), o->at, o->boot.level);
        j["comparison"] = fit::comparison_json(c);
        j["warnings"] = c.warnings;
        text += fit::comparison_table(c);
      }
      if (o->json) {
        j["file"] = o->file;
        if (!cols.derived.empty()) j["derived"] = cols.derived;
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << header << text;
      }
      if (!o->plot_dir.empty() && !o->json)
        for (const auto& name : both ? std::vector<std::string>{plot2, plot3} : std::vector<std::string>{plot2})
          std::cout << "figure: " << o->plot_dir << "/" << name << ".svg\n";
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
