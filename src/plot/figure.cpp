// A sweep's figure: the kind of its [plot] chooses the part that draws it.
#include "scalinglab/plot/figure.hpp"

#include <cstdio>
#include <exception>

#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/plot/heatmap.hpp"
#include "scalinglab/plot/plot.hpp"
#include "scalinglab/plot/scatter.hpp"

namespace scalinglab {

bool draw_figure(const Sweep& sweep, const FigureData& data, const std::string& out_dir, const std::string& name) {
  if (!sweep.plot) return false;
  const PlotSpec& plot = *sweep.plot;
  const std::string title = sweep.title.empty() ? sweep.name : sweep.title;
  std::vector<std::string> axes;  // panel titles of the multi-panel kinds
  if (!sweep.parts.empty()) axes.push_back("part");
  for (const auto& a : sweep.grid) axes.push_back(a.name);
  try {
    if (plot.kind == "heatmap") return draw_heatmaps(plot, data.points, data.records, axes, out_dir, name, title);
    if (plot.kind == "curves") return draw_series_plot(plot, data.points, data.records, out_dir, name, title);
    if (plot.kind == "scatter") return draw_scatter(plot, data.points, data.records, axes, out_dir, name, title);
    return draw_plot(plot, data.table, out_dir, name, title);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scalinglab: warning: plot not drawn: %s\n", terminal_text(e.what()).c_str());
  }
  return false;
}

}  // namespace scalinglab
