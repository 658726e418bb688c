#include "scalinglab/plot/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "scalinglab/core/file_io.hpp"
#include "scalinglab/plot/panels.hpp"
#include "scalinglab/plot/plot.hpp"

namespace scalinglab {

namespace fs = std::filesystem;

namespace {

struct Panel {
  std::string title;
  std::size_t rows = 0, cols = 0;
  const std::vector<double>* values = nullptr;
};

}  // namespace

bool draw_heatmaps(const PlotSpec& plot, const std::vector<GridPoint>& points, const std::vector<TaskResult>& results,
                   const std::vector<std::string>& axes, const std::string& out_dir, const std::string& name,
                   const std::string& title) {
  std::vector<Panel> panels;
  for (const auto& pt : points) {
    if (!panel_matches(pt, plot.where)) continue;
    const auto* values = first_run_series(results, pt.key, plot.matrix);
    if (!values) continue;
    Panel panel;
    panel.rows = static_cast<std::size_t>(pt.params.real(plot.rows));
    panel.cols = static_cast<std::size_t>(pt.params.real(plot.cols));
    if (panel.rows * panel.cols != values->size()) {
      std::fprintf(stderr, "scalinglab: warning: heatmap %s: %s has %zu values, not %s x %s = %zu; skipped\n",
                   name.c_str(), plot.matrix.c_str(), values->size(), plot.rows.c_str(), plot.cols.c_str(),
                   panel.rows * panel.cols);
      continue;
    }
    panel.values = values;
    panel.title = panel_title(pt, axes);
    panels.push_back(panel);
  }
  if (panels.empty()) {
    std::fprintf(stderr, "scalinglab: warning: heatmap %s: no grid point has a '%s' series to draw\n", name.c_str(),
                 plot.matrix.c_str());
    return false;
  }
  fs::create_directories(out_dir);
  const fs::path base = fs::path(out_dir) / name;
  {
    // One gnuplot "matrix" block per panel, separated by two blank lines (index i).
    std::ostringstream dat;
    dat << "# " << plot.matrix << " (" << plot.rows << " rows x " << plot.cols << " columns), one block per panel\n";
    for (const auto& p : panels) {
      dat << "# " << gp_comment(p.title) << "\n";
      for (std::size_t r = 0; r < p.rows; ++r) {
        for (std::size_t c = 0; c < p.cols; ++c) dat << (c ? " " : "") << (*p.values)[r * p.cols + c];
        dat << "\n";
      }
      dat << "\n\n";
    }
    write_file(base.string() + ".dat", dat.str());
  }
  const std::size_t n = panels.size();
  const auto [nrows, ncols] = panel_grid(n, plot.columns);
  const int width = static_cast<int>(380 * ncols + 40), height = static_cast<int>(260 * nrows + 60);
  std::ostringstream mp;
  mp << "set multiplot layout " << nrows << "," << ncols << " title " << gp_string(plot.title.empty() ? title : plot.title)
     << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = panels[i];
    double amax = 0;
    for (double v : *p.values) amax = std::max(amax, std::fabs(v));
    if (!(amax > 0)) amax = 1;  // symmetric colour range: white is 0
    mp << "set title " << gp_string(gp_literal_markup(p.title)) << "\nset cbrange [" << -amax << ":" << amax << "]\n"
       << "set cbtics (" << -amax << ", 0, " << amax << ") format \"%.2g\"\n"
       << "set xrange [-0.5:" << p.cols - 0.5 << "]\nset yrange [" << p.rows - 0.5 << ":-0.5]\n"
       << "plot " << gp_string(name + ".dat") << " index " << i << " matrix with image\n";
  }
  mp << "unset multiplot\n";
  const std::string preamble = "unset grid\nset palette defined (-1 \"#2166ac\", 0 \"#f7f7f7\", 1 \"#b2182b\")\n"
                               "unset key\nset tics out nomirror\nset size ratio -1\nset xlabel " +
                               gp_string(plot.xlabel.empty() ? plot.cols : plot.xlabel) + "\nset ylabel " +
                               gp_string(plot.ylabel.empty() ? plot.rows : plot.ylabel) + "\n";
  return write_and_run_multiplot(out_dir, name, width, height, "Heat maps of " + plot.matrix, preamble, mp.str());
}

}  // namespace scalinglab
