// [[check]]: the claims of the paper a sweep tests, checked against the measure's parameters and
// metrics; which of them apply under the profile run.
#include "sweep_reader.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"

namespace scalinglab {

CheckSpec SweepReader::check(const toml::node* n, std::size_t index) const {
  const std::string name = "[[check]] #" + std::to_string(index + 1);
  const auto& t = table(n, name);
  const Keys kinds = {"slope", "below", "above", "ordered", "reaches", "optimum", "within", "approaches", "equal_compute"};
  Keys allowed = {"claim", "profiles", "known_failure", "ref", "substitute", "counterfactual", "not_evidence"};
  allowed.insert(allowed.end(), kinds.begin(), kinds.end());
  allow_keys(t, allowed, name);
  CheckSpec c;
  if (!t.contains("claim")) fail(n, name + ": needs a claim (the paper's words)");
  c.claim = string(t.get("claim"), name + " claim");
  if (auto kv = t.get("known_failure")) c.known_failure = string(kv, name + " known_failure");
  if (auto kv = t.get("substitute")) {
    c.substitute = string(kv, name + " substitute");
    if (c.substitute.empty()) fail(kv, name + " substitute: say why the setting differs from the paper's");
  }
  if (auto rv = t.get("ref")) {
    if (const auto* list = rv->as_array()) {
      if (list->empty()) fail(rv, name + " ref: a paper item (\"Fig. 4\") or a non-empty list of them");
      for (const auto& e : *list) c.refs.push_back(string(&e, name + " ref"));
    } else {
      c.refs.push_back(string(rv, name + " ref"));
    }
    for (const auto& id : c.refs)
      if (id.empty()) fail(rv, name + " ref: an empty item name");
  }
  if (auto kv = t.get("not_evidence")) {
    c.not_evidence = string(kv, name + " not_evidence");
    if (c.not_evidence.empty()) fail(kv, name + " not_evidence: say why no plausible wrong model makes it fail");
    if (!c.substitute.empty() || !c.known_failure.empty())
      fail(kv, name + " not_evidence: a substitute or a known failure is no evidence already");
  }
  if (auto cv = t.get("counterfactual")) {
    // A known failure or a substitute is not counted as evidence: a wrong model it rejects says nothing.
    if (!c.known_failure.empty())
      fail(cv, name + " counterfactual: a known failure is not evidence, so it has no wrong model to reject");
    if (!c.substitute.empty()) fail(cv, name + " counterfactual: a substitute is not evidence, so it has no wrong model to reject");
    counterfactual(cv, name, c);
  }
  if (auto pv = t.get("profiles")) {
    const auto* list = pv->as_array();
    if (!list || list->empty()) fail(pv, name + " profiles: a non-empty list of profile names, e.g. [\"quick\"]");
    for (const auto& e : *list) c.profiles.push_back(string(&e, name + " profiles"));
  }
  for (const auto& k : kinds)
    if (t.contains(k)) {
      if (!c.kind.empty()) fail(n, name + ": has both " + c.kind + " and " + k + "; use one per [[check]]");
      c.kind = k;
    }
  if (c.kind.empty()) fail(n, name + ": needs one of " + join(kinds));
  const toml::node* kn = t.get(c.kind);
  const std::string key = name + " " + c.kind;
  const auto& k = table(kn, key);
  Keys fields = {"x", "y", "where", "x_min", "x_max"};
  const std::map<std::string, Keys> extra = {
      {"slope", {"expect", "tol", "at_least", "at_most"}},
      {"below", {"bound"}},
      {"above", {"bound"}},
      {"ordered", {"series", "order", "decreasing", "sem", "significant", "factor"}},
      {"reaches", {"threshold", "rising", "before", "after"}},
      {"optimum", {"series", "expect", "tol", "at_least", "at_most"}},
      {"within", {"bound", "sem", "rtol"}},
      {"approaches", {"limit", "from", "shrink"}},
      {"equal_compute", {"series", "order", "decreasing", "significant", "factor", "at"}}};
  fields.insert(fields.end(), extra.at(c.kind).begin(), extra.at(c.kind).end());
  allow_keys(k, fields, key);
  auto need = [&](const std::string& f) {
    if (!k.contains(f)) fail(kn, key + ": needs " + f);
    return k.get(f);
  };
  if (c.kind == "equal_compute") {
    // Curves: x and y are series metrics (compute and the quantity along training).
    c.x = series_metric(need("x"), key + " x");
    c.y = series_metric(need("y"), key + " y");
    if (k.contains("x_min") || k.contains("x_max")) fail(kn, key + ": x_min and x_max do not apply (use at)");
  } else {
    // slope, bounds and thresholds may run along a metric; ordered and optimum group rows by x values.
    x_axis(need("x"), c.x = string(need("x"), key + " x"), key + " x", c.kind != "ordered" && c.kind != "optimum");
    metric(need("y"), c.y = string(need("y"), key + " y"), key + " y");
  }
  if (auto v = k.get("where")) c.where = where(v, key);
  if (auto v = k.get("x_min")) c.x_min = number(v, key + " x_min");
  if (auto v = k.get("x_max")) c.x_max = number(v, key + " x_max");
  if (c.kind == "slope" || c.kind == "optimum") {
    const bool sided = k.contains("at_least") || k.contains("at_most");
    if (sided == (k.contains("expect") || k.contains("tol")))
      fail(kn, key + ": needs expect and tol (the slope within expect +- tol), or at_least and/or at_most (one-sided)");
    if (sided) {
      if (auto v = k.get("at_least")) c.at_least = number(v, key + " at_least");
      if (auto v = k.get("at_most")) c.at_most = number(v, key + " at_most");
      if (c.at_least && c.at_most && *c.at_least > *c.at_most) fail(kn, key + ": at_least above at_most");
    } else {
      c.expect = number(need("expect"), key + " expect");
      c.tol = number(need("tol"), key + " tol");
      if (!(c.tol >= 0)) fail(k.get("tol"), key + " tol: a tolerance >= 0");
    }
    if (c.kind == "optimum") param(need("series"), c.series = string(need("series"), key + " series"), key);
  } else if (c.kind == "below" || c.kind == "above") {
    c.bound = formula(need("bound"), key + " bound", "", true);
  } else if (c.kind == "within") {
    c.bound = formula(need("bound"), key + " bound", "", true);
    if (auto v = k.get("sem")) c.sem = number(v, key + " sem");
    if (auto v = k.get("rtol")) c.rtol = number(v, key + " rtol");
    if (!(c.sem >= 0) || !(c.rtol >= 0) || !std::isfinite(c.sem) || !std::isfinite(c.rtol) || (c.sem == 0 && c.rtol == 0))
      fail(kn, key + ": needs sem (standard errors of y) and/or rtol (a fraction of |bound|), >= 0 and not both 0");
  } else if (c.kind == "approaches") {
    c.limit = number(need("limit"), key + " limit");
    c.shrink = number(need("shrink"), key + " shrink");
    if (!(c.shrink > 0 && c.shrink < 1))
      fail(k.get("shrink"), key + " shrink: the last distance to the limit over the first, in (0, 1)");
    const std::string from = string(need("from"), key + " from");
    if (from != "below" && from != "above") fail(k.get("from"), key + " from: \"below\" (rising to the limit) or \"above\"");
    c.from_above = from == "above";
  } else if (c.kind == "ordered" || c.kind == "equal_compute") {
    const ParamSpec& sp = param(need("series"), c.series = string(need("series"), key + " series"), key);
    const auto* order = need("order")->as_array();
    if (!order || order->size() < 2) fail(kn, key + ": order needs a list of at least two series values");
    for (std::size_t g = 0; g < order->size(); ++g) {
      const toml::node* e = order->get(g);
      if (const auto* group = e->as_array()) {  // a group: its members share a rank
        if (group->empty()) fail(e, key + " order: empty group");
        for (const auto& m : *group) {
          if (m.is_array()) fail(&m, key + " order: groups do not nest");
          c.order.push_back(where_value(&m, sp, key + " order"));
          c.order_group.push_back(g);
        }
      } else {
        c.order.push_back(where_value(e, sp, key + " order"));
        c.order_group.push_back(g);
      }
    }
    if (auto v = k.get("decreasing")) c.decreasing = boolean(v, key + " decreasing");
    if (auto v = k.get("sem")) {
      c.sem = number(v, key + " sem");
      if (!(c.sem >= 0)) fail(v, key + " sem: a number of standard errors >= 0");
    }
    if (auto v = k.get("significant")) {
      c.significant = number(v, key + " significant");
      if (!(c.significant >= 0) || !std::isfinite(c.significant))
        fail(v, key + " significant: a number of standard errors >= 0 by which each pair must be in order");
    }
    if (c.sem > 0 && c.significant > 0)
      fail(kn, key + ": sem (ties within k sem pass) and significant (an order by more than k sem) exclude each other");
    if (auto v = k.get("at")) {
      if (v->is_string()) {
        c.at_rule = string(v, key + " at");
        if (c.at_rule != "common" && c.at_rule != "first")
          fail(v, key + " at: a compute value, \"common\" (the largest every curve reaches) or \"first\" (the budget of the "
                  "first curve of order, each curve's best within it)");
      } else {
        c.at = number(v, key + " at");
        if (!(*c.at > 0) || !std::isfinite(*c.at)) fail(v, key + " at: a compute > 0");
      }
    }
    if (auto v = k.get("factor")) {
      c.factor = number(v, key + " factor");
      if (!(c.factor > 0) || !std::isfinite(c.factor)) fail(v, key + " factor: a finite margin > 0 (10: ten times lower)");
    }
  } else {
    c.threshold = number(need("threshold"), key + " threshold");
    if (auto v = k.get("rising")) c.rising = boolean(v, key + " rising");
    if (auto v = k.get("before")) c.before = number(v, key + " before");
    if (auto v = k.get("after")) c.after = number(v, key + " after");
    if (!c.before && !c.after) fail(kn, key + ": needs before or after (or both: a window)");
  }
  return c;
}

void SweepReader::counterfactual(const toml::node* n, const std::string& name, CheckSpec& c) const {
  const std::string key = name + " counterfactual";
  const auto& t = table(n, key);
  allow_keys(t, {"set", "why", "below_paper"}, key);
  if (auto v = t.get("below_paper")) {
    c.counterfactual_below_paper = string(v, key + " below_paper");
    if (c.counterfactual_below_paper.empty())
      fail(v, key + " below_paper: say why a model outside the paper's range is still a plausible wrong one");
  }
  if (!t.contains("set") || !t.contains("why"))
    fail(n, key + ": needs set (\"name=value\" or a list of them, as --set) and why (the mechanism it breaks)");
  auto add = [&](const toml::node* e) {
    const std::string kv = string(e, key + " set");
    std::pair<std::string, std::string> assignment;
    try {
      assignment = split_assignment(kv);
    } catch (const InputError& err) {
      fail(e, key + " set: " + err.what());
    }
    if (assignment.first == "runs" || assignment.first == "seed" || assignment.first == "part")
      fail(e, key + " set: '" + assignment.first + "' does not change the model; set one of its parameters");
    param(e, assignment.first, key + " set");
    c.counterfactual.push_back(kv);
  };
  const toml::node* sv = t.get("set");
  if (const auto* list = sv->as_array()) {
    if (list->empty()) fail(sv, key + " set: a non-empty list");
    for (const auto& e : *list) add(&e);
  } else {
    add(sv);
  }
  c.counterfactual_why = string(t.get("why"), key + " why");
  if (c.counterfactual_why.empty()) fail(t.get("why"), key + " why: say which mechanism of the claim it breaks");
}

void SweepReader::checks(const toml::node* n, const std::string& profile, Sweep& s) const {
  const auto* arr = n->as_array();
  if (!arr) fail(n, "check: use [[check]] tables, one per claim");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    CheckSpec c = check(arr->get(i), i);
    c.index = i + 1;
    s.all_checks.push_back(c);
    for (const auto& name : c.profiles)
      if (name != "default" && std::find(s.profiles.begin(), s.profiles.end(), name) == s.profiles.end())
        s.profiles.push_back(name);
    // A check limited to some profiles applies only under them ("default": the file as written).
    const std::string current = profile.empty() || s.profile.empty() ? "default" : s.profile;
    if (c.profiles.empty() || std::find(c.profiles.begin(), c.profiles.end(), current) != c.profiles.end())
      s.checks.push_back(std::move(c));
  }
}

bool CheckSpec::slope_ok(double slope) const {
  if (at_least || at_most) return (!at_least || slope >= *at_least) && (!at_most || slope <= *at_most);
  return std::abs(slope - expect) <= tol;
}

double CheckSpec::slope_low() const {
  if (at_least || at_most) return at_least ? *at_least : -INFINITY;
  return expect - tol;
}

double CheckSpec::slope_high() const {
  if (at_least || at_most) return at_most ? *at_most : INFINITY;
  return expect + tol;
}

std::string CheckSpec::slope_text() const {
  if (at_least && at_most) return "in [" + format_number(*at_least) + ", " + format_number(*at_most) + "]";
  if (at_least) return ">= " + format_number(*at_least);
  if (at_most) return "<= " + format_number(*at_most);
  return format_number(expect) + " +- " + format_number(tol);
}

}  // namespace scalinglab
