// `scalinglab fit FILE --law L ...`: a scaling law fitted by Huber loss + L-BFGS (Approach 3),
// with bootstrap errors.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "fit_options.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_plot.hpp"
#include "scalinglab/fit/fit_report.hpp"

namespace scalinglab::cli {

namespace {

// "alpha=0,0.5,1" -> (alpha, {0, 0.5, 1})
std::pair<std::string, std::vector<double>> parse_grid(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("--grid '" + text + "': expected COORDINATE=v1,v2,...");
  std::vector<double> values;
  std::stringstream ss(text.substr(eq + 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      values.push_back(std::stod(item, &used));
      if (item.find_first_not_of(" ", used) != std::string::npos || !std::isfinite(values.back()))
        throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw InputError("--grid '" + text + "': '" + item + "' is not a finite number");
    }
  }
  return {text.substr(0, eq), values};
}

}  // namespace

void add_fit(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("fit",
                                 "Fit a scaling law to the rows of a CSV file: Huber loss of log residuals, L-BFGS from "
                                 "a grid of starts (Hoffmann et al. 2022, Approach 3), bootstrap standard errors.\n"
                                 "Laws: power (y = A x^-a), saturating (y = E + A x^-a), chinchilla "
                                 "(L = E + A/N^alpha + B/D^beta), kaplan (L = [(N_c/N)^(alpha_N/alpha_D) + D_c/D]^alpha_D).\n"
                                 "Example: scalinglab fit data.csv --law chinchilla --N 'Model Size' --C 'Training FLOP' "
                                 "--loss loss --drop-top 5 --json");
  auto o = std::make_shared<FitCommandOptions>();
  auto law_name = std::make_shared<std::string>("chinchilla");
  auto fo = std::make_shared<fit::FitOptions>();
  auto grid = std::make_shared<std::vector<std::string>>();
  o->boot.replicates = 200;
  cmd->add_option("--law", *law_name, "power, saturating, chinchilla or kaplan")->capture_default_str();
  add_fit_options(cmd, *o, true);
  cmd->add_option("--delta", fo->delta, "Huber threshold on log residuals (inf: least squares)")->capture_default_str();
  cmd->add_option("--grid", *grid,
                  "replace the initial values of one coordinate, COORDINATE=v1,v2,... (repeatable; chinchilla's are "
                  "log_E, log_A, log_B, alpha, beta)");
  cmd->add_option("--bootstrap-starts", o->boot.starts,
                  "each bootstrap refit starts from the optimum and this many of the best grid starts (0: all)")
      ->capture_default_str();
  cmd->callback([&action, o, law_name, fo, grid] {
    action = [o, law_name, fo, grid] {
      const fit::ScalingLaw& law = fit::scaling_law(*law_name);
      for (const auto& g : *grid) fo->grid.insert(parse_grid(g));
      fo->threads = o->threads;
      if (!(fo->delta > 0)) throw InputError("--delta must be positive");
      const fit::DataTable table = fit::read_csv(o->file, fit::parse_delimiter(o->delimiter));
      const bool one_input = law.inputs.size() == 1;
      const fit::FitColumns cols = fit::choose_columns(table, o->resolved_columns(), one_input);
      const fit::LawData data = fit::make_law_data(law, one_input ? cols.x : cols.N, cols.D, cols.loss, cols.lines);
      const fit::LawFit result = fit::fit_law(law, data, *fo);
      std::unique_ptr<fit::Bootstrap> boot;
      if (o->boot.replicates > 0) {
        if (!o->json) std::fprintf(stderr, "fit: %d bootstrap refits...\n", o->boot.replicates);
        boot = std::make_unique<fit::Bootstrap>(fit::bootstrap_law_fit(result, data, *fo, o->boot));
      }
      if (!o->plot_dir.empty()) fit::plot_law_fit(o->plot_dir, "fit", result, cols, boot.get(), o->boot.level);
      if (o->json) {
        nlohmann::json j = fit::law_fit_json(result, *fo, boot.get(), o->boot, o->at);
        j["file"] = o->file;
        j["rows_read"] = cols.rows_read;
        j["dropped"] = cols.dropped;
        if (!cols.derived.empty()) j["derived"] = cols.derived;
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << o->file << ": " << cols.rows_read << " rows";
        if (cols.rows_filtered != cols.rows_read) std::cout << ", " << cols.rows_filtered << " after filters";
        if (cols.dropped) std::cout << ", " << cols.dropped << " highest losses dropped";
        if (!cols.derived.empty()) std::cout << "; " << cols.derived;
        std::cout << "\n" << fit::law_fit_table(result, *fo, boot.get(), o->boot, o->at);
        if (!o->plot_dir.empty()) std::cout << "figure: " << o->plot_dir << "/fit.svg\n";
      }
      return 0;
    };
  });
}

}  // namespace scalinglab::cli
