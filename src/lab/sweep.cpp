// Sweep files: TOML -> Sweep, validated against the measure's declaration (docs/sweeps.md).
#include "scalinglab/lab/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <toml++/toml.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/lab/limits.hpp"

namespace scalinglab {

namespace {

// Labels written for a plot are gnuplot enhanced text (^{..}, _{..}, {/Symbol a}), except `~`: its
// overprint markup (~a{.8-}) is never what a label means ("epochs ~ C / gamma"), so it stays literal.
std::string user_markup(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '~' && (i == 0 || text[i - 1] != '\\')) out += '\\';
    out += text[i];
  }
  return out;
}


using Keys = std::vector<std::string>;

std::string join(const Keys& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}


// Reads one sweep file; every error names the file, the line/column when known, and the key.
class Reader {
 public:
  Reader(std::string file, const Measure* m = nullptr) : file_(std::move(file)), m_(m) {}
  void set_measure(const Measure* m) { m_ = m; }

  [[noreturn]] void fail(const toml::node* n, const std::string& what) const {
    std::string where = file_;
    if (n && n->source().begin.line > 0) {
      const auto& at = n->source().begin;
      where.append(":").append(std::to_string(at.line)).append(":").append(std::to_string(at.column));
    }
    throw InputError(where + ": " + what);
  }

  // Entries in file order (toml++ tables are sorted by key, so sort by source position).
  static std::vector<std::pair<std::string, const toml::node*>> ordered(const toml::table& t) {
    std::vector<std::pair<std::string, const toml::node*>> out;
    for (const auto& [k, v] : t) out.emplace_back(std::string(k.str()), &v);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      const auto &pa = a.second->source().begin, &pb = b.second->source().begin;
      return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
    });
    return out;
  }

  const toml::table& table(const toml::node* n, const std::string& key) const {
    if (!n->is_table()) fail(n, key + ": expected a table");
    return *n->as_table();
  }

  void allow_keys(const toml::table& t, const Keys& allowed, const std::string& section) const {
    for (const auto& [k, v] : ordered(t))
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(v, section + ": unknown key '" + k + "' (allowed: " + join(allowed) + ")");
  }

  // A scalar as text: integers exactly, floats the shortest way (1e3 -> "1000", inf -> "inf").
  std::string text(const toml::node* n, const std::string& key) const {
    if (auto v = n->as_integer()) return std::to_string(v->get());
    if (auto v = n->as_floating_point()) return format_number(v->get());
    if (auto v = n->as_string()) return v->get();
    if (auto v = n->as_boolean()) return v->get() ? "true" : "false";
    fail(n, key + ": expected a number, a string or a boolean");
  }
  std::string string(const toml::node* n, const std::string& key) const {
    if (!n->is_string()) fail(n, key + ": expected a string");
    return n->as_string()->get();
  }
  double number(const toml::node* n, const std::string& key) const {
    if (auto v = n->as_integer()) return static_cast<double>(v->get());
    if (auto v = n->as_floating_point()) return v->get();
    if (auto v = n->as_string(); v && parse_number(v->get())) return *parse_number(v->get());
    fail(n, key + ": expected a number");
  }
  int64_t integer(const toml::node* n, const std::string& key, int64_t lo) const {
    const double v = number(n, key);
    if (v != std::floor(v) || v < static_cast<double>(lo) || v > 9.2e18)
      fail(n, key + ": expected an integer >= " + std::to_string(lo));
    return static_cast<int64_t>(v);
  }
  bool boolean(const toml::node* n, const std::string& key) const {
    if (!n->is_boolean()) fail(n, key + ": expected true or false");
    return n->as_boolean()->get();
  }

  // A parameter of the measure that sweeps may set (runs and seed live at the top level).
  const ParamSpec& param(const toml::node* n, const std::string& name, const std::string& key) const {
    if (name == "runs" || name == "seed") fail(n, key + ": '" + name + "' is set at the top level of the file");
    const ParamSpec* p = m_->param(name);
    if (!p) {
      Keys names;
      for (const auto& s : m_->params)
        if (s.name != "runs" && s.name != "seed") names.push_back(s.name);
      fail(n, key + ": unknown parameter '" + name + "' of " + m_->name + " (known: " + join(names) + ")");
    }
    return *p;
  }
  void metric(const toml::node* n, const std::string& name, const std::string& key) const {
    Keys names;
    for (const auto& mm : m_->metrics) {
      if (mm.series) continue;
      if (mm.name == name) return;
      names.push_back(mm.name);
    }
    fail(n, key + ": unknown metric '" + name + "' of " + m_->name + " (scalar metrics: " + join(names) + ")");
  }

  // An x axis: a parameter, or (`metric_ok`) a scalar metric, whose mean over the runs places each row
  // (e.g. a parameter count against the compute-optimal data size). Returns whether it is a metric.
  bool x_axis(const toml::node* n, const std::string& name, const std::string& key, bool metric_ok) const {
    if (m_->param(name)) return false;
    const bool is_metric = std::any_of(m_->metrics.begin(), m_->metrics.end(),
                                       [&](const MetricSpec& mm) { return !mm.series && mm.name == name; });
    if (is_metric && metric_ok) return true;
    if (is_metric) fail(n, key + ": '" + name + "' is a metric; this x must be a parameter (grid axis)");
    param(n, name, key);  // fails naming the known parameters
    return false;
  }

  // A `where` value normalised like resolved parameters, so T = 1e3 matches "1000". A comparison
  // ("<=256", ">=64, <1e4", "!=inf") keeps its operators, each operand normalised and checked.
  std::string where_value(const toml::node* n, const ParamSpec& p, const std::string& key) const {
    return where_value(n, p, key, text(n, key), n->is_string());
  }
  // The same for text `t` read at node `n` (`quoted`: written as a string, so it may be a comparison).
  std::string where_value(const toml::node* n, const ParamSpec& p, const std::string& key, const std::string& t,
                          bool quoted) const {
    if (!quoted || !is_where_comparison(t)) return where_operand(n, p, key, t);
    std::vector<WhereCondition> conditions;
    try {
      conditions = where_conditions(t);
    } catch (const InputError& e) {
      fail(n, key + ": " + e.what());
    }
    std::string out;
    for (const auto& c : conditions) {
      const bool ordering = c.op != "=" && c.op != "!=";
      const bool numeric = p.type != ParamType::Bool && p.type != ParamType::Choice && p.type != ParamType::Text;
      if (ordering && !numeric)
        fail(n, key + ": '" + c.op + "' compares numbers; " + p.name + " takes words (use = or !=)");
      const std::string operand = where_operand(n, p, key, c.value);
      if (ordering && !parse_number(operand)) fail(n, key + ": '" + c.value + "' is not a number to compare with");
      out += (out.empty() ? "" : ",") + (c.op == "=" ? std::string("==") : c.op) + operand;
    }
    return out;
  }
  std::string where_operand(const toml::node* n, const ParamSpec& p, const std::string& key, std::string t) const {
    if (p.type == ParamType::Bool) return (t == "true" || t == "1" || t == "yes") ? "true" : "false";
    if (p.type == ParamType::Choice && !p.choices.empty() &&
        std::find(p.choices.begin(), p.choices.end(), t) == p.choices.end())
      fail(n, key + ": '" + t + "' is not a value of " + p.name + " (" + join(p.choices) + ")");
    if (p.type == ParamType::Choice || p.type == ParamType::Text) return t;
    if (auto v = parse_number(t)) return canonical_text(p, *v);
    return t;
  }
  // A `where` table { T = "inf", d = "<=256" }, or conditions written as on the command line:
  // "d<=256" or ["d<=256", "T=inf"] (two conditions on one parameter must both hold).
  std::map<std::string, std::string> where(const toml::node* n, const std::string& key) const {
    std::map<std::string, std::string> out;
    if (n->is_string() || n->is_array()) {
      std::vector<const toml::node*> items;
      if (n->is_string()) items.push_back(n);
      else
        for (const auto& e : *n->as_array()) items.push_back(&e);
      for (const toml::node* item : items) {
        const std::string c = string(item, key + ".where");
        const std::size_t at = c.find_first_of("<>!=");
        std::string name = at == std::string::npos ? "" : c.substr(0, at);
        while (!name.empty() && name.back() == ' ') name.pop_back();
        while (!name.empty() && name.front() == ' ') name.erase(name.begin());
        if (name.empty())
          fail(item, key + ".where: '" + c + "': expected NAME=VALUE or a comparison such as \"d<=256\"");
        std::string rest = c.substr(at);
        if (rest[0] == '=' && (rest.size() < 2 || rest[1] != '=')) rest = "==" + rest.substr(1);
        std::string value = where_value(item, param(item, name, key + ".where"), key + ".where." + name, rest, true);
        if (value.rfind("==", 0) == 0 && value.find(',') == std::string::npos) value = value.substr(2);  // d=64: a value
        auto [it, fresh] = out.emplace(name, value);
        if (!fresh) {  // a second condition on the same parameter: both must hold
          auto as_comparison = [](const std::string& v) { return is_where_comparison(v) ? v : "==" + v; };
          it->second = as_comparison(it->second) + "," + as_comparison(value);
        }
      }
      return out;
    }
    for (const auto& [k, v] : ordered(table(n, key)))
      out[k] = where_value(v, param(v, k, key + ".where"), key + ".where." + k);
    return out;
  }
  // A formula of the measure's parameters: parsed now, so typos fail before anything runs.
  // `also`: one more variable it may read (the x series of a "curves" plot).
  // `metrics`: it may also read scalar metrics (check bounds: "chinchilla_excess", "2*bound_upper").
  std::string formula(const toml::node* n, const std::string& key, const std::string& also = "",
                      bool metrics = false) const {
    const std::string s = text(n, key);
    std::vector<std::string> vars;
    try {
      vars = Expression(s).variables();
    } catch (const InputError& e) {
      fail(n, key + ": " + e.what());
    }
    for (const auto& var : vars) {
      if (m_->param(var) || var == also) continue;
      const bool metric = metrics && std::any_of(m_->metrics.begin(), m_->metrics.end(), [&](const MetricSpec& mm) {
        return !mm.series && (mm.name == var || mm.name + "_sem" == var || mm.name + "_std" == var);
      });
      if (!metric)
        fail(n, key + ": '" + s + "' reads unknown " + (metrics ? "parameter or metric '" : "parameter '") + var + "'");
    }
    return s;
  }
  std::string series_metric(const toml::node* n, const std::string& key) const {
    const std::string name = string(n, key);
    std::string names;
    for (const auto& mm : m_->metrics) {
      if (!mm.series) continue;
      if (mm.name == name) return name;
      names += (names.empty() ? "" : ", ") + mm.name;
    }
    fail(n, key + ": '" + name + "' is not a series metric of " + m_->name + " (series: " + names + ")");
  }

  // Settings shared by the file and its profiles: params (fixed) and grid (axes). A later setting
  // of a parameter replaces an earlier one, fixed or on an axis.
  // `everywhere` (profiles, --set): the value also replaces the parts' own values.
  void params(const toml::node* n, const std::string& key, Sweep& s, bool everywhere = false) const {
    for (const auto& [k, v] : ordered(table(n, key))) {
      not_part(v, k, key);
      param(v, k, key);
      s.fixed[k] = text(v, key + "." + k);
      unset_axis(s, k);
      if (everywhere) unset_in_parts(s, k);
    }
  }
  static void unset_axis(Sweep& s, const std::string& name) {
    std::erase_if(s.grid, [&](const GridAxis& a) { return a.name == name; });
    for (auto& a : s.grid)
      for (auto& set : a.linked) set.erase(name);
  }
  void not_part(const toml::node* n, const std::string& name, const std::string& key) const {
    if (name == "part") fail(n, key + ": 'part' names the [[part]] tables; it cannot be set");
  }
  static void unset_in_parts(Sweep& s, const std::string& name) {
    for (auto& part : s.parts) part.fixed.erase(name);
  }
  void grid(const toml::node* n, const std::string& key, Sweep& s, bool everywhere = false) const {
    for (const auto& [k, v] : ordered(table(n, key))) {
      if (everywhere) unset_in_parts(s, k);
      not_part(v, k, key);
      const std::string axis_key = key + "." + k;
      GridAxis axis{k, {}, {}};
      const ParamSpec& p = param(v, k, key);
      auto add = [&](const toml::node* e) {
        if (auto t = e->as_table()) return add_linked(*t, e, axis_key, axis);
        if (!axis.linked.empty()) fail(e, axis_key + ": mixes tables and plain values");
        std::vector<std::string> values;
        try {
          values = expand_values(text(e, axis_key), p);
        } catch (const InputError& err) {
          fail(e, axis_key + ": " + err.what());
        }
        axis.values.insert(axis.values.end(), values.begin(), values.end());
      };
      if (auto arr = v->as_array()) for (const auto& e : *arr) add(&e);
      else add(v);
      if (axis.values.empty()) fail(v, axis_key + ": empty grid axis");
      s.fixed.erase(k);
      for (const auto& set : axis.linked)
        for (const auto& [name, value] : set) s.fixed.erase(name);
      auto it = std::find_if(s.grid.begin(), s.grid.end(), [&, name = k](const GridAxis& a) { return a.name == name; });
      if (it != s.grid.end()) *it = std::move(axis);
      else s.grid.push_back(std::move(axis));
    }
  }
  void add_linked(const toml::table& t, const toml::node* e, const std::string& key, GridAxis& axis) const {
    if (axis.linked.size() != axis.values.size()) fail(e, key + ": mixes tables and plain values");
    std::map<std::string, std::string> set;
    for (const auto& [name, v] : ordered(t)) {
      param(v, name, key);
      set[name] = text(v, key + "." + name);
    }
    if (!set.count(axis.name)) fail(e, key + ": each table of a linked axis sets " + axis.name);
    axis.values.push_back(set[axis.name]);
    axis.linked.push_back(std::move(set));
  }

  // [plot] kind = "heatmap": matrix (a series metric), rows and cols (parameters), title, where.
  PlotSpec heatmap(const toml::node* n, const toml::table& t, PlotSpec p) const {
    for (const char* key : {"matrix", "rows", "cols"})
      if (!t.contains(key)) fail(n, std::string("[plot] heatmap: needs ") + key);
    for (const char* key : {"x", "y", "dashed", "series", "log", "band", "reference", "points", "classes", "centers"})
      if (t.contains(key)) fail(t.get(key), std::string("[plot] heatmap: '") + key + "' does not apply to heat maps");
    p.matrix = string(t.get("matrix"), "[plot] matrix");
    bool is_series = false;
    for (const auto& mm : m_->metrics) is_series = is_series || (mm.series && mm.name == p.matrix);
    if (!is_series) fail(t.get("matrix"), "[plot] matrix: '" + p.matrix + "' is not a series metric of " + m_->name);
    param(t.get("rows"), p.rows = string(t.get("rows"), "[plot] rows"), "[plot] rows");
    param(t.get("cols"), p.cols = string(t.get("cols"), "[plot] cols"), "[plot] cols");
    return panel_options(t, std::move(p));
  }

  // [plot] kind = "scatter": points (a series metric), optional classes and centers (series).
  PlotSpec scatter(const toml::node* n, const toml::table& t, PlotSpec p) const {
    if (!t.contains("points")) fail(n, "[plot] scatter: needs points (a series metric holding n x 2 values)");
    for (const char* key : {"x", "y", "dashed", "series", "log", "band", "reference", "matrix", "rows", "cols"})
      if (t.contains(key)) fail(t.get(key), std::string("[plot] scatter: '") + key + "' does not apply to scatter plots");
    p.points = series_metric(t.get("points"), "[plot] points");
    if (t.contains("classes")) p.classes = series_metric(t.get("classes"), "[plot] classes");
    if (t.contains("centers")) p.centers = series_metric(t.get("centers"), "[plot] centers");
    return panel_options(t, std::move(p));
  }
  // Title, labels, where and columns of the multi-panel kinds.
  PlotSpec panel_options(const toml::table& t, PlotSpec p) const {
    if (auto v = t.get("title")) p.title = user_markup(string(v, "[plot] title"));
    if (auto v = t.get("xlabel")) p.xlabel = user_markup(string(v, "[plot] xlabel"));
    if (auto v = t.get("ylabel")) p.ylabel = user_markup(string(v, "[plot] ylabel"));
    if (auto v = t.get("where")) p.where = where(v, "[plot]");
    if (auto v = t.get("columns")) {
      const auto c = v->value<int64_t>();
      if (!c || *c < 1 || *c > 100) fail(v, "[plot] columns: expected an integer in [1, 100]");
      p.columns = static_cast<int>(*c);
    }
    return p;
  }

  PlotSpec plot(const toml::node* n) const {
    const auto& t = table(n, "[plot]");
    allow_keys(t, {"kind", "matrix", "rows", "cols", "columns", "points", "classes", "centers", "x", "y", "dashed", "series",
                   "log", "title", "xlabel", "ylabel", "band", "where", "reference"},
               "[plot]");
    PlotSpec p;
    if (auto v = t.get("kind")) {
      p.kind = string(v, "[plot] kind");
      if (p.kind != "lines" && p.kind != "curves" && p.kind != "heatmap" && p.kind != "scatter")
        fail(v, "[plot] kind: expected \"lines\", \"curves\", \"heatmap\" or \"scatter\"");
    }
    if (p.kind == "heatmap") return heatmap(n, t, std::move(p));
    if (p.kind == "scatter") return scatter(n, t, std::move(p));
    for (const char* key : {"points", "classes", "centers", "matrix", "rows", "cols", "columns"})
      if (t.contains(key)) fail(t.get(key), std::string("[plot] '") + key + "' needs kind = \"heatmap\" or \"scatter\"");
    // lines: x a parameter, y scalar metrics. curves: x (optional: the position 1, 2, ...) and y
    // series metrics.
    const bool curves = p.kind == "curves";
    bool x_is_metric = false;
    if ((!curves && !t.contains("x")) || !t.contains("y"))
      fail(n, curves ? "[plot] curves: needs y (a series metric)" : "[plot]: needs x (a parameter) and y (a metric)");
    if (curves && t.contains("x")) {
      p.x = series_metric(t.get("x"), "[plot] x");
    } else if (!curves) {
      p.x = string(t.get("x"), "[plot] x");
      x_is_metric = x_axis(t.get("x"), p.x, "[plot] x", true);
    }
    auto y_metric = [&](const toml::node* e) {
      if (curves) return series_metric(e, "[plot] y");
      std::string name = string(e, "[plot] y");
      metric(e, name, "[plot] y");
      return name;
    };
    if (const auto* arr = t.get("y")->as_array()) {  // several metrics: one set of curves each
      if (arr->empty()) fail(t.get("y"), "[plot] y: empty list");
      for (const auto& e : *arr) {
        std::string name = y_metric(&e);
        if (p.y.empty()) p.y = std::move(name);
        else p.more_y.push_back(std::move(name));
      }
    } else {
      p.y = y_metric(t.get("y"));
    }
    if (auto v = t.get("dashed")) {
      auto add = [&](const toml::node* e) {
        const std::string name = string(e, "[plot] dashed");
        if (name != p.y && std::find(p.more_y.begin(), p.more_y.end(), name) == p.more_y.end())
          fail(e, "[plot] dashed: '" + name + "' is not one of the metrics of y");
        p.dashed.push_back(name);
      };
      if (auto arr = v->as_array()) for (const auto& e : *arr) add(&e);
      else add(v);
    }
    if (auto v = t.get("series")) param(v, p.series = string(v, "[plot] series"), "[plot] series");
    if (auto v = t.get("log")) {
      auto axis = [&](const toml::node* e) {
        const std::string a = string(e, "[plot] log");
        if (a == "x" || a == "xy") p.logx = true;
        if (a == "y" || a == "xy") p.logy = true;
        if (a != "x" && a != "y" && a != "xy") fail(e, "[plot] log: expected \"x\", \"y\" or [\"x\", \"y\"]");
      };
      if (auto arr = v->as_array()) for (const auto& e : *arr) axis(&e);
      else axis(v);
    }
    if (auto v = t.get("title")) p.title = user_markup(string(v, "[plot] title"));
    if (auto v = t.get("xlabel")) p.xlabel = user_markup(string(v, "[plot] xlabel"));
    if (auto v = t.get("ylabel")) p.ylabel = user_markup(string(v, "[plot] ylabel"));
    if (auto v = t.get("band")) {
      p.band = string(v, "[plot] band");
      if (p.band != "std" && p.band != "sem" && p.band != "none") fail(v, "[plot] band: expected std, sem or none");
    }
    if (auto v = t.get("where")) p.where = where(v, "[plot]");
    if (auto v = t.get("reference")) {
      auto ref = [&](const toml::node* e) {
        ReferenceCurve r;
        if (auto rt = e->as_table()) {
          allow_keys(*rt, {"expr", "label", "where"}, "[plot] reference");
          if (!rt->contains("expr")) fail(e, "[plot] reference: needs expr");
          r.expr = formula(rt->get("expr"), "[plot] reference", curves ? (p.x.empty() ? "x" : p.x) : x_is_metric ? p.x : "");
          if (auto l = rt->get("label")) r.label = user_markup(string(l, "[plot] reference label"));
          if (auto w = rt->get("where")) r.where = where(w, "[plot] reference");
        } else {
          r.expr = formula(e, "[plot] reference", curves ? (p.x.empty() ? "x" : p.x) : x_is_metric ? p.x : "");
        }
        if (r.label.empty()) r.label = r.expr;
        p.references.push_back(std::move(r));
      };
      if (auto arr = v->as_array()) for (const auto& e : *arr) ref(&e);
      else ref(v);
    }
    return p;
  }

  CheckSpec check(const toml::node* n, std::size_t index) const {
    const std::string name = "[[check]] #" + std::to_string(index + 1);
    const auto& t = table(n, name);
    const Keys kinds = {"slope", "below", "above", "ordered", "reaches", "optimum"};
    Keys allowed = {"claim", "profiles", "known_failure", "ref", "substitute"};
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
    const std::map<std::string, Keys> extra = {{"slope", {"expect", "tol", "at_least", "at_most"}},
                                               {"below", {"bound"}},
                                               {"above", {"bound"}},
                                               {"ordered", {"series", "order", "decreasing", "sem", "factor"}},
                                               {"reaches", {"threshold", "rising", "before", "after"}},
                                               {"optimum", {"series", "expect", "tol", "at_least", "at_most"}}};
    fields.insert(fields.end(), extra.at(c.kind).begin(), extra.at(c.kind).end());
    allow_keys(k, fields, key);
    auto need = [&](const std::string& f) {
      if (!k.contains(f)) fail(kn, key + ": needs " + f);
      return k.get(f);
    };
    // slope, bounds and thresholds may run along a metric; ordered and optimum group rows by x values.
    x_axis(need("x"), c.x = string(need("x"), key + " x"), key + " x", c.kind != "ordered" && c.kind != "optimum");
    metric(need("y"), c.y = string(need("y"), key + " y"), key + " y");
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
    } else if (c.kind == "ordered") {
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

  // [[part]] tables: name, measure and the part's own params (checked against its measure). Builds
  // the union of the parts' declarations, against which shared keys, plot and checks are checked.
  void parts(const toml::node* n, const Registry& registry, Sweep& s) {
    const auto* arr = n->as_array();
    if (!arr || arr->empty() || !arr->is_array_of_tables()) fail(n, "part: use [[part]] tables, one per measure");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const toml::node* pn = arr->get(i);
      const std::string key = "[[part]] #" + std::to_string(i + 1);
      const auto& t = table(pn, key);
      allow_keys(t, {"name", "label", "measure", "params", "theory"}, key);
      if (!t.contains("name") || !t.contains("measure")) fail(pn, key + ": needs name and measure");
      SweepPart part;
      part.name = string(t.get("name"), key + " name");
      const bool word = !part.name.empty() && std::all_of(part.name.begin(), part.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
      });
      if (!word) fail(t.get("name"), key + " name: use letters, digits and _ - . + (it labels curves and rows)");
      for (const auto& other : s.parts)
        if (other.name == part.name) fail(t.get("name"), key + " name: '" + part.name + "' is used twice");
      part.label = t.contains("label") ? string(t.get("label"), key + " label") : part.name;
      part.measure = string(t.get("measure"), key + " measure");
      const Measure* pm = nullptr;
      try {
        pm = &registry.get(part.measure);
      } catch (const InputError& e) {
        fail(t.get("measure"), key + " measure: " + e.what());
      }
      part.theory = t.contains("theory") ? boolean(t.get("theory"), key + " theory") : pm->deterministic;
      for (const auto& mm : pm->metrics) part.metrics.push_back(mm.name);
      if (auto v = t.get("params")) {
        const Measure* shared = m_;
        m_ = pm;
        for (const auto& [k, pv] : ordered(table(v, key + " params"))) {
          param(pv, k, key + " params");
          part.fixed[k] = text(pv, key + " params." + k);
        }
        m_ = shared;
      }
      s.parts.push_back(std::move(part));
      merge_into_union(*pm);
    }
    ParamSpec part_spec = part_param();
    for (const auto& p : s.parts) part_spec.choices.push_back(p.name);
    union_.params.insert(union_.params.begin(), part_spec);
    union_.name = "the parts (" + s.measures_text() + ")";
    m_ = &union_;
  }

 private:
  void merge_into_union(const Measure& pm) {
    for (const auto& p : pm.params)
      if (!union_.param(p.name)) union_.params.push_back(p);
    for (const auto& mm : pm.metrics) {
      const bool known = std::any_of(union_.metrics.begin(), union_.metrics.end(),
                                     [&](const MetricSpec& u) { return u.name == mm.name; });
      if (!known) union_.metrics.push_back(mm);
    }
  }

  std::string file_;
  const Measure* m_;
  Measure union_;  // multi-part sweeps: the union of the parts' parameters and metrics
};

}  // namespace

Sweep parse_sweep(const std::string& text, const std::string& path, const std::string& profile,
                  const std::vector<std::string>& sets, const Registry& registry) {
  Reader r(path);
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw InputError(path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                     ": malformed TOML: " + std::string(e.description()));
  }
  r.allow_keys(doc, {"measure", "title", "runs", "seed", "params", "grid", "profile", "plot", "check", "part", "reduced"},
               "top level");
  Sweep s;
  s.path = path;
  s.name = std::filesystem::path(path).stem().string();
  s.text = text;
  if (doc.contains("measure") && doc.contains("part"))
    r.fail(doc.get("part"), "part: a sweep has either one `measure` or [[part]] tables, not both");
  if (auto v = doc.get("part")) {
    r.parts(v, registry, s);
    s.measure = s.parts.front().measure;
  } else {
    if (!doc.contains("measure"))
      throw InputError(path + ": missing key 'measure' (e.g. measure = \"memory.error\"), or [[part]] tables");
    s.measure = r.string(doc.get("measure"), "measure");
    const Measure* m = nullptr;
    try {
      m = &registry.get(s.measure);
    } catch (const InputError& e) {
      r.fail(doc.get("measure"), std::string("measure: ") + e.what());
    }
    r.set_measure(m);
  }
  if (auto v = doc.get("title")) s.title = r.string(v, "title");
  if (auto v = doc.get("reduced")) s.reduced = r.string(v, "reduced");
  if (auto v = doc.get("runs")) s.runs = r.integer(v, "runs", 1);
  if (auto v = doc.get("seed")) s.seed = static_cast<uint64_t>(r.integer(v, "seed", 0));
  if (auto v = doc.get("params")) r.params(v, "[params]", s);
  if (auto v = doc.get("grid")) {
    const std::size_t fixed = s.fixed.size();
    r.grid(v, "[grid]", s);
    if (s.fixed.size() != fixed) r.fail(v, "[grid]: a parameter is both fixed in [params] and set by the grid");
  }
  // Every profile is checked; the chosen one (if the file defines it) is applied.
  if (auto v = doc.get("profile")) {
    for (const auto& [name, node] : Reader::ordered(r.table(v, "[profile]"))) {
      const std::string key = "[profile." + name + "]";
      const auto& t = r.table(node, key);
      r.allow_keys(t, {"title", "runs", "seed", "params", "grid", "reduced"}, key);
      Sweep scratch = s;
      Sweep& target = name == profile ? s : scratch;
      if (auto x = t.get("title")) target.title = r.string(x, key + " title");
      // A quick profile is smaller than the paper's setting by definition.
      if (name == "quick") target.reduced = "quick profile";
      if (auto x = t.get("reduced")) target.reduced = r.string(x, key + " reduced");
      if (auto x = t.get("runs")) target.runs = r.integer(x, key + " runs", 1);
      if (auto x = t.get("seed")) target.seed = static_cast<uint64_t>(r.integer(x, key + " seed", 0));
      if (auto x = t.get("params")) r.params(x, key + " params", target, true);
      if (auto x = t.get("grid")) r.grid(x, key + " grid", target, true);
      if (name == profile) s.profile = profile;
      s.profiles.push_back(name);
    }
  }
  for (const auto& set : sets) {
    const auto [k, val] = split_assignment(set);
    const std::string key = "--set " + set;
    if (s.reduced.empty()) s.reduced = "changed by " + key;  // not the setting the file states
    if (k == "runs" || k == "seed") {
      const auto x = parse_number(val);
      if (!x || *x != std::floor(*x) || *x < (k == "runs" ? 1 : 0) || *x > 9.2e18)
        throw InputError(path + ": " + key + ": expected an integer >= " + (k == "runs" ? "1" : "0"));
      if (k == "runs") s.runs = static_cast<int64_t>(*x);
      else s.seed = static_cast<uint64_t>(*x);
      continue;
    }
    if (k == "part") throw InputError(path + ": " + key + ": 'part' names the parts; it cannot be set");
    r.param(nullptr, k, key);
    s.fixed[k] = val;
    Reader::unset_axis(s, k);
    Reader::unset_in_parts(s, k);
  }
  if (auto v = doc.get("plot")) s.plot = r.plot(v);
  if (s.plot && s.plot->series == "part")
    for (const auto& p : s.parts) s.plot->series_labels[p.name] = p.label;
  if (s.plot)
    for (const auto& p : s.parts) {
      if (p.theory) s.plot->theory_parts.push_back(p.name);
      s.plot->part_labels[p.name] = p.label;
      s.plot->part_metrics[p.name] = p.metrics;
    }
  if (auto v = doc.get("check")) {
    const auto* arr = v->as_array();
    if (!arr) r.fail(v, "check: use [[check]] tables, one per claim");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      CheckSpec c = r.check(arr->get(i), i);
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
  check_limit(grid_size(s, registry), limits().max_points, path, "grid points", "--max-points");
  expand_grid(s, registry);  // resolves every point now: bad values fail before anything runs
  return s;
}

bool CheckSpec::slope_ok(double slope) const {
  if (at_least || at_most) return (!at_least || slope >= *at_least) && (!at_most || slope <= *at_most);
  return std::abs(slope - expect) <= tol;
}

std::string CheckSpec::slope_text() const {
  if (at_least && at_most) return "in [" + format_number(*at_least) + ", " + format_number(*at_most) + "]";
  if (at_least) return ">= " + format_number(*at_least);
  if (at_most) return "<= " + format_number(*at_most);
  return format_number(expect) + " +- " + format_number(tol);
}

void require_known_profile(const Sweep& s, const std::string& profile) {
  if (profile.empty() || is_standard_profile(profile)) return;
  if (std::find(s.profiles.begin(), s.profiles.end(), profile) != s.profiles.end()) return;
  throw InputError(s.path + ": unknown profile '" + profile + "' (this file knows: " +
                   (s.profiles.empty() ? std::string("none") : join(s.profiles)) +
                   "; \"quick\" and \"paper\" run it as written when it does not define them)");
}

bool is_standard_profile(const std::string& profile) { return profile == "quick" || profile == "paper";
}

Sweep load_sweep(const std::string& path, const std::string& profile, const std::vector<std::string>& sets,
                 const Registry& registry) {
  return parse_sweep(read_file(path, kMaxSweepFileBytes, "sweep file"), path, profile, sets, registry);
}

Sweep load_sweep(const std::string& path, const std::string& profile, const std::vector<std::string>& sets) {
  return load_sweep(path, profile, sets, builtin_registry());
}

}  // namespace scalinglab
