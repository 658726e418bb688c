// Figures of the extrapolation benchmark; data inline as datablocks so that each script stands alone.
#include "scalinglab/extrapolate/extrapolation_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/gnuplot.hpp"
#include "scalinglab/plot/panels.hpp"

namespace scalinglab::extrapolate {


namespace {

double value(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : std::nan(""); }
std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.8g}", v) : "NaN"; }
std::string legend(const std::string& s) { return gp_string(gp_literal_markup(s)); }

// The leaderboard rows of one world, main design unless `all_designs`.
std::vector<const nlohmann::json*> rows_of(const nlohmann::json& report, const std::string& world, bool all_designs) {
  std::vector<const nlohmann::json*> out;
  for (const auto& r : report["rows"])
    if (r["world"] == world && (all_designs || r["main"].get<bool>())) out.push_back(&r);
  return out;
}

struct Layout {
  std::size_t rows, cols;
  std::string head;
};

// One panel per world, stacked, each with its legend on its right (methods are many).
Layout layout(const nlohmann::json& report) {
  const std::size_t n = report["worlds"].size();
  return {n, 1, fmt::format("set multiplot layout {},1\nset rmargin 34\nset bmargin 4\n", n)};
}

const std::string kKey = "set key outside right top vertical Left reverse samplen 2.5\n";

// Ratio figure: prediction / truth of `key` ("N_error" or "L_error") against the horizon.
bool ratio_figure(const std::string& dir, const nlohmann::json& report, const std::string& key, const std::string& name,
                  const std::string& what) {
  const auto& methods = report["methods"];
  std::string pre, mp = layout(report).head;
  std::size_t block = 0;
  for (const auto& w : report["worlds"]) {
    const std::string world = w["name"].get<std::string>();
    double hmin = 1e300, hmax = 0, lo = 1, hi = 1;
    std::string plots;
    for (std::size_t m = 0; m < methods.size(); ++m) {
      std::string rows;
      for (const auto* r : rows_of(report, world, false)) {
        if ((*r)["method"] != methods[m]) continue;
        const double h = (*r)["horizon"].get<double>();
        hmin = std::min(hmin, h), hmax = std::max(hmax, h);
        // Methods side by side at each horizon: a small multiplicative offset.
        const double x = h * std::pow(1.12, static_cast<double>(m) - (methods.size() - 1) / 2.0);
        const auto& e = (*r)[key];
        for (const char* q : {"median", "q25", "q75"})
          if (std::isfinite(value(e[q])) && 1 + value(e[q]) > 0) lo = std::min(lo, 1 + value(e[q])), hi = std::max(hi, 1 + value(e[q]));
        rows += fmt::format("{} {} {} {}\n", num(x), num(1 + value(e["median"])), num(1 + value(e["q25"])),
                            num(1 + value(e["q75"])));
      }
      if (rows.empty()) rows = "NaN NaN NaN NaN\n";
      pre += fmt::format("$b{} << EOD\n{}EOD\n", block, rows);
      plots += fmt::format("{}$b{} using 1:2:3:4 with yerrorlines pt 7 ps 0.8 lw 1.5 lc rgb '{}' title {}",
                           plots.empty() ? "" : ", ", block, palette_colour(m), legend(methods[m].get<std::string>()));
      ++block;
    }
    mp += "unset logscale\nset logscale xy\nset xlabel 'horizon (target budget / last small budget)'\n";
    mp += kKey + fmt::format("set ylabel {}\nset title {}\n", legend(what + " predicted / true"),
                      legend(world + " (" + w["measure"].get<std::string>() + ")"));
    mp += "set format y '%g'\nset ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)\n";
    mp += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", num(hmin / 2), num(hmax * 2), num(std::min(0.8, lo / 1.3)),
                      num(std::max(1.25, hi * 1.3)));
    mp += "plot " + plots + ", 1 with lines dt 2 lw 2 lc rgb 'black' title 'truth (ratio 1)'\n";
  }
  mp += "unset multiplot\n";
  const Layout l = layout(report);
  return write_and_run_multiplot(dir, name, 1100, 440 * static_cast<int>(l.rows),
                                 "extrapolation benchmark: " + what, pre, mp);
}

bool coverage_figure(const std::string& dir, const nlohmann::json& report) {
  const auto& methods = report["methods"];
  std::string pre, mp = layout(report).head;
  std::size_t block = 0;
  for (const auto& w : report["worlds"]) {
    const std::string world = w["name"].get<std::string>();
    std::vector<double> horizons;
    for (const auto& t : w["truth"]) horizons.push_back(t["horizon"].get<double>());
    const double width = 0.8 / static_cast<double>(methods.size());
    std::string plots;
    for (std::size_t m = 0; m < methods.size(); ++m) {
      std::string rows;
      for (const auto* r : rows_of(report, world, false)) {
        if ((*r)["method"] != methods[m]) continue;
        const auto it = std::find(horizons.begin(), horizons.end(), (*r)["horizon"].get<double>());
        const double x = static_cast<double>(it - horizons.begin()) - 0.4 + width * (static_cast<double>(m) + 0.5);
        const auto& c = (*r)["N_coverage"];
        rows += fmt::format("{} {} {} {}\n", num(x), num(value(c["fraction"])), num(value(c["lo"])), num(value(c["hi"])));
      }
      if (rows.empty()) rows = "NaN NaN NaN NaN\n";
      pre += fmt::format("$c{} << EOD\n{}EOD\n", block, rows);
      plots += fmt::format("{}$c{} using 1:2 with boxes fs solid 0.7 lc rgb '{}' title {}, $c{} using 1:2:3:4 with yerrorbars "
                           "pt -1 lc rgb 'black' notitle",
                           plots.empty() ? "" : ", ", block, palette_colour(m), legend(methods[m].get<std::string>()), block);
      ++block;
    }
    std::string tics;
    for (std::size_t h = 0; h < horizons.size(); ++h) tics += fmt::format("{}'{:g}x' {}", h ? ", " : "", horizons[h], h);
    mp += fmt::format("unset logscale\nset boxwidth {}\nset xrange [-0.6:{}]\nset yrange [0:1.05]\nset xtics ({})\n", width,
                      static_cast<double>(horizons.size()) - 0.4, tics);
    mp += "set xlabel 'horizon'\nset ylabel 'coverage of the 95% interval on N_{opt}'\n";
    mp += kKey + fmt::format("set title {}\n", legend(world + " (Wilson 95% bars)"));
    mp += "plot " + plots + ", 0.95 with lines dt 2 lw 2 lc rgb 'black' title 'nominal 0.95'\n";
    mp += "set xtics autofreq\nset autoscale xy\n";
  }
  mp += "unset multiplot\n";
  const Layout l = layout(report);
  return write_and_run_multiplot(dir, "coverage", 1100, 440 * static_cast<int>(l.rows),
                                 "extrapolation benchmark: coverage", pre, mp);
}

// Error (or regret) against the compute of the small runs, one knob of the design turned at a time:
// a row of panels per world, a column per knob (budgets per decade, sizes per budget, runs per
// point), each line a method through the main design and the designs that change that knob only.
bool cost_figure(const std::string& dir, const nlohmann::json& report, const std::string& key, const std::string& name,
                 const std::string& what) {
  const auto& methods = report["methods"];
  const std::vector<std::pair<std::string, std::string>> knobs = {
      {"per_decade", "budgets per decade"}, {"sizes", "sizes per budget"}, {"runs", "runs per point"}};
  std::string pre;
  std::size_t worlds = 0;
  for (const auto& w : report["worlds"]) worlds += w["kind"] == "world" ? 1 : 0;
  if (worlds == 0) return true;
  std::string mp = fmt::format("set multiplot layout {},3\nset rmargin 2\nset bmargin 4\n", worlds);
  std::size_t block = 0;
  for (const auto& w : report["worlds"]) {
    if (w["kind"] != "world") continue;
    const std::string world = w["name"].get<std::string>();
    double hmax = 0;
    for (const auto& t : w["truth"]) hmax = std::max(hmax, t["horizon"].get<double>());
    // The methods with a point in this world: only they are drawn (and named in the key).
    std::vector<std::size_t> present;
    for (std::size_t m = 0; m < methods.size(); ++m)
      for (const auto* r : rows_of(report, world, true))
        if ((*r)["method"] == methods[m] && (*r)["horizon"].get<double>() == hmax && (*r)["status"] == "ok" &&
            std::isfinite(value(key == "regret" ? (*r)["regret"]["median"] : (*r)["N_abs_error"]["median"]))) {
          present.push_back(m);
          break;
        }
    for (std::size_t k = 0; k < knobs.size(); ++k) {
      std::string plots;
      for (std::size_t m : present) {
        std::map<double, std::pair<double, std::string>> pts;  // cost -> (value, design)
        for (const auto* r : rows_of(report, world, true))
          if ((*r)["method"] == methods[m] && (*r)["horizon"].get<double>() == hmax &&
              ((*r)["knob"] == knobs[k].first || (*r)["knob"] == "main") && (*r)["status"] == "ok")
            pts[(*r)["design_cost"].get<double>()] = {value(key == "regret" ? (*r)["regret"]["median"] : (*r)["N_abs_error"]["median"]),
                                                      (*r)["design"].get<std::string>()};
        std::string rows;
        for (const auto& [c, e] : pts)
          if (std::isfinite(e.first) && e.first > 0) rows += fmt::format("{} {}\n", num(c), num(e.first));
        if (rows.empty()) rows = "NaN NaN\n";
        pre += fmt::format("$k{} << EOD\n{}EOD\n", block, rows);
        plots += fmt::format("{}$k{} using 1:2 with linespoints pt 7 lw 1.5 lc rgb '{}' {}", plots.empty() ? "" : ", ", block,
                             palette_colour(m), k == 0 ? "title " + legend(methods[m].get<std::string>()) : "notitle");
        ++block;
      }
      mp += "set ytics autofreq\nunset logscale\nset autoscale xy\nset logscale xy\n";
      mp += fmt::format("set xlabel {}\n", legend("FLOPs of one replication's small runs"));
      mp += (k == 0 ? std::string("set key top right font ',8' samplen 2\n") : std::string("unset key\n")) +
            fmt::format("set ylabel {}\nset title {}\n", legend(fmt::format("median {} at {:g}x", what, hmax)),
                        legend(world + ": " + knobs[k].second));
      mp += "plot " + (plots.empty() ? std::string("NaN notitle") : plots) + "\n";
    }
  }
  mp += "unset multiplot\n";
  return write_and_run_multiplot(dir, name, 1500, 380 * static_cast<int>(worlds),
                                 "extrapolation benchmark: " + what + " against design cost, one knob at a time", pre, mp);
}

}  // namespace

bool plot_benchmark(const std::string& dir, const nlohmann::json& report) {
  if (report["worlds"].empty()) return true;
  bool ok = ratio_figure(dir, report, "N_error", "extrapolation-N", "N_opt");
  ok = ratio_figure(dir, report, "L_error", "extrapolation-L", "L_opt") && ok;
  ok = coverage_figure(dir, report) && ok;
  ok = cost_figure(dir, report, "error", "design-cost", "|N_opt error|") && ok;
  return cost_figure(dir, report, "regret", "design-cost-regret", "regret") && ok;
}

}  // namespace scalinglab::extrapolate
