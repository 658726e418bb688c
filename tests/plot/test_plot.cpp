// Plots: the data and script files are always written; the figures when gnuplot is on PATH.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/hand_table.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/plot/plot.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/run/runner.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

using testing::HandTable;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class PlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("scalinglab_test_plot_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    for (const char* T : {"100", "inf"})
      for (int d : {16, 32, 64, 128, 256})
        table.add({{"d", std::to_string(d)}, {"T", T}}, (T[0] == 'i' ? 3 : 6) * std::pow(d, -1.5), 0.02);
    table.add({{"d", "512"}, {"T", "inf"}}, 0.0);  // cannot be drawn on a log y axis

    spec.x = "d";
    spec.y = "error";
    spec.series = "T";
    spec.band = "std";  // the hand table's std is 0.02
    spec.logx = spec.logy = true;
    spec.references.push_back({"3*d^-1.5", "theory d^{-1.5}", {{"T", "inf"}}});  // label: enhanced text
    spec.references.push_back({"d^(1-T/T)/d^(T/T)", "", {}});  // reads another parameter (T = 100 row first)
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir;
  HandTable table;
  PlotSpec spec;
};

TEST_F(PlotTest, WritesDataScriptAndFigures) {
  const bool drawn = draw_plot(spec, table.table, dir.string(), "plot", "Error vs memory");
  const std::string dat = slurp(dir / "plot.dat"), gp = slurp(dir / "plot.gp");
  // Two series blocks, then the two reference blocks.
  EXPECT_NE(dat.find("# index 0: T = 100"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# index 1: T = inf"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# index 2: theory d^{-1.5}"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# reference 3*d^-1.5, parameters from d=16 T=inf"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# index 3: d^{1-T/T}/d^{T/T}"), std::string::npos) << dat;  // formula: superscripts
  EXPECT_NE(dat.find("# skipped d=512"), std::string::npos) << dat;
  EXPECT_NE(gp.find("index 2 using 1:2 with lines dt 2"), std::string::npos) << gp;
  EXPECT_NE(gp.find("title 'theory d^{-1.5}'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("title 'T = 100'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set title 'Error vs memory'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set logscale y"), std::string::npos) << gp;
  EXPECT_NE(gp.find("filledcurves"), std::string::npos) << gp;

  // On the log axis every band's lower edge is cut at a third of its mean (the 0.02 std exceeds
  // the small means: mean - std < 0 would make a full-height bar).
  std::istringstream lines(dat.substr(0, dat.find("# index 2")));
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    double x, y, lo, hi;
    std::istringstream(line) >> x >> y >> lo >> hi;
    EXPECT_GT(lo, 0) << line;
    EXPECT_LE(lo, y);
    EXPECT_NEAR(lo, std::max(y - 0.02, y / 3), 1e-9 * y) << line;
    EXPECT_NEAR(hi, y + 0.02, 1e-9);  // written with 10 digits
    ++rows;
  }
  EXPECT_EQ(rows, 10);

  if (!gnuplot_available()) GTEST_SKIP() << "gnuplot not on PATH: figures not drawn";
  EXPECT_TRUE(drawn);
  for (const char* f : {"plot.svg", "plot.png"}) {
    ASSERT_TRUE(fs::exists(dir / f)) << f;
    EXPECT_GT(fs::file_size(dir / f), 1000u) << f;
  }
  EXPECT_NE(slurp(dir / "plot.svg").find("<svg"), std::string::npos);
}

// The line of the gnuplot script that draws the curve titled `title` ("" when there is none).
std::string plot_item(const std::string& gp, const std::string& title) {
  const auto at = gp.find("title '" + title + "'");
  if (at == std::string::npos) return "";
  const auto start = gp.rfind('\n', at);
  return gp.substr(start + 1, gp.find('\n', at) - start - 1);
}

std::string colour_in(const std::string& item) {
  const auto at = item.find("lc rgb '");
  return at == std::string::npos ? "" : item.substr(at + 8, 7);
}

TEST_F(PlotTest, BandIsLabelledAndDefaultsToTheStandardErrorOfTheMean) {
  EXPECT_EQ(PlotSpec{}.band, "sem");
  spec.band = "sem";
  draw_plot(spec, table.table, dir.string(), "sem", "");
  const std::string gp = slurp(dir / "sem.gp");
  EXPECT_NE(gp.find("keyentry with filledcurves lc rgb '#7f7f7f' fs transparent solid 0.36 noborder "
                    "title 'band: \u00b1 1 sem over runs'"),
            std::string::npos)
      << gp;
  spec.band = "none";
  draw_plot(spec, table.table, dir.string(), "none", "");
  EXPECT_EQ(slurp(dir / "none.gp").find("keyentry"), std::string::npos);
}

TEST_F(PlotTest, PointsLeftOffALogAxisAreNotedOnTheFigure) {
  spec.band = "none";  // (a band cut on the log axis would be noted too: ABandCutOnALogAxisIsSaid...)
  draw_plot(spec, table.table, dir.string(), "zeros", "");
  EXPECT_NE(slurp(dir / "zeros.gp").find("'not shown: 1 point with error = 0 (log y axis)'"), std::string::npos)
      << slurp(dir / "zeros.gp");
  spec.logy = false;  // the zero can be drawn: no note
  draw_plot(spec, table.table, dir.string(), "linear", "");
  EXPECT_EQ(slurp(dir / "linear.gp").find("not shown"), std::string::npos);
}

TEST_F(PlotTest, AReferencePinnedToASeriesValueTakesItsColourDashed) {
  draw_plot(spec, table.table, dir.string(), "pinned", "");
  const std::string gp = slurp(dir / "pinned.gp");
  const std::string inf = colour_in(plot_item(gp, "T = inf"));
  ASSERT_FALSE(inf.empty()) << gp;
  const std::string ref = plot_item(gp, "theory d^{-1.5}");
  EXPECT_EQ(colour_in(ref), inf) << ref;
  EXPECT_NE(ref.find("dt 2"), std::string::npos) << ref;
  // The formula over all series belongs to none: black.
  EXPECT_EQ(colour_in(plot_item(gp, "d^{1-T/T}/d^{T/T}")), "#222222") << gp;
  EXPECT_NE(plot_item(gp, "d^{1-T/T}/d^{T/T}").find("dt 2"), std::string::npos) << gp;  // the first guide: dashed
}

TEST_F(PlotTest, TheoryPartsAreDashedInTheColourOfTheirSimulation) {
  HandTable h;
  for (const char* T : {"100", "inf"})
    for (int d : {16, 64, 256}) {
      h.add({{"d", std::to_string(d)}, {"T", T}}, 1.0 / d, 0.01);  // the simulation
      h.add({{"d", std::to_string(d)}, {"T", T}}, 1.1 / d);         // its theory
    }
  for (std::size_t i = 0; i < h.table.rows.size(); ++i)
    h.table.rows[i].params.entries_.insert(h.table.rows[i].params.entries_.begin(),
                                           Params::Entry{&part_param(), i % 2 ? "theory" : "sim", NAN, ""});
  h.table.param_names.insert(h.table.param_names.begin(), "part");
  spec.references.clear();
  spec.theory_parts = {"theory"};
  spec.part_labels = {{"sim", "simulated"}, {"theory", "formula"}};
  draw_plot(spec, h.table, dir.string(), "parts", "");
  const std::string gp = slurp(dir / "parts.gp");
  for (const char* T : {"100", "inf"}) {
    const std::string sim = plot_item(gp, std::string("T = ") + T + ", simulated");
    const std::string theory = plot_item(gp, std::string("T = ") + T + ", formula");
    ASSERT_FALSE(sim.empty()) << gp;
    ASSERT_FALSE(theory.empty()) << gp;
    EXPECT_EQ(colour_in(sim), colour_in(theory)) << sim << "\n" << theory;
    EXPECT_NE(theory.find("lines dt 2"), std::string::npos) << theory;
    EXPECT_EQ(sim.find(" dt "), std::string::npos) << sim;
  }
  EXPECT_NE(colour_in(plot_item(gp, "T = 100, simulated")), colour_in(plot_item(gp, "T = inf, simulated")));
  // Only the simulation has a band.
  std::size_t bands = 0;
  for (std::size_t at = gp.find("using 1:3:4 with filledcurves"); at != std::string::npos;
       at = gp.find("using 1:3:4 with filledcurves", at + 1))
    ++bands;
  EXPECT_EQ(bands, 2u) << gp;
}

TEST_F(PlotTest, FiguresComeAsSvgPngAndPdf) {
  if (!gnuplot_available()) GTEST_SKIP() << "gnuplot not on PATH: figures not drawn";
  ASSERT_TRUE(draw_plot(spec, table.table, dir.string(), "three", ""));
  for (const char* ext : {".svg", ".png", ".pdf"}) EXPECT_GT(fs::file_size(dir / (std::string("three") + ext)), 1000u);
  EXPECT_EQ(slurp(dir / "three.pdf").rfind("%PDF", 0), 0u);
}

// The items of the plot command, in drawing order (later ones are drawn on top).
std::vector<std::string> plot_items(const std::string& gp) {
  std::vector<std::string> items;
  std::istringstream in(gp.substr(gp.find("\nplot ") + 1));
  std::string line;
  while (std::getline(in, line) && !line.empty()) items.push_back(line);
  return items;
}

std::size_t position_of(const std::vector<std::string>& items, const std::string& title) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].find("title '" + title + "'") != std::string::npos) return i;
  return items.size();
}

TEST_F(PlotTest, ASimulationWithATheoryIsThinWithMarkersAndTheTheoryIsDrawnOnTop) {
  draw_plot(spec, table.table, dir.string(), "layers", "");
  const std::string gp = slurp(dir / "layers.gp");
  const auto items = plot_items(gp);
  // T = inf has its theory (the reference pinned to it): thin, with markers, under the dashed line.
  const std::string sim = plot_item(gp, "T = inf"), other = plot_item(gp, "T = 100");
  EXPECT_NE(sim.find("linespoints lw 1 pt 7"), std::string::npos) << sim;
  EXPECT_NE(other.find("linespoints lw 1.8"), std::string::npos) << other;  // no theory: as before
  EXPECT_LT(position_of(items, "T = inf"), position_of(items, "theory d^{-1.5}")) << gp;
  EXPECT_NE(plot_item(gp, "theory d^{-1.5}").find("lw 2.2"), std::string::npos) << gp;
  // Theory parts listed before their simulation are still drawn after every simulation.
  HandTable h;
  for (int d : {16, 64, 256}) {
    h.add({{"d", std::to_string(d)}, {"T", "100"}}, 1.1 / d);         // the theory, first
    h.add({{"d", std::to_string(d)}, {"T", "100"}}, 1.0 / d, 0.01);  // the simulation
  }
  for (std::size_t i = 0; i < h.table.rows.size(); ++i)
    h.table.rows[i].params.entries_.insert(h.table.rows[i].params.entries_.begin(),
                                           Params::Entry{&part_param(), i % 2 ? "sim" : "theory", NAN, ""});
  h.table.param_names.insert(h.table.param_names.begin(), "part");
  spec.references.clear();
  spec.series = "part";
  spec.series_labels = {{"sim", "sim"}, {"theory", "theory"}};  // as the parts' labels fill it
  spec.theory_parts = {"theory"};
  draw_plot(spec, h.table, dir.string(), "parts", "");
  const std::string parts = slurp(dir / "parts.gp");
  const auto order = plot_items(parts);
  EXPECT_LT(position_of(order, "sim"), position_of(order, "theory")) << parts;
  EXPECT_NE(plot_item(parts, "sim").find("lw 1 pt 7"), std::string::npos) << parts;
  EXPECT_NE(plot_item(parts, "theory").find("dt 2 lw 2.2"), std::string::npos) << parts;
}

TEST_F(PlotTest, EveryLineDrawnHasALegendEntry) {
  for (const char* band : {"std", "none"}) {
    spec.band = band;
    draw_plot(spec, table.table, dir.string(), band, "");
    const std::string gp = slurp(dir / (std::string(band) + ".gp"));
    int lines = 0;
    for (const auto& item : plot_items(gp)) {
      if (item.find("filledcurves") != std::string::npos) continue;  // bands: one entry for all (keyentry)
      ++lines;
      EXPECT_EQ(item.find("notitle"), std::string::npos) << item;
      EXPECT_NE(item.find("title '"), std::string::npos) << item;
      EXPECT_EQ(item.find("title ''"), std::string::npos) << item;
    }
    EXPECT_EQ(lines, 4) << gp;  // two series, two references
  }
}

TEST_F(PlotTest, ABandCutOnALogAxisIsSaidAndManyBandsAreLighter) {
  draw_plot(spec, table.table, dir.string(), "cut", "");
  const std::string gp = slurp(dir / "cut.gp");
  // The rows drawn whose mean - std falls below mean/3 (the std, 0.02, exceeds the small means).
  int cut = 0;
  for (const auto& row : table.table.rows)
    if (row.mean[0] > 0 && row.mean[0] - row.std[0] < row.mean[0] / 3) ++cut;
  EXPECT_NE(gp.find("'not shown: 1 point with error = 0 (log y axis); band cut at mean/3 at " + std::to_string(cut) +
                    " points (log y axis)'"),
            std::string::npos)
      << gp;
  EXPECT_NE(gp.find("set style fill transparent solid 0.18 noborder"), std::string::npos) << gp;  // two bands
  spec.logy = false;  // a linear axis shows the whole band: nothing cut
  draw_plot(spec, table.table, dir.string(), "linear", "");
  EXPECT_EQ(slurp(dir / "linear.gp").find("band cut"), std::string::npos);
  // Four banded curves: lighter bands.
  HandTable h;
  for (int d : {16, 64, 256})
    for (const char* P : {"1", "2", "3", "4"}) h.add({{"d", std::to_string(d)}, {"P", P}}, 1.0 / d, 0.001);
  spec.series = "P";
  spec.references.clear();
  draw_plot(spec, h.table, dir.string(), "four", "");
  EXPECT_NE(slurp(dir / "four.gp").find("set style fill transparent solid 0.10 noborder"), std::string::npos)
      << slurp(dir / "four.gp");
}

TEST_F(PlotTest, ReferenceTakesOtherParametersFromItsWhereRow) {
  spec.references = {{"T + 0*d", "", {{"T", "100"}}}};  // constant 100 along x
  spec.logy = false;
  draw_plot(spec, table.table, dir.string(), "ref", "");
  const std::string dat = slurp(dir / "ref.dat");
  const auto block = dat.find("# index 2");
  ASSERT_NE(block, std::string::npos) << dat;
  std::istringstream lines(dat.substr(block));
  std::string line;
  int points = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    double x, y;
    std::istringstream(line) >> x >> y;
    EXPECT_GE(x, 16 * (1 - 1e-12));
    EXPECT_LE(x, 512 * (1 + 1e-12));  // linear y: the y = 0 row at d = 512 is drawn
    EXPECT_DOUBLE_EQ(y, 100);
    ++points;
  }
  EXPECT_GT(points, 50);
}

TEST_F(PlotTest, NoBandAndNoSeries) {
  spec.band = "none";
  spec.series.clear();
  spec.references.clear();
  spec.where = {{"T", "100"}};
  draw_plot(spec, table.table, dir.string(), "plain", "");
  const std::string gp = slurp(dir / "plain.gp");
  EXPECT_EQ(gp.find("filledcurves"), std::string::npos) << gp;
  EXPECT_NE(gp.find("title 'error'"), std::string::npos) << gp;
}

TEST_F(PlotTest, ADashedMetricOfASingleSeriesPairsWithTheSolidOneAndTheLegendCanBeRenamed) {
  HandTable h = table;  // a second metric, the first one's "approximation"
  h.table.metric_names.push_back("approx");
  for (auto& row : h.table.rows) {
    row.mean.push_back(1.2 * row.mean[0]);
    row.std.push_back(0);
    row.sem.push_back(0);
  }
  spec.series.clear();
  spec.references.clear();
  spec.where = {{"T", "100"}};
  spec.more_y = {"approx"};
  spec.dashed = {"approx"};
  spec.legend = {{"error", "SGD"}, {"approx", "approximation (20)"}, {"nope", "unused"}};
  ::testing::internal::CaptureStderr();
  draw_plot(spec, h.table, dir.string(), "paired", "");
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string gp = slurp(dir / "paired.gp");
  const std::string solid = plot_item(gp, "SGD"), dashed = plot_item(gp, "approximation (20)");
  ASSERT_FALSE(solid.empty()) << gp;
  ASSERT_FALSE(dashed.empty()) << gp;
  EXPECT_EQ(colour_in(solid), colour_in(dashed)) << gp;
  EXPECT_NE(dashed.find("dt 2"), std::string::npos) << dashed;
  EXPECT_EQ(gp.find("title 'error'"), std::string::npos) << gp;
  EXPECT_NE(err.find("[plot] legend: no curve is labelled 'nope'"), std::string::npos) << err;
}

TEST_F(PlotTest, SeriesOverAFormulaIsOneCurvePerFormula) {
  HandTable h;
  for (int d : {16, 64, 256}) {
    h.add({{"d", std::to_string(d)}, {"P", "d/8"}}, 1.0 / d);
    h.add({{"d", std::to_string(d)}, {"P", "d"}}, 2.0 / d);
  }
  h.add({{"d", "64"}, {"P", "100000"}}, 0.5);
  spec.series = "P";
  spec.references.clear();
  draw_plot(spec, h.table, dir.string(), "formula", "");
  const std::string dat = slurp(dir / "formula.dat");
  EXPECT_NE(dat.find("# index 0: P = d/8\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# index 1: P = d\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("# index 2: P = 100000\n"), std::string::npos) << dat;  // not 1e+05
  EXPECT_EQ(dat.find("# index 3"), std::string::npos) << dat;
}

TEST_F(PlotTest, LongTitlesAreWrapped) {
  draw_plot(spec, table.table, dir.string(), "wrapped",
            "Fig. 1 (right): error vs number of samples T, thresholded scheme P = d/8");
  EXPECT_NE(slurp(dir / "wrapped.gp").find("set title 'Fig. 1 (right):'.\"\\n\".'error vs number of samples T, "
                                            "thresholded scheme P = d/8'"),
            std::string::npos);
}

TEST_F(PlotTest, NothingToDrawReturnsFalse) {
  spec.where = {{"T", "7"}};
  EXPECT_FALSE(draw_plot(spec, table.table, dir.string(), "empty", ""));
  spec.where.clear();
  spec.x = "nonsense";  // a bad spec warns instead of throwing
  EXPECT_FALSE(draw_plot(spec, table.table, dir.string(), "bad", ""));
}

}  // namespace
}  // namespace scalinglab

// Series plots ([plot] kind = "curves"): the pointwise mean over runs of a series metric against
// another series, computed here from results.jsonl independently of the plot code.
namespace scalinglab {
namespace {

const Registry& curve_registry() {
  static const Registry r = [] {
    Registry reg;
    Measure m;
    m.name = "toy.curve";
    m.params = {int_param("K", "5", "length"), real_param("a", "1", "slope")};
    m.metrics = {{"last", "last value"}, {"t", "steps", true}, {"v", "a t u", true}, {"w", "a t", true}};
    m.fn = [](const Params& p, Stream& s) {
      Record rec;
      std::vector<double> t, v, w;
      for (int i = 1; i <= p.integer("K"); ++i) {
        t.push_back(10.0 * i);
        v.push_back(p.real("a") * i * (0.5 + s.uniform()));
        w.push_back(p.real("a") * i);
      }
      rec.set("last", v.back());
      rec.set_series("t", t);
      rec.set_series("v", v);
      rec.set_series("w", w);
      return rec;
    };
    reg.add(std::move(m));
    return reg;
  }();
  return r;
}

TEST(SeriesPlot, DrawsThePointwiseMeanOverRuns) {
  const fs::path dir = fs::temp_directory_path() / ("scalinglab_test_curves_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const char* text = R"(measure = "toy.curve"
runs = 7
[grid]
a = [1, 3]
[plot]
kind = "curves"
x = "t"
y = ["v", "w"]
dashed = "w"
series = "a"
band = "sem"
reference = "t/10"
)";
  const Sweep s = parse_sweep(text, "c.toml", "", {}, curve_registry());
  ASSERT_TRUE(s.plot);
  EXPECT_EQ(s.plot->kind, "curves");
  RunOptions o;
  o.out_dir = dir.string();
  o.quiet = true;
  o.registry = &curve_registry();
  const RunOutcome out = run_sweep(s, o);
  EXPECT_TRUE(fs::exists(dir / "plot.dat"));
  // Expected means of v for a = 3, from the raw results.
  std::vector<double> sum(5, 0.0);
  int runs = 0;
  for (const auto& r : read_results((dir / "results.jsonl").string())) {
    if (r.params["a"] != 3.0) continue;
    ++runs;
    for (const auto& [name, values] : r.record.series)
      if (name == "v")
        for (std::size_t i = 0; i < 5; ++i) sum[i] += values[i];
  }
  ASSERT_EQ(runs, 7);
  const std::string dat = slurp(dir / "plot.dat");
  const auto at = dat.find("# index 1: v, a = 3");
  ASSERT_NE(at, std::string::npos) << dat;
  std::istringstream block(dat.substr(dat.find('\n', at) + 1));
  for (std::size_t i = 0; i < 5; ++i) {
    double x, mean, lo, hi;
    block >> x >> mean >> lo >> hi;
    EXPECT_DOUBLE_EQ(x, 10.0 * (i + 1));
    EXPECT_NEAR(mean, sum[i] / 7, 1e-9 * (i + 1));
    EXPECT_LT(lo, mean);
    EXPECT_GT(hi, mean);
  }
  EXPECT_NE(dat.find("# index 3: w, a = 3"), std::string::npos);
  EXPECT_NE(dat.find("# reference t/10"), std::string::npos);
  const std::string gp = slurp(dir / "plot.gp");
  EXPECT_NE(gp.find("with lines dt 2 lw 2.2"), std::string::npos) << gp;  // w is dashed, over v
  fs::remove_all(dir);

  // Misuse: a scalar metric as y, dashed naming a metric not drawn, a scalar x.
  auto rejects = [](const std::string& t, const std::string& what) {
    try {
      parse_sweep(t, "c.toml", "", {}, curve_registry());
      ADD_FAILURE() << "accepted: " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const std::string head = "measure = \"toy.curve\"\n[plot]\nkind = \"curves\"\n";
  rejects(head + "y = \"last\"\n", "not a series metric");
  rejects(head + "y = \"v\"\nx = \"a\"\n", "not a series metric");
  rejects(head + "y = \"v\"\ndashed = \"w\"\n", "not one of the metrics of y");
}

}  // namespace
}  // namespace scalinglab
