#pragma once
// Helpers shared by the multi-panel figures (heat maps, embedding scatter plots): one panel per
// selected grid point, drawn from the first run present, titled with the grid values.
#include <map>
#include <string>
#include <vector>

#include "scalinglab/plot/gnuplot.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

// The point matches `where` (part included; a parameter the point lacks does not apply).
bool panel_matches(const GridPoint& point, const std::map<std::string, std::string>& where);

// The series `metric` of the lowest run index present for `key`, or null.
const std::vector<double>* first_run_series(const std::vector<TaskResult>& results, const std::string& key,
                                            const std::string& metric);

// "d = 64, T = inf" from the point's values of `axes` ("part" gives the part's name).
std::string panel_title(const GridPoint& point, const std::vector<std::string>& axes);

// Writes OUT_DIR/NAME.gp drawing `multiplot` (the panels) three times, to NAME.svg, NAME.png and NAME.pdf, after
// `preamble` (settings shared by the panels), then runs gnuplot; false (with a warning) on failure.
bool write_and_run_multiplot(const std::string& out_dir, const std::string& name, int width, int height,
                             const std::string& comment, const std::string& preamble, const std::string& multiplot);

// Multiplot layout for n panels: `columns` per row (0: about the square root of n).
struct PanelGrid {
  std::size_t rows, cols;
};
PanelGrid panel_grid(std::size_t n, int columns);

}  // namespace scalinglab
