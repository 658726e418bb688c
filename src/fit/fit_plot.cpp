// gnuplot figures of the fits, drawn from the numbers of fit_figure.hpp (which Python's plot_fit
// draws too); data are written inline as datablocks so the script stands alone.
//
// Each panel is sized for one column of a two-column paper: 3.3 in wide in the PDF (100 pixels
// per inch, the SVG's pixels; the PNG has twice as many), with room below its axes for its own
// legend, so that no legend covers data. A figure of several panels sets them in a grid.
// Conventions: a series of runs and the fitted curve that describes it share a colour, the curve
// dashed; every line drawn has a legend entry (runs coloured by a palette are keyed by a grey
// sample, their colour read on the colour bar); log axes read 10^k from two decades on, plain
// numbers below.
#include "scalinglab/fit/fit_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/fit/fit_figure.hpp"
#include "scalinglab/fit/fit_panels.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/gnuplot.hpp"

namespace scalinglab::fit {

namespace {

using nlohmann::json;

// A panel's cell in pixels (of the SVG; 100 per inch of the PDF): the plot area between fixed
// margins (tick labels and axis label left and below, the title above, a colour bar and its
// label right when there is one), then the legend below, one line per kKeyLine. The text is 12
// pixels high (8.6 points in the PDF): 3.6% of the cell's width.
constexpr int kCellWidth = 330, kLeft = 68, kRight = 20, kColourBar = 70, kTop = 30, kPlotHeight = 190, kBelow = 46;
constexpr int kKeyLine = 15, kKeyPad = 14, kKeySample = 40;
// text_width() measures the PNG's 16-pixel text; the layout's is 12.
constexpr double kTextWidth = 0.75;
// Markers: runs, and the few points that summarise them (minima, best runs).
constexpr const char* kRun = "pt 7 ps 0.75";
constexpr const char* kMark = "ps 1.1";

double value(const json& v) { return v.is_number() ? v.get<double>() : NAN; }

// A datablock of parallel columns of `obj` (null: NaN).
std::string block(const std::string& name, const json& obj, const std::vector<std::string>& keys) {
  std::string rows;
  const std::size_t n = obj.at(keys.front()).size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const json& col = obj.at(keys[k]);
      const double v = col[i].is_boolean() ? (col[i].get<bool>() ? 1.0 : 0.0) : value(col[i]);
      rows += fmt::format("{}{:.10g}", k ? " " : "", v);
    }
    rows += "\n";
  }
  if (rows.empty()) rows = "NaN NaN NaN\n";
  return "$" + name + " << EOD\n" + rows + "EOD\n";
}

// The colour of the figures' palette (viridis' five stops, as `set palette defined` below) at
// fraction t of the colour bar.
std::string palette_at(double t) {
  static const double stops[5][3] = {
      {0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4;
  const int k = std::min(3, static_cast<int>(t));
  const double u = t - k;
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(stops[k][c] + u * (stops[k + 1][c] - stops[k][c])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

// Curves (a list of {key: value, xs: [...], ys: [...]}) as one datablock of indexed sets, and the
// plot clauses drawing each dashed in the palette's colour of log10(key) on [cb_lo, cb_hi] (one
// colour per curve: a line coloured by `lc palette` is drawn segment by segment, and its dashes
// restart at every segment, so it would look solid).
std::pair<std::string, std::vector<std::string>> dashed_curves(const std::string& name, const json& curves,
                                                               const char* key, const char* xs, const char* ys,
                                                               double cb_lo, double cb_hi) {
  std::string rows;
  std::vector<std::string> clauses;
  int index = 0;
  for (const auto& c : curves) {
    for (std::size_t i = 0; i < c.at(xs).size(); ++i)
      rows += fmt::format("{:.10g} {:.10g}\n", value(c.at(xs)[i]), value(c.at(ys)[i]));
    rows += "\n\n";
    const double t = cb_hi > cb_lo ? (std::log10(c.at(key).get<double>()) - cb_lo) / (cb_hi - cb_lo) : 0.5;
    clauses.push_back(
        fmt::format("${} index {} using 1:2 with lines dt 2 lw 1.5 lc rgb '{}'", name, index++, palette_at(t)));
  }
  if (rows.empty()) rows = "NaN NaN\n";
  return {"$" + name + " << EOD\n" + rows + "EOD\n", clauses};
}

std::pair<double, double> range_of(const json& v) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& x : v)
    if (x.is_number()) lo = std::min(lo, x.get<double>()), hi = std::max(hi, x.get<double>());
  return {lo, hi};
}

// Tick marks for a log axis spanning less than a decade, where gnuplot would label no tick at all:
// 4 to 10 values at a round linear step (1, 2 or 5 x 10^k) within [lo, hi], every other one of
// more than 6 (a panel is narrow). Empty for wider ranges.
std::string narrow_log_tics(const char* axis, double lo, double hi) {
  if (!(lo > 0) || !(hi > lo) || hi / lo >= 10) return "";
  double step = std::pow(10.0, std::floor(std::log10(hi - lo)));
  for (const double f : {1.0, 0.5, 0.2, 0.1})
    if ((hi - lo) / (step * f) >= 4) {
      step *= f;
      break;
    }
  std::vector<double> ticks;
  for (double v = std::ceil(lo / step) * step; v <= hi * (1 + 1e-12); v += step) ticks.push_back(v);
  std::string list;
  for (std::size_t i = 0; i<ticks.size(); i += ticks.size()> 6 ? 2 : 1)
    list += fmt::format("{}\"{:.3g}\" {:.10g}", list.empty() ? "" : ", ", ticks[i], ticks[i]);
  return fmt::format("set {}tics ({})\n", axis, list);
}

// A log axis's range and tick format (and, under a decade, explicit ticks).
std::string log_axis(const char* axis, double lo, double hi) {
  return fmt::format("set {}range [{:.6g}:{:.6g}]\n", axis, lo, hi) + log_format(axis[0], lo, hi) +
         narrow_log_tics(axis, lo, hi);
}

// Text of the user's (a column's name, a law's) for an enhanced-text label or legend.
std::string literal(const json& text) { return gp_literal_markup(text.get<std::string>()); }

// The colour bar's range (log10 of C or N), label and ticks: whole decades when there are three or
// more (narrow tick labels leave the bar's label clear of the next panel).
std::string colour_axis(double lo, double hi, const std::string& label) {
  return fmt::format("set cbrange [{:.5f}:{:.5f}]\nset cblabel {}\nset cbtics {}\n", lo, hi, gp_string(label),
                     hi - lo >= 2 ? "1" : "autofreq");
}

// Resets what one panel may have set and the next must not inherit.
const std::string kPanelReset =
    "unset logscale\nunset object\nunset label\nset autoscale xy\nset xtics autofreq\nset ytics autofreq\nset format x "
    "'%g'\n"
    "set format y '%g'\nunset colorbox\nunset key\n";

// One panel: its axes and title, what it plots, and the legend entries of those (enhanced text).
struct FitPanel {
  std::string setup;
  std::vector<std::string> series;
  std::vector<std::string> keys;
  bool colour_bar = false;
  // A series without a legend entry (runs coloured by the palette, keyed by a grey sample).
  void add(const std::string& clause) { series.push_back(clause + " notitle"); }
  void add(const std::string& clause, const std::string& key) {
    series.push_back(clause + " title " + gp_string(key));
    keys.push_back(key);
  }
  // A grey sample keying series coloured by the palette.
  void grey_key(const std::string& style, const std::string& key) {
    add("NaN with " + style + " lc rgb '#707070'", key);
  }
};

// The compute-optimal frontier panel's axes, the data's budgets shaded and the bootstrap bands of
// N_opt and D_opt, shared by the law's and the IsoFLOP analysis's figures.
void frontier_axes(FitPanel& q, double clo, double chi, double ylo, double yhi, const std::string& C_label,
                   const std::string& shade_key, bool bands, const std::string& level_text) {
  q.setup = "set logscale xy\n" + log_axis("x", clo, chi) + log_axis("y", ylo, yhi) + "set xlabel " + C_label +
            "\nset ylabel 'N_{opt}, D_{opt}'\nset title 'Compute-optimal frontier'\n";
  q.add(shade_key, "budgets of the data");
  if (!bands) return;
  q.add("$frontier using 1:3:4 with filledcurves lc rgb '#0072B2' fs transparent solid 0.18", level_text + " band of N_{opt}");
  q.add("$frontier using 1:6:7 with filledcurves lc rgb '#D55E00' fs transparent solid 0.18", level_text + " band of D_{opt}");
}

// The legend's columns: two when every entry fits half a cell, else one.
int legend_columns(const FitPanel& p) {
  double widest = 0;
  for (const auto& k : p.keys) widest = std::max(widest, kTextWidth * text_width(k));
  return p.keys.size() > 2 && 2 * (kKeySample + widest) <= kCellWidth - 8 ? 2 : 1;
}

int legend_rows(const FitPanel& p) {
  const int cols = legend_columns(p);
  return static_cast<int>((p.keys.size() + cols - 1) / cols);
}

std::string screen_frac(double v) { return fmt::format("{:.5f}", v); }

// Writes DIR/NAME.gp drawing the panels to NAME.svg, NAME.png and NAME.pdf, and runs it. The
// layout's text is the SVG's: the 12-point font 12 pixels high, 8.6 points in a PDF of 100 pixels
// per inch (the size of a paper's figure text on a 3.3 in panel). The cairo terminals draw that
// font a third larger (16 pixels, 11.5 points), so the PNG (twice the pixels) scales its text by
// 1.5 rather than 2, and the PDF by 0.54 rather than the 0.72 of the lab's other figures.
bool write_figure(const std::string& dir, const std::string& name, int width, int height, const std::string& comment,
                  const std::string& preamble, const std::string& multiplot) {
  std::ostringstream gp;
  gp << "# " << gp_comment(comment) << "; rerun with: gnuplot " << name << ".gp\n"
     << "set encoding utf8\n"
     << svg_terminal(name, width, height) << figure_style_lines() << preamble << multiplot << "\n"
     << fmt::format(
            "set terminal pngcairo size {},{} enhanced font '{}' fontscale 1.5 linewidth 1.5 dashlength 0.6 pointscale "
            "2 "
            "background rgb 'white'\nset output {}\n",
            2 * width, 2 * height, kFigureFont, gp_string(name + ".png"))
     << multiplot << "\n"
     << fmt::format(
            "set terminal pdfcairo size {:.2f}in,{:.2f}in enhanced font '{}' fontscale 0.54 pointscale 0.8\nset output "
            "{}\n",
            width / 100.0, height / 100.0, kFigureFont, gp_string(name + ".pdf"))
     << multiplot << "unset output\n";
  write_file((std::filesystem::path(dir) / (name + ".gp")).string(), gp.str());
  return run_gnuplot_script(dir, name);
}

// Sets the panels in a grid (1, 2 or 3 columns), each cell its plot area at fixed margins and
// its legend below, the rows as tall as their longest legend; writes and runs the script.
bool draw_panels(const std::string& dir, const std::string& name, const std::string& comment,
                 const std::string& preamble, const std::vector<FitPanel>& panels) {
  const std::size_t n = panels.size();
  const std::size_t cols = n <= 3 ? n : n == 4 ? 2 : 3;
  const std::size_t rows = (n + cols - 1) / cols;
  std::vector<int> row_height(rows, 0);
  for (std::size_t i = 0; i < n; ++i)
    row_height[i / cols] =
        std::max(row_height[i / cols], kTop + kPlotHeight + kBelow + legend_rows(panels[i]) * kKeyLine + kKeyPad);
  const int width = static_cast<int>(cols) * kCellWidth;
  int height = 0;
  for (int h : row_height) height += h;
  std::string mp = "set multiplot\n";
  int top = height;  // pixels from the bottom to the current row's top
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols && r * cols + c < n; ++c) {
      const FitPanel& p = panels[r * cols + c];
      const int x0 = static_cast<int>(c) * kCellWidth, left = x0 + kLeft;
      const int right = x0 + kCellWidth - kRight - (p.colour_bar ? kColourBar : 0);
      const int plot_top = top - kTop, plot_bottom = plot_top - kPlotHeight;
      const double W = width, H = height;
      mp += kPanelReset + fmt::format(
                              "set lmargin at screen {}\nset rmargin at screen {}\nset tmargin at screen {}\nset "
                              "bmargin at screen {}\n",
                              screen_frac(left / W), screen_frac(right / W), screen_frac(plot_top / H),
                              screen_frac(plot_bottom / H));
      if (p.colour_bar)
        mp += fmt::format("set colorbox vertical user origin screen {}, screen {} size screen {}, screen {}\n",
                          screen_frac((right + 8) / W), screen_frac(plot_bottom / H), screen_frac(9 / W),
                          screen_frac(kPlotHeight / H));
      if (!p.keys.empty())
        mp += fmt::format(
            "set key at screen {}, screen {} left top Left reverse vertical maxrows {} samplen 3 spacing 1\n",
            screen_frac((x0 + 8) / W), screen_frac((plot_bottom - kBelow) / H), legend_rows(p));
      std::string series;
      for (const auto& s : p.series) series += (series.empty() ? "" : ", ") + s;
      mp += p.setup + "plot " + series + "\n";
    }
    top -= row_height[r];
  }
  mp += "unset multiplot\n";
  const std::string pre =
      preamble + "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n";
  return write_figure(dir, name, width, height, comment, pre, mp);
}

// The panels asked for that the figure has, in the order asked; a warning names the others.
std::vector<std::string> panels_drawn(const json& f, const std::vector<std::string>& asked, const std::string& what) {
  std::vector<std::string> missing;
  const auto chosen = choose_panels(f["panels"].get<std::vector<std::string>>(), asked, &missing);
  if (!missing.empty()) {
    std::string names, have;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    for (const auto& h : f["panels"]) have += (have.empty() ? "" : ", ") + h.get<std::string>();
    plot_warning("--plot-panels: " + what + " has no panel " + names + " (its panels: " + have + ")" +
                 (chosen.empty() ? "; no figure drawn" : ""));
  }
  return chosen;
}

// The data's range of budgets [clo, chi] shaded over the panel's y range [ylo, yhi]: a datablock
// `name` for the preamble, and the plot clause (first in its panel, so drawn behind the rest).
std::pair<std::string, std::string> range_shade(const std::string& name, double clo, double chi, double ylo,
                                                double yhi) {
  return {fmt::format("${0} << EOD\n{1:.10g} {3:.10g} {4:.10g}\n{2:.10g} {3:.10g} {4:.10g}\nEOD\n", name, clo, chi, ylo,
                      yhi),
          "$" + name + " using 1:2:3 with filledcurves fc rgb '#eeeeee' fs solid 1.0"};
}

// "runs", and how many of how many when a large table is drawn by a subsample.
std::string runs_key(const json& f, const std::string& what) {
  const auto shown = f["points_shown"].get<std::size_t>(), total = f["points_total"].get<std::size_t>();
  return shown < total ? fmt::format("{} ({} of {} shown)", what, shown, total) : what;
}

const char* const kResidual = "log(fit / data)";

bool plot_law1(const std::string& dir, const std::string& name, const json& f, const std::vector<std::string>& asked) {
  const auto chosen = panels_drawn(f, asked, "the figure of a one-input law");
  if (chosen.empty()) return false;
  const json& p = f["points"];
  const auto [xlo, xhi] = range_of(p["x"]);
  const auto [llo, lhi] = range_of(p["loss"]);
  const std::string pre =
      block("pts", p, {"x", "loss", "fitted", "residual"}) + block("curve", f["curve"], {"x", "loss"});
  const std::string x_label = gp_string(literal(f["labels"]["x"])),
                    loss_label = gp_string(literal(f["labels"]["loss"]));
  const std::string data = runs_key(f, "data"), colour = "lc rgb '#0072B2'";
  std::vector<FitPanel> panels;
  for (const auto& which : chosen) {
    FitPanel q;
    if (which == "law") {
      q.setup = "set logscale xy\n" + log_axis("x", xlo, xhi) + log_axis("y", llo * 0.95, lhi * 1.05) + "set xlabel " +
                x_label + "\nset ylabel " + loss_label + "\nset title 'Fitted law'\n";
      q.add(fmt::format("$pts using 1:2 with points {} {}", kRun, colour), data);
      q.add("$curve using 1:2 with lines dt 2 lw 2 " + colour, literal(f["law_label"]));
    } else {
      const bool against_fit = which == "residuals";
      q.setup =
          "set logscale x\n" +
          (against_fit ? log_axis("x", llo * 0.98, lhi * 1.02) + "set xlabel 'fitted loss'\nset title 'Residuals'\n"
                       : log_axis("x", xlo, xhi) + "set xlabel " + x_label + "\nset title " +
                             gp_string("Residuals against " + literal(f["x_symbol"])) + "\n") +
          "set ylabel '" + kResidual + "'\n";
      q.add(fmt::format("$pts using {}:4 with points {} {}", against_fit ? 3 : 1, kRun, colour), data);
      q.add("0 with lines lc rgb 'black'", "zero");
    }
    panels.push_back(q);
  }
  return draw_panels(dir, name, "fit of the " + f["law"].get<std::string>() + " law", pre, panels);
}

}  // namespace

bool plot_law_fit(const std::string& dir, const std::string& name, const LawFit& fit, const FitColumns& data,
                  const Bootstrap* boot, double level, const std::vector<std::string>& panels_asked) {
  std::filesystem::create_directories(dir);
  const json f = law_fit_figure(fit, data, boot, level);
  if (f["kind"] == "law1") return plot_law1(dir, name, f, panels_asked);
  const auto chosen = panels_drawn(f, panels_asked, "the figure of a two-input law");
  if (chosen.empty()) return false;
  const json& p = f["points"];
  const json& labels = f["labels"];
  json pts = p;
  pts["logC"] = json::array();
  pts["logN"] = json::array();
  pts["ratio"] = json::array();
  for (std::size_t i = 0; i < p["C"].size(); ++i) {
    pts["logC"].push_back(std::log10(p["C"][i].get<double>()));
    pts["logN"].push_back(std::log10(p["N"][i].get<double>()));
    pts["ratio"].push_back(p["D"][i].get<double>() / p["N"][i].get<double>());
  }
  const auto [nlo, nhi] = range_of(p["N"]);
  const auto [dlo, dhi] = range_of(p["D"]);
  const auto [llo, lhi] = range_of(p["loss"]);
  const auto [clo, chi] = range_of(p["C"]);
  const auto [rlo, rhi] = range_of(pts["ratio"]);
  const bool has_frontier = f.contains("frontier") && !f["frontier"]["C"].empty();
  const bool bands = f["bootstrap"].get<bool>();
  const std::string level_text = fmt::format("{:.0f}%", 100 * level);
  const double lc_lo = std::log10(clo), lc_hi = std::log10(chi) + (chi > clo ? 0 : 1);
  const double ln_lo = std::log10(nlo), ln_hi = std::log10(nhi) + (nhi > nlo ? 0 : 1);
  const auto iso_curves = dashed_curves("isocurves", f["isoflop_curves"], "C", "N", "loss", lc_lo, lc_hi);
  const auto ratio_curves = dashed_curves("ratiocurves", f["ratio_curves"], "N", "ratio", "loss", ln_lo, ln_hi);
  std::string pre = block("pts", pts, {"N", "D", "C", "loss", "fitted", "residual", "logC", "logN", "ratio"}) +
                    iso_curves.first + ratio_curves.first +
                    block("sliceminima", f["slice_minima"], {"C", "N", "D", "loss"});
  if (has_frontier)
    pre +=
        block("frontier", f["frontier"], {"C", "N", "N_lo", "N_hi", "D", "D_lo", "D_hi", "loss", "loss_lo", "loss_hi"});
  const std::string cb_C = colour_axis(lc_lo, lc_hi, "log_{10} C (FLOPs)");
  const std::string cb_N = colour_axis(ln_lo, ln_hi, "log_{10} N (parameters)");
  const std::string loss_label = gp_string(literal(labels["loss"])), N_label = gp_string(literal(labels["N"]));
  const std::string D_label = gp_string(literal(labels["D"])), C_label = gp_string(literal(labels["C"]));
  const std::string law = literal(f["law_label"]);
  const std::string runs = runs_key(f, "runs (colour: budget C)");
  const double ylo = llo * 0.97, yhi = lhi * 1.08;
  std::vector<FitPanel> panels;
  for (const auto& which : chosen) {
    FitPanel q;
    if (which == "isoflop") {  // the fitted law's IsoFLOP curves over the runs
      q.colour_bar = true;
      q.setup = cb_C + "set logscale xy\n" + log_axis("x", nlo / 2, nhi * 2) + log_axis("y", ylo, yhi) + "set xlabel " +
                N_label + "\nset ylabel " + loss_label + "\nset title 'IsoFLOP curves'\n";
      q.add(fmt::format("$pts using 1:4:7 with points {} lc palette", kRun));
      for (const auto& c : iso_curves.second) q.add(c);
      q.grey_key(std::string("points ") + kRun, runs);
      q.grey_key("lines dt 2 lw 1.5", law + " at each budget");
      if (has_frontier)
        q.add("$frontier using 2:8 with lines dt 2 lw 2 lc rgb 'black'", "compute-optimal (" + law + ")");
    } else if (which == "ratio") {  // loss against tokens per parameter at fixed model sizes
      q.colour_bar = true;
      q.setup = cb_N + "set logscale xy\n" + log_axis("x", rlo / 1.5, rhi * 1.5) + log_axis("y", ylo, yhi) +
                "set xlabel 'D / N (tokens per parameter)'\nset ylabel " + loss_label +
                "\nset title 'Loss against D / N'\n";
      q.add(fmt::format("$pts using 9:4:8 with points {} lc palette", kRun));
      for (const auto& c : ratio_curves.second) q.add(c);
      q.grey_key(std::string("points ") + kRun, runs_key(f, "runs (colour: size N)"));
      q.grey_key("lines dt 2 lw 1.5", law + " at each N");
    } else if (which == "frontier") {  // the frontier with its bands, the data's budgets and the slices' best runs
      const auto [fclo, fchi] = range_of(f["frontier"]["C"]);
      auto [ylo3, yhi3] = range_of(f["frontier"]["N"]);
      const auto [dlo3, dhi3] = range_of(f["frontier"]["D"]);
      ylo3 = std::min({ylo3, nlo}) / 2, yhi3 = std::max({yhi3, dhi3, dhi}) * 2;
      const auto shade = range_shade("range3", clo, chi, ylo3, yhi3);
      pre += shade.first;
      frontier_axes(q, fclo, fchi, ylo3, yhi3, C_label, shade.second, bands, level_text);
      const json& fr = f["frontier"];
      const bool closed = fr.contains("a");
      q.add(
          "$frontier using 1:2 with lines dt 2 lw 2 lc rgb '#0072B2'",
          closed ? fmt::format("N_{{opt}} ∝ C^{{{:.3f}}} ({})", fr["a"].get<double>(), law) : "N_{opt} (" + law + ")");
      q.add(
          "$frontier using 1:5 with lines dt 2 lw 2 lc rgb '#D55E00'",
          closed ? fmt::format("D_{{opt}} ∝ C^{{{:.3f}}} ({})", fr["b"].get<double>(), law) : "D_{opt} (" + law + ")");
      if (!f["slice_minima"]["C"].empty()) {  // each IsoFLOP budget's lowest-loss run (none for grids of N and D)
        q.add(fmt::format("$sliceminima using 1:2 with points pt 7 {} lc rgb '#0072B2'", kMark),
              "N of each budget's best run");
        q.add(fmt::format("$sliceminima using 1:3 with points pt 5 {} lc rgb '#D55E00'", kMark),
              "D of each budget's best run");
      }
    } else {  // residuals against the fitted loss, N or D (colour: the budget)
      q.colour_bar = true;
      q.setup = cb_C + "set logscale x\n" + std::string("set ylabel '") + kResidual + "'\n";
      int column = 5;
      if (which == "residuals") {
        q.setup += log_axis("x", llo * 0.98, lhi * 1.02) + "set xlabel 'fitted loss'\nset title 'Residuals'\n";
      } else if (which == "residuals-N") {
        column = 1;
        q.setup +=
            log_axis("x", nlo / 1.2, nhi * 1.2) + "set xlabel " + N_label + "\nset title 'Residuals against N'\n";
      } else {
        column = 2;
        q.setup +=
            log_axis("x", dlo / 1.2, dhi * 1.2) + "set xlabel " + D_label + "\nset title 'Residuals against D'\n";
      }
      q.add(fmt::format("$pts using {}:6:7 with points {} lc palette", column, kRun));
      q.grey_key(std::string("points ") + kRun, runs);
      q.add("0 with lines lc rgb 'black'", "zero");
    }
    panels.push_back(q);
  }
  return draw_panels(dir, name, "fit of the " + f["law"].get<std::string>() + " law", pre, panels);
}

bool plot_isoflop(const std::string& dir, const std::string& name, const IsoflopFit& fit, const FitColumns& data,
                  const IsoflopBootstrap* boot, double level, const std::vector<std::string>& panels_asked) {
  std::filesystem::create_directories(dir);
  const json f = isoflop_figure(fit, data, boot, level);
  const auto chosen = panels_drawn(f, panels_asked, "the figure of an IsoFLOP analysis");
  if (chosen.empty()) return false;
  json pts = f["points"];
  for (const auto& c : f["points"]["C"]) pts["logC"].push_back(std::log10(c.get<double>()));
  json kept = json::object(), cut = json::object();
  for (const char* k : {"N", "loss", "logC"}) kept[k] = json::array(), cut[k] = json::array();
  for (std::size_t i = 0; i < pts["N"].size(); ++i)
    for (const char* k : {"N", "loss", "logC"}) (pts["trimmed"][i].get<bool>() ? cut : kept)[k].push_back(pts[k][i]);
  const json& fr = f["frontier"];
  const json& labels = f["labels"];
  const bool bands = f["bootstrap"].get<bool>();
  const std::string level_text = fmt::format("{:.0f}%", 100 * level);
  const auto [nlo, nhi] = range_of(pts["N"]);
  const auto [llo, lhi] = range_of(pts["loss"]);
  const auto [clo, chi] = range_of(pts["C"]);
  const auto [fclo, fchi] = range_of(fr["C"]);
  const json& minima = f["minima"];
  const double lc_lo = std::log10(clo), lc_hi = std::log10(chi) + (chi > clo ? 0 : 1);
  const auto parabolas = dashed_curves("parabolas", f["parabolas"], "C", "N", "loss", lc_lo, lc_hi);
  std::string pre = block("pts", kept, {"N", "loss", "logC"}) + block("cut", cut, {"N", "loss", "logC"}) +
                    parabolas.first + block("minima", minima, {"C", "N", "D", "loss"}) +
                    block("frontier", fr,
                          {"C", "N", "N_lo", "N_hi", "D", "D_lo", "D_hi", "loss_power", "loss", "loss_lo", "loss_hi"});
  const json& law = f["loss_law"];
  const bool sat = law["fitted"].get<bool>();
  // The panels' y ranges, explicit so that the data's budgets can be shaded over them.
  auto [ylo2, yhi2] = range_of(fr["N"]);
  const auto [dlo2, dhi2] = range_of(fr["D"]);
  ylo2 = std::min(ylo2, range_of(minima["N"]).first) / 2;
  yhi2 = std::max(dhi2, range_of(minima["D"]).second) * 2;
  double ylo3 = range_of(minima["loss"]).first, yhi3 = range_of(minima["loss"]).second;
  for (const char* k : {"loss_power", "loss", "loss_lo", "loss_hi"}) {
    const auto [a, b] = range_of(fr[k]);
    ylo3 = std::min(ylo3, a), yhi3 = std::max(yhi3, b);
  }
  const double pad3 = 0.05 * (yhi3 - ylo3);
  ylo3 -= pad3, yhi3 += pad3;
  const double c0 = f["C_range"][0].get<double>(), c1 = f["C_range"][1].get<double>();
  const auto shade2 = range_shade("range2", c0, c1, ylo2, yhi2), shade3 = range_shade("range3", c0, c1, ylo3, yhi3);
  pre += shade2.first + shade3.first;
  const std::string loss_label = gp_string(literal(labels["loss"])), C_label = gp_string(literal(labels["C"]));
  std::vector<FitPanel> panels;
  for (const auto& which : chosen) {
    FitPanel q;
    if (which == "isoflop") {  // the slices, their parabolas and minima
      q.colour_bar = true;
      q.setup = colour_axis(lc_lo, lc_hi, "log_{10} C (FLOPs)") + "set logscale x\n" +
                log_axis("x", nlo / 1.2, nhi * 1.2) +
                fmt::format("set yrange [{:.6g}:{:.6g}]\n", llo - 0.05 * (lhi - llo), lhi + 0.05 * (lhi - llo)) +
                "set xlabel " + gp_string(literal(labels["N"])) + "\nset ylabel " + loss_label +
                "\nset title 'IsoFLOP curves'\n";
      q.add(fmt::format("$pts using 1:2:3 with points {} lc palette", kRun));
      for (const auto& c : parabolas.second) q.add(c);
      q.grey_key(std::string("points ") + kRun, runs_key(f, "runs (colour: budget C)"));
      q.grey_key("lines dt 2 lw 1.5", "parabola of each budget");
      if (f["trim"].get<double>() > 0) {
        q.add("$cut using 1:2:3 with points pt 6 ps 0.75 lc palette");
        q.grey_key("points pt 6 ps 0.75", "trimmed (not in the parabola)");
      }
      q.add("$minima using 2:4 with points pt 6 ps 1.6 lw 2 lc rgb 'black'", "minimum of each parabola");
    } else if (which == "frontier") {
      const std::string a_interval = fr.contains("a_interval") && fr["a_interval"][0].is_number()
                                         ? fmt::format(", a ∈ [{:.3f}, {:.3f}]", fr["a_interval"][0].get<double>(),
                                                       fr["a_interval"][1].get<double>())
                                         : "";
      frontier_axes(q, fclo, fchi, ylo2, yhi2, C_label, shade2.second, bands, level_text);
      q.add(fmt::format("$minima using 1:2 with points pt 7 {} lc rgb '#0072B2'", kMark), "N_{opt} of each budget");
      q.add("$frontier using 1:2 with lines dt 2 lw 2 lc rgb '#0072B2'",
            fmt::format("N_{{opt}} ∝ C^{{{:.3f}}}{}", fr["a"].get<double>(), a_interval));
      q.add(fmt::format("$minima using 1:3 with points pt 5 {} lc rgb '#D55E00'", kMark), "D_{opt} of each budget");
      q.add("$frontier using 1:5 with lines dt 2 lw 2 lc rgb '#D55E00'",
            fmt::format("D_{{opt}} ∝ C^{{{:.3f}}}", fr["b"].get<double>()));
    } else {  // "loss": the loss at the minima against the budget
      q.setup = "set logscale x\n" + log_axis("x", fclo, fchi) +
                fmt::format("set yrange [{:.6g}:{:.6g}]\n", ylo3, yhi3) + "set xlabel " + C_label + "\nset ylabel " +
                gp_string(literal(labels["loss"]) + " at the optimum") + "\nset title 'Loss at the optimum'\n";
      q.add(shade3.second, "budgets of the data");
      if (bands)
        q.add("$frontier using 1:10:11 with filledcurves lc rgb '#000000' fs transparent solid 0.12",
              level_text + " band of L_{opt}");
      q.add(fmt::format("$minima using 1:4 with points pt 7 {} lc rgb 'black'", kMark), "L_{opt} of each budget");
      q.add("$frontier using 1:8 with lines dt 3 lw 2 lc rgb '#7f7f7f'", "power law");
      if (sat)
        q.add("$frontier using 1:9 with lines dt 2 lw 2 lc rgb '#000000'",
              fmt::format("{:.3g} + {:.3g} C^{{-{:.3f}}}", law["E"].get<double>(), law["A"].get<double>(),
                          law["gamma"].get<double>()));
    }
    panels.push_back(q);
  }
  return draw_panels(dir, name, "IsoFLOP analysis", pre, panels);
}

}  // namespace scalinglab::fit
