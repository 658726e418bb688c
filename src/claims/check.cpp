// Claims of a paper evaluated on the aggregated table (one row per grid point, mean per metric).
// Every kind first selects rows (where, x range), then judges them; a check that cannot be
// evaluated (empty selection, unknown name, bad formula) FAILS with a message instead of throwing,
// so one typo never loses a finished run.
#include "scalinglab/claims/check.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/stats.hpp"
#include "scalinglab/results/aggregate.hpp"

namespace scalinglab {

nlohmann::json CheckResult::to_json() const {
  nlohmann::json j = {{"claim", claim}, {"kind", kind}, {"passed", passed}, {"measured", measured}, {"expected", expected}};
  if (!known_failure.empty()) j["known_failure"] = known_failure;
  if (!refs.empty()) j["ref"] = refs;
  if (!substitute.empty()) j["substitute"] = substitute;
  if (!reduced.empty()) j["reduced"] = reduced;
  if (index > 0) j["index"] = index;
  j["category"] = category();
  return j;
}

const char* CheckResult::status() const { return passed ? "PASS" : known_failure.empty() ? "FAIL" : "KNOWN FAIL"; }

const char* CheckResult::category() const {
  if (!passed) return "not reproduced";
  if (!substitute.empty()) return "substitute";
  return reduced.empty() ? "reproduced" : "reduced";
}

std::string CheckResult::line() const {
  std::string out = std::string(status()) + "  ";
  if (!substitute.empty()) out += "(substitute) ";
  out += claim + ": " + measured + " (expected " + expected + ")";
  if (!passed && !known_failure.empty()) out += " [known: " + known_failure + "]";
  return out;
}

namespace {

// Numbers in messages: 4 significant digits, "inf" for infinity.
std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", v);
}

const Params::Entry& param_of(const Table::Row& row, const std::string& name) {
  if (!row.params.has(name)) throw InputError("unknown parameter '" + name + "'");
  return row.params.entry(name);
}

// A selected row with its x (NaN when the check has no x) and y.
struct Point {
  const Table::Row* row;
  double x, y;
};

struct Context {
  const Sweep& sweep;
  const Table& table;
  const CheckSpec& spec;

  // x of a row: its parameter, or the mean of a metric (an x axis along a measured quantity).
  double x_of(const Table::Row& row) const {
    if (row.params.has(spec.x)) return row.params.entry(spec.x).number;
    const auto& names = table.metric_names;
    if (std::find(names.begin(), names.end(), spec.x) != names.end()) return row.mean.at(table.metric_index(spec.x));
    throw InputError("unknown parameter or metric '" + spec.x + "'");
  }

  // Rows matching `where` and the x range, with x and y looked up once.
  std::vector<Point> select() const {
    const std::size_t m = table.metric_index(spec.y);
    std::vector<Point> out;
    for (const auto& [name, value] : spec.where)
      if (std::find(table.param_names.begin(), table.param_names.end(), name) == table.param_names.end())
        throw InputError("unknown parameter '" + name + "' in where");
    for (const auto& row : table.rows) {
      if (!params_match(row.params, spec.where)) continue;
      double x = kNaN;
      if (!spec.x.empty()) {
        x = x_of(row);
        if (std::isnan(x)) throw InputError("x '" + spec.x + "' is not numeric");
        if (x < spec.x_min || x > spec.x_max) continue;
      }
      out.push_back({&row, x, row.mean.at(m)});
    }
    return out;
  }

  // "d=64 T=inf": the grid axes of the row (what tells points apart), or x alone without a grid.
  std::string where_text(const Table::Row& row) const {
    std::string out;
    if (row.params.has("part")) out = "part=" + row.params.entry("part").text;
    for (const auto& axis : sweep.grid)
      if (row.params.has(axis.name)) out += (out.empty() ? "" : " ") + axis.name + "=" + row.params.entry(axis.name).text;
    if (out.empty() && !spec.x.empty())
      out = spec.x + "=" + (row.params.has(spec.x) ? row.params.entry(spec.x).text : num(x_of(row)));
    return out.empty() ? "the only point" : out;
  }

  std::string empty_message() const {
    std::string msg = "no rows selected";
    if (!spec.where.empty()) {
      msg += " by where {";
      bool first = true;
      for (const auto& [k, v] : spec.where) msg += (first ? "" : ", ") + scalinglab::where_text(k, v), first = false;
      msg += "}";
    }
    if (spec.x_min > -1e308 || spec.x_max < 1e308)
      msg += " with " + spec.x + " in [" + num(spec.x_min) + ", " + num(spec.x_max) + "]";
    return msg;
  }

  void require_x() const {
    if (spec.x.empty()) throw InputError("check kind '" + spec.kind + "' needs x (a parameter)");
  }
};

// ---- slope: least squares of log y on log x ----------------------------------------------------
void check_slope(const Context& c, CheckResult& r) {
  c.require_x();
  r.expected = c.spec.at_least || c.spec.at_most ? c.spec.slope_text() : num(c.spec.expect) + " +- " + num(c.spec.tol);
  std::vector<double> lx, ly;
  double lo = INFINITY, hi = -INFINITY;
  std::size_t nonpositive = 0, points = 0;
  for (const Point& p : c.select()) {
    ++points;
    if (!std::isfinite(p.x) || p.x <= 0) continue;  // x = inf (e.g. T = inf) has no place on a log axis
    if (!(p.y > 0)) {
      ++nonpositive;
      continue;
    }
    lx.push_back(std::log(p.x));
    ly.push_back(std::log(p.y));
    lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  }
  const std::string excluded =
      nonpositive ? fmt::format(" ({} point{} with {} <= 0 excluded)", nonpositive, nonpositive > 1 ? "s" : "", c.spec.y) : "";
  if (points == 0) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }
  const LineFit fit = fit_line(lx, ly);
  if (std::isnan(fit.slope)) {
    r.judged = false;
    r.measured = fmt::format("only {} usable point{} with distinct finite {} > 0{}", lx.size(),
                             lx.size() == 1 ? "" : "s", c.spec.x, excluded);
    return;
  }
  r.passed = c.spec.slope_ok(fit.slope);
  r.measured = fmt::format("slope {:.3f} over {} points, {} in [{}, {}], R^2 {:.3f}{}", fit.slope, lx.size(),
                           c.spec.x, num(lo), num(hi), fit.r2, excluded);
}

// ---- below / above: y against a formula of the row's parameters ---------------------------------
void check_bound(const Context& c, CheckResult& r, bool below) {
  const char* op = below ? "<=" : ">=";
  r.expected = c.spec.y + " " + op + " " + c.spec.bound;
  const Expression bound(c.spec.bound);
  const auto points = c.select();
  if (points.empty()) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }
  std::size_t violations = 0;
  const Point* worst = nullptr;
  double worst_bound = 0, worst_excess = -INFINITY;
  for (const Point& p : points) {
    const double b = bound.eval([&](const std::string& name) -> std::optional<double> {
      if (p.row->params.has(name)) {
        const double v = p.row->params.entry(name).number;
        if (!std::isnan(v)) return v;
      }
      // Another metric of the same row (its mean, or its spread with the suffix _std or _sem):
      // bounds such as "chinchilla_excess" or "0.5 + 4*second_moment_sem".
      for (std::size_t k = 0; k < c.table.metric_names.size(); ++k) {
        const std::string& m = c.table.metric_names[k];
        if (name == m) return p.row->mean[k];
        if (name == m + "_sem") return p.row->sem[k];
        if (name == m + "_std") return p.row->std[k];
      }
      return std::nullopt;
    });
    const bool ok = below ? p.y <= b : p.y >= b;  // NaN on either side fails
    if (!ok) ++violations;
    // Relative excess over the bound (positive = violated); largest is the worst row.
    double excess = below ? p.y - b : b - p.y;
    if (std::isfinite(b) && b != 0) excess /= std::abs(b);
    if (std::isnan(excess)) excess = INFINITY;
    if (!worst || excess > worst_excess) worst = &p, worst_bound = b, worst_excess = excess;
  }
  r.passed = violations == 0;
  const std::string head = r.passed ? fmt::format("all {} points {}", points.size(), below ? "below" : "above")
                                    : fmt::format("{} of {} points {}", violations, points.size(),
                                                  below ? "above the bound" : "below the bound");
  const std::string ratio = worst_bound != 0 && std::isfinite(worst_bound)
                                ? fmt::format(" = {} x bound", num(worst->y / worst_bound))
                                : "";
  r.measured = fmt::format("{}; {} at {}: {} {}{} (bound {})", head, r.passed ? "closest" : "worst",
                           c.where_text(*worst->row), c.spec.y,
                           num(worst->y), ratio, num(worst_bound));
}

// ---- ordered: the series are stacked in the given order at every x ------------------------------
void check_ordered(const Context& c, CheckResult& r) {
  c.require_x();
  const auto& order = c.spec.order;
  if (c.spec.series.empty() || order.size() < 2)
    throw InputError("check kind 'ordered' needs series and an order of at least two values");
  // Groups of equal rank (plain lists: one value each).
  std::vector<std::size_t> group = c.spec.order_group;
  if (group.size() != order.size()) {
    group.resize(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) group[k] = k;
  }
  std::string list;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const bool first_of_group = k == 0 || group[k] != group[k - 1];
    const bool last_of_group = k + 1 == order.size() || group[k + 1] != group[k];
    const bool grouped = !(first_of_group && last_of_group);
    if (k > 0) list += first_of_group ? (c.spec.decreasing ? " >= " : " <= ") : ", ";
    if (grouped && first_of_group) list += "{";
    list += c.spec.series + "=" + order[k];
    if (grouped && last_of_group) list += "}";
  }
  r.expected = c.spec.y + " at " + list + (c.spec.factor != 1 ? fmt::format(" by a factor {}", num(c.spec.factor)) : "") +
               (c.spec.sem > 0 ? fmt::format(" within {} standard errors", c.spec.sem) : "");

  // Groups: rows equal in every grid axis except the series (x included), in table order.
  std::vector<std::pair<std::string, std::vector<const Point*>>> groups;
  const auto points = c.select();
  // Standard errors of y over the runs, for the `sem` tolerance.
  std::size_t y_index = c.table.metric_names.size();
  for (std::size_t k = 0; k < c.table.metric_names.size(); ++k)
    if (c.table.metric_names[k] == c.spec.y) y_index = k;
  auto sem_of = [&](const Point* p) { return y_index < p->row->sem.size() ? p->row->sem[y_index] : 0.0; };
  for (const Point& p : points) {
    // Axes fixed by `where` (a value, not a comparison) are left out: in a multi-part sweep only
    // some parts have them.
    std::string key = c.spec.x + "=" + param_of(*p.row, c.spec.x).text;
    if (c.spec.series != "part" && p.row->params.has("part")) key += " part=" + p.row->params.entry("part").text;
    auto fixed = [&](const std::string& name) {
      const auto it = c.spec.where.find(name);
      return it != c.spec.where.end() && !is_where_comparison(it->second);
    };
    for (const auto& axis : c.sweep.grid)
      if (axis.name != c.spec.series && axis.name != c.spec.x && !fixed(axis.name) && p.row->params.has(axis.name))
        key += " " + axis.name + "=" + p.row->params.entry(axis.name).text;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) groups.push_back({key, {}}), it = groups.end() - 1;
    it->second.push_back(&p);
  }
  if (points.empty()) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }

  std::size_t checked = 0, skipped = 0, violated = 0;
  double worst_excess = -INFINITY;
  std::string worst_text;
  for (const auto& [key, members] : groups) {
    std::vector<double> ys, sems;
    for (const auto& value : order) {
      auto hit = std::find_if(members.begin(), members.end(),
                              [&](const Point* p) { return entry_matches(param_of(*p->row, c.spec.series), value); });
      if (hit == members.end()) break;
      ys.push_back((*hit)->y);
      sems.push_back(sem_of(*hit));
    }
    if (ys.size() < order.size()) {
      ++skipped;
      continue;
    }
    ++checked;
    bool bad = false;
    // Every member of a group against every member of the next group.
    for (std::size_t k = 0; k < ys.size(); ++k)
      for (std::size_t l = k + 1; l < ys.size(); ++l) {
        if (group[l] != group[k] + 1) continue;
        const double a = ys[k], b = ys[l];
        const double slack = c.spec.sem > 0 ? c.spec.sem * std::hypot(sems[k], sems[l]) : 0.0;
        const double f = c.spec.factor;  // a margin: the later value at least f times the earlier
        const bool ok = c.spec.decreasing ? a >= f * b - slack : f * a <= b + slack;
        if (ok) continue;
        bad = true;
        double excess = std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-300});
        if (std::isnan(excess)) excess = INFINITY;
        if (excess > worst_excess) {
          worst_excess = excess;
          worst_text = fmt::format("at {}: {} {} (={}) {} {} (={})", key, c.spec.y, num(a), order[k],
                                   c.spec.decreasing ? "<" : ">", num(b), order[l]);
        }
      }
    violated += bad;
  }
  const std::string skip_text = skipped ? fmt::format(", {} skipped (a series missing)", skipped) : "";
  if (checked == 0) {
    r.judged = false;
    r.measured = fmt::format("no {} value where every series of {} is present", c.spec.x, c.spec.series);
    return;
  }
  r.passed = violated == 0;
  r.measured = r.passed ? fmt::format("in order at all {} {} values{}", checked, c.spec.x, skip_text)
                        : fmt::format("out of order at {} of {} {} values{}; worst {}", violated, checked, c.spec.x,
                                      skip_text, worst_text);
}

// ---- reaches: where y first crosses a threshold as x grows --------------------------------------
void check_reaches(const Context& c, CheckResult& r) {
  c.require_x();
  const auto& s = c.spec;
  const std::string cmp = s.rising ? " >= " : " <= ";
  r.expected = s.y + cmp + num(s.threshold) + " first at ";
  if (s.after && s.before) r.expected += num(*s.after) + " <= " + s.x + " <= " + num(*s.before);
  else if (s.before) r.expected += s.x + " <= " + num(*s.before);
  else if (s.after) r.expected += s.x + " >= " + num(*s.after);
  else r.expected += "some " + s.x;

  auto points = c.select();
  if (points.empty()) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  const auto hit = std::find_if(points.begin(), points.end(),
                                [&](const Point& p) { return s.rising ? p.y >= s.threshold : p.y <= s.threshold; });
  if (hit == points.end()) {
    // Best value seen, to tell how far from the threshold the curve stays.
    const auto best = std::min_element(points.begin(), points.end(), [&](const Point& a, const Point& b) {
      return s.rising ? a.y > b.y : a.y < b.y;
    });
    r.passed = !s.before;  // not reached in the range: that is "after" it
    r.measured = fmt::format("never reached for {} up to {}; closest {} {} at {}{}", s.x, num(points.back().x), s.y,
                             num(best->y), c.where_text(*best->row),
                             r.passed ? " (so reached after the range)" : "");
    return;
  }
  r.passed = (!s.before || hit->x <= *s.before) && (!s.after || hit->x >= *s.after);
  r.measured = fmt::format("first reached at {}={} ({} {})", s.x, num(hit->x), s.y, num(hit->y));
}

// ---- optimum: the argmin of y over x per series value, and its scaling with the series value ----
void check_optimum(const Context& c, CheckResult& r) {
  c.require_x();
  r.expected = "slope of log argmin_" + c.spec.x + " " + c.spec.y + " in log " + c.spec.series + ": " +
               (c.spec.at_least || c.spec.at_most ? c.spec.slope_text() : num(c.spec.expect) + " +- " + num(c.spec.tol));
  std::map<double, std::vector<std::pair<double, double>>> curves;  // series value -> (x, y)
  for (const Point& p : c.select()) {
    const double s = param_of(*p.row, c.spec.series).number;
    if (std::isfinite(p.x) && p.x > 0 && std::isfinite(p.y)) curves[s].push_back({p.x, p.y});
  }
  std::vector<double> ls, lx;
  std::string list;
  for (auto& [s, pts] : curves) {
    std::sort(pts.begin(), pts.end());
    const auto best = std::min_element(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const auto i = static_cast<std::size_t>(best - pts.begin());
    double x_star = best->first;
    if (i > 0 && i + 1 < pts.size()) {
      // Parabola through the three points in log x: its vertex.
      const double x0 = std::log(pts[i - 1].first), x1 = std::log(pts[i].first), x2 = std::log(pts[i + 1].first);
      const double y0 = pts[i - 1].second, y1 = pts[i].second, y2 = pts[i + 1].second;
      const double den = (x0 - x1) * (x0 - x2) * (x1 - x2);
      const double A = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den;
      const double B = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den;
      if (A > 0) x_star = std::exp(std::clamp(-B / (2 * A), x0, x2));
    } else {
      list += (list.empty() ? "" : ", ") + std::string("(at the edge) ");
    }
    if (s > 0) ls.push_back(std::log(s)), lx.push_back(std::log(x_star));
    list += (list.empty() || list.back() == ' ' ? "" : ", ") + c.spec.series + "=" + num(s) + ": " + num(x_star);
  }
  if (curves.empty()) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }
  const LineFit fit = fit_line(ls, lx);
  if (std::isnan(fit.slope)) {
    r.judged = false;
    r.measured = "fewer than two series values with an optimum (" + list + ")";
    return;
  }
  r.passed = c.spec.slope_ok(fit.slope);
  r.measured = fmt::format("argmin slope {:.3f} (R^2 {:.3f}); argmin {}", fit.slope, fit.r2, list);
}

CheckResult evaluate_one(const Sweep& sweep, const Table& table, const CheckSpec& spec) {
  CheckResult r;
  r.claim = spec.claim;
  r.kind = spec.kind;
  r.known_failure = spec.known_failure;
  r.refs = spec.refs;
  r.substitute = spec.substitute;
  r.reduced = sweep.reduced;
  r.index = spec.index;
  const Context c{sweep, table, spec};
  try {
    if (spec.kind == "slope") check_slope(c, r);
    else if (spec.kind == "below") check_bound(c, r, true);
    else if (spec.kind == "above") check_bound(c, r, false);
    else if (spec.kind == "ordered") check_ordered(c, r);
    else if (spec.kind == "reaches") check_reaches(c, r);
    else if (spec.kind == "optimum") check_optimum(c, r);
    else throw InputError("unknown check kind '" + spec.kind + "'");
  } catch (const std::exception& e) {
    r.passed = false;
    r.judged = false;
    r.measured = std::string("cannot evaluate: ") + e.what();
  }
  return r;
}

}  // namespace

std::vector<CheckResult> evaluate_checks(const Sweep& sweep, const Table& table) {
  std::vector<CheckResult> out;
  out.reserve(sweep.checks.size());
  for (const auto& spec : sweep.checks) out.push_back(evaluate_one(sweep, table, spec));
  return out;
}

}  // namespace scalinglab
