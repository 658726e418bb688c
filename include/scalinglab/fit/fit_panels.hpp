#pragma once
// The panels of the fit figures, by name, so that a figure can be drawn whole or in part
// (`--plot-panels`, Python's plot_fit(panels=...)):
//   two-input law ("law2"):     isoflop, ratio, frontier, residuals, residuals-N, residuals-D
//   one-input law ("law1"):     law, residuals, residuals-x
//   IsoFLOP analysis ("isoflop"): isoflop, frontier, loss
#include <cstddef>
#include <string>
#include <vector>

namespace scalinglab::fit {

// The panels of a figure kind, in their default order (empty for an unknown kind).
const std::vector<std::string>& figure_panels(const std::string& kind);

// The name of a panel of some figure kind as written (any case, blanks around it ignored):
// "Residuals-n" -> "residuals-N". Throws InputError, one sentence listing every panel.
std::string panel_name(const std::string& text);

// Every panel by figure kind, for help texts and messages: "isoflop, ratio, ... (two-input law);
// law, ... (one-input law); ...".
std::string every_panel();

// The panels to draw of those a figure has: the asked ones in the order asked, repeats dropped
// (all when none are asked); `missing` gets the asked ones the figure lacks.
std::vector<std::string> choose_panels(const std::vector<std::string>& available, const std::vector<std::string>& asked,
                                       std::vector<std::string>* missing = nullptr);

// The most runs a figure draws: a larger table is drawn by an evenly spaced subsample (in the
// table's order), so that a figure (and Python's fit result, which carries its numbers) stays small.
inline constexpr std::size_t kFigureMaxPoints = 5000;

// The rows drawn out of n: all, or kFigureMaxPoints evenly spaced ones (row i * n / max).
std::vector<std::size_t> figure_rows(std::size_t n, std::size_t max = kFigureMaxPoints);

}  // namespace scalinglab::fit
