// Plots with gnuplot. NAME.dat holds one block per series (x, mean, band low, band high) and one per
// reference curve (x, y), separated by two blank lines so that gnuplot's `index` picks them;
// NAME.gp is a self-contained script (rerun it with `gnuplot NAME.gp` inside the directory) that
// writes NAME.svg, NAME.png and NAME.pdf. Drawing never throws: a failed plot warns and returns false.
#include "scalinglab/plot/plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/stats.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/gnuplot.hpp"
#include "scalinglab/plot/panels.hpp"
#include "scalinglab/results/aggregate.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

struct PlotPoint {
  double x, y, lo, hi;
};

struct Curve {
  std::string label;              // legend (raw text; escaped when written)
  std::vector<PlotPoint> points;  // sorted by x
  std::vector<std::string> notes; // why some rows are missing (written as .dat comments)
  bool reference = false;
  // Theory (a theory part) or a metric of [plot] dashed: drawn dashed, without a band, in the
  // colour of the earlier curve with the same colour_key (a new colour when there is none).
  bool dashed = false;
  std::string colour_key;    // curves sharing a key share a colour
  std::string series_value;  // the series parameter's value (references pinned to it take its colour)
};

// On a log y axis a band reaches down to at most mean / kBandFloor (and the view follows it that far).
constexpr double kBandFloor = 3;

// Rows that a figure cannot show, counted by reason ("error <= 0 (log y axis)"): the note under the plot.
using Dropped = std::map<std::string, int>;

// A formula for enhanced mode: powers become superscripts ("d^(1-alpha)" -> "d^{1-alpha}").
std::string enhanced_formula(const std::string& f) {
  std::string out;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '^') {
      out += gp_literal_markup(std::string(1, f[i]));
      continue;
    }
    std::size_t j = i + 1;
    std::string exponent;
    if (j < f.size() && f[j] == '(') {  // a balanced group, outer parentheses dropped
      int depth = 0;
      std::size_t k = j;
      for (; k < f.size(); ++k) {
        depth += f[k] == '(' ? 1 : f[k] == ')' ? -1 : 0;
        if (depth == 0) break;
      }
      exponent = f.substr(j + 1, k - j - 1);
      i = std::min(k, f.size() - 1);
    } else {  // a signed number or name
      std::size_t k = j;
      if (k < f.size() && (f[k] == '-' || f[k] == '+')) ++k;
      while (k < f.size() && (std::isalnum(static_cast<unsigned char>(f[k])) || f[k] == '.')) ++k;
      exponent = f.substr(j, k - j);
      i = k - 1;
    }
    out += "^{" + gp_literal_markup(exponent) + "}";
  }
  return out;
}

// How a series value is shown: the formula when the parameter was given as one (P = d/8 varies
// with x but is one curve), integers without exponent ("100000", not "1e+05").
std::string series_value(const Params::Entry& e) {
  if (!e.given.empty()) return e.given;
  if (std::isfinite(e.number) && e.number == std::floor(e.number) && std::abs(e.number) < 1e9)
    return fmt::format("{:.0f}", e.number);
  return e.text;
}

// A long title is wrapped (it is centred over the plot area): after its "Fig. 1 (left):" prefix
// when the rest fits on a line, else at the last space that fits. Returns the lines.
std::vector<std::string> title_lines(const std::string& t) {
  constexpr std::size_t kWidth = 60;
  std::vector<std::string> lines;
  std::string rest = t;
  while (rest.size() > kWidth) {
    std::size_t cut = rest.find(": ");
    if (cut == std::string::npos || cut >= kWidth || rest.size() - cut - 2 > kWidth) {
      // Else before a parenthesis that fits ("... recursion" / "(S = 100, L = 10)"), else the last space.
      const std::size_t paren = rest.rfind(" (", kWidth);
      cut = paren != std::string::npos && paren >= kWidth / 3 && rest.size() - paren - 1 <= kWidth
                ? paren
                : rest.rfind(' ', kWidth);
    } else {
      ++cut;  // keep the colon on the first line
    }
    if (cut == std::string::npos || cut == 0) cut = rest.find(' ', kWidth);
    if (cut == std::string::npos) break;
    lines.push_back(rest.substr(0, cut));
    rest.erase(0, std::min(rest.size(), rest.find_first_not_of(' ', cut)));
  }
  lines.push_back(rest);
  return lines;
}

std::string title_string(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : ".\"\\n\".") + gp_string(line);
  return out;
}

bool is_theory_part(const PlotSpec& plot, const std::string& part) {
  return std::find(plot.theory_parts.begin(), plot.theory_parts.end(), part) != plot.theory_parts.end();
}

// Whether a part's measure has `metric` (a part lacking it is simply not drawn for it).
bool part_has_metric(const PlotSpec& plot, const std::string& part, const std::string& metric) {
  const auto it = plot.part_metrics.find(part);
  return it == plot.part_metrics.end() || std::find(it->second.begin(), it->second.end(), metric) != it->second.end();
}

// Whether the rows drawn come from several parts while the curves are told apart by another
// parameter: then each legend also names the part.
bool parts_need_naming(const PlotSpec& plot, const Table& table) {
  if (plot.series == "part") return false;
  std::string first;
  for (const auto& row : table.rows) {
    if (!row.params.has("part") || !params_match(row.params, plot.where)) continue;
    const std::string& part = row.params.entry("part").text;
    if (first.empty()) first = part;
    else if (part != first) return true;
  }
  return false;
}

// Why a coordinate cannot be placed on its axis ("T = inf", "error = 0 (log y axis)"), the
// reason the figure's note counts; nothing when it can.
std::optional<std::string> unplaceable(const std::string& name, double v, bool log, char axis) {
  if (std::isnan(v)) return name + " = nan";
  if (std::isinf(v)) return name + (v > 0 ? " = inf" : " = -inf");
  if (!log || v > 0) return std::nullopt;
  return fmt::format("{} {} 0 (log {} axis)", name, v == 0 ? "=" : "<", axis);
}

// One curve per value of the series parameter (table order) of the rows matching plot.where.
std::vector<Curve> data_curves(const PlotSpec& plot, const Table& table, Dropped& dropped) {
  std::vector<std::string> metrics = {plot.y};
  metrics.insert(metrics.end(), plot.more_y.begin(), plot.more_y.end());
  std::vector<Curve> curves;
  for (const auto& [name, value] : plot.where)
    if (std::find(table.param_names.begin(), table.param_names.end(), name) == table.param_names.end())
      throw InputError("plot: unknown parameter '" + name + "' in where");
  const bool name_parts = parts_need_naming(plot, table);
  for (const auto& metric : metrics)
  for (const auto& row : table.rows) {
    const std::size_t m = table.metric_index(metric);
    if (!params_match(row.params, plot.where)) continue;
    const std::string part = row.params.has("part") ? row.params.entry("part").text : "";
    if (!part.empty() && !part_has_metric(plot, part, metric)) continue;
    // x: a parameter, or a metric's mean (e.g. parameters against the compute-optimal tokens).
    const bool x_param = row.params.has(plot.x);
    const auto& names = table.metric_names;
    if (!x_param && std::find(names.begin(), names.end(), plot.x) == names.end())
      throw InputError("plot: unknown parameter or metric x = '" + plot.x + "'");
    std::string label = metric, value;
    if (!plot.series.empty()) {
      value = row.params.has(plot.series) ? series_value(row.params.entry(plot.series)) : "n/a";
      const auto named = plot.series_labels.find(value);
      label = named != plot.series_labels.end() ? named->second : plot.series + " = " + value;
    }
    if (metrics.size() > 1 && !plot.series.empty()) label = metric + ", " + label;
    if (!part.empty() && (name_parts || (!plot.series.empty() && !row.params.has(plot.series)))) {
      const auto named = plot.part_labels.find(part);
      const std::string part_label = named != plot.part_labels.end() ? named->second : part;
      // A part without the series parameter (a theory without d) is one curve, named by its part.
      label = row.params.has(plot.series) || plot.series.empty() ? label + ", " + part_label
              : metrics.size() > 1                                ? metric + ", " + part_label
                                                                  : part_label;
    }
    auto it = std::find_if(curves.begin(), curves.end(), [&](const Curve& c) { return c.label == label; });
    if (it == curves.end()) {
      Curve c{label, {}, {}, false, false, "", value};
      const bool theory = !part.empty() && is_theory_part(plot, part);
      const bool dashed_metric = std::find(plot.dashed.begin(), plot.dashed.end(), metric) != plot.dashed.end();
      c.dashed = theory || dashed_metric;
      if (!plot.dashed.empty() && !plot.series.empty() && row.params.has(plot.series))
        c.colour_key = row.params.entry(plot.series).text;  // a dashed metric: its series' colour
      else if (!plot.dashed.empty() && plot.series.empty() && part.empty())
        c.colour_key = "|";  // one series: a dashed metric in the colour of the solid one
      else  // theory: the colour of the simulation of the same metric and series value
        c.colour_key = metric + "|" + (plot.series == "part" ? "" : value);
      curves.push_back(std::move(c));
      it = curves.end() - 1;
    }

    const double x = x_param ? row.params.entry(plot.x).number : row.mean.at(table.metric_index(plot.x));
    const double y = row.mean.at(m);
    const std::string at = x_param ? plot.x + "=" + row.params.entry(plot.x).text : fmt::format("{}={:.6g}", plot.x, x);
    if (const auto why = unplaceable(plot.x, x, plot.logx, 'x')) {
      it->notes.push_back("skipped " + at + ": x cannot be placed on the axis");
      ++dropped[*why];
      continue;
    }
    if (const auto why = unplaceable(metric, y, plot.logy, 'y')) {
      it->notes.push_back(fmt::format("skipped {}: {} = {} cannot be placed on the axis", at, metric, y));
      ++dropped[*why];
      continue;
    }
    double spread = 0;
    if (plot.band == "std" && m < row.std.size()) spread = row.std[m];
    if (plot.band == "sem" && m < row.sem.size()) spread = row.sem[m];
    if (!std::isfinite(spread)) spread = 0;
    it->points.push_back({x, y, y - spread, y + spread});
  }
  for (auto& c : curves)
    std::stable_sort(c.points.begin(), c.points.end(), [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
  return curves;
}

// "not shown: 2 points with error = 0 (log y axis); 1 point with T = inf", or "" when all are drawn.
std::string dropped_note(const Dropped& dropped) {
  std::string out;
  for (const auto& [reason, n] : dropped)
    out += fmt::format("{}{} point{} with {}", out.empty() ? "not shown: " : "; ", n, n == 1 ? "" : "s", reason);
  return out;
}

// Dense x values between lo and hi (log-spaced on a log axis).
std::vector<double> dense(double lo, double hi, bool log, int n = 200) {
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) {
    const double t = n > 1 ? static_cast<double>(i) / (n - 1) : 0;
    xs.push_back(log ? std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))) : lo + t * (hi - lo));
  }
  return xs;
}

// A reference formula evaluated along x, other parameters from the first candidate matching the
// plot's and the reference's where.
std::optional<Curve> reference_curve(const ReferenceCurve& ref, const PlotSpec& plot,
                                     const std::vector<const Params*>& candidates, double lo, double hi) {
  const Params* base = nullptr;
  for (const Params* params : candidates)
    if (params_match(*params, plot.where) && params_match(*params, ref.where)) {
      base = params;
      break;
    }
  if (!base) {
    plot_warning("plot: no row matches the where of reference '" + ref.expr + "'; curve skipped");
    return std::nullopt;
  }
  const Expression expr(ref.expr);
  // A label written by the user is enhanced text as is; a bare formula gets superscripts.
  const bool own_label = !ref.label.empty() && ref.label != ref.expr;
  Curve c{own_label ? ref.label : enhanced_formula(ref.expr), {}, {}, true, false, "", ""};
  // A reference pinned to one series value is that curve's theory: drawn in its colour.
  if (!plot.series.empty() && base->has(plot.series)) {
    const auto pinned = ref.where.find(plot.series);
    if (pinned != ref.where.end() && !is_where_comparison(pinned->second))
      c.series_value = series_value(base->entry(plot.series));
  }
  c.notes.push_back("reference " + ref.expr + ", parameters from " + base->canonical());
  const std::string x_name = plot.x.empty() ? "x" : plot.x;
  for (double x : dense(lo, hi, plot.logx)) {
    const double y = expr.eval([&](const std::string& name) -> std::optional<double> {
      if (name == x_name) return x;
      if (base->has(name) && !std::isnan(base->entry(name).number)) return base->entry(name).number;
      return std::nullopt;
    });
    if (std::isfinite(y) && (!plot.logy || y > 0)) c.points.push_back({x, y, y, y});
  }
  return c;
}

// On a log y axis a band's lower edge is cut at a third of its mean: mean - sem <= 0 has no place
// on the axis (drawn as it is, the band would run to the bottom of the frame as a full-height bar),
// and the view follows bands only that far. Returns the number of points cut (the figure says so).
int clip_bands(std::vector<Curve>& curves, bool logy) {
  if (!logy) return 0;
  int cut = 0;
  for (auto& c : curves) {
    if (c.reference || c.dashed) continue;  // drawn without a band
    for (auto& p : c.points)
      if (p.lo < p.y / kBandFloor) p.lo = p.y / kBandFloor, ++cut;
  }
  return cut;
}

void write_dat(const std::string& path, const PlotSpec& plot, const std::vector<Curve>& curves) {
  std::ostringstream out;
  out << "# scalinglab plot data: " << gp_comment(plot.y + " vs " + plot.x) << "\n"
      << "# series blocks: x mean low high (band: " << plot.band << "); reference blocks: x y\n";
  for (std::size_t i = 0; i < curves.size(); ++i) {
    if (i) out << "\n\n";
    out << "# index " << i << ": " << gp_comment(curves[i].label) << "\n";
    for (const auto& note : curves[i].notes) out << "# " << gp_comment(note) << "\n";
    // gnuplot does not count a block without data records: an empty curve keeps its index with NaN.
    if (curves[i].points.empty()) out << (curves[i].reference ? "NaN NaN\n" : "NaN NaN NaN NaN\n");
    for (const auto& p : curves[i].points) {
      out << fmt::format("{:.10g} {:.10g}", p.x, p.y);
      if (!curves[i].reference) out << fmt::format(" {:.10g} {:.10g}", p.lo, p.hi);
      out << "\n";
    }
  }
  write_file(path, out.str());
}

// Axis range of the data (references are clipped to it), padded a little.
std::pair<double, double> padded_range(double lo, double hi, bool log) {
  if (log) {
    const double span = std::max(std::log10(hi / lo), 0.3);
    return {lo / std::pow(10, 0.04 * span), hi * std::pow(10, 0.04 * span)};
  }
  const double span = hi > lo ? hi - lo : std::max(std::abs(hi), 1.0);
  return {lo - 0.04 * span, hi + 0.04 * span};
}

void axis_lines(std::ostream& gp, char axis, bool log, std::pair<double, double> range) {
  if (log) {
    gp << "set logscale " << axis << " 10\nset m" << axis << "tics 10\n";
    if (range.second / range.first >= 100) gp << "set format " << axis << " '10^{%L}'\n";
  }
  gp << fmt::format("set {}range [{:.10g}:{:.10g}]\n", axis, range.first, range.second);
}

// The script: style, layout (the plot area is the same for every figure; the canvas grows for
// the legend), axes, curves in their colours, the band's legend entry and the note on what is not
// shown; then the same figure as SVG, PNG and PDF.
void write_gp(const std::string& path, const std::string& name, const PlotSpec& plot, const std::string& title,
              const std::vector<Curve>& curves, const std::string& note) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  bool any_band = false;
  for (const auto& c : curves)
    for (const auto& p : c.points) {
      xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x);
      if (c.reference) continue;
      if (!c.dashed && p.hi > p.lo) any_band = true;
      // On log y a band may rise by decades; let it leave the frame rather than squash the means
      // (its lower edge is already cut at mean / kBandFloor).
      const double band_lo = plot.logy ? std::max(p.lo, p.y / kBandFloor) : p.lo;
      const double band_hi = plot.logy ? std::min(p.hi, p.y * kBandFloor) : p.hi;
      ylo = std::min({ylo, p.y, band_lo}), yhi = std::max({yhi, p.y, band_hi});
    }
  any_band = any_band && plot.band != "none";

  // Colours: a solid curve takes the next colour unless its key already has one; a dashed curve
  // (theory, a dashed metric) the colour of its key, or the next one; a reference pinned to a
  // series value the colour of that series' first curve; other references black, then grey.
  const std::string dat = gp_string(name + ".dat");
  std::vector<std::string> items, labels;
  std::size_t next_colour = 0, guide_index = 0;
  std::map<std::string, const char*> colour_of;      // colour key -> colour
  std::map<std::string, const char*> series_colour;  // series value -> colour of its first curve
  std::vector<const char*> colours(curves.size(), nullptr);
  std::vector<int> dash(curves.size(), 1);  // dashed curves sharing a colour take dash types 2, 3, ...
  std::map<const char*, int> dashed_in;     // colour -> dashed curves drawn in it so far
  for (int pass = 0; pass < 2; ++pass)  // solid curves first, so that theory finds its simulation
    for (std::size_t i = 0; i < curves.size(); ++i) {
      const Curve& c = curves[i];
      if (c.reference || c.points.empty() || c.dashed != (pass == 1)) continue;
      const auto known = c.colour_key.empty() ? colour_of.end() : colour_of.find(c.colour_key);
      // Solid curves share a colour only for [plot] dashed (its metrics' series take it).
      const bool share = known != colour_of.end() && (c.dashed || !plot.dashed.empty());
      colours[i] = share ? known->second : palette_colour(next_colour++);
      if (!c.colour_key.empty()) colour_of.emplace(c.colour_key, colours[i]);
      if (pass == 0) series_colour.emplace(c.series_value, colours[i]);
      if (c.dashed) dash[i] = 2 + dashed_in[colours[i]]++ % 4;
    }
  // A simulation with a theory (a dashed curve or a reference in its colour) is drawn thin with its
  // markers, and every theory on top of it: a dashed line exactly over a thick solid one of the
  // same colour would vanish (an asymptote the data follow).
  std::vector<const char*> theory_colours;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const Curve& c = curves[i];
    if (c.points.empty()) continue;
    if (c.dashed && colours[i]) theory_colours.push_back(colours[i]);
    if (c.reference && !c.series_value.empty()) {
      const auto pinned = series_colour.find(c.series_value);
      if (pinned != series_colour.end()) theory_colours.push_back(pinned->second);
    }
  }
  const auto paired = [&](const char* colour) {
    return std::find(theory_colours.begin(), theory_colours.end(), colour) != theory_colours.end();
  };
  std::size_t banded = 0;
  for (const auto& c : curves)
    if (!c.reference && !c.dashed &&
        std::any_of(c.points.begin(), c.points.end(), [](const PlotPoint& p) { return p.hi > p.lo; }))
      ++banded;
  // Many overlapping bands would darken into a grey mass: lighter ones from four curves on.
  const double band_opacity = banded > 3 ? 0.10 : 0.18;
  for (int layer = 0; layer < 3; ++layer)  // simulations, then theory, then references: theory on top
    for (std::size_t i = 0; i < curves.size(); ++i) {
      const Curve& c = curves[i];
      if (c.points.empty() || (c.reference ? 2 : c.dashed ? 1 : 0) != layer) continue;
      const std::string block = fmt::format("{} index {}", dat, i);
      const std::string label = c.reference ? c.label : gp_literal_markup(c.label);
      labels.push_back(label);
      if (c.reference) {
        const auto pinned = c.series_value.empty() ? series_colour.end() : series_colour.find(c.series_value);
        const bool own = pinned != series_colour.end();
        const int dash = own ? 2 : 2 + static_cast<int>(guide_index % 3);  // guides: dashed, dotted, dash-dot
        const char* colour = own ? pinned->second : guide_colour(guide_index++);
        items.push_back(fmt::format("{} using 1:2 with lines dt {} lw {} lc rgb '{}' title {}", block, dash,
                                    own ? "2.2" : "1.5", colour, gp_string(label)));
        continue;
      }
      const char* colour = colours[i];
      if (any_band && !c.dashed)
        items.push_back(fmt::format("{} using 1:3:4 with filledcurves lc rgb '{}' notitle", block, colour));
      // Dense curves (series metrics) are drawn without markers.
      const bool thin = !c.dashed && paired(colour);
      const std::string style = c.dashed              ? fmt::format("lines dt {} lw 2.2", dash[i])
                                : c.points.size() > 60 ? (thin ? "lines lw 1" : "lines lw 1.8")
                                : thin                 ? "linespoints lw 1 pt 7 ps 0.75"
                                                       : "linespoints lw 1.8 pt 7 ps 0.55";
      items.push_back(fmt::format("{} using 1:2 with {} lc rgb '{}' title {}", block, style, colour, gp_string(label)));
    }
  if (any_band) {
    const std::string band_label = plot.band == "sem" ? "band: \u00b1 1 sem over runs" : "band: \u00b1 1 std over runs";
    labels.push_back(band_label);
    items.push_back(fmt::format("keyentry with filledcurves lc rgb '#7f7f7f' fs transparent solid {:.2f} noborder title {}",
                                2 * band_opacity, gp_string(band_label)));
  }

  const std::vector<std::string> lines = title.empty() ? std::vector<std::string>{} : title_lines(title);
  const FigureLayout layout = line_figure_layout(labels, static_cast<int>(lines.size()), !note.empty());
  std::ostringstream gp;
  gp << "# scalinglab plot: " << gp_comment(title.empty() ? plot.y + " vs " + plot.x : title) << "\n"
     << "# regenerate with: gnuplot " << name << ".gp (in this directory)\n"
     << "set encoding utf8\n"
     << svg_terminal(name, layout.width, layout.height);
  // Text written for the plot ([plot] title, xlabel, ylabel) may use enhanced markup; names are escaped.
  if (!lines.empty()) {
    std::vector<std::string> escaped = lines;
    if (plot.title.empty())
      for (auto& l : escaped) l = gp_literal_markup(l);
    gp << "set title " << title_string(escaped) << "\n";
  }
  const std::string x_name = plot.x.empty() ? "position" : plot.x;  // curves without x: 1, 2, ...
  gp << "set xlabel " << gp_string(plot.xlabel.empty() ? gp_literal_markup(x_name) : plot.xlabel) << "\n"
     << "set ylabel " << gp_string(plot.ylabel.empty() ? gp_literal_markup(plot.y) : plot.ylabel) << "\n"
     << figure_style_lines() << fmt::format("set style fill transparent solid {:.2f} noborder\n", band_opacity)
     << layout.lines;
  if (!note.empty()) gp << note_line(note, layout.height);
  axis_lines(gp, 'x', plot.logx, padded_range(xlo, xhi, plot.logx));
  axis_lines(gp, 'y', plot.logy, padded_range(ylo, yhi, plot.logy));
  gp << "plot ";
  for (std::size_t i = 0; i < items.size(); ++i) gp << (i ? ", \\\n     " : "") << items[i];
  gp << "\n\n" << png_terminal(name, layout.width, layout.height) << "replot\n"
     << pdf_terminal(name, layout.width, layout.height) << "replot\nunset output\n";
  write_file(path, gp.str());
}

}  // namespace

namespace {

// References, data and script, then gnuplot: the common end of line plots and series plots.
bool finish_plot(const PlotSpec& plot, std::vector<Curve> curves, const Dropped& dropped,
                 const std::vector<const Params*>& candidates, const std::string& out_dir, const std::string& name,
                 const std::string& title) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& c : curves)
    for (const auto& p : c.points) lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  if (!(lo <= hi)) {
    plot_warning("plot " + name + ": no rows to draw (check [plot] where, x and log axes)");
    return false;
  }
  const int band_cut = plot.band == "none" ? 0 : clip_bands(curves, plot.logy);
  for (const auto& [from, to] : plot.legend) {  // the file's own legend texts, shown literally
    bool used = false;
    for (auto& c : curves)
      if (c.label == from) c.label = to, used = true;
    if (!used) plot_warning("plot " + name + ": [plot] legend: no curve is labelled '" + from + "'");
  }
  for (const auto& ref : plot.references) {
    try {
      if (auto c = reference_curve(ref, plot, candidates, lo, hi)) curves.push_back(std::move(*c));
    } catch (const std::exception& e) {
      plot_warning("plot " + name + ": reference '" + ref.expr + "' skipped: " + e.what());
    }
  }
  fs::create_directories(out_dir);
  const fs::path base = fs::path(out_dir) / name;
  write_dat(base.string() + ".dat", plot, curves);
  std::string note = dropped_note(dropped);
  if (band_cut > 0)
    note += fmt::format("{}band cut at mean/3 at {} point{} (log y axis)", note.empty() ? "" : "; ", band_cut,
                        band_cut == 1 ? "" : "s");
  write_gp(base.string() + ".gp", name, plot, plot.title.empty() ? title : plot.title, curves, note);
  return run_gnuplot_script(out_dir, name);
}

const std::vector<double>* series_of(const TaskResult& r, const std::string& metric) {
  for (const auto& [n, values] : r.record.series)
    if (n == metric) return &values;
  return nullptr;
}

// One curve per (metric, series value): the pointwise mean over runs of the y series against the
// x series of the first run (or the 1-based position), with the band across runs.
std::vector<Curve> series_curves(const PlotSpec& plot, const std::vector<GridPoint>& points,
                                 const std::vector<TaskResult>& results, Dropped& dropped) {
  std::vector<std::string> metrics = {plot.y};
  metrics.insert(metrics.end(), plot.more_y.begin(), plot.more_y.end());
  std::map<std::string, std::vector<const TaskResult*>> runs_of;  // point key -> its runs, in run order
  for (const auto& r : results) runs_of[r.key].push_back(&r);
  for (auto& [key, runs] : runs_of)
    std::sort(runs.begin(), runs.end(), [](const TaskResult* a, const TaskResult* b) { return a->run < b->run; });
  std::vector<Curve> curves;
  for (const auto& metric : metrics)
    for (const auto& pt : points) {
      if (!panel_matches(pt, plot.where)) continue;
      const auto found = runs_of.find(pt.key);
      if (found == runs_of.end()) continue;
      const auto& runs = found->second;
      if (!pt.part.empty() && !part_has_metric(plot, pt.part, metric)) continue;
      std::string label = metric, value;
      if (!plot.series.empty()) {
        value = plot.series == "part" ? pt.part
                : pt.params.has(plot.series) ? series_value(pt.params.entry(plot.series))
                                             : "n/a";
        const auto named = plot.series_labels.find(value);
        label = named != plot.series_labels.end() ? named->second : plot.series + " = " + value;
        if (metrics.size() > 1) label = metric + ", " + label;
      }
      Curve c{label, {}, {}, false, false, "", value};
      const bool theory = !pt.part.empty() && is_theory_part(plot, pt.part);
      c.dashed = theory || std::find(plot.dashed.begin(), plot.dashed.end(), metric) != plot.dashed.end();
      // A dashed metric takes the colour of its point's first curve; theory that of the simulation
      // of the same metric and series value; other curves their own.
      c.colour_key = !plot.dashed.empty()     ? pt.key
                     : plot.series == "part" ? metric + "|"
                     : !plot.series.empty()  ? metric + "|" + value
                     : theory                ? metric + "|" + pt.params.canonical()
                                             : "";
      const std::vector<double>* xs = plot.x.empty() ? nullptr : series_of(*runs.front(), plot.x);
      const std::vector<double>* first = series_of(*runs.front(), metric);
      if (!first || (!plot.x.empty() && !xs)) {
        c.notes.push_back("skipped " + pt.key + ": no series " + (first ? plot.x : metric));
        curves.push_back(std::move(c));
        continue;
      }
      for (std::size_t i = 0; i < first->size(); ++i) {
        Summary s;
        for (const TaskResult* r : runs) {
          const auto* ys = series_of(*r, metric);
          if (ys && i < ys->size()) s.add((*ys)[i]);
        }
        const double x = xs ? (i < xs->size() ? (*xs)[i] : NAN) : static_cast<double>(i + 1);
        const double y = s.mean;
        if (const auto why = unplaceable(plot.x.empty() ? "x" : plot.x, x, plot.logx, 'x')) {
          ++dropped[*why];
          continue;
        }
        if (const auto why = unplaceable(metric, y, plot.logy, 'y')) {
          ++dropped[*why];
          continue;
        }
        double spread = plot.band == "std" ? s.std() : plot.band == "sem" ? s.sem() : 0;
        if (!std::isfinite(spread)) spread = 0;
        c.points.push_back({x, y, y - spread, y + spread});
      }
      curves.push_back(std::move(c));
    }
  return curves;
}

}  // namespace

bool draw_plot(const PlotSpec& plot, const Table& table, const std::string& out_dir, const std::string& name,
               const std::string& title) {
  try {
    std::vector<const Params*> candidates;
    for (const auto& row : table.rows) candidates.push_back(&row.params);
    Dropped dropped;
    auto curves = data_curves(plot, table, dropped);
    return finish_plot(plot, std::move(curves), dropped, candidates, out_dir, name, title);
  } catch (const std::exception& e) {
    plot_warning("plot " + name + " not drawn: " + e.what());
    return false;
  }
}

bool draw_series_plot(const PlotSpec& plot, const std::vector<GridPoint>& points,
                      const std::vector<TaskResult>& results, const std::string& out_dir, const std::string& name,
                      const std::string& title) {
  try {
    std::vector<const Params*> candidates;
    for (const auto& pt : points) candidates.push_back(&pt.params);
    Dropped dropped;
    auto curves = series_curves(plot, points, results, dropped);
    return finish_plot(plot, std::move(curves), dropped, candidates, out_dir, name, title);
  } catch (const std::exception& e) {
    plot_warning("plot " + name + " not drawn: " + e.what());
    return false;
  }
}

}  // namespace scalinglab
