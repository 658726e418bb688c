#pragma once
// One style for every figure the lab draws (sweeps, fits, frontiers, extrapolations): palette,
// font, frame and grid, and the layout that keeps the legend outside the data without shrinking
// the plot (the canvas grows for the legend instead). Figures are written as SVG, PNG and PDF.
#include <cstddef>
#include <string>
#include <vector>

namespace scalinglab {

// Colour-blind friendly palette (Okabe-Ito without yellow), then tableau colours. Curve i of a
// figure takes palette_colour(i); theory takes the colour of the simulation it describes.
const char* palette_colour(std::size_t i);
// Guide lines that belong to no single curve (a formula over all series): black, then grey.
const char* guide_colour(std::size_t i);

// The font of every figure and its size in points (titles, labels, tics and legends).
inline constexpr const char* kFigureFont = "Helvetica,12";

// Frame, tics and grid shared by every figure (after `set terminal`).
std::string figure_style_lines();

// For figures of several panels with legends (fits, frontiers): room under each panel, and the
// gnuplot macro `@panel_key` that puts a panel's legend there, outside its data.
std::string panel_style_lines();

// Tick labels of a log axis: powers of ten ("10^7") when the range spans two decades or more
// (numbers such as 1x10^18 would run into each other), plain numbers otherwise.
std::string log_format(char axis, double lo, double hi);

// The width in pixels a legend or label of enhanced text takes at the figure font (an estimate:
// markup is not counted, superscripts count less).
double text_width(const std::string& enhanced);

// A single plot's canvas: a fixed plot area (so that every figure's data are drawn the same size)
// with room for the title, the axis labels, a note line and the legend, right of the plot or,
// for long labels, below it.
struct FigureLayout {
  int width = 0, height = 0;
  std::string lines;  // margins and key placement, for the script
};
FigureLayout line_figure_layout(const std::vector<std::string>& key_labels, int title_lines, bool note_line);

// The three outputs of a figure: `set terminal ... / set output ...` lines for NAME.svg, NAME.png
// and NAME.pdf at the given pixel size (the PDF at 100 pixels per inch, fonts at the same size
// relative to the frame).
std::string svg_terminal(const std::string& name, int width, int height);
std::string png_terminal(const std::string& name, int width, int height);
std::string pdf_terminal(const std::string& name, int width, int height);

// A small grey line of text at the bottom left of a canvas `height` pixels high (`label_tag`
// numbers it): what the figure leaves out and why (points that cannot be placed on a log axis).
std::string note_line(const std::string& text, int height, int label_tag = 99);

}  // namespace scalinglab
