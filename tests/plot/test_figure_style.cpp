// The shared figure layout: the plot area is the same whatever the legend, which gets room of its
// own (right of the plot, or below it for long labels) instead of squeezing the data.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "scalinglab/plot/figure_style.hpp"

namespace scalinglab {
namespace {

double screen(const std::string& lines, const std::string& what) {
  std::smatch m;
  const std::regex re("set " + what + " at screen ([0-9.]+)");
  if (!std::regex_search(lines, m, re)) return -1;
  return std::stod(m[1]);
}

// The plot area in pixels: {left, right, bottom, top}.
struct Area {
  double l, r, b, t;
};
Area area(const FigureLayout& f) {
  return {screen(f.lines, "lmargin") * f.width, screen(f.lines, "rmargin") * f.width,
          screen(f.lines, "bmargin") * f.height, screen(f.lines, "tmargin") * f.height};
}

TEST(FigureLayout, ThePlotAreaDoesNotShrinkForTheLegend) {
  const auto short_key = line_figure_layout({"T = 100", "T = inf"}, 1, false);
  const auto wide_key = line_figure_layout({"T = 100", "a label of thirty characters!!"}, 1, false);
  const auto a = area(short_key), b = area(wide_key);
  EXPECT_NEAR(a.r - a.l, b.r - b.l, 1.0);
  EXPECT_NEAR(a.t - a.b, b.t - b.b, 1.0);
  EXPECT_GT(wide_key.width, short_key.width + 100);  // the canvas grew instead
  // The key starts right of the plot area.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(wide_key.lines, m, std::regex("set key at screen ([0-9.]+)")));
  EXPECT_GT(std::stod(m[1]) * wide_key.width, b.r);
  // Its width fits the longest label: the canvas is at least as wide as the key's end.
  EXPECT_GE(wide_key.width, b.r + text_width("a label of thirty characters!!"));
}

TEST(FigureLayout, LongLabelsGoBelowThePlot) {
  const std::string long_label = "not_learnt_paper, theory (skills.learnt) at every R";
  const auto f = line_figure_layout({"a", long_label, "b"}, 2, true);
  const auto a = area(f);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(f.lines, m, std::regex("set key at screen ([0-9.]+), screen ([0-9.]+)")));
  EXPECT_LT(std::stod(m[2]) * f.height, a.b);  // the key's top is under the plot area
  EXPECT_LE(f.width, a.r + 40);                // no room reserved on the right
  EXPECT_NE(f.lines.find("maxrows"), std::string::npos);
}

TEST(FigureLayout, NoLabelsNoKey) {
  EXPECT_NE(line_figure_layout({}, 0, false).lines.find("unset key"), std::string::npos);
}

TEST(FigureStyle, TextWidthGrowsWithTheTextAndIgnoresMarkup) {
  EXPECT_GT(text_width("abcdef"), text_width("abc"));
  EXPECT_NEAR(text_width("d^{2}"), text_width("d") + 0.75 * text_width("2"), 1e-9);
  EXPECT_NEAR(text_width("error\\_rate"), text_width("error_rate"), 1e-9);
  EXPECT_NEAR(text_width("\u00b1"), text_width("a") * 9.5 / 8.8, 1e-9);  // one character, not two bytes
}

TEST(FigureStyle, EveryTerminalWritesItsOwnFile) {
  EXPECT_NE(svg_terminal("plot", 700, 500).find("set output 'plot.svg'"), std::string::npos);
  EXPECT_NE(png_terminal("plot", 700, 500).find("set output 'plot.png'"), std::string::npos);
  const std::string pdf = pdf_terminal("plot", 700, 500);
  EXPECT_NE(pdf.find("size 7.00in,5.00in"), std::string::npos) << pdf;
  EXPECT_NE(pdf.find("set output 'plot.pdf'"), std::string::npos) << pdf;
  // Names are quoted as gnuplot strings: a quote cannot end the file name early.
  EXPECT_NE(svg_terminal("it's", 10, 10).find("set output 'it\u2019s.svg'"), std::string::npos);
}

TEST(FigureStyle, NotesAreEscapedForGnuplot) {
  const std::string line = note_line("1 point with a_b = 0 `rm`", 500);
  EXPECT_NE(line.find("'1 point with a\\_b = 0 \u2018rm\u2018'"), std::string::npos) << line;
}

}  // namespace
}  // namespace scalinglab
