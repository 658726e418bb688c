#include "scalinglab/plot/figure_style.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "scalinglab/plot/gnuplot.hpp"

namespace scalinglab {

namespace {

const char* const kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                "#56B4E9", "#000000", "#8c564b", "#7f7f7f", "#bcbd22"};
const char* const kGuides[] = {"#222222", "#777777"};

// Pixels of the figure's plot area and margins (the font is 12 points on a 96-dpi canvas).
constexpr int kLeft = 92, kPlotWidth = 540, kPlotHeight = 340, kRightPad = 16;
constexpr int kKeyGap = 18, kKeySample = 56, kLineHeight = 19;
constexpr int kTitleLine = 19, kTopPad = 26, kBottom = 72, kNote = 18;
// Legends wider than this go below the plot (labels of about 36 characters and more).
constexpr int kMaxKeyWidth = 380;

std::string frac(double v) { return fmt::format("{:.5f}", v); }

}  // namespace

const char* palette_colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }
const char* guide_colour(std::size_t i) { return kGuides[i % std::size(kGuides)]; }

std::string figure_style_lines() {
  return "set border 3 lc rgb '#404040' lw 1\n"
         "set tics nomirror out scale 0.6\n"
         "set grid xtics ytics mxtics mytics lt 1 lc rgb '#e4e4e4' lw 1, lt 1 lc rgb '#f3f3f3' lw 0.6\n";
}

std::string panel_style_lines() {
  return "set bmargin 9\nset rmargin 4\n"
         "panel_key = 'set key at graph 0, graph -0.2 left top Left reverse vertical maxrows 2 samplen 2.5'\n";
}

std::string log_format(char axis, double lo, double hi) {
  return hi / lo >= 100 ? fmt::format("set format {} '10^{{%L}}'\n", axis) : fmt::format("set format {} '%g'\n", axis);
}

double text_width(const std::string& enhanced) {
  double w = 0;
  bool escaped = false;
  int script = 0;  // depth inside ^{...} or _{...}
  for (std::size_t i = 0; i < enhanced.size(); ++i) {
    const auto c = static_cast<unsigned char>(enhanced[i]);
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: counted with its lead byte
    if (!escaped && c == '\\') {
      escaped = true;
      continue;
    }
    if (!escaped && (c == '^' || c == '_') && i + 1 < enhanced.size() && enhanced[i + 1] == '{') {
      ++script, ++i;
      continue;
    }
    if (!escaped && c == '}' && script > 0) {
      --script;
      continue;
    }
    escaped = false;
    // Advance widths measured on the PNG terminal (pixels at the figure font).
    const double advance = c == ' '          ? 5.7
                           : std::isdigit(c) ? 9.9
                           : std::isupper(c) ? 10.7
                           : std::islower(c) ? 8.8
                           : c >= 0x80       ? 9.5
                                             : 6.5;
    w += (script > 0 ? 0.75 : 1.0) * advance * 1.1;  // 10% to spare: kerning and hinting vary
  }
  return w;
}

FigureLayout line_figure_layout(const std::vector<std::string>& key_labels, int title_lines, bool note_line) {
  double widest = 0;
  for (const auto& label : key_labels) widest = std::max(widest, text_width(label));
  const int key_width = static_cast<int>(std::ceil(kKeySample + widest + 12));
  const bool below = key_width > kMaxKeyWidth;
  const int top = kTopPad + kTitleLine * title_lines;
  const int bottom_text = kBottom + (note_line ? kNote : 0);
  int width = kLeft + kPlotWidth + kRightPad, height = top + kPlotHeight + bottom_text;
  int key_rows = 0;
  if (below) {
    const int columns = key_width * 2 <= width - kLeft ? 2 : 1;
    key_rows = static_cast<int>((key_labels.size() + columns - 1) / columns);
    height += key_rows * kLineHeight + 18;
  } else if (!key_labels.empty()) {
    width += kKeyGap + key_width - kRightPad + 8;
  }
  const int plot_bottom = height - top - kPlotHeight;  // pixels from the canvas bottom
  FigureLayout f;
  f.width = width;
  f.height = height;
  const double x0 = static_cast<double>(kLeft) / width, x1 = static_cast<double>(kLeft + kPlotWidth) / width;
  const double y0 = static_cast<double>(plot_bottom) / height, y1 = static_cast<double>(plot_bottom + kPlotHeight) / height;
  f.lines = fmt::format("set lmargin at screen {}\nset rmargin at screen {}\nset bmargin at screen {}\nset tmargin at screen {}\n",
                        frac(x0), frac(x1), frac(y0), frac(y1));
  if (key_labels.empty()) {
    f.lines += "unset key\n";
  } else if (below) {
    const double key_top = static_cast<double>(key_rows * kLineHeight + 12 + (note_line ? kNote : 0)) / height;
    f.lines += fmt::format("set key at screen {}, screen {} left top Left reverse samplen 2.5 spacing 1.1 maxrows {}\n",
                           frac(x0), frac(key_top), key_rows);
  } else {
    f.lines += fmt::format("set key at screen {}, screen {} left top Left reverse samplen 2.5 spacing 1.2\n",
                           frac(static_cast<double>(kLeft + kPlotWidth + kKeyGap) / width), frac(y1));
  }
  return f;
}

std::string svg_terminal(const std::string& name, int width, int height) {
  // The SVG draws 12-point text as 12 pixels, smaller than the PNG's (cairo's 96 dpi): its layout
  // is gnuplot's own for that size, so the text only looks smaller, nothing is cut.
  return fmt::format("set terminal svg size {},{} fixed enhanced font '{}' background rgb 'white'\nset output {}\n",
                     width, height, kFigureFont, gp_string(name + ".svg"));
}

std::string png_terminal(const std::string& name, int width, int height) {
  return fmt::format("set terminal pngcairo size {},{} enhanced font '{}' background rgb 'white'\nset output {}\n", width,
                     height, kFigureFont, gp_string(name + ".png"));
}

std::string pdf_terminal(const std::string& name, int width, int height) {
  // pdfcairo sizes fonts against the page, not pixels: 0.72 makes the text the same fraction of
  // the frame as in the PNG (measured by rendering both).
  return fmt::format("set terminal pdfcairo size {:.2f}in,{:.2f}in enhanced font '{}' fontscale 0.72\nset output {}\n",
                     width / 100.0, height / 100.0, kFigureFont, gp_string(name + ".pdf"));
}

std::string note_line(const std::string& text, int height, int label_tag) {
  return fmt::format("set label {} {} at screen 0.01, screen {} left front font ',10' tc rgb '#555555'\n", label_tag,
                     gp_string(gp_literal_markup(text)), frac(10.0 / height));
}

}  // namespace scalinglab
