// The numbers the fit figures draw (see the header).
#include "scalinglab/fit/fit_figure.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_panels.hpp"
#include "scalinglab/fit/fit_report.hpp"
#include "scalinglab/fit/frontier.hpp"

namespace scalinglab::fit {

namespace {

using nlohmann::json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::vector<double> log_space(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * i / (n - 1)));
  return v;
}

json numbers(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(num(x));
  return a;
}

// The drawn rows' values of a column (rows from figure_rows).
template <class T>
std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& rows) {
  std::vector<T> out;
  out.reserve(rows.size());
  for (std::size_t i : rows) out.push_back(v[i]);
  return out;
}

// An axis label for an input: its symbol and, in parentheses, the user's name for its column,
// or the unit the fit reads it in when there is no such name to show: the column was derived
// (C = 6 N D), rescaled (--N-scale: the numbers drawn are no longer the column's) or is called
// by the symbol itself. An input other than N, D, C is labelled by its column's name.
std::string input_label(const std::string& symbol, const std::string& column, double scale) {
  const char* unit = symbol == "N" ? "parameters" : symbol == "D" ? "tokens" : symbol == "C" ? "FLOPs" : nullptr;
  if (!unit) return column.empty() ? symbol : column;
  if (column.empty() || column == symbol || scale != 1) return symbol + " (" + unit + ")";
  return symbol + " (" + column + ")";
}

// What the legends call the law: "chinchilla law", or "fitted law" for an expression (its
// formula would not fit a legend).
std::string law_label(const ScalingLaw& law) { return law.name == law.formula ? "fitted law" : law.name + " law"; }

// The labels of the axes of N, D, C and the loss.
json input_labels(const FitColumns& data) {
  return {{"N", input_label("N", data.N_name, data.N_scale)},
          {"D", input_label("D", data.D_name, data.D_scale)},
          {"C", input_label("C", data.C_name, data.C_scale)},
          {"loss", data.loss_name.empty() ? "loss" : data.loss_name}};
}

// How many runs the figure draws of how many: all, or an evenly spaced subsample (figure_rows).
void note_points(json& j, std::size_t shown, std::size_t total) {
  j["points_shown"] = shown;
  j["points_total"] = total;
}

double geometric_mean(const std::vector<double>& v, const std::vector<std::size_t>& rows) {
  double s = 0;
  for (std::size_t i : rows) s += std::log(v[i]);
  return std::exp(s / static_cast<double>(rows.size()));
}

std::size_t distinct(const std::vector<double>& v, const std::vector<std::size_t>& rows) {
  std::set<double> s;
  for (std::size_t i : rows) s.insert(v[i]);
  return s.size();
}

// Budgets to draw IsoFLOP curves at: the data's slices when there are few, else log-spaced.
std::vector<double> curve_budgets(const std::vector<double>& C) {
  const auto groups = group_budgets(C, IsoflopOptions{}.group_tolerance);
  if (groups.size() > 12) {
    const auto [lo, hi] = std::minmax_element(C.begin(), C.end());
    return log_space(*lo, *hi, 7);
  }
  std::vector<double> out;
  for (const auto& g : groups) out.push_back(geometric_mean(C, g));
  return out;
}

// Model sizes to draw loss-against-D/N curves at: the distinct N when there are few, else 6
// log-spaced over the data's range.
std::vector<double> curve_sizes(const std::vector<double>& N) {
  std::set<double> s(N.begin(), N.end());
  if (s.size() <= 8) return {s.begin(), s.end()};
  return log_space(*s.begin(), *s.rbegin(), 6);
}

// The law's log prediction with its inputs by name: N, D, C, x from `at`, any other (a column the
// law reads, such as muennighoff's U) from `held`.
double log_predict(const ScalingLaw& law, const std::vector<double>& theta, const std::map<std::string, double>& at,
                   const std::map<std::string, double>& held) {
  std::vector<double> inputs;
  for (const auto& name : law.inputs) {
    const auto it = at.find(name);
    inputs.push_back(it != at.end() ? it->second : held.at(name));
  }
  return law_log_predict_at(law, theta, inputs);
}

// The values of the law's other inputs at row i, and (for the curves) their medians over the rows.
std::map<std::string, double> extra_at(const ScalingLaw& law, const FitColumns& data, std::size_t i) {
  std::map<std::string, double> out;
  for (const auto& name : law.inputs)
    if (data.extra.count(name)) out[name] = data.extra.at(name)[i];
  return out;
}
std::map<std::string, double> extra_medians(const ScalingLaw& law, const FitColumns& data) {
  std::map<std::string, double> out;
  for (const auto& name : law.inputs) {
    if (!data.extra.count(name) || data.extra.at(name).empty()) continue;
    std::vector<double> v = data.extra.at(name);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    out[name] = v[v.size() / 2];
  }
  return out;
}

}  // namespace

bool isoflop_design(const std::vector<double>& C, const std::vector<double>& N) {
  std::size_t in_slices = 0;
  for (const auto& g : group_budgets(C, IsoflopOptions{}.group_tolerance))
    if (distinct(N, g) >= 3) in_slices += g.size();
  return 2 * in_slices >= C.size() && !C.empty();
}

json law_fit_figure(const LawFit& fit, const FitColumns& data, const Bootstrap* boot, double level) {
  const ScalingLaw& law = *fit.law;
  json j;
  j["law"] = law.name;
  j["formula"] = law.formula;
  j["law_label"] = law_label(law);
  j["level"] = level;
  j["bootstrap"] = boot != nullptr;
  // A law that reads other columns (muennighoff's U) is drawn with them at each run's values, and
  // its curves at their medians over the runs (named in "held").
  const std::map<std::string, double> held = extra_medians(law, data);
  if (!held.empty()) j["held"] = held;
  std::string single;  // the input of a one-input law: x, or one of N, D, C read alone
  std::size_t standard = 0;
  for (const auto& name : law.inputs)
    if (name == "x" || name == "N" || name == "D" || name == "C") ++standard, single = name;
  if (standard == 1) {
    j["kind"] = "law1";
    const std::string& symbol = law.inputs.front();
    const bool standard = symbol == "N" || symbol == "D" || symbol == "C";
    const double scale = symbol == "N" ? data.N_scale : symbol == "D" ? data.D_scale : symbol == "C" ? data.C_scale : 1;
    j["labels"] = {{"x", input_label(symbol, data.x_name, scale)}, {"loss", input_labels(data)["loss"]}};
    // What "residuals against ..." names: the symbol N, D or C, else the column.
    j["x_symbol"] = standard ? symbol : j["labels"]["x"].get<std::string>();
    const auto rows = figure_rows(data.x.size());
    std::vector<double> fitted, residual;
    for (std::size_t i : rows) {
      const double pred = log_predict(law, fit.theta, {{single, data.x[i]}}, extra_at(law, data, i));
      fitted.push_back(std::exp(pred));
      residual.push_back(pred - std::log(data.loss[i]));
    }
    j["points"] = {{"x", numbers(pick(data.x, rows))}, {"loss", numbers(pick(data.loss, rows))},
                   {"fitted", numbers(fitted)}, {"residual", numbers(residual)}};
    note_points(j, rows.size(), data.x.size());
    const auto [lo, hi] = std::minmax_element(data.x.begin(), data.x.end());
    std::vector<double> xs = log_space(*lo, *hi, 200), ys;
    for (double x : xs) ys.push_back(std::exp(log_predict(law, fit.theta, {{single, x}}, held)));
    j["curve"] = {{"x", numbers(xs)}, {"loss", numbers(ys)}};
    j["panels"] = figure_panels("law1");
    return j;
  }
  j["kind"] = "law2";
  j["labels"] = input_labels(data);
  const auto rows = figure_rows(data.N.size());
  std::vector<double> fitted, residual;
  for (std::size_t i : rows) {
    const double pred =
        log_predict(law, fit.theta, {{"N", data.N[i]}, {"D", data.D[i]}, {"C", data.C[i]}}, extra_at(law, data, i));
    fitted.push_back(std::exp(pred));
    residual.push_back(pred - std::log(data.loss[i]));
  }
  j["points"] = {{"N", numbers(pick(data.N, rows))}, {"D", numbers(pick(data.D, rows))},
                 {"C", numbers(pick(data.C, rows))}, {"loss", numbers(pick(data.loss, rows))},
                 {"fitted", numbers(fitted)}, {"residual", numbers(residual)}};
  note_points(j, rows.size(), data.N.size());
  const bool iso = isoflop_design(data.C, data.N);
  j["design"] = iso ? "isoflop" : "grid";
  const auto [nmin, nmax] = std::minmax_element(data.N.begin(), data.N.end());
  const auto [cmin, cmax] = std::minmax_element(data.C.begin(), data.C.end());
  j["C_range"] = {*cmin, *cmax};
  // IsoFLOP curves of the fitted law, over the sizes run (a factor 2 either side).
  j["isoflop_curves"] = json::array();
  for (double C : curve_budgets(data.C)) {
    std::vector<double> ns = log_space(*nmin / 2, *nmax * 2, 120), ls;
    for (double N : ns) ls.push_back(std::exp(log_predict(law, fit.theta, {{"N", N}, {"D", C / (6 * N)}, {"C", C}}, held)));
    j["isoflop_curves"].push_back({{"C", C}, {"N", numbers(ns)}, {"loss", numbers(ls)}});
  }
  // Loss against tokens per parameter at fixed model sizes, over the data's range of D/N.
  double rmin = INFINITY, rmax = 0;
  for (std::size_t i = 0; i < data.N.size(); ++i) rmin = std::min(rmin, data.D[i] / data.N[i]), rmax = std::max(rmax, data.D[i] / data.N[i]);
  j["ratio_range"] = {rmin, rmax};
  j["ratio_curves"] = json::array();
  for (double N : curve_sizes(data.N)) {
    std::vector<double> rs = log_space(rmin / 1.5, rmax * 1.5, 100), ls;
    for (double r : rs)
      ls.push_back(std::exp(log_predict(law, fit.theta, {{"N", N}, {"D", r * N}, {"C", 6 * N * r * N}}, held)));
    j["ratio_curves"].push_back({{"N", N}, {"ratio", numbers(rs)}, {"loss", numbers(ls)}});
  }
  // The frontier, from the smallest budget to 100x the largest, with bands.
  if (law.has_frontier || law.inputs == std::vector<std::string>{"N", "D"}) {
    std::vector<double> cs, n, nlo, nhi, d, dlo, dhi, l, llo, lhi;
    for (double C : log_space(*cmin, *cmax * 100, 60)) {
      Allocation a;
      try {
        a = optimal_allocation(fit, C);
      } catch (const InputError&) {
        continue;  // no interior optimum at this budget
      }
      AllocationBands b;
      if (boot) b = allocation_bands(law, *boot, C, level);
      cs.push_back(C), n.push_back(a.N), d.push_back(a.D), l.push_back(a.L);
      nlo.push_back(b.N.lo), nhi.push_back(b.N.hi), dlo.push_back(b.D.lo), dhi.push_back(b.D.hi);
      llo.push_back(b.L.lo), lhi.push_back(b.L.hi);
    }
    j["frontier"] = {{"C", numbers(cs)}, {"N", numbers(n)}, {"N_lo", numbers(nlo)}, {"N_hi", numbers(nhi)},
                     {"D", numbers(d)},  {"D_lo", numbers(dlo)}, {"D_hi", numbers(dhi)}, {"loss", numbers(l)},
                     {"loss_lo", numbers(llo)}, {"loss_hi", numbers(lhi)}};
    if (law.has_frontier) j["frontier"]["a"] = fit.value("a"), j["frontier"]["b"] = fit.value("b");
  }
  // Each IsoFLOP slice's lowest-loss run: where the data put the optimum, to set against the law's.
  j["slice_minima"] = {{"C", json::array()}, {"N", json::array()}, {"D", json::array()}, {"loss", json::array()}};
  if (iso)
    for (const auto& g : group_budgets(data.C, IsoflopOptions{}.group_tolerance)) {
      if (distinct(data.N, g) < 3) continue;
      const std::size_t best = *std::min_element(g.begin(), g.end(), [&](std::size_t a, std::size_t b) {
        return data.loss[a] < data.loss[b];
      });
      j["slice_minima"]["C"].push_back(geometric_mean(data.C, g));
      j["slice_minima"]["N"].push_back(data.N[best]);
      j["slice_minima"]["D"].push_back(data.D[best]);
      j["slice_minima"]["loss"].push_back(data.loss[best]);
    }
  // The frontier panel only for a law with a frontier (one of N and D).
  const bool frontier = j.contains("frontier") && !j["frontier"]["C"].empty();
  j["panels"] = json::array();
  for (const auto& p : figure_panels("law2"))
    if (p != "frontier" || frontier) j["panels"].push_back(p);
  return j;
}

json isoflop_figure(const IsoflopFit& fit, const FitColumns& data, const IsoflopBootstrap* boot, double level) {
  json j;
  j["kind"] = "isoflop";
  j["level"] = level;
  j["bootstrap"] = boot != nullptr;
  j["trim"] = fit.options.trim;
  j["labels"] = input_labels(data);
  std::vector<bool> trimmed(data.N.size(), false);
  for (const auto& s : fit.slices)
    for (const std::size_t i : s.trimmed_rows)
      if (i < trimmed.size()) trimmed[i] = true;
  const auto rows = figure_rows(data.N.size());
  j["points"] = {{"N", numbers(pick(data.N, rows))},
                 {"C", numbers(pick(data.C, rows))},
                 {"loss", numbers(pick(data.loss, rows))},
                 {"trimmed", pick(trimmed, rows)}};
  note_points(j, rows.size(), data.N.size());
  j["panels"] = figure_panels("isoflop");
  j["parabolas"] = json::array();
  std::vector<double> mc, mn, md, ml;
  for (const auto& s : fit.slices) {
    std::vector<double> ns, ls;
    for (int k = 0; k <= 60; ++k) {
      const double N = std::exp(s.log_N_min + (s.log_N_max - s.log_N_min) * k / 60.0);
      ns.push_back(N), ls.push_back(s.loss_at(N));
    }
    j["parabolas"].push_back({{"C", s.C}, {"N", numbers(ns)}, {"loss", numbers(ls)}});
    mc.push_back(s.C), mn.push_back(s.N_opt), md.push_back(s.D_opt), ml.push_back(s.L_opt);
  }
  j["minima"] = {{"C", numbers(mc)}, {"N", numbers(mn)}, {"D", numbers(md)}, {"loss", numbers(ml)}};
  j["C_range"] = {fit.slices.front().C, fit.slices.back().C};
  std::vector<double> cs, n, nlo, nhi, d, dlo, dhi, lp, ls, llo, lhi;
  for (double C : log_space(fit.slices.front().C, fit.slices.back().C * 100, 40)) {
    IsoflopBands b;
    if (boot) b = isoflop_bands(*boot, C, level);
    cs.push_back(C), n.push_back(fit.N_at(C)), d.push_back(fit.D_at(C));
    lp.push_back(fit.L_at_power(C)), ls.push_back(fit.loss_law.fitted ? fit.L_at(C) : NAN);
    nlo.push_back(b.N.lo), nhi.push_back(b.N.hi), dlo.push_back(b.D.lo), dhi.push_back(b.D.hi);
    llo.push_back(b.L.lo), lhi.push_back(b.L.hi);
  }
  j["frontier"] = {{"C", numbers(cs)}, {"N", numbers(n)}, {"N_lo", numbers(nlo)}, {"N_hi", numbers(nhi)},
                   {"D", numbers(d)},  {"D_lo", numbers(dlo)}, {"D_hi", numbers(dhi)}, {"loss_power", numbers(lp)},
                   {"loss", numbers(ls)}, {"loss_lo", numbers(llo)}, {"loss_hi", numbers(lhi)},
                   {"a", fit.a()}, {"b", fit.b()}};
  if (boot) j["frontier"]["a_interval"] = {num(boot->a.lo), num(boot->a.hi)};
  const SaturatingLoss& law = fit.loss_law;
  j["loss_law"] = {{"fitted", law.fitted}, {"E", num(law.E)}, {"A", num(law.A)}, {"gamma", num(law.gamma)}};
  return j;
}

}  // namespace scalinglab::fit
