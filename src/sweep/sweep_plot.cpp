// [plot]: the figure a sweep asks for (kinds lines, curves, heatmap, scatter), checked against the
// measure's parameters and metrics.
#include "sweep_reader.hpp"

#include <algorithm>

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

}  // namespace

PlotSpec SweepReader::plot(const toml::node* n) const {
  const auto& t = table(n, "[plot]");
  allow_keys(t, {"kind", "matrix", "rows", "cols", "columns", "points", "classes", "centers", "x", "y", "dashed", "series",
                 "log", "title", "xlabel", "ylabel", "band", "where", "reference", "legend"},
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
  if (auto v = t.get("legend"))
    for (const auto& [from, to] : ordered(table(v, "[plot] legend"))) p.legend[from] = string(to, "[plot] legend." + from);
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

PlotSpec SweepReader::heatmap(const toml::node* n, const toml::table& t, PlotSpec p) const {
  for (const char* key : {"matrix", "rows", "cols"})
    if (!t.contains(key)) fail(n, std::string("[plot] heatmap: needs ") + key);
  for (const char* key : {"x", "y", "dashed", "series", "log", "band", "reference", "legend", "points", "classes", "centers"})
    if (t.contains(key)) fail(t.get(key), std::string("[plot] heatmap: '") + key + "' does not apply to heat maps");
  p.matrix = string(t.get("matrix"), "[plot] matrix");
  bool is_series = false;
  for (const auto& mm : m_->metrics) is_series = is_series || (mm.series && mm.name == p.matrix);
  if (!is_series) fail(t.get("matrix"), "[plot] matrix: '" + p.matrix + "' is not a series metric of " + m_->name);
  param(t.get("rows"), p.rows = string(t.get("rows"), "[plot] rows"), "[plot] rows");
  param(t.get("cols"), p.cols = string(t.get("cols"), "[plot] cols"), "[plot] cols");
  return panel_options(t, std::move(p));
}

PlotSpec SweepReader::scatter(const toml::node* n, const toml::table& t, PlotSpec p) const {
  if (!t.contains("points")) fail(n, "[plot] scatter: needs points (a series metric holding n x 2 values)");
  for (const char* key : {"x", "y", "dashed", "series", "log", "band", "reference", "legend", "matrix", "rows", "cols"})
    if (t.contains(key)) fail(t.get(key), std::string("[plot] scatter: '") + key + "' does not apply to scatter plots");
  p.points = series_metric(t.get("points"), "[plot] points");
  if (t.contains("classes")) p.classes = series_metric(t.get("classes"), "[plot] classes");
  if (t.contains("centers")) p.centers = series_metric(t.get("centers"), "[plot] centers");
  return panel_options(t, std::move(p));
}

PlotSpec SweepReader::panel_options(const toml::table& t, PlotSpec p) const {
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

}  // namespace scalinglab
