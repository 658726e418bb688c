// Hostile text never runs commands and never writes outside the results folder. Every string a
// sweep file, a shard's run.json or a file name can carry into a gnuplot script is tried with
// three payloads (a newline followed by a gnuplot command, backquotes, a quote that tries to close
// the string); each would create a marker file if gnuplot executed it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_process.hpp"
#include "scalinglab/plot/gnuplot.hpp"

namespace fs = std::filesystem;
using scalinglab::testing::CliOutcome;
using scalinglab::testing::run_cli_args;

namespace {

class Security : public scalinglab::testing::ScratchDirTest {
 protected:

  // The payloads, as TOML basic-string contents, each touching its own marker.
  std::vector<std::string> payloads(const std::string& tag) {
    std::vector<std::string> out;
    for (int k = 0; k < 3; ++k) markers.push_back(dir / ("marker-" + tag + "-" + std::to_string(k)));
    const std::string m0 = markers[markers.size() - 3].string(), m1 = markers[markers.size() - 2].string(),
                      m2 = markers[markers.size() - 1].string();
    out.push_back("x\\nsystem(\\\"touch " + m0 + "\\\")\\n#");       // a newline ends the command
    out.push_back("x `touch " + m1 + "` y");                           // backquote substitution
    out.push_back("x' . system('touch " + m2 + "') . '\\\" . system(\\\"touch " + m2 + "\\\") . \\\"");  // quotes
    return out;
  }
  void expect_no_marker() {
    for (const auto& m : markers) EXPECT_FALSE(fs::exists(m)) << "a command ran: " << m;
  }
  CliOutcome run(const fs::path& sweep, const std::string& out) {
    return run_cli_args({"run", sweep.string(), "--out", (dir / out).string(), "--quiet"});
  }
  // When gnuplot is installed the figure is still drawn: the text was neutralised, not refused.
  void expect_drawn(const std::string& out) {
    if (scalinglab::gnuplot_available()) {
      EXPECT_TRUE(fs::exists(dir / out / "plot.svg")) << out;
    }
  }

  std::vector<fs::path> markers;
};

const char* kLines = R"(measure = "memory.infinite_memory_error"
[params]
N = 100
[grid]
T = [10, 100, 1000]
)";

TEST_F(Security, TitleAndPlotLabelsOfALinePlot) {
  int i = 0;
  for (const auto& p : payloads("lines")) {
    const std::string text = std::string("title = \"") + p + "\"\n" + kLines + "[plot]\nx = \"T\"\ny = \"error\"\nlog = [\"x\", \"y\"]\n" +
                             "title = \"" + p + "\"\nxlabel = \"" + p + "\"\nylabel = \"" + p + "\"\n" +
                             "reference = [{ expr = \"T^-0.5\", label = \"" + p + "\" }]\n";
    const std::string out = "out" + std::to_string(i++);
    const CliOutcome o = run(write("lines.toml", text), out);
    EXPECT_EQ(o.status, 0) << o.out;
    expect_drawn(out);
  }
  // The default title is the sweep's own (file) title when [plot] has none.
  i = 0;
  for (const auto& p : payloads("default-title")) {
    const std::string text = std::string("title = \"") + p + "\"\n" + kLines + "[plot]\nx = \"T\"\ny = \"error\"\n";
    const std::string out = "d" + std::to_string(i++);
    EXPECT_EQ(run(write("lines.toml", text), out).status, 0);
    expect_drawn(out);
  }
  expect_no_marker();
}

TEST_F(Security, PartLabelsInTheLegend) {
  int i = 0;
  for (const auto& p : payloads("parts")) {
    const std::string text = std::string(R"([[part]]
name = "a"
label = ")") + p + R"("
measure = "memory.infinite_memory_error"
[[part]]
name = "b"
label = ")" + p + R"("
measure = "memory.infinite_memory_error"
params = { alpha = 3 }
[params]
N = 100
[grid]
T = [10, 100, 1000]
[plot]
x = "T"
y = "error"
series = "part"
)";
    const std::string out = "out" + std::to_string(i++);
    const CliOutcome o = run(write("parts.toml", text), out);
    EXPECT_EQ(o.status, 0) << o.out;
    expect_drawn(out);
  }
  expect_no_marker();
}

TEST_F(Security, HeatmapAndScatterTitles) {
  int i = 0;
  for (const auto& p : payloads("panels")) {
    const std::string heat = std::string("title = \"") + p + R"("
measure = "memory.matrix"
[params]
N = 12
M = 3
d = 8
[grid]
scheme = ["q0", "threshold"]
[plot]
kind = "heatmap"
matrix = "matrix"
rows = "M"
cols = "N"
title = ")" + p + "\"\nxlabel = \"" + p + "\"\nylabel = \"" + p + "\"\n";
    const std::string out = "heat" + std::to_string(i);
    EXPECT_EQ(run(write("heat.toml", heat), out).status, 0);
    expect_drawn(out);
    const std::string scatter = std::string("title = \"") + p + R"("
measure = "memory.train"
[params]
N = 20
M = 3
d = 2
model = "learnable"
optimizer = "sgd"
lr = 0.2
batch = 4
T = 200
embeddings = true
[plot]
kind = "scatter"
points = "features"
classes = "label"
centers = "U"
title = ")" + p + "\"\nxlabel = \"" + p + "\"\nylabel = \"" + p + "\"\n";
    const std::string sout = "scatter" + std::to_string(i++);
    EXPECT_EQ(run(write("scatter.toml", scatter), sout).status, 0);
    expect_drawn(sout);
  }
  expect_no_marker();
}

TEST_F(Security, SweepFileNamesThatAreNotPlainAreRefused) {
  // Names without '/': gnuplot runs in the results folder, so the markers are relative to it.
  const std::vector<std::string> names = {"x\nsystem(\"touch marker-newline\")\n.toml",
                                          "x\xc3' . system(\"touch marker-utf8\") . '.toml"};
  for (const auto& name : names) {
    const fs::path sweep = write(name, std::string(kLines) + "[plot]\nx = \"T\"\ny = \"error\"\n");
    // With and without --out: the name would title the figure and name the folder.
    const CliOutcome a = run_cli_args({"run", sweep.string(), "--quiet"}, 60, dir.string());
    EXPECT_EQ(a.status, 2) << a.out;
    EXPECT_NE(a.out.find("plain file name"), std::string::npos) << a.out;
    const CliOutcome b = run(sweep, "out");
    EXPECT_EQ(b.status, 2) << b.out;
  }
  for (const auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind("marker-", 0), std::string::npos) << "a command ran: " << e.path();
}

TEST_F(Security, MergeRefusesAShardNameThatIsNotAPlainName) {
  const fs::path sweep = write("m.toml", std::string(kLines) + "[plot]\nx = \"T\"\ny = \"error\"\n");
  for (const char* shard : {"0/2", "1/2"}) {
    const CliOutcome o = run_cli_args({"run", sweep.string(), "--shard", shard, "--quiet", "--out",
                                       (dir / ("s" + std::string(1, shard[0]))).string()});
    ASSERT_EQ(o.status, 0) << o.out;
  }
  const fs::path marker = dir / "marker-merge";
  markers.push_back(marker);
  // Both shards edited the same way (merge compares their run.json).
  const std::string hostile = "{\"profile\": \"\", \"sets\": [], \"name\": \"x\\nsystem(\\\"touch " + marker.string() +
                              "\\\")\\n\", \"measures\": \"memory.infinite_memory_error\"}\n";
  for (const char* s : {"s0", "s1"}) std::ofstream(dir / s / "run.json") << hostile;
  const CliOutcome o = run_cli_args({"merge", (dir / "merged").string(), (dir / "s0").string(), (dir / "s1").string()});
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("not a plain file name"), std::string::npos) << o.out;
  expect_no_marker();
}

TEST_F(Security, NamesThatWouldLeaveTheResultsFolderAreRefused) {
  // A sweep whose stem is ".." would write into results/.. ; a paper "../x" outside results/.
  const fs::path parent = dir / "work";
  fs::create_directories(parent / "sub");
  std::ofstream(parent / "sub" / "...toml") << kLines;  // stem ".."
  const CliOutcome a = run_cli_args({"run", (parent / "sub" / "...toml").string(), "--quiet"}, 60, parent.string());
  EXPECT_EQ(a.status, 2) << a.out;
  EXPECT_FALSE(fs::exists(parent / "summary.csv"));
  EXPECT_FALSE(fs::exists(parent / "results.jsonl"));

  fs::create_directories(dir / "experiments" / "p");
  std::ofstream(dir / "experiments" / "p" / "a.toml") << kLines;
  for (const std::string paper : {"../experiments/p", "p/..", "..", "p\n"}) {
    const CliOutcome o = run_cli_args({"reproduce", paper, "--experiments", (dir / "experiments").string(), "--quiet"},
                                      60, parent.string());
    EXPECT_EQ(o.status, 2) << paper << ": " << o.out;
  }
  const bool outside_existed = fs::exists(dir.parent_path() / "x");  // another program's file
  const CliOutcome p = run_cli_args({"reproduce", "p", "--profile", "../../x", "--experiments",
                                     (dir / "experiments").string(), "--quiet"}, 60, parent.string());
  EXPECT_EQ(p.status, 2) << p.out;
  EXPECT_FALSE(fs::exists(dir / "x"));
  if (!outside_existed) {
    EXPECT_FALSE(fs::exists(dir.parent_path() / "x"));
  }
}

}  // namespace
