#include "scalinglab/plot/scatter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>

#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/plot/panels.hpp"
#include "scalinglab/plot/plot.hpp"

namespace scalinglab {

namespace fs = std::filesystem;

namespace {

// Okabe-Ito without yellow, then tableau colours: class k gets kClassColors[k % 10].
const unsigned kClassColors[] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00,
                                 0x56B4E9, 0x000000, 0x8c564b, 0x7f7f7f, 0xbcbd22};

unsigned class_color(std::size_t k) { return kClassColors[k % std::size(kClassColors)]; }

// The colour mixed with white (regions are shaded lightly so the points stay visible).
unsigned light(unsigned rgb, double keep = 0.22) {
  unsigned out = 0;
  for (int shift : {16, 8, 0}) {
    const double c = (rgb >> shift) & 0xFF;
    out |= static_cast<unsigned>(std::lround(255 - keep * (255 - c))) << shift;
  }
  return out;
}

struct Panel {
  std::string title;
  const std::vector<double>* xy = nullptr;       // n x 2
  const std::vector<double>* classes = nullptr;  // n, or null
  const std::vector<double>* centers = nullptr;  // m x 2, or null
  double extent = 1;                             // the panel shows [-extent, extent]^2
  double arrow_scale = 1;                        // centers are drawn scaled by this
};

std::size_t class_of(const Panel& p, std::size_t i) {
  if (!p.classes) return 0;
  const double c = (*p.classes)[i];
  return c >= 0 && std::isfinite(c) ? static_cast<std::size_t>(c) : 0;
}

// The region of (x, y): argmax_k <c_k, (x, y)> (ties to the smaller k).
std::size_t region_of(const std::vector<double>& centers, double x, double y) {
  std::size_t best = 0;
  double best_score = -INFINITY;
  for (std::size_t k = 0; 2 * k + 1 < centers.size(); ++k) {
    const double s = centers[2 * k] * x + centers[2 * k + 1] * y;
    if (s > best_score) best_score = s, best = k;
  }
  return best;
}

bool check_shapes(const Panel& p, const PlotSpec& plot, const std::string& name) {
  auto warn = [&](const std::string& what) {
    std::fprintf(stderr, "scalinglab: warning: scatter %s (%s): %s; panel skipped\n", terminal_text(name).c_str(),
                 terminal_text(p.title).c_str(), terminal_text(what).c_str());
    return false;
  };
  if (p.xy->size() % 2) return warn(plot.points + " has an odd number of values (expected n x 2)");
  if (p.classes && p.classes->size() * 2 != p.xy->size())
    return warn(fmt::format("{} has {} values for {} points", plot.classes, p.classes->size(), p.xy->size() / 2));
  if (p.centers && p.centers->size() % 2) return warn(plot.centers + " has an odd number of values (expected m x 2)");
  return true;
}

}  // namespace

bool draw_scatter(const PlotSpec& plot, const std::vector<GridPoint>& points, const std::vector<TaskResult>& results,
                  const std::vector<std::string>& axes, const std::string& out_dir, const std::string& name,
                  const std::string& title) {
  std::vector<Panel> panels;
  for (const auto& pt : points) {
    if (!panel_matches(pt, plot.where)) continue;
    Panel panel;
    panel.title = panel_title(pt, axes);
    panel.xy = first_run_series(results, pt.key, plot.points);
    if (!panel.xy) continue;
    if (!plot.classes.empty()) panel.classes = first_run_series(results, pt.key, plot.classes);
    if (!plot.centers.empty()) panel.centers = first_run_series(results, pt.key, plot.centers);
    if (!check_shapes(panel, plot, name)) continue;
    double extent = 0;
    for (double v : *panel.xy) extent = std::max(extent, std::fabs(v));
    panel.extent = extent > 0 && std::isfinite(extent) ? 1.1 * extent : 1.0;
    if (panel.centers) {  // arrows share one scale, the longest reaching 80% of the frame
      double longest = 0;
      for (std::size_t k = 0; 2 * k + 1 < panel.centers->size(); ++k)
        longest = std::max(longest, std::hypot((*panel.centers)[2 * k], (*panel.centers)[2 * k + 1]));
      panel.arrow_scale = longest > 0 && std::isfinite(longest) ? 0.8 * panel.extent / longest : 1.0;
    }
    panels.push_back(panel);
  }
  if (panels.empty()) {
    std::fprintf(stderr, "scalinglab: warning: scatter %s: no grid point has a '%s' series to draw\n", name.c_str(),
                 plot.points.c_str());
    return false;
  }
  fs::create_directories(out_dir);
  const fs::path base = fs::path(out_dir) / name;
  // Per panel, three blocks (index 3i, 3i+1, 3i+2): the shaded regions "x y r g b" on a 161 x 161
  // grid (empty without centers), the points "x y rgb", the centers "x y k rgb" (scaled: arrows
  // show directions and relative lengths; the regions use the true centers).
  constexpr int kGrid = 161;
  {
    std::ostringstream dat;
    dat << "# scatter of " << plot.points << "; per panel: regions (x y r g b), points (x y rgb), centers (x y class rgb)\n";
    for (const auto& p : panels) {
      dat << "# " << gp_comment(p.title) << ": regions\n";
      if (p.centers)
        for (int i = 0; i < kGrid; ++i) {
          for (int j = 0; j < kGrid; ++j) {
            const double x = -p.extent + 2 * p.extent * i / (kGrid - 1), y = -p.extent + 2 * p.extent * j / (kGrid - 1);
            const unsigned c = light(class_color(region_of(*p.centers, x, y)));
            dat << fmt::format("{:.6g} {:.6g} {} {} {}\n", x, y, c >> 16, (c >> 8) & 0xFF, c & 0xFF);
          }
          dat << "\n";
        }
      else
        dat << "0 0 255 255 255\n";  // gnuplot needs a non-empty block
      dat << "\n\n# " << gp_comment(p.title) << ": points\n";
      for (std::size_t i = 0; 2 * i < p.xy->size(); ++i)
        dat << fmt::format("{:.8g} {:.8g} {}\n", (*p.xy)[2 * i], (*p.xy)[2 * i + 1], class_color(class_of(p, i)));
      dat << "\n\n# " << gp_comment(p.title) << ": centers\n";
      if (p.centers)
        for (std::size_t k = 0; 2 * k + 1 < p.centers->size(); ++k)
          dat << fmt::format("{:.8g} {:.8g} {} {}\n", p.arrow_scale * (*p.centers)[2 * k],
                             p.arrow_scale * (*p.centers)[2 * k + 1], k, class_color(k));
      else
        dat << "0 0 0 0\n";
      dat << "\n\n";
    }
    write_file(base.string() + ".dat", dat.str());
  }
  const auto [nrows, ncols] = panel_grid(panels.size(), plot.columns);
  const int width = static_cast<int>(400 * ncols + 40), height = static_cast<int>(400 * nrows + 60);
  const std::string dat = gp_string(name + ".dat");
  std::ostringstream mp;
  mp << "set multiplot layout " << nrows << "," << ncols << " title " << gp_string(plot.title.empty() ? title : plot.title)
     << "\n";
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const auto& p = panels[i];
    mp << "set title " << gp_string(gp_literal_markup(p.title)) << "\n"
       << fmt::format("set xrange [{:.6g}:{:.6g}]\nset yrange [{:.6g}:{:.6g}]\n", -p.extent, p.extent, -p.extent, p.extent)
       << "plot ";
    if (p.centers) mp << dat << " index " << 3 * i << " using 1:2:3:4:5 with rgbimage pixels notitle, ";
    mp << dat << " index " << 3 * i + 1 << " using 1:2:3 with points pt 7 ps 0.9 lc rgb variable notitle";
    if (p.centers)
      mp << ", " << dat << " index " << 3 * i + 2
         << " using (0):(0):1:2:4 with vectors head filled size screen 0.012,20 lw 2.2 lc rgb variable notitle, "
         << dat << " index " << 3 * i + 2 << " using ($1*1.12):($2*1.12):(sprintf('%d', $3)) with labels notitle";
    mp << "\n";
  }
  mp << "unset multiplot\n";
  const std::string preamble = "unset grid\nunset key\nunset colorbox\nset tics out nomirror\nset size ratio -1\nset xlabel " +
                               gp_string(plot.xlabel.empty() ? plot.points + "[0]" : plot.xlabel) + "\nset ylabel " +
                               gp_string(plot.ylabel.empty() ? plot.points + "[1]" : plot.ylabel) + "\n";
  return write_and_run_multiplot(out_dir, name, width, height, "Scatter of " + plot.points, preamble, mp.str());
}

}  // namespace scalinglab
