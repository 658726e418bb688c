// A frontier request run end to end (Approaches 1, 2, 3, or 2 and 3 compared), as JSON and as a table.
#include "scalinglab/fit/frontier_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/approach_agreement.hpp"
#include "scalinglab/fit/fit_figure.hpp"
#include "scalinglab/fit/fit_plot.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/frontier.hpp"

namespace scalinglab::fit {

namespace {

// The table's rows that choose_columns kept, in its order (matched by file line).
std::vector<std::size_t> kept_rows(const DataTable& table, const FitColumns& cols) {
  std::map<int, std::size_t> row_of_line;
  for (std::size_t r = 0; r < table.lines.size(); ++r) row_of_line[table.lines[r]] = r;
  std::vector<std::size_t> rows;
  for (const int line : cols.lines) rows.push_back(row_of_line.at(line));
  return rows;
}

// Only the kept rows are read, so a bad cell in a left-out row does not matter.
std::vector<double> budget_labels(const DataTable& table, const FitColumns& cols, const std::string& column) {
  try {
    return table.select(kept_rows(table, cols)).numbers(column);
  } catch (const InputError& e) {
    throw InputError(std::string("--budget: ") + e.what());
  }
}

std::vector<std::string> run_ids(const DataTable& table, const FitColumns& cols, const std::string& column) {
  std::size_t k = 0;
  while (k < table.names.size() && table.names[k] != column) ++k;
  if (k == table.names.size()) {
    std::string names;
    for (const auto& n : table.names) names += (names.empty() ? "" : ", ") + n;
    throw InputError("--run: no column '" + column + "' (columns: " + names + ")");
  }
  std::vector<std::string> ids;
  for (const std::size_t r : kept_rows(table, cols)) {
    const std::string_view cell = table.cell(r, k);
    if (missing_cell(cell))
      throw InputError(fmt::format("{}:{}: the run column '{}' is empty", table.source, table.lines[r], column));
    ids.emplace_back(cell);
  }
  return ids;
}

const std::set<std::string> kMethods = {"isoflop", "parametric", "both", "approach1"};

}  // namespace

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

void check_frontier_request(const FrontierRequest& r) {
  check_fitter_options(r);
  if (!kMethods.count(r.method))
    throw InputError("--method '" + r.method + "': give isoflop, parametric, both or approach1");
  if (!(r.trim >= 0) || !(r.trim < 1))
    throw InputError(fmt::format("--trim {:g}: give a fraction from 0 to below 1 (0.05 or 5% for 5%)", r.trim));
  if (!(r.group_tolerance >= 0) || !std::isfinite(r.group_tolerance))
    throw InputError(fmt::format("--group-tolerance {:g}: give a relative distance, finite and 0 or more (0.1: within "
                                 "10%)", r.group_tolerance));
  const bool slices = r.method == "isoflop" || r.method == "both";
  if (!slices && (r.trim > 0 || !r.budget.empty() || r.skip_bad_slices || r.log_loss))
    throw InputError("--trim, --budget, --skip-bad-slices and --log-loss apply to --method isoflop (or both) only");
  if (r.method == "approach1" && r.run.empty())
    throw InputError("--method approach1 reads learning curves: name the column of run ids with --run (N, --D as the "
                     "tokens seen at each checkpoint, or --C, and --loss)");
  if (r.method != "approach1" && !r.run.empty())
    throw InputError("--run names the runs of learning curves for --method approach1 only");
}

FrontierOutcome run_frontier(const DataTable& table, const FrontierRequest& r, const FitMonitor& monitor) {
  check_frontier_request(r);
  FrontierOutcome out;
  out.request = r;
  ColumnChoice choice = r.columns;
  choice.warn_repeated = r.method != "approach1";  // checkpoints of curves, not seeds
  out.columns = choose_columns(table, choice, false);
  const FitColumns& cols = out.columns;
  out.warnings = cols.warnings;
  const bool both = r.method == "both";
  nlohmann::json j2, j3;
  std::vector<std::function<double(double)>> ratios;  // D/N of each frontier at C, for the units check
  if (r.method == "isoflop" || both) {
    IsoflopOptions iso;
    iso.group_tolerance = r.group_tolerance;
    iso.trim = r.trim;
    iso.skip_bad_slices = r.skip_bad_slices;
    iso.log_loss = r.log_loss;
    if (!r.budget.empty()) iso.budget_labels = budget_labels(table, cols, r.budget);
    out.isoflop = std::make_unique<IsoflopFit>(fit_isoflop(cols.C, cols.N, cols.loss, iso, cols.lines, cols.weight));
    if (r.boot.replicates > 0)
      out.isoflop_boot = std::make_unique<IsoflopBootstrap>(
          bootstrap_isoflop(*out.isoflop, cols.N, cols.loss, r.boot, r.at, r.threads, cols.weight));
    // The slices' warnings (off-centre minima, an implausible minimum) are the result's too: the
    // command line prints them and Python issues them.
    for (const auto& w : out.isoflop->warnings) out.warnings.push_back(w);
    j2 = isoflop_json(*out.isoflop, out.isoflop_boot.get(), r.boot, r.at);
    out.text += isoflop_table(*out.isoflop, out.isoflop_boot.get(), r.boot, r.at);
    const IsoflopFit* f = out.isoflop.get();
    ratios.push_back([f](double C) { return f->D_at(C) / f->N_at(C); });
  }
  if (r.method == "parametric" || both) {
    const ScalingLaw& law = scaling_law("chinchilla");
    FitOptions fo;
    fo.threads = r.threads;
    fo.monitor = &monitor;
    LawData data = make_law_data(law, cols.N, cols.D, cols.loss, cols.lines);
    if (!cols.weight.empty())
      data.weight = Eigen::Map<const Eigen::ArrayXd>(cols.weight.data(), static_cast<Eigen::Index>(cols.weight.size()));
    for (const auto& w : design_warnings(cols, law.dims(), true)) out.warnings.push_back(w);
    out.law = std::make_unique<LawFit>(fit_law(law, data, fo));
    if (r.boot.replicates > 0) out.law_boot = std::make_unique<Bootstrap>(bootstrap_law_fit(*out.law, data, fo, r.boot));
    j3 = law_fit_json(*out.law, fo, out.law_boot.get(), r.boot, r.at);
    j3["method"] = "parametric";
    if (both) out.text += "\nApproach 3 (the Chinchilla law fitted, frontier in closed form)\n";
    out.text += law_fit_table(*out.law, fo, out.law_boot.get(), r.boot, r.at);
    const LawFit* f = out.law.get();
    ratios.push_back([f](double C) {
      try {
        const Allocation a = optimal_allocation(*f, C);
        return a.D / a.N;
      } catch (const std::exception&) {
        return std::numeric_limits<double>::quiet_NaN();
      }
    });
  }
  if (r.method == "approach1") {
    out.curves = std::make_unique<Curves>(curves_from_rows(run_ids(table, cols, r.run), cols.N, cols.C, cols.loss, r.run));
    out.envelope = std::make_unique<Envelope>(fit_envelope(*out.curves));
    if (r.boot.replicates > 0)
      out.envelope_boot = std::make_unique<EnvelopeBootstrap>(
          bootstrap_envelope(*out.curves, r.boot, r.at, r.threads, &monitor));
    out.json = envelope_json(*out.envelope, *out.curves, out.envelope_boot.get(), r.boot, r.at);
    out.text += envelope_table(*out.envelope, *out.curves, out.envelope_boot.get(), r.boot, r.at);
    const Envelope* e = out.envelope.get();
    ratios.push_back([e](double C) { return C / (6 * e->N_at(C)) / e->N_at(C); });
  }
  // N, D or C in other units: the frontier's D/N at the budgets asked, far outside the data's.
  for (const auto& ratio : ratios)
    for (auto& w : allocation_warnings(cols, r.at, ratio))
      if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end()) out.warnings.push_back(w);
  if (r.method == "isoflop") out.json = j2;
  if (r.method == "parametric") out.json = j3;
  if (both) {
    out.json = {{"method", "both"}, {"approach2", j2}, {"approach3", j3}};
    const ApproachComparison c =
        compare_approaches(*out.isoflop, out.isoflop_boot.get(), *out.law, out.law_boot.get(), r.at, r.boot.level);
    out.json["comparison"] = comparison_json(c);
    for (const auto& w : c.warnings) out.warnings.push_back(w);
    out.text += comparison_table(c);
  }
  put_rows_json(out.json, cols);
  out.json["warnings"] = out.warnings;
  return out;
}

std::vector<std::string> plot_frontier(const FrontierOutcome& o, const std::string& dir,
                                       const std::vector<std::string>& panels) {
  const bool both = o.request.method == "both";
  std::vector<std::string> names;
  const std::string iso = both ? "frontier-isoflop" : "frontier", law = both ? "frontier-parametric" : "frontier";
  if (o.isoflop && plot_isoflop(dir, iso, *o.isoflop, o.columns, o.isoflop_boot.get(), o.request.boot.level, panels))
    names.push_back(iso);
  if (o.law && plot_law_fit(dir, law, *o.law, o.columns, o.law_boot.get(), o.request.boot.level, panels))
    names.push_back(law);
  return names;
}

nlohmann::json frontier_figure(const FrontierOutcome& o) {
  if (o.isoflop) return isoflop_figure(*o.isoflop, o.columns, o.isoflop_boot.get(), o.request.boot.level);
  if (o.law) return law_fit_figure(*o.law, o.columns, o.law_boot.get(), o.request.boot.level);
  return nullptr;
}

const std::set<std::string>& frontier_option_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k = fitter_option_keys();
    for (const char* own : {"method", "group_tolerance", "budget", "trim", "skip_bad_slices", "log_loss", "run"})
      k.insert(own);
    return k;
  }();
  return keys;
}

FrontierRequest frontier_request_from_json(const nlohmann::json& j) {
  const RequestReader in(j, "frontier", frontier_option_keys());
  FrontierRequest r;
  read_fitter_options(in, r);
  in.text("method", r.method);
  in.number("group_tolerance", r.group_tolerance);
  in.text("budget", r.budget);
  if (in.given("trim")) {
    if (j["trim"].is_string()) r.trim = parse_trim(j["trim"].get<std::string>());  // "5%"
    else in.number("trim", r.trim);
  }
  in.flag("skip_bad_slices", r.skip_bad_slices);
  in.flag("log_loss", r.log_loss);
  in.text("run", r.run);
  check_frontier_request(r);
  return r;
}

}  // namespace scalinglab::fit
