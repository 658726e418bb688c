// Scatter figures of 2-D embeddings: parsing of [plot] kind = "scatter" and the drawn panels.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/plot/plot.hpp"
#include "scalinglab/run/runner.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {
const char* kSweep = R"(measure = "memory.train"
runs = 2
seed = 3
[params]
N = 12
M = 3
d = 2
model = "learnable"
T = 2000
batch = 8
lr = 0.2
embeddings = true
[grid]
alpha = [1, 2]
[plot]
kind = "scatter"
points = "features"
classes = "label"
centers = "U"
)";

// Non-comment lines of each block (blocks are separated by two blank lines).
std::vector<std::vector<std::string>> blocks(const std::string& body) {
  std::vector<std::vector<std::string>> out(1);
  int blank = 0;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) {
      if (++blank == 2 && !out.back().empty()) out.emplace_back();
      continue;
    }
    blank = 0;
    if (line[0] != '#') out.back().push_back(line);
  }
  if (out.back().empty()) out.pop_back();
  return out;
}
}  // namespace

TEST(Scatter, ParsesAndRejectsMisuse) {
  const Sweep s = parse_sweep(kSweep, "s.toml", "", {}, world_registry());
  ASSERT_TRUE(s.plot);
  EXPECT_EQ(s.plot->kind, "scatter");
  EXPECT_EQ(s.plot->points, "features");
  EXPECT_EQ(s.plot->centers, "U");
  auto rejects = [](std::string text, const std::string& what) {
    try {
      parse_sweep(text, "s.toml", "", {}, world_registry());
      ADD_FAILURE() << "accepted: " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  std::string scalar = kSweep;
  rejects(scalar.replace(scalar.find("points = \"features\""), 19, "points = \"error\""), "not a series metric");
  rejects(std::string(kSweep) + "x = \"d\"\n", "does not apply to scatter");
  std::string no_points = kSweep;
  rejects(no_points.replace(no_points.find("points = \"features\""), 19, ""), "needs points");
  std::string lines = kSweep;
  rejects(lines.replace(lines.find("kind = \"scatter\""), 16, "kind = \"lines\""), "needs kind");
}

TEST(Scatter, DrawsRegionsPointsAndCentersPerPanel) {
  const fs::path dir = fs::temp_directory_path() / "scalinglab-test-scatter";
  fs::remove_all(dir);
  const Sweep s = parse_sweep(kSweep, "s.toml", "", {}, world_registry());
  RunOptions o;
  o.out_dir = dir.string();
  o.quiet = true;
  run_sweep(s, o);
  std::ifstream dat(dir / "plot.dat");
  ASSERT_TRUE(dat.good());
  std::stringstream text;
  text << dat.rdbuf();
  const auto b = blocks(text.str());
  ASSERT_EQ(b.size(), 6u);  // two panels x (regions, points, centers)
  for (int panel = 0; panel < 2; ++panel) {
    EXPECT_EQ(b[3 * panel].size(), 161u * 161u);
    ASSERT_EQ(b[3 * panel + 1].size(), 12u);
    ASSERT_EQ(b[3 * panel + 2].size(), 3u);
    // A point's colour is its class's: classes 0, 1, 2 repeat (f = x mod 3).
    std::map<std::string, int> colour_class;
    for (std::size_t x = 0; x < 12; ++x) {
      std::istringstream f(b[3 * panel + 1][x]);
      double px, py;
      std::string rgb;
      f >> px >> py >> rgb;
      auto [it, fresh] = colour_class.emplace(rgb, static_cast<int>(x % 3));
      EXPECT_EQ(it->second, static_cast<int>(x % 3)) << "colour " << rgb << " used by two classes";
    }
    EXPECT_EQ(colour_class.size(), 3u);
  }
  const std::string gp = [&] {
    std::ifstream in(dir / "plot.gp");
    std::stringstream t;
    t << in.rdbuf();
    return t.str();
  }();
  EXPECT_NE(gp.find("alpha = 1"), std::string::npos);
  EXPECT_NE(gp.find("rgbimage"), std::string::npos);
  if (gnuplot_available()) {
    EXPECT_GT(fs::file_size(dir / "plot.png"), 0u);
    EXPECT_GT(fs::file_size(dir / "plot.svg"), 0u);
  }
  fs::remove_all(dir);
}
