// A fit request run end to end: law, rows, fit, bootstrap, held-out and cross-validated errors,
// compared laws; rendered as JSON and as a table; saved for `scalinglab predict`.
#include "scalinglab/fit/fit_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/frontier.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "scalinglab/fit/prediction_interval.hpp"
#include "scalinglab/core/stats.hpp"

namespace scalinglab::fit {

using Eigen::ArrayXd;

namespace {

const std::vector<std::string> kStandardInputs = {"N", "D", "C", "x"};

bool identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_named_law(const std::string& text) {
  const auto names = scaling_law_names();
  return std::find(names.begin(), names.end(), text) != names.end();
}

// Bounds that name a variable of `text` (a compared law may not have every bounded parameter).
std::map<std::string, Bounds> bounds_for(const std::string& text, const std::map<std::string, Bounds>& all) {
  std::map<std::string, Bounds> out;
  if (is_named_law(text)) {
    const ScalingLaw& law = scaling_law(text);
    for (const auto& [k, b] : all)
      if (std::find(law.coordinate_parameter.begin(), law.coordinate_parameter.end(), k) != law.coordinate_parameter.end())
        out[k] = b;
    return out;
  }
  const auto vars = Expression(text).variables();
  for (const auto& [k, b] : all)
    if (std::find(vars.begin(), vars.end(), k) != vars.end()) out[k] = b;
  return out;
}

// Which column plays which input of the law: the law reads x, or N/D/C, or a single other column.
struct InputPlan {
  bool need_x = false;
  std::string single;  // the input that is fitted as "x" (x, or the one of N/D/C/column read alone)
};

InputPlan plan_inputs(const ScalingLaw& law, ColumnChoice& c) {
  InputPlan p;
  std::vector<std::string> standard, other;
  for (const auto& in : law.inputs) {
    if (in == "x") continue;
    (std::find(kStandardInputs.begin(), kStandardInputs.end(), in) != kStandardInputs.end() ? standard : other).push_back(in);
  }
  const bool reads_x = std::find(law.inputs.begin(), law.inputs.end(), "x") != law.inputs.end();
  if (reads_x) {
    if (!standard.empty())
      throw InputError("law '" + law.name + "' reads x and " + standard.front() + ": use x alone, or N, D, C");
    p.need_x = true;
    p.single = "x";
  } else if (standard.size() >= 2) {
    p.need_x = false;
  } else if (standard.size() == 1) {
    // A one-input law in N, D or C: its column is fitted as x.
    p.single = standard.front();
    const std::string& column = p.single == "N" ? c.N : p.single == "D" ? c.D : c.C;
    const int named = !c.N.empty() + !c.D.empty() + !c.C.empty();
    if (column.empty() && (named >= 2 || !c.flops.empty())) {
      p.need_x = false;  // derived from the two others (or the FLOP formula): read the two-input rows
    } else {
      if (column.empty())
        throw InputError("law '" + law.name + "' reads " + p.single + ": name its column with --" + p.single +
                         " (or two of --N, --D, --C to derive it)");
      if (!c.flops.empty()) throw InputError("--flops: law '" + law.name + "' reads " + p.single + " alone; leave --flops out");
      p.need_x = true;
      c.x = column;
      c.x_scale = p.single == "N" ? c.N_scale : p.single == "D" ? c.D_scale : c.C_scale;
    }
  } else {
    p.need_x = true;
    p.single = other.front();
    c.x = other.front();
    other.erase(other.begin());
  }
  for (const auto& o : other)
    if (o != p.single && std::find(c.extra.begin(), c.extra.end(), o) == c.extra.end()) c.extra.push_back(o);
  return p;
}

// The values of input `name` of a law on the chosen rows. `own_x`: the law's x when it is not the
// rows' x (a one-input law compared with a law of other inputs).
const std::vector<double>& input_values(const std::string& name, const FitColumns& cols, const InputPlan& plan,
                                        const std::string& law, const std::vector<double>* own_x) {
  const std::vector<double>* v = nullptr;
  if (name == "x" || (plan.need_x && name == plan.single)) v = own_x ? own_x : &cols.x;
  else if (name == "N") v = &cols.N;
  else if (name == "D") v = &cols.D;
  else if (name == "C") v = &cols.C;
  else if (cols.extra.count(name)) v = &cols.extra.at(name);
  if (!v || (v->empty() && !cols.loss.empty()))
    throw InputError("law '" + law + "' reads " + name + ", which the chosen rows do not have");
  return *v;
}

FitColumns select_rows(const FitColumns& c, const std::vector<std::size_t>& rows) {
  FitColumns out = c;
  auto pick = [&](const auto& v) {
    std::decay_t<decltype(v)> r;
    if (v.empty()) return r;
    for (std::size_t i : rows) r.push_back(v[i]);
    return r;
  };
  out.x = pick(c.x), out.N = pick(c.N), out.D = pick(c.D), out.C = pick(c.C), out.loss = pick(c.loss);
  out.lines = pick(c.lines);
  out.weight = pick(c.weight);
  out.held_out = pick(c.held_out);
  for (auto& [k, v] : out.extra) v = pick(c.extra.at(k));
  return out;
}

LawData law_data(const ScalingLaw& law, const FitColumns& cols, const InputPlan& plan,
                 const std::vector<double>* own_x = nullptr) {
  std::map<std::string, std::vector<double>> columns;
  for (const auto& in : law.inputs) columns[in] = input_values(in, cols, plan, law.name, own_x);
  LawData d = law_data_from(law, columns, cols.loss, cols.lines);
  if (!cols.weight.empty()) d.weight = Eigen::Map<const ArrayXd>(cols.weight.data(), static_cast<Eigen::Index>(cols.weight.size()));
  return d;
}

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string("n/a"); }

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json errors_json(const PredictionErrors& e) {
  return {{"points", e.points}, {"rel_mean", number(e.rel_mean)}, {"rel_max", number(e.rel_max)},
          {"log_rmse", number(e.log_rmse)}, {"log_mean", number(e.log_mean)}};
}

std::string errors_text(const PredictionErrors& e) {
  return fmt::format("{} points: relative error of the loss mean {} (max {}), log RMSE {}, mean log error {}", e.points,
                     e.points ? num(e.rel_mean) : "n/a", e.points ? num(e.rel_max) : "n/a",
                     e.points ? num(e.log_rmse) : "n/a", e.points ? num(e.log_mean) : "n/a");
}

// Whether a grid option ("alpha", "log(A)", "log_A") names a parameter or coordinate of the law.
bool grid_applies(const std::string& law_text, const std::string& name) {
  const bool log_form = name.rfind("log(", 0) == 0 && name.size() > 5 && name.back() == ')';
  const std::string bare = log_form ? name.substr(4, name.size() - 5) : name;
  if (is_named_law(law_text)) {
    const ScalingLaw& law = scaling_law(law_text);
    for (const auto& list : {law.coordinate_parameter, law.coordinates})
      if (std::find(list.begin(), list.end(), bare) != list.end()) return true;
    return false;
  }
  const auto vars = Expression(law_text).variables();
  return std::find(vars.begin(), vars.end(), bare) != vars.end();
}

FitOptions fit_options(const FitRequest& r, const std::string& law_text) {
  FitOptions fo;
  fo.delta = r.delta;
  fo.threads = r.threads;
  fo.polish = r.polish;
  fo.likelihood = r.objective == "mle";
  if (!r.bounds.empty()) fo.bounds = bounds_for(law_text, parse_bounds(r.bounds));
  for (const auto& g : r.grid) {
    auto option = parse_grid_option(g);
    // With compared laws, an option applies to the laws that have that parameter.
    if (r.compare.empty() || grid_applies(law_text, option.first)) fo.grid.insert(std::move(option));
  }
  return fo;
}

// The compute-optimal allocation at --at far outside the data's tokens per parameter: an
// extrapolation far beyond the runs, or N and D in other units than parameters and tokens.
void allocation_warnings(FitOutcome& o) {
  const LawOutcome& main = o.laws.front();
  const bool allocates = main.law->has_frontier || main.law->inputs == std::vector<std::string>{"N", "D"};
  if (!allocates) return;
  const auto ratio = [&](double C) {
    try {
      const Allocation a = optimal_allocation(main.fit, C);
      return a.D / a.N;
    } catch (const std::exception&) {
      return std::numeric_limits<double>::quiet_NaN();  // no optimum (the report says so)
    }
  };
  for (auto& w : fit::allocation_warnings(o.train_columns, o.request.at, ratio)) o.warnings.push_back(std::move(w));
}

}  // namespace

PredictionErrors prediction_errors(const ScalingLaw& law, const std::vector<double>& theta, const LawData& data) {
  PredictionErrors e;
  e.points = static_cast<std::size_t>(data.size());
  if (data.size() == 0) return e;
  ArrayXd lp;
  law.predict(data, theta.data(), lp, nullptr);
  const ArrayXd r = lp - data.log_y;
  const ArrayXd rel = (r.exp() - 1).abs();
  e.rel_mean = rel.mean();
  e.rel_max = rel.maxCoeff();
  e.log_rmse = std::sqrt(r.square().mean());
  e.log_mean = r.mean();
  return e;
}

std::shared_ptr<const ScalingLaw> resolve_law(const std::string& text, const DataTable& table,
                                              const std::string& bounds, const ColumnChoice& columns,
                                              std::vector<std::string>* notes) {
  if (is_named_law(text)) return std::shared_ptr<const ScalingLaw>(&scaling_law(text), [](const ScalingLaw*) {});
  if (identifier(text)) scaling_law(text);  // a single word is a law's name: unknown, listing the known ones
  const auto known_laws = [] {
    std::string known;
    for (const auto& n : scaling_law_names()) known += (known.empty() ? "" : ", ") + n;
    return " (a law is one of " + known + ", or an expression of N, D, C, x or columns)";
  };
  std::vector<std::string> vars;
  try {
    vars = Expression(text).variables();
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + known_laws());
  }
  const auto has = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  // Mapped names: N, D, C, x (their columns are given by options or derived), a column an option
  // names, and the --input-column ones. A law that reads one of them has its inputs mapped, and
  // there a name it shares with some other column is a parameter: a table's column `alpha` does not
  // capture the law's alpha. A law that reads none of them is written in the table's columns,
  // which are its inputs.
  std::vector<std::string> data = kStandardInputs;
  for (const std::string* m : {&columns.N, &columns.D, &columns.C, &columns.x})
    if (identifier(*m) && !has(data, *m)) data.push_back(*m);
  for (const auto& e : columns.extra)
    if (identifier(e) && !has(data, e)) data.push_back(e);
  std::vector<std::string> mapped;
  for (const auto& v : vars)
    if (has(data, v)) mapped.push_back(v);
  std::vector<std::string> shadowed;
  for (const auto& n : table.names) {
    if (!identifier(n) || has(data, n) || !has(vars, n)) continue;
    (mapped.empty() ? data : shadowed).push_back(n);
  }
  if (notes && !shadowed.empty()) {
    std::string names, inputs, options;
    for (const auto& n : shadowed) {
      names += (names.empty() ? "'" : ", '") + n + "'";
      options += " --input-column " + n;
    }
    for (const auto& n : mapped) inputs += (inputs.empty() ? "" : ", ") + n;
    const bool one = shadowed.size() == 1;
    notes->push_back("law '" + text + "': " + names +
                     (one ? " is also the name of a column" : " are also names of columns") + "; fitted as " +
                     (one ? "a parameter" : "parameters") + ", since the law's inputs (" + inputs +
                     ") are mapped to columns by options, where a name no option maps is a parameter (to read " +
                     (one ? "the column, add" : "the columns, add") + options + ")");
  }
  ExpressionLawOptions o;
  o.name = text;
  if (!bounds.empty()) o.bounds = bounds_for(text, parse_bounds(bounds));
  try {
    return std::make_shared<const ScalingLaw>(expression_law(text, data, o));
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + known_laws());
  }
}

FitOutcome run_fit(const DataTable& table, const FitRequest& r, const FitMonitor& monitor) {
  check_fit_request(r);
  FitOutcome out;
  out.request = r;
  std::vector<std::string> texts{r.law};
  texts.insert(texts.end(), r.compare.begin(), r.compare.end());
  if (!r.cv.empty() && r.cv != "leave-one-budget-out")
    throw InputError("--cv '" + r.cv + "': the only scheme is leave-one-budget-out");
  // Every bound must apply to some law.
  if (!r.bounds.empty())
    for (const auto& [name, b] : parse_bounds(r.bounds)) {
      bool used = false;
      for (const auto& t : texts) used = used || bounds_for(t, {{name, b}}).count(name);
      if (!used) throw InputError("--bounds: no law has a parameter '" + name + "'");
    }
  if (!r.compare.empty())
    for (const auto& g : r.grid) {
      const std::string name = parse_grid_option(g).first;
      bool used = false;
      for (const auto& t : texts) used = used || grid_applies(t, name);
      if (!used) throw InputError("--grid: no law has a parameter '" + name + "'");
    }
  ColumnChoice mapping = r.columns;
  for (const auto& c : r.input_columns) {
    if (std::find(kStandardInputs.begin(), kStandardInputs.end(), c) != kStandardInputs.end())
      throw InputError("--input-column " + c + ": N, D, C and x are the columns of --N, --D, --C and --x");
    if (!identifier(c))
      throw InputError("--input-column '" + c + "': a law names a column by an identifier (letters, digits and _, "
                       "not starting with a digit)");
    if (!table.has(c)) throw InputError("--input-column " + c + ": " + table.source + " has no column '" + c + "'");
    mapping.extra.push_back(c);
  }
  std::vector<std::shared_ptr<const ScalingLaw>> laws;
  std::vector<std::string> law_notes;
  for (const auto& t : texts) laws.push_back(resolve_law(t, table, r.bounds, mapping, &law_notes));
  for (const auto& c : r.input_columns)
    if (std::none_of(laws.begin(), laws.end(), [&](const auto& law) {
          return std::find(law->inputs.begin(), law->inputs.end(), c) != law->inputs.end();
        }))
      throw InputError("--input-column " + c + ": no law reads '" + c + "'");

  // Rows: chosen once for every law, so that the laws are compared on the same rows. Each law has
  // its own plan (which column is its x, which extra columns it reads); the rows carry the union:
  // N, D, C when any law reads two inputs, and every column any law reads, so that a row without a
  // usable value in one of them is left out (--drop-missing) or refused for all of them.
  std::vector<ColumnChoice> choices;
  std::vector<InputPlan> plans;
  for (const auto& law : laws) {
    choices.push_back(r.columns);
    plans.push_back(plan_inputs(*law, choices.back()));
  }
  const bool one_input_rows =
      std::all_of(plans.begin(), plans.end(), [](const InputPlan& p) { return p.need_x; });
  const auto is_standard = [](const std::string& s) { return s == "N" || s == "D" || s == "C"; };
  ColumnChoice choice = one_input_rows ? choices.front() : r.columns;
  auto carry = [&](const std::string& column) {
    if (std::find(choice.extra.begin(), choice.extra.end(), column) == choice.extra.end()) choice.extra.push_back(column);
  };
  for (std::size_t k = 0; k < laws.size(); ++k) {
    for (const auto& e : choices[k].extra) carry(e);
    if (!plans[k].need_x) continue;
    if (choices[k].x.empty())
      throw InputError("law '" + laws[k]->name + "' reads x: name its column with --x");
    // A one-input law's x: the rows' x, one of the rows' N, D, C, or a column carried along.
    if (one_input_rows ? choices[k].x != choice.x : !is_standard(plans[k].single)) carry(choices[k].x);
  }
  const InputPlan& plan = plans.front();
  if (!std::isnan(r.x_min)) {
    std::string x_name = one_input_rows || !plan.need_x ? (plan.need_x ? "x" : "N") : plan.single;
    if (!one_input_rows && plan.need_x && !is_standard(plan.single)) {
      if (!identifier(choices.front().x))
        throw InputError("--x-min: the column '" + choices.front().x + "' cannot be named in a condition; use --where");
      x_name = choices.front().x;
    }
    choice.conditions.push_back(fmt::format("{} >= {:.17g}", x_name, r.x_min));
  }
  try {
    out.columns = choose_columns(table, choice, one_input_rows);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (!std::isnan(r.x_min) && what.find("no rows satisfy") != std::string::npos)
      throw InputError(what + " (with --x-min " + fmt::format("{:g}", r.x_min) + ")");
    throw;
  }
  // Each law's x when it is not the rows' x.
  std::vector<std::vector<double>> own_x(laws.size());
  std::vector<char> has_own_x(laws.size(), 0);
  for (std::size_t k = 0; k < laws.size(); ++k) {
    if (!plans[k].need_x || (one_input_rows && choices[k].x == choice.x)) continue;
    has_own_x[k] = 1;
    const FitColumns& c = out.columns;
    if (!one_input_rows && is_standard(plans[k].single)) {
      own_x[k] = plans[k].single == "N" ? c.N : plans[k].single == "D" ? c.D : c.C;
    } else {
      own_x[k] = c.extra.at(choices[k].x);
      for (double& v : own_x[k]) v *= choices[k].x_scale;
    }
  }
  if (has_own_x[0]) {
    // The main law is a one-input law on two-input rows: its x is the rows' x (plots, folds, warnings).
    out.columns.x = own_x[0];
    out.columns.x_name = choices[0].x;
    has_own_x[0] = 0;
  }
  out.warnings = law_notes;
  out.warnings.insert(out.warnings.end(), out.columns.warnings.begin(), out.columns.warnings.end());
  std::vector<std::size_t> train_rows, test_rows;
  for (std::size_t i = 0; i < out.columns.loss.size(); ++i)
    (!out.columns.held_out.empty() && out.columns.held_out[i] ? test_rows : train_rows).push_back(i);
  if (!r.columns.holdout.empty() && test_rows.empty())
    throw InputError("--holdout \"" + r.columns.holdout + "\" holds out no row");
  if (train_rows.empty()) throw InputError("--holdout \"" + r.columns.holdout + "\" leaves no row to fit");
  out.train_columns = select_rows(out.columns, train_rows);
  const FitColumns test_columns = select_rows(out.columns, test_rows);
  for (const auto& w : design_warnings(out.train_columns, laws.front()->dims(), !plan.need_x)) out.warnings.push_back(w);

  // Every law's data before any fit: a law that cannot read the rows is refused before minutes of fitting.
  std::vector<LawOutcome> prepared(laws.size());
  for (std::size_t k = 0; k < laws.size(); ++k) {
    LawOutcome& lo = prepared[k];
    lo.law = laws[k];
    auto pick = [&](const std::vector<std::size_t>& rows) { std::vector<double> v; for (std::size_t i : rows) v.push_back(own_x[k][i]); return v; };
    const std::vector<double> x_train = has_own_x[k] ? pick(train_rows) : std::vector<double>{};
    const std::vector<double> x_test = has_own_x[k] ? pick(test_rows) : std::vector<double>{};
    lo.train = law_data(*lo.law, out.train_columns, plans[k], has_own_x[k] ? &x_train : nullptr);
    if (!test_rows.empty()) lo.test = law_data(*lo.law, test_columns, plans[k], has_own_x[k] ? &x_test : nullptr);
    const FitOptions fo = fit_options(r, texts[k]);
    const std::size_t starts = initial_grid(*lo.law, lo.train, fo).size();
    if (starts > 10000) {
      const std::string w = fmt::format(
          "law '{}': {} starting points (more than 10^4) on {} rows; the fit may take long: give fewer initial values "
          "with --grid NAME=...", lo.law->name, starts, lo.train.size());
      out.warnings.push_back(w);
      monitor.note("fit: WARNING: " + w);
    }
  }

  for (std::size_t k = 0; k < laws.size(); ++k) {
    LawOutcome lo = std::move(prepared[k]);
    const ScalingLaw& law = *lo.law;
    FitOptions fo = fit_options(r, texts[k]);
    fo.monitor = &monitor;
    if (laws.size() > 1) monitor.note(fmt::format("fit: law {} of {} ({})...", k + 1, laws.size(), law.name));
    lo.fit = fit_law(law, lo.train, fo);
    if (k == 0 && r.boot.replicates > 0) {
      lo.boot = std::make_shared<Bootstrap>(bootstrap_law_fit(lo.fit, lo.train, fo, r.boot));
    }
    if (!test_rows.empty()) lo.holdout = prediction_errors(law, lo.fit.theta, lo.test);
    if (!r.cv.empty()) {
      // Leave one budget out: budgets are C (or x) values within 10% of each other.
      const std::vector<double>& key = plan.need_x ? out.train_columns.x : out.train_columns.C;
      lo.fold_key = plan.need_x ? plan.single : "C";
      const auto groups = group_budgets(key, 0.1);
      if (groups.size() < 3)
        throw InputError("--cv leave-one-budget-out: the fitted rows have " + std::to_string(groups.size()) +
                         " budget(s); at least 3 are needed");
      StageProgress folds_done(&monitor, groups.size(), "fit: cross-validation refits", "folds");
      // Each refit starts from the full fit's optimum and its best-ending starts, as a bootstrap refit.
      std::vector<std::vector<double>> starts{lo.fit.theta};
      const std::size_t s = std::min<std::size_t>(32, lo.fit.ranked_starts.size());
      starts.insert(starts.end(), lo.fit.ranked_starts.begin(), lo.fit.ranked_starts.begin() + static_cast<std::ptrdiff_t>(s));
      std::vector<double> pooled_r;
      for (const auto& g : groups) {
        std::vector<std::size_t> rest;
        std::vector<bool> in(key.size(), false);
        for (std::size_t i : g) in[i] = true;
        for (std::size_t i = 0; i < key.size(); ++i)
          if (!in[i]) rest.push_back(i);
        const LawData tr = subset(law, lo.train, rest), te = subset(law, lo.train, g);
        FitOptions quiet = fo;
        quiet.monitor = nullptr;
        const LawFit f = fit_law_from(law, tr, quiet, starts);
        CrossValidationFold fold;
        double lc = 0;
        for (std::size_t i : g) lc += std::log(key[i]);
        fold.C = std::exp(lc / static_cast<double>(g.size()));
        fold.errors = prediction_errors(law, f.theta, te);
        ArrayXd lp;
        law.predict(te, f.theta.data(), lp, nullptr);
        for (Eigen::Index i = 0; i < lp.size(); ++i) pooled_r.push_back(lp[i] - te.log_y[i]);
        lo.folds.push_back(fold);
        folds_done.advance();
      }
      const ArrayXd rr = Eigen::Map<const ArrayXd>(pooled_r.data(), static_cast<Eigen::Index>(pooled_r.size()));
      lo.cv.points = pooled_r.size();
      lo.cv.rel_mean = (rr.exp() - 1).abs().mean();
      lo.cv.rel_max = (rr.exp() - 1).abs().maxCoeff();
      lo.cv.log_rmse = std::sqrt(rr.square().mean());
      lo.cv.log_mean = rr.mean();
    }
    out.laws.push_back(std::move(lo));
  }
  allocation_warnings(out);
  return out;
}

nlohmann::json fit_outcome_json(const FitOutcome& o) {
  const LawOutcome& main = o.laws.front();
  const FitOptions fo = fit_options(o.request, o.request.law);
  nlohmann::json j = law_fit_json(main.fit, fo, main.boot.get(), o.request.boot, o.request.at);
  j["inputs"] = main.law->inputs;
  put_rows_json(j, o.columns);
  j["held_out"] = main.test.size();
  nlohmann::json warnings = o.warnings;
  for (const auto& w : main.fit.warnings) warnings.push_back(w);
  if (!o.request.columns.holdout.empty()) j["holdout"] = errors_json(main.holdout);
  if (!o.request.cv.empty()) {
    nlohmann::json folds = nlohmann::json::array();
    for (const auto& f : main.folds) folds.push_back({{main.fold_key, f.C}, {"errors", errors_json(f.errors)}});
    j["cv"] = {{"scheme", o.request.cv}, {"by", main.fold_key}, {"pooled", errors_json(main.cv)}, {"folds", folds}};
  }
  if (o.laws.size() > 1) {
    j["compare"] = nlohmann::json::array();
    for (const auto& lo : o.laws) {
      nlohmann::json row = {{"law", lo.law->name}, {"formula", lo.law->formula}, {"parameters", lo.law->dims()},
                            {"objective", lo.fit.objective}, {"train", errors_json(prediction_errors(*lo.law, lo.fit.theta, lo.train))}};
      for (std::size_t p = 0; p < lo.law->parameters.size(); ++p) row["values"][lo.law->parameters[p]] = number(lo.fit.values[p]);
      if (!o.request.columns.holdout.empty()) row["holdout"] = errors_json(lo.holdout);
      if (!o.request.cv.empty()) row["cv"] = errors_json(lo.cv);
      row["warnings"] = lo.fit.warnings;
      j["compare"].push_back(row);
      if (&lo != &main)
        for (const auto& w : lo.fit.warnings) warnings.push_back(lo.law->name + ": " + w);
    }
  }
  j["warnings"] = warnings;
  return j;
}

std::string fit_outcome_table(const FitOutcome& o) {
  const LawOutcome& main = o.laws.front();
  const FitOptions fo = fit_options(o.request, o.request.law);
  std::string out;
  const Aggregation& a = o.columns.aggregation;
  if (!a.how.empty())
    out += fmt::format("aggregated ({}): {} rows into {} of identical inputs (up to {} each){}; spread within them: "
                       "sd of log loss {} ({} degrees of freedom)\n", a.how, a.rows, a.groups, a.largest,
                       a.how == "mean" && a.groups < a.rows ? ", each weighted by its size" : "", num(a.noise_sd), a.dof);
  for (const auto& w : o.warnings) out += "WARNING: " + w + "\n";
  out += law_fit_table(main.fit, fo, main.boot.get(), o.request.boot, o.request.at);
  if (!o.request.columns.holdout.empty())
    out += fmt::format("\nheld out ({}): {}\n", o.request.columns.holdout, errors_text(main.holdout));
  if (!o.request.cv.empty()) {
    out += fmt::format("\ncross-validation, {} ({} folds): pooled {}\n", o.request.cv, main.folds.size(), errors_text(main.cv));
    for (const auto& f : main.folds)
      out += fmt::format("  {} = {:<10.3g} {}\n", main.fold_key, f.C, errors_text(f.errors));
  }
  if (o.laws.size() > 1) {
    const bool ho = !o.request.columns.holdout.empty(), cv = !o.request.cv.empty();
    out += fmt::format("\n{:<44} {:>6} {:>12} {:>12}", "law", "params", "fit logRMSE", "objective");
    if (ho) out += fmt::format(" {:>14} {:>14}", "held-out rel.", "held logRMSE");
    if (cv) out += fmt::format(" {:>12} {:>12}", "CV rel.", "CV logRMSE");
    out += "\n";
    for (const auto& lo : o.laws) {
      std::string name = lo.law->name.size() > 44 ? lo.law->name.substr(0, 41) + "..." : lo.law->name;
      out += fmt::format("{:<44} {:>6} {:>12} {:>12}", name, lo.law->dims(),
                         num(prediction_errors(*lo.law, lo.fit.theta, lo.train).log_rmse), num(lo.fit.objective));
      if (ho) out += fmt::format(" {:>14} {:>14}", num(lo.holdout.rel_mean), num(lo.holdout.log_rmse));
      if (cv) out += fmt::format(" {:>12} {:>12}", num(lo.cv.rel_mean), num(lo.cv.log_rmse));
      out += "\n";
      if (&lo != &main)
        for (const auto& w : lo.fit.warnings) out += "  WARNING (" + name + "): " + w + "\n";
    }
  }
  return out;
}

nlohmann::json fit_outcome_saved(const FitOutcome& o) {
  nlohmann::json j = fit_outcome_json(o);
  const LawOutcome& main = o.laws.front();
  nlohmann::json s = {{"law", o.request.law}, {"bounds", o.request.bounds}, {"inputs", main.law->inputs},
                      {"coordinate_names", main.law->coordinates}, {"theta", main.fit.theta}};
  if (main.boot) s["bootstrap_thetas"] = main.boot->thetas;
  // The residual scatter, for predict's prediction interval (prediction_interval.hpp).
  s["log_residual_sigma"] = number(residual_sigma(main.fit.residuals, main.law->dims()));
  j["saved"] = s;
  return j;
}

nlohmann::json predict_saved(const nlohmann::json& saved, const std::map<std::string, std::vector<double>>& inputs,
                             double level) {
  check_level(level);
  if (!saved.is_object() || !saved.contains("saved") || !saved["saved"].is_object())
    throw InputError("predict: not a saved fit (write one with `scalinglab fit ... --save FIT.json`)");
  const nlohmann::json& s = saved["saved"];
  // A saved file may have been edited: every field is checked, so that a wrong one is a sentence
  // rather than nlohmann's exception text or a read past the end of theta.
  auto field = [&](const char* key) -> const nlohmann::json& {
    if (!s.contains(key)) throw InputError(std::string("predict: the saved fit has no '") + key + "'");
    return s[key];
  };
  auto bad = [](const char* key, const char* expected) {
    return InputError(std::string("predict: the saved fit's '") + key + "' is not " + expected);
  };
  auto strings = [&](const nlohmann::json& v, const char* key) {
    if (!v.is_array()) throw bad(key, "a list of names");
    std::vector<std::string> out;
    for (const auto& e : v) {
      if (!e.is_string()) throw bad(key, "a list of names");
      out.push_back(e.get<std::string>());
    }
    return out;
  };
  auto coordinates = [&](const nlohmann::json& v, const char* key, std::size_t dims) {
    if (!v.is_array() || v.size() != dims) throw bad(key, ("a list of " + std::to_string(dims) + " numbers").c_str());
    std::vector<double> out;
    for (const auto& e : v) {
      if (!e.is_number()) throw bad(key, ("a list of " + std::to_string(dims) + " numbers").c_str());
      out.push_back(e.get<double>());
    }
    return out;
  };
  const nlohmann::json& law_field = field("law");
  if (!law_field.is_string()) throw bad("law", "a law's name or expression");
  const std::string text = law_field.get<std::string>();
  std::shared_ptr<const ScalingLaw> law;
  if (is_named_law(text)) {
    law = std::shared_ptr<const ScalingLaw>(&scaling_law(text), [](const ScalingLaw*) {});
  } else {
    ExpressionLawOptions o;
    o.name = text;
    if (s.contains("bounds")) {
      if (!s["bounds"].is_string()) throw bad("bounds", "text such as \"E=0:\"");
      const std::string b = s["bounds"].get<std::string>();
      if (!b.empty()) o.bounds = bounds_for(text, parse_bounds(b));
    }
    law = std::make_shared<const ScalingLaw>(expression_law(text, strings(field("inputs"), "inputs"), o));
  }
  if (law->coordinates != strings(field("coordinate_names"), "coordinate_names"))
    throw InputError("predict: the saved coordinates do not match law '" + text + "'");
  const std::vector<double> theta = coordinates(field("theta"), "theta", law->dims());
  std::size_t n = 1;
  for (const auto& in : law->inputs) {
    const auto it = inputs.find(in);
    if (it == inputs.end() || it->second.empty()) throw InputError("predict: give " + in + "=VALUE[,VALUE...] (the law reads " + in + ")");
    if (it->second.size() > 1) {
      if (n > 1 && it->second.size() != n) throw InputError("predict: lists of different lengths");
      n = it->second.size();
    }
  }
  for (const auto& [k, v] : inputs)
    if (std::find(law->inputs.begin(), law->inputs.end(), k) == law->inputs.end())
      throw InputError("predict: law '" + text + "' does not read " + k);
  std::vector<std::vector<double>> boots;
  if (s.contains("bootstrap_thetas")) {
    const nlohmann::json& b = s["bootstrap_thetas"];
    if (!b.is_array()) throw bad("bootstrap_thetas", "a list of replicates");
    for (const auto& t : b) boots.push_back(coordinates(t, "bootstrap_thetas", law->dims()));
  }
  // The residual scatter (saved since prediction intervals exist; a field edited to a non-number
  // gives no prediction interval rather than a wrong one).
  double sigma = std::numeric_limits<double>::quiet_NaN();
  if (s.contains("log_residual_sigma") && s["log_residual_sigma"].is_number()) sigma = s["log_residual_sigma"].get<double>();
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> at;
    nlohmann::json row;
    for (const auto& in : law->inputs) {
      const auto& v = inputs.at(in);
      at.push_back(v.size() == 1 ? v[0] : v[i]);
      row[in] = number(at.back());
    }
    const double loss = std::exp(law_log_predict_at(*law, theta, at));
    if (!std::isfinite(loss) || !(loss > 0)) {
      std::string where;
      for (std::size_t k = 0; k < at.size(); ++k) where += (k ? ", " : "") + law->inputs[k] + "=" + fmt::format("{:g}", at[k]);
      throw InputError("predict: law '" + text + "' gives no positive, finite loss at " + where);
    }
    row["loss"] = loss;
    std::vector<double> log_sample;
    if (!boots.empty()) {
      std::vector<double> sample;
      for (const auto& t : boots) {
        log_sample.push_back(law_log_predict_at(*law, t, at));
        sample.push_back(std::exp(log_sample.back()));
      }
      const Interval iv = summarise_sample(sample, level);
      row["loss_lo"] = number(iv.lo);
      row["loss_hi"] = number(iv.hi);
      row["loss_se"] = number(iv.se);
    }
    if (std::isfinite(sigma)) {
      const Interval pi = prediction_interval(std::log(loss), log_sample, sigma, level);
      row["loss_pi_lo"] = number(pi.lo);
      row["loss_pi_hi"] = number(pi.hi);
    }
    rows.push_back(row);
  }
  nlohmann::json out = {{"law", text}, {"inputs", law->inputs}, {"level", level}, {"bootstrap_replicates", boots.size()},
                        {"predictions", rows}};
  // loss_lo/loss_hi: where the law's curve lies (its parameters' uncertainty only); loss_pi_lo/hi:
  // where a new run's loss should fall (that plus the residual scatter).
  out["interval"] = "parameters";
  if (std::isfinite(sigma)) {
    out["log_residual_sigma"] = sigma;
    out["prediction_interval"] = "parameters and residual scatter";
  }
  return out;
}

const std::set<std::string>& fit_option_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k = fitter_option_keys();
    for (const char* own : {"law", "compare", "input_column", "x", "holdout", "bounds", "grid", "delta", "cv",
                            "bootstrap_starts", "x_min", "polish", "objective"})
      k.insert(own);
    return k;
  }();
  return keys;
}

FitRequest fit_request_from_json(const nlohmann::json& j) {
  // Each value's type is checked here, naming the option (as the command line spells it); its
  // range by check_fit_request, as for the command line.
  const RequestReader in(j, "fit", fit_option_keys());
  FitRequest r;
  read_fitter_options(in, r);
  in.text("law", r.law);
  in.texts("compare", r.compare);
  in.texts("input_column", r.input_columns);
  in.text("x", r.columns.x);
  in.text("holdout", r.columns.holdout);
  in.text("bounds", r.bounds);
  in.text("cv", r.cv);
  if (in.given("x_min")) {
    in.number("x_min", r.x_min);
    if (std::isnan(r.x_min)) throw InputError("--x-min nan: give a finite number (or none)");  // NaN means "none" inside
  }
  in.texts("grid", r.grid);
  in.number("delta", r.delta);
  in.whole("bootstrap_starts", r.boot.starts);
  in.whole("polish", r.polish);
  in.text("objective", r.objective);
  check_fit_request(r);
  return r;
}

nlohmann::json parse_json(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text, json_depth_limit());
  } catch (const JsonTooDeep&) {
    throw InputError(what + " is not a file we read (JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels)");
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(what + " is not JSON (it stops being JSON at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception&) {
    throw InputError(what + " is not JSON");
  }
}

// ---- checks of the numbers a user gives ----------------------------------------------------------

void check_level(double level) {
  // Outside (0, 1) the percentiles fall outside the sample (a read out of bounds, once).
  if (!(level >= 0.5 && level <= 0.999))
    throw InputError(fmt::format("--level {:g}: the coverage of an interval must be from 0.5 to 0.999", level));
}

void check_bootstrap_options(const BootstrapOptions& b) {
  if (b.replicates != 0 && (b.replicates < 2 || b.replicates > 1000000))
    throw InputError(fmt::format("--bootstrap {}: give 0 (no bootstrap) or 2 to 1000000 refits", b.replicates));
  check_level(b.level);
  if (b.starts < 0)
    throw InputError(fmt::format("--bootstrap-starts {}: give 0 (the whole grid) or a positive number of starts", b.starts));
}

void check_budgets(const std::vector<double>& at) {
  for (double c : at)
    if (!(c > 0) || !std::isfinite(c))
      throw InputError(fmt::format("--at {:g}: a compute budget must be positive and finite", c));
}

void check_threads(int threads) {
  if (threads < 0 || threads > 1024) throw InputError(fmt::format("--threads {}: give 0 (all cores) to 1024", threads));
}

void check_fit_request(const FitRequest& r) {
  check_fitter_options(r);
  if (!std::isnan(r.delta) && !(r.delta > 0))
    throw InputError(fmt::format("--delta {:g}: the Huber threshold must be positive (inf: least squares)", r.delta));
  if (r.polish < 0)
    throw InputError(fmt::format("--polish {}: give 0 (every start to the full tolerance) or a positive number", r.polish));
  if (std::isinf(r.x_min)) throw InputError(fmt::format("--x-min {:g}: give a finite number", r.x_min));
  if (r.objective != "huber" && r.objective != "mle")
    throw InputError("--objective '" + r.objective + "': give huber (the summed loss) or mle (maximum likelihood)");
}

std::uint64_t parse_seed(const std::string& text) {
  const auto refuse = [&] {
    const std::string shown = text.size() > 40 ? text.substr(0, 37) + "..." : text;
    return InputError("--seed " + shown + ": a seed is a whole number from 0 to 18446744073709551615");
  };
  std::size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  if (b < e && text[b] == '+') ++b;
  if (b == e) throw refuse();
  std::uint64_t v = 0;
  for (std::size_t i = b; i < e; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') throw refuse();
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) throw refuse();
    v = v * 10 + d;
  }
  return v;
}

}  // namespace scalinglab::fit
