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

#include "scalinglab/claims/margin.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/stats.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"

namespace scalinglab {

nlohmann::json CheckResult::to_json() const {
  nlohmann::json j = {{"claim", claim}, {"kind", kind}, {"passed", passed}, {"measured", measured}, {"expected", expected}};
  if (!known_failure.empty()) j["known_failure"] = known_failure;
  if (!refs.empty()) j["ref"] = refs;
  if (!substitute.empty()) j["substitute"] = substitute;
  if (!reduced.empty()) j["reduced"] = reduced;
  if (index > 0) j["index"] = index;
  if (!not_evidence.empty()) j["not_evidence"] = not_evidence;
  if (!std::isnan(margin)) {
    j["margin"] = std::isinf(margin) ? nlohmann::json(margin > 0 ? "inf" : "-inf") : nlohmann::json(margin);
    j["margin_unit"] = margin_unit;
  }
  j["category"] = category();
  return j;
}

const char* CheckResult::status() const { return passed ? "PASS" : known_failure.empty() ? "FAIL" : "KNOWN FAIL"; }

const char* CheckResult::category() const {
  if (!passed) return "not reproduced";
  if (!substitute.empty()) return "substitute";
  if (!not_evidence.empty()) return "not evidence";
  return reduced.empty() ? "reproduced" : "reduced";
}

std::string CheckResult::line() const {
  std::string out = std::string(status()) + "  ";
  if (!substitute.empty()) out += "(substitute) ";
  if (!not_evidence.empty()) out += "(not evidence) ";
  out += claim + ": " + measured + " (expected " + expected + ")";
  const std::string m = margin_text(margin, margin_unit);
  if (!m.empty()) out += " [margin " + m + "]";
  if (!passed && !known_failure.empty()) out += " [known: " + known_failure + "]";
  return terminal_text(out);  // claims and measured text come from sweep files: no escape sequence runs
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
  const std::vector<TaskResult>* results = nullptr;

  // Standard error over the runs of metric `name` at a row (0 when unknown).
  double sem_of(const Table::Row& row, const std::string& name) const {
    for (std::size_t k = 0; k < table.metric_names.size(); ++k)
      if (table.metric_names[k] == name) return k < row.sem.size() && std::isfinite(row.sem[k]) ? row.sem[k] : 0.0;
    return 0.0;
  }

  // x of a row: its parameter, or the mean of a metric (an x axis along a measured quantity).
  double x_of(const Table::Row& row) const {
    if (row.params.has(spec.x)) return row.params.entry(spec.x).number;
    const auto& names = table.metric_names;
    if (std::find(names.begin(), names.end(), spec.x) != names.end()) return row.mean.at(table.metric_index(spec.x));
    throw InputError("unknown parameter or metric '" + spec.x + "'");
  }

  // A bound formula at a row: its numeric parameters and its other metrics (their means, or their
  // spread with the suffix _std or _sem: "chinchilla_excess", "0.5 + 4*second_moment_sem").
  double bound_at(const Expression& bound, const Table::Row& row) const {
    return bound.eval([&](const std::string& name) -> std::optional<double> {
      if (row.params.has(name)) {
        const double v = row.params.entry(name).number;
        if (!std::isnan(v)) return v;
      }
      for (std::size_t k = 0; k < table.metric_names.size(); ++k) {
        const std::string& m = table.metric_names[k];
        if (name == m) return row.mean[k];
        if (name == m + "_sem") return row.sem[k];
        if (name == m + "_std") return row.std[k];
      }
      return std::nullopt;
    });
  }

  // Rows matching `where` and the x range, with x and y looked up once (`scalar_xy` false: x and y
  // are series metrics, read from the runs' records; the rows are selected by `where` alone).
  std::vector<Point> select(bool scalar_xy = true) const {
    if (!scalar_xy) {
      std::vector<Point> out;
      for (const auto& [name, value] : spec.where)
        if (std::find(table.param_names.begin(), table.param_names.end(), name) == table.param_names.end())
          throw InputError("unknown parameter '" + name + "' in where");
      for (const auto& row : table.rows)
        if (params_match(row.params, spec.where)) out.push_back({&row, kNaN, kNaN});
      return out;
    }
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

void set_margin(CheckResult& r, const Margin& m) {
  r.margin = m.value;
  r.margin_unit = m.unit;
}

// ---- slope: least squares of log y on log x ----------------------------------------------------
void check_slope(const Context& c, CheckResult& r) {
  c.require_x();
  r.expected = c.spec.at_least || c.spec.at_most ? c.spec.slope_text() : num(c.spec.expect) + " +- " + num(c.spec.tol);
  std::vector<double> lx, ly, var;  // var: variance of log y from the mean's standard error
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
    const double rel = c.sem_of(*p.row, c.spec.y) / p.y;
    var.push_back(rel * rel);
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
  // The slope's standard error from the points' own (independent draws per point): sum_i w_i ly_i
  // with w_i = (lx_i - mean lx) / Sxx, so var = sum_i w_i^2 var_i.
  double mx = 0, sxx = 0, v = 0;
  for (double x : lx) mx += x / static_cast<double>(lx.size());
  for (double x : lx) sxx += (x - mx) * (x - mx);
  for (std::size_t i = 0; i < lx.size(); ++i) v += (lx[i] - mx) * (lx[i] - mx) * var[i];
  set_margin(r, slope_margin(fit.slope, sxx > 0 ? std::sqrt(v) / sxx : 0.0, c.spec.slope_low(), c.spec.slope_high()));
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
  std::vector<Gap> gaps;
  for (const Point& p : points) {
    const double b = c.bound_at(bound, *p.row);
    const bool ok = below ? p.y <= b : p.y >= b;  // NaN on either side fails
    if (!ok) ++violations;
    const double se = c.sem_of(*p.row, c.spec.y);
    gaps.push_back(below ? Gap{p.y, b, se} : Gap{b, p.y, se});
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
  set_margin(r, worst_margin(gaps));
}

// ---- ordered: the series are stacked in the given order at every x ------------------------------

// "y at d=1 <= d=2" with groups, factor, and the tie allowance or significance required.
std::string order_text(const CheckSpec& spec, const std::vector<std::size_t>& group) {
  const auto& order = spec.order;
  std::string list;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const bool first_of_group = k == 0 || group[k] != group[k - 1];
    const bool last_of_group = k + 1 == order.size() || group[k + 1] != group[k];
    const bool grouped = !(first_of_group && last_of_group);
    if (k > 0) list += first_of_group ? (spec.decreasing ? (spec.significant > 0 ? " > " : " >= ") : (spec.significant > 0 ? " < " : " <= ")) : ", ";
    if (grouped && first_of_group) list += "{";
    list += spec.series + "=" + order[k];
    if (grouped && last_of_group) list += "}";
  }
  return spec.y + " at " + list + (spec.factor != 1 ? fmt::format(" by a factor {}", num(spec.factor)) : "") +
         (spec.sem > 0 ? fmt::format(" within {} standard errors", spec.sem) : "") +
         (spec.significant > 0 ? fmt::format(" by more than {} standard errors", spec.significant) : "");
}

std::vector<std::size_t> order_groups(const CheckSpec& spec) {
  std::vector<std::size_t> group = spec.order_group;
  if (group.size() != spec.order.size()) {
    group.resize(spec.order.size());
    for (std::size_t k = 0; k < spec.order.size(); ++k) group[k] = k;
  }
  return group;
}

// Judges one group of values (y and its standard error per element of `order`): every member of a
// rank against every member of the next. Appends each pair's comparison to `gaps`; returns whether
// all pairs are in order and, if not, the worst pair in words.
struct PairVerdict {
  bool ok = true;
  std::string worst;
  double worst_excess = -INFINITY;
};
PairVerdict judge_pairs(const CheckSpec& spec, const std::vector<std::size_t>& group, const std::vector<double>& ys,
                        const std::vector<double>& sems, const std::string& key, std::vector<Gap>& gaps) {
  PairVerdict v;
  for (std::size_t k = 0; k < ys.size(); ++k)
    for (std::size_t l = k + 1; l < ys.size(); ++l) {
      if (group[l] != group[k] + 1) continue;
      const double a = ys[k], b = ys[l];
      const double f = spec.factor;  // a margin: the later value at least f times the earlier
      // lhs <= rhs is the order: f a <= b (increasing) or f b <= a (decreasing).
      const double lhs = spec.decreasing ? f * b : f * a, rhs = spec.decreasing ? a : b;
      const double se = spec.decreasing ? std::hypot(sems[k], f * sems[l]) : std::hypot(f * sems[k], sems[l]);
      const double offset = spec.sem > 0 ? spec.sem : -spec.significant;
      gaps.push_back({lhs, rhs, se, offset});
      bool ok;
      if (spec.significant > 0) ok = se > 0 ? rhs - lhs > spec.significant * se : rhs > lhs;
      else ok = lhs <= rhs + (spec.sem > 0 ? spec.sem * se : 0.0);
      if (ok) continue;
      v.ok = false;
      double excess = std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-300});
      if (std::isnan(excess)) excess = INFINITY;
      if (excess > v.worst_excess) {
        v.worst_excess = excess;
        const bool tie = spec.significant > 0 && rhs - lhs > 0;
        v.worst = fmt::format("at {}: {} {} (={}) {} {} (={}){}", key, spec.y, num(a), spec.order[k],
                              tie ? "~" : spec.decreasing ? "<" : ">", num(b), spec.order[l],
                              tie ? fmt::format(", a difference of {} standard errors", num((rhs - lhs) / se)) : "");
      }
    }
  return v;
}

void check_ordered(const Context& c, CheckResult& r) {
  c.require_x();
  const auto& order = c.spec.order;
  if (c.spec.series.empty() || order.size() < 2)
    throw InputError("check kind 'ordered' needs series and an order of at least two values");
  const std::vector<std::size_t> group = order_groups(c.spec);
  r.expected = order_text(c.spec, group);

  // Groups: rows equal in every grid axis except the series (x included), in table order.
  std::vector<std::pair<std::string, std::vector<const Point*>>> groups;
  const auto points = c.select();
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
  std::vector<Gap> gaps;
  for (const auto& [key, members] : groups) {
    std::vector<double> ys, sems;
    for (const auto& value : order) {
      auto hit = std::find_if(members.begin(), members.end(),
                              [&](const Point* p) { return entry_matches(param_of(*p->row, c.spec.series), value); });
      if (hit == members.end()) break;
      ys.push_back((*hit)->y);
      sems.push_back(c.sem_of(*(*hit)->row, c.spec.y));
    }
    if (ys.size() < order.size()) {
      ++skipped;
      continue;
    }
    ++checked;
    const PairVerdict v = judge_pairs(c.spec, group, ys, sems, key, gaps);
    if (v.ok) continue;
    ++violated;
    if (v.worst_excess > worst_excess) worst_excess = v.worst_excess, worst_text = v.worst;
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
  set_margin(r, worst_margin(gaps));
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
  // Margin: `before` needs some row at x <= before past the threshold (the best of them counts);
  // `after` needs every row at x < after short of it (the worst counts).
  {
    std::vector<Gap> reached, short_of;  // "y <= threshold" (falling) and its opposite
    for (const Point& p : points) {
      const double se = c.sem_of(*p.row, s.y);
      const Gap past = s.rising ? Gap{s.threshold, p.y, se} : Gap{p.y, s.threshold, se};
      const Gap not_past = s.rising ? Gap{p.y, s.threshold, se} : Gap{s.threshold, p.y, se};
      if (s.before && p.x <= *s.before) reached.push_back(past);
      if (s.after && p.x < *s.after) short_of.push_back(not_past);
    }
    std::vector<Gap> all = reached;
    all.insert(all.end(), short_of.begin(), short_of.end());
    const std::string unit = margin_unit(all.empty() ? std::vector<Gap>{Gap{1, 1, 0}} : all);
    double m = INFINITY;
    if (s.before) {
      double best = -INFINITY;
      for (const auto& g : reached) best = std::max(best, gap_margin(g, unit));
      m = std::min(m, best);
    }
    for (const auto& g : short_of) m = std::min(m, gap_margin(g, unit));
    set_margin(r, {m, unit});
  }
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
  set_margin(r, slope_margin(fit.slope, 0.0, c.spec.slope_low(), c.spec.slope_high()));
}

// ---- within: y matches a formula, two-sided -----------------------------------------------------
void check_within(const Context& c, CheckResult& r) {
  const auto& s = c.spec;
  std::string allowance;
  if (s.sem > 0) allowance = fmt::format("{} standard errors", num(s.sem));
  if (s.rtol > 0) allowance += (allowance.empty() ? "" : " + ") + fmt::format("{}%", num(100 * s.rtol));
  r.expected = s.y + " = " + s.bound + " within " + allowance;
  const Expression bound(s.bound);
  const auto points = c.select();
  if (points.empty()) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }
  std::size_t violations = 0;
  const Point* worst = nullptr;
  double worst_b = 0, worst_m = INFINITY;
  std::vector<double> margins;
  bool statistical = false;
  for (const Point& p : points) statistical = statistical || c.sem_of(*p.row, s.y) > 0;
  const std::string unit = statistical ? "sem" : (s.rtol > 0 ? "ratio" : "abs");
  for (const Point& p : points) {
    const double b = c.bound_at(bound, *p.row), se = c.sem_of(*p.row, s.y);
    const double allowed = s.sem * se + s.rtol * std::abs(b), dev = std::abs(p.y - b);
    const bool ok = dev <= allowed;  // NaN fails
    if (!ok) ++violations;
    double m = allowed - dev;  // abs
    if (unit == "sem") m = se > 0 ? m / se : (m > 0 ? INFINITY : m < 0 ? -INFINITY : 0.0);
    else if (unit == "ratio") m = b != 0 ? m / std::abs(b) : (m >= 0 ? INFINITY : -INFINITY);
    if (std::isnan(m)) m = -INFINITY;
    if (!worst || m < worst_m) worst = &p, worst_m = m, worst_b = b;
  }
  r.passed = violations == 0;
  r.margin = worst_m;
  r.margin_unit = unit;
  const double se = c.sem_of(*worst->row, s.y);
  r.measured = fmt::format("{}; {} at {}: {} {} against {} ({}{})",
                           r.passed ? fmt::format("all {} points within", points.size())
                                    : fmt::format("{} of {} points outside", violations, points.size()),
                           r.passed ? "closest to the edge" : "worst", c.where_text(*worst->row), s.y, num(worst->y),
                           num(worst_b), worst_b != 0 ? fmt::format("{:+.3g}%", 100 * (worst->y / worst_b - 1)) : "",
                           se > 0 ? fmt::format(", {:+.3g} standard errors", (worst->y - worst_b) / se) : "");
}

// ---- approaches: y tends to a limit along x -------------------------------------------------------
void check_approaches(const Context& c, CheckResult& r) {
  c.require_x();
  const auto& s = c.spec;
  r.expected = fmt::format("{} rising to {} from {} along {}: monotonically, ending within {} x its first distance",
                           s.y, num(s.limit), s.from_above ? "above" : "below", s.x, num(s.shrink));
  if (s.from_above) r.expected.replace(r.expected.find("rising"), 6, "falling");
  auto points = c.select();
  std::vector<Point> usable;
  for (const Point& p : points)
    if (std::isfinite(p.x)) usable.push_back(p);
  if (usable.size() < 2) {
    r.judged = false;
    r.measured = usable.empty() ? c.empty_message() : "only one point";
    return;
  }
  std::stable_sort(usable.begin(), usable.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  // Every condition as lhs <= rhs in y's units: the side, each step towards the limit, the shrink.
  std::vector<Gap> gaps;
  std::string failed;
  auto gap_of = [&](const Point& p) { return s.from_above ? p.y - s.limit : s.limit - p.y; };  // > 0 on the side
  for (std::size_t i = 0; i < usable.size(); ++i) {
    const double g = gap_of(usable[i]);
    gaps.push_back({0.0, g, 0.0});
    if (!(g > 0) && failed.empty())
      failed = fmt::format("{} {} the limit at {}={}", num(usable[i].y), s.from_above ? "<=" : ">=", s.x, num(usable[i].x));
    if (i > 0) {
      const double prev = gap_of(usable[i - 1]);
      gaps.push_back({g, prev, 0.0});
      if (!(g <= prev) && failed.empty())
        failed = fmt::format("moves away from the limit between {}={} and {}: {} then {}", s.x, num(usable[i - 1].x),
                             num(usable[i].x), num(usable[i - 1].y), num(usable[i].y));
    }
  }
  const double first = gap_of(usable.front()), last = gap_of(usable.back());
  gaps.push_back({last, s.shrink * first, 0.0});
  if (!(last <= s.shrink * first) && failed.empty())
    failed = fmt::format("its distance to the limit only goes from {} to {} ({} x, more than {})", num(first), num(last),
                         num(last / first), num(s.shrink));
  r.passed = failed.empty();
  double m = INFINITY;
  for (const auto& g : gaps) m = std::min(m, std::isnan(g.rhs - g.lhs) ? -INFINITY : g.rhs - g.lhs);
  r.margin = m;
  r.margin_unit = "abs";
  const std::string path = fmt::format("{} {} at {}={} to {} at {}={} (distance {} to {}, {} x)", s.y, num(usable.front().y),
                                       s.x, num(usable.front().x), num(usable.back().y), s.x, num(usable.back().x),
                                       num(first), num(last), num(last / first));
  r.measured = r.passed ? path : "not approaching: " + failed + "; " + path;
}

// ---- equal_compute: curves compared at the same compute -------------------------------------------

// y of a curve at compute x0, interpolated linearly in log-log between the recorded points around
// it (NaN when x0 is outside the curve or a value is not positive).
double curve_at(const std::vector<double>& xs, const std::vector<double>& ys, double x0) {
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double a = xs[i], b = xs[i + 1];
    if (!(a > 0 && b > a) || x0 < a || x0 > b) continue;
    if (!(ys[i] > 0 && ys[i + 1] > 0)) return kNaN;
    const double t = (std::log(x0) - std::log(a)) / (std::log(b) - std::log(a));
    return std::exp(std::log(ys[i]) + t * (std::log(ys[i + 1]) - std::log(ys[i])));
  }
  if (n > 0 && xs[n - 1] == x0) return ys[n - 1];
  return kNaN;
}

void check_equal_compute(const Context& c, CheckResult& r) {
  const auto& s = c.spec;
  const std::vector<std::size_t> group = order_groups(s);
  const bool first_budget = !s.at && s.at_rule == "first";
  r.expected = order_text(s, group) + " at " +
               (s.at ? s.x + " = " + num(*s.at)
                     : first_budget ? "the " + s.x + " " + s.series + "=" + s.order.front() + " ends at (each curve's best within it)"
                                    : "the largest " + s.x + " every curve reaches");
  if (!c.results) {
    r.judged = false;
    r.measured = "the runs' records are not available to compare curves";
    return;
  }
  // Each selected row's runs: its curve (x, y) per run.
  struct Curves {
    const Point* point;
    std::vector<std::pair<const std::vector<double>*, const std::vector<double>*>> runs;
  };
  const auto points = c.select(false);
  if (points.empty()) {
    r.judged = false;
    r.measured = c.empty_message();
    return;
  }
  std::map<std::string, std::size_t> key_of_point;
  std::vector<Curves> curves;
  for (const Point& p : points) {
    curves.push_back({&p, {}});
    key_of_point[p.row->key] = curves.size() - 1;
  }
  for (const auto& t : *c.results) {
    const auto it = key_of_point.find(t.key);
    if (it == key_of_point.end()) continue;
    const std::vector<double>*xs = nullptr, *ys = nullptr;
    for (const auto& [name, v] : t.record.series) {
      if (name == s.x) xs = &v;
      if (name == s.y) ys = &v;
    }
    if (xs && ys) curves[it->second].runs.push_back({xs, ys});
  }
  double at = s.at ? *s.at : INFINITY;
  if (!s.at)
    for (const auto& cv : curves) {
      if (first_budget && !entry_matches(param_of(*cv.point->row, s.series), s.order.front())) continue;
      for (const auto& [xs, ys] : cv.runs)
        if (!xs->empty()) at = std::min(at, xs->back());
    }
  if (!std::isfinite(at)) {
    r.judged = false;
    r.measured = "no curve of " + s.y + " against " + s.x + " in the runs' records";
    return;
  }
  // Groups by every grid axis but the series, as `ordered` does; each curve's value at `at` is the
  // mean over its runs, with its standard error.
  std::map<std::string, std::vector<std::pair<const Curves*, Summary>>> groups;
  std::vector<std::string> order_of_keys;
  std::size_t outside = 0;
  for (const auto& cv : curves) {
    std::string key;
    if (s.series != "part" && cv.point->row->params.has("part")) key += "part=" + cv.point->row->params.entry("part").text;
    for (const auto& axis : c.sweep.grid)
      if (axis.name != s.series && cv.point->row->params.has(axis.name))
        key += (key.empty() ? "" : " ") + axis.name + "=" + cv.point->row->params.entry(axis.name).text;
    Summary sum;
    for (const auto& [xs, ys] : cv.runs) {
      double v = curve_at(*xs, *ys, at);
      if (first_budget) {  // the best the run reached within the budget
        for (std::size_t i = 0; i < std::min(xs->size(), ys->size()); ++i)
          if ((*xs)[i] <= at && std::isfinite((*ys)[i]) && !((*ys)[i] >= v)) v = (*ys)[i];
      }
      if (std::isnan(v)) ++outside;
      else sum.add(v);
    }
    if (!groups.count(key)) order_of_keys.push_back(key);
    groups[key].push_back({&cv, sum});
  }
  std::size_t checked = 0, skipped = 0, violated = 0;
  double worst_excess = -INFINITY;
  std::string worst_text, values;
  std::vector<Gap> gaps;
  for (const auto& key : order_of_keys) {
    const auto& members = groups[key];
    std::vector<double> ys, sems;
    for (const auto& value : s.order) {
      auto hit = std::find_if(members.begin(), members.end(), [&](const auto& m) {
        return entry_matches(param_of(*m.first->point->row, s.series), value) && m.second.count > 0;
      });
      if (hit == members.end()) break;
      ys.push_back(hit->second.mean);
      sems.push_back(hit->second.sem());
    }
    if (ys.size() < s.order.size()) {
      ++skipped;
      continue;
    }
    ++checked;
    if (values.empty())
      for (std::size_t k = 0; k < ys.size(); ++k)
        values += (values.empty() ? "" : ", ") + s.series + "=" + s.order[k] + " " + num(ys[k]);
    const PairVerdict v = judge_pairs(s, group, ys, sems, key.empty() ? s.x + "=" + num(at) : key, gaps);
    if (v.ok) continue;
    ++violated;
    if (v.worst_excess > worst_excess) worst_excess = v.worst_excess, worst_text = v.worst;
  }
  if (checked == 0) {
    r.judged = false;
    r.measured = fmt::format("no group where every curve of {} reaches {} = {}{}", s.series, s.x, num(at),
                             outside ? fmt::format(" ({} runs end before it)", outside) : "");
    return;
  }
  r.passed = violated == 0;
  r.measured = fmt::format("at {} = {}: {}{}", s.x, num(at), values,
                           r.passed ? "; in order" : fmt::format("; out of order in {} of {} groups, worst {}", violated,
                                                                  checked, worst_text));
  if (skipped) r.measured += fmt::format(" ({} groups skipped: a curve missing)", skipped);
  set_margin(r, worst_margin(gaps));
}

CheckResult evaluate_one(const Sweep& sweep, const Table& table, const CheckSpec& spec,
                         const std::vector<TaskResult>* results) {
  CheckResult r;
  r.claim = spec.claim;
  r.kind = spec.kind;
  r.known_failure = spec.known_failure;
  r.refs = spec.refs;
  r.substitute = spec.substitute;
  r.reduced = sweep.reduced;
  r.index = spec.index;
  r.not_evidence = spec.not_evidence;
  const Context c{sweep, table, spec, results};
  try {
    if (spec.kind == "slope") check_slope(c, r);
    else if (spec.kind == "below") check_bound(c, r, true);
    else if (spec.kind == "above") check_bound(c, r, false);
    else if (spec.kind == "ordered") check_ordered(c, r);
    else if (spec.kind == "reaches") check_reaches(c, r);
    else if (spec.kind == "optimum") check_optimum(c, r);
    else if (spec.kind == "within") check_within(c, r);
    else if (spec.kind == "approaches") check_approaches(c, r);
    else if (spec.kind == "equal_compute") check_equal_compute(c, r);
    else throw InputError("unknown check kind '" + spec.kind + "'");
  } catch (const std::exception& e) {
    r.passed = false;
    r.judged = false;
    r.measured = std::string("cannot evaluate: ") + e.what();
  }
  return r;
}

}  // namespace

std::vector<CheckResult> evaluate_checks(const Sweep& sweep, const Table& table,
                                         const std::vector<TaskResult>* results) {
  std::vector<CheckResult> out;
  out.reserve(sweep.checks.size());
  for (const auto& spec : sweep.checks) out.push_back(evaluate_one(sweep, table, spec, results));
  return out;
}

}  // namespace scalinglab
