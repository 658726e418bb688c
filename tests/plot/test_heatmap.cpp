// Heat-map figures: parsing of [plot] kind = "heatmap" and the drawn panels (memory matrices).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/plot/plot.hpp"
#include "scalinglab/run/runner.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {
const char* kSweep = R"(measure = "memory.matrix"
runs = 2
seed = 3
[params]
N = 6
M = 3
T = "inf"
scheme = "q0"
[grid]
d = [4, 64]
[plot]
kind = "heatmap"
matrix = "matrix"
rows = "M"
cols = "N"
)";

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("scalinglab-test-heatmap-" + name);
  fs::remove_all(dir);
  return dir;
}
}  // namespace

TEST(Heatmap, ParsesAndRejectsMisuse) {
  const Sweep s = parse_sweep(kSweep, "h.toml", "", {}, world_registry());
  ASSERT_TRUE(s.plot);
  EXPECT_EQ(s.plot->kind, "heatmap");
  EXPECT_EQ(s.plot->matrix, "matrix");
  std::string bad = kSweep;
  bad.replace(bad.find("matrix = \"matrix\""), 17, "matrix = \"error\"");
  EXPECT_THROW(parse_sweep(bad, "h.toml", "", {}, world_registry()), InputError);  // a scalar metric
  std::string with_x = std::string(kSweep) + "x = \"d\"\n";
  EXPECT_THROW(parse_sweep(with_x, "h.toml", "", {}, world_registry()), InputError);  // x is for line plots
}

TEST(Heatmap, DrawsOnePanelPerPointFromTheFirstRun) {
  const fs::path dir = fresh_dir("draw");
  const Sweep s = parse_sweep(kSweep, "h.toml", "", {}, world_registry());
  RunOptions o;
  o.out_dir = dir.string();
  o.quiet = true;
  o.threads = 2;
  run_sweep(s, o);
  std::ifstream dat(dir / "plot.dat");
  ASSERT_TRUE(dat.good());
  std::stringstream text;
  text << dat.rdbuf();
  const std::string body = text.str();
  // Two panels titled by the grid axis, each a 3 x 6 block.
  EXPECT_NE(body.find("# d = 4"), std::string::npos);
  EXPECT_NE(body.find("# d = 64"), std::string::npos);
  std::size_t rows = 0;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int count = 0;
    for (double v; fields >> v;) ++count;
    EXPECT_EQ(count, 6) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 6u);
  if (gnuplot_available()) {
    EXPECT_GT(fs::file_size(dir / "plot.png"), 0u);
    EXPECT_GT(fs::file_size(dir / "plot.pdf"), 0u);
    // Each panel is a bitmap in the SVG, drawn as sharp cells (a browser would blur it).
    std::ifstream svg(dir / "plot.svg");
    const std::string figure((std::istreambuf_iterator<char>(svg)), {});
    std::size_t images = 0, sharp = 0;
    for (auto at = figure.find("<image "); at != std::string::npos; at = figure.find("<image ", at + 1)) {
      ++images;
      sharp += figure.substr(at, figure.find('>', at) - at).find("image-rendering:pixelated") != std::string::npos;
    }
    EXPECT_EQ(images, 2u);
    EXPECT_EQ(sharp, images);
  }
  fs::remove_all(dir);
}
