#include "scalinglab/plot/panels.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "scalinglab/core/file_io.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/plot.hpp"

namespace scalinglab {

bool panel_matches(const GridPoint& point, const std::map<std::string, std::string>& where) {
  // Grid points carry their part apart from their parameters.
  if (auto it = where.find("part"); it != where.end()) {
    const Params::Entry part{&part_param(), point.part, NAN, ""};
    if (!entry_matches(part, it->second)) return false;
  }
  return params_match(point.params, where);
}

const std::vector<double>* first_run_series(const std::vector<TaskResult>& results, const std::string& key,
                                            const std::string& metric) {
  const TaskResult* best = nullptr;
  for (const auto& r : results)
    if (r.key == key && (!best || r.run < best->run)) best = &r;
  if (!best) return nullptr;
  for (const auto& [name, values] : best->record.series)
    if (name == metric) return &values;
  return nullptr;
}

std::string panel_title(const GridPoint& point, const std::vector<std::string>& axes) {
  std::string title;
  for (const auto& axis : axes) {
    std::string text;
    if (axis == "part") {
      text = point.part;
    } else if (point.params.has(axis)) {
      const auto& e = point.params.entry(axis);
      text = axis + " = " + (e.given.empty() ? e.text : e.given);
    }
    if (!text.empty()) title += (title.empty() ? "" : ", ") + text;
  }
  return title;
}

PanelGrid panel_grid(std::size_t n, int columns) {
  const auto cols = columns > 0 ? std::min<std::size_t>(static_cast<std::size_t>(columns), n)
                                : static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  return {(n + cols - 1) / cols, cols};
}

bool write_and_run_multiplot(const std::string& out_dir, const std::string& name, int width, int height,
                             const std::string& comment, const std::string& preamble, const std::string& multiplot) {
  {
    std::ostringstream gp;
    gp << "# " << gp_comment(comment) << "; rerun with: gnuplot " << name << ".gp\n"
       << "set encoding utf8\n"
       << svg_terminal(name, width, height) << figure_style_lines() << preamble << multiplot << "\n"
       << png_terminal(name, width, height) << multiplot << "\n"
       << pdf_terminal(name, width, height) << multiplot << "unset output\n";
    write_file((std::filesystem::path(out_dir) / (name + ".gp")).string(), gp.str());
  }
  return run_gnuplot_script(out_dir, name);
}

}  // namespace scalinglab
