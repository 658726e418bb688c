// The fit figures: the frontier panel starts from its own y range (the loss panel's range used to
// carry over and leave it empty), a log loss axis narrower than a decade gets labelled ticks;
// panels by name, alone or in a chosen order, each legend below its axes; axis labels from the
// user's column names (the fit's unit for a rescaled or derived column); a large table drawn by
// an evenly spaced subsample; a law that reads another column (muennighoff's U) is drawn with it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_figure.hpp"
#include "scalinglab/fit/fit_panels.hpp"
#include "scalinglab/fit/fit_plot.hpp"
#include "scalinglab/fit/scaling_law.hpp"

namespace fs = std::filesystem;
using namespace scalinglab;
using namespace scalinglab::fit;
using nlohmann::json;

namespace {

// Chinchilla's law (Hoffmann et al. 2022: E 1.69, A 406.4, B 410.7, alpha 0.34, beta 0.28) on four
// IsoFLOP slices: losses between about 2.3 and 3.5, less than a decade.
FitColumns chinchilla_slices() {
  FitColumns cols;
  for (const double C : {1e18, 1e19, 1e20, 1e21})
    for (int i = 0; i < 9; ++i) {
      const double N = std::pow(10.0, 7 + 0.25 * i + 0.5 * std::log10(C / 1e18)), D = C / (6 * N);
      cols.N.push_back(N);
      cols.D.push_back(D);
      cols.C.push_back(C);
      cols.loss.push_back(1.69 + 406.4 / std::pow(N, 0.34) + 410.7 / std::pow(D, 0.28));
    }
  return cols;
}

const LawFit& chinchilla_fit() {
  static const LawFit fit = [] {
    const FitColumns cols = chinchilla_slices();
    const ScalingLaw& law = scaling_law("chinchilla");
    return fit_law(law, make_law_data(law, cols.N, cols.D, cols.loss));
  }();
  return fit;
}

// The script a figure was drawn from (the directory is removed).
std::string script(const fs::path& dir, const std::string& name) {
  std::ifstream in(dir / (name + ".gp"));
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove_all(dir);
  return ss.str();
}

fs::path scratch(const std::string& what) {
  return fs::temp_directory_path() / ("scalinglab-fit-plot-" + what + "-" + std::to_string(::getpid()));
}

// Every legend of the first terminal's panels lies below its panel's plot area: its top (screen
// y of `set key at`) under the bottom margin the panel set before it. Returns the legends seen.
int expect_legends_below_axes(const std::string& gp) {
  const std::string first = gp.substr(0, gp.find("unset multiplot"));
  const std::regex bottom("set bmargin at screen ([0-9.]+)"), key("set key at screen [0-9.]+, screen ([0-9.]+)");
  int keys = 0;
  double plot_bottom = NAN;
  std::istringstream lines(first);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, bottom)) plot_bottom = std::stod(m[1]);
    if (std::regex_search(line, m, key)) {
      ++keys;
      EXPECT_LT(std::stod(m[1]), plot_bottom) << "a legend over its axes: " << line;
    }
  }
  return keys;
}

}  // namespace

TEST(FitPlot, FrontierPanelHasItsOwnRangeAndNarrowLossAxisHasTicks) {
  FitColumns cols = chinchilla_slices();
  cols.N_name = "params";  // D and C derived: labelled by the fit's units
  const fs::path dir = scratch("all");
  plot_law_fit(dir.string(), "fit", chinchilla_fit(), cols, nullptr, 0.95);
  const std::string gp = script(dir, "fit");
  const auto yrange = gp.find("set yrange"), frontier = gp.find("'Compute-optimal frontier'");
  ASSERT_NE(yrange, std::string::npos) << gp;
  ASSERT_NE(frontier, std::string::npos) << gp;
  const auto reset = gp.find("set autoscale xy", yrange);
  EXPECT_LT(reset, frontier) << "the loss panel's y range reaches the frontier panel:\n" << gp;
  const auto tics = gp.find("set ytics (");
  EXPECT_LT(tics, frontier) << gp;
  EXPECT_LT(gp.find("set ytics autofreq", tics), frontier) << gp;
  EXPECT_NE(gp.find("\"2.5\" 2.5"), std::string::npos) << gp;  // a labelled tick inside [2.3, 3.5]
  // The six panels, each with its legend below its axes; labels from the column names.
  EXPECT_EQ(expect_legends_below_axes(gp), 6) << gp;
  EXPECT_NE(gp.find("set xlabel 'N (params)'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set xlabel 'D (tokens)'"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("(parameters): "), std::string::npos) << gp;
  for (const char* title : {"'IsoFLOP curves'", "'Loss against D / N'", "'Residuals'", "'Residuals against N'"})
    EXPECT_NE(gp.find(std::string("set title ") + title), std::string::npos) << title;
  EXPECT_NE(gp.find("chinchilla law at each budget"), std::string::npos) << gp;  // the law named in a legend
}

TEST(FitPlot, PanelsAreDrawnAloneOrInTheOrderAsked) {
  const fs::path dir = scratch("one");
  ASSERT_TRUE(plot_law_fit(dir.string(), "fit", chinchilla_fit(), chinchilla_slices(), nullptr, 0.95, {"frontier"}));
  const std::string gp = script(dir, "fit");
  EXPECT_NE(gp.find("'Compute-optimal frontier'"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("'IsoFLOP curves'"), std::string::npos) << gp;
  // One column of a two-column paper: 3.3 in (the SVG at 100 pixels per inch, as the PDF).
  EXPECT_NE(gp.find("set terminal svg size 330,"), std::string::npos) << gp;
  EXPECT_NE(gp.find("pdfcairo size 3.30in,"), std::string::npos) << gp;
  EXPECT_EQ(expect_legends_below_axes(gp), 1) << gp;

  // An IsoFLOP analysis, two panels in the order asked, side by side; a name it lacks is left out.
  const FitColumns cols = chinchilla_slices();
  const IsoflopFit iso = fit_isoflop(cols.C, cols.N, cols.loss);
  ASSERT_TRUE(plot_isoflop(dir.string(), "frontier", iso, cols, nullptr, 0.95, {"loss", "ratio", "isoflop"}));
  const std::string two = script(dir, "frontier");
  const auto loss = two.find("'Loss at the optimum'"), curves = two.find("'IsoFLOP curves'");
  ASSERT_NE(loss, std::string::npos) << two;
  ASSERT_NE(curves, std::string::npos) << two;
  EXPECT_LT(loss, curves);
  EXPECT_EQ(two.find("'Compute-optimal frontier'"), std::string::npos);
  EXPECT_NE(two.find("set terminal svg size 660,"), std::string::npos) << two;
  EXPECT_EQ(expect_legends_below_axes(two), 2) << two;
  // Nothing asked that the figure has: no figure.
  EXPECT_FALSE(plot_isoflop(dir.string(), "none", iso, cols, nullptr, 0.95, {"ratio"}));
  EXPECT_FALSE(fs::exists(dir / "none.svg"));
  fs::remove_all(dir);
}

TEST(FitPlot, PanelNames) {
  for (const char* kind : {"law2", "law1", "isoflop"})
    for (const auto& name : figure_panels(kind)) EXPECT_EQ(panel_name(name), name) << kind;
  EXPECT_EQ(figure_panels("law2").size(), 6u);
  EXPECT_EQ(panel_name(" RESIDUALS-n "), "residuals-N");
  try {
    panel_name("bogus");
    FAIL() << "an unknown panel was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'bogus'"), std::string::npos) << what;
    for (const char* name : {"isoflop", "ratio", "residuals-D", "law", "residuals-x", "loss"})
      EXPECT_NE(what.find(name), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  std::vector<std::string> missing;
  EXPECT_EQ(choose_panels(figure_panels("law1"), {"residuals", "law", "residuals", "frontier"}, &missing),
            (std::vector<std::string>{"residuals", "law"}));
  EXPECT_EQ(missing, std::vector<std::string>{"frontier"});
  EXPECT_EQ(choose_panels(figure_panels("isoflop"), {}), figure_panels("isoflop"));
}

TEST(FitFigure, LabelsComeFromTheColumnsOrTheFitsUnits) {
  FitColumns cols = chinchilla_slices();
  cols.N_name = "params", cols.D_name = "D", cols.C_name = "compute", cols.loss_name = "val_loss";
  json labels = law_fit_figure(chinchilla_fit(), cols, nullptr, 0.95)["labels"];
  EXPECT_EQ(labels["N"], "N (params)");
  EXPECT_EQ(labels["D"], "D (tokens)");  // the column is called by its symbol
  EXPECT_EQ(labels["C"], "C (compute)");
  EXPECT_EQ(labels["loss"], "val_loss");
  // A column of millions rescaled (--N-scale M): the values drawn are parameters, not the column's.
  cols.N_name = "params_M", cols.N_scale = 1e6;
  labels = law_fit_figure(chinchilla_fit(), cols, nullptr, 0.95)["labels"];
  EXPECT_EQ(labels["N"], "N (parameters)");
  cols.C_name.clear();  // derived as 6 N D
  EXPECT_EQ(isoflop_figure(fit_isoflop(cols.C, cols.N, cols.loss), cols, nullptr, 0.95)["labels"]["C"], "C (FLOPs)");
}

TEST(FitFigure, LargeTablesAreDrawnByAnEvenSubsample) {
  // 12,000 points of y = 3 x^-0.5 (one in a hundred 1% off): the figure holds 5,000 of them, rows
  // i * n / 5000, with the fit's own residuals; the fit is the one made on every row.
  FitColumns cols;
  const std::size_t n = 12000;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = std::pow(10.0, 1 + 5.0 * static_cast<double>((i * 7919) % n) / n);
    cols.x.push_back(x);
    cols.loss.push_back(3 / std::sqrt(x) * (i % 100 == 0 ? 1.01 : 1.0));
  }
  cols.x_name = "steps";
  const ScalingLaw& law = scaling_law("power");
  const LawFit fit = fit_law(law, make_law_data(law, cols.x, {}, cols.loss));
  const std::vector<double> theta = fit.theta;
  const json f = law_fit_figure(fit, cols, nullptr, 0.95);
  EXPECT_EQ(fit.theta, theta);
  EXPECT_EQ(f["points_total"], n);
  EXPECT_EQ(f["points_shown"], kFigureMaxPoints);
  ASSERT_EQ(f["points"]["x"].size(), kFigureMaxPoints);
  for (const std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{2345}, kFigureMaxPoints - 1}) {
    const std::size_t row = k * n / kFigureMaxPoints;
    EXPECT_EQ(f["points"]["x"][k].get<double>(), cols.x[row]) << k;
    EXPECT_DOUBLE_EQ(f["points"]["residual"][k].get<double>(),
                     law_log_predict(law, fit.theta, std::log(cols.x[row])) - std::log(cols.loss[row]));
  }
  EXPECT_EQ(f["labels"]["x"], "steps");
  // A table within the bound is drawn whole.
  EXPECT_EQ(figure_rows(300).size(), 300u);
  EXPECT_EQ(figure_rows(300).back(), 299u);
}

// A law that reads a column besides N and D (muennighoff's U, unique tokens): the figure evaluates
// it at each run's own U, and draws its curves at the runs' median U (named in "held").
TEST(FitPlot, AFigureOfALawReadingAnotherColumnUsesThatColumn) {
  FitColumns cols;
  for (const double U : {1e8, 1e9, 1e10})
    for (const double N : {1e7, 1e8, 1e9})
      for (const double epochs : {1.0, 8.0}) {
        const double D = epochs * U;
        cols.N.push_back(N);
        cols.D.push_back(D);
        cols.C.push_back(6 * N * D);
        cols.extra["U"].push_back(U);
        cols.loss.push_back(3.0);
      }
  const ScalingLaw& law = scaling_law("muennighoff");
  LawFit fit;
  fit.law = &law;
  const std::map<std::string, double> value = {{"E", 1.9},    {"A", 400},     {"alpha", 0.34},
                                               {"B", 1500.0}, {"beta", 0.28}, {"R_D", 15.0}};
  for (std::size_t k = 0; k < law.dims(); ++k) {
    const double x = value.at(law.coordinate_parameter[k]);
    fit.theta.push_back(law.coordinate_log[k] ? std::log(x) : x);
  }
  const nlohmann::json j = law_fit_figure(fit, cols, nullptr, 0.95);
  EXPECT_EQ(j["held"]["U"], 1e9);
  for (std::size_t i = 0; i < cols.N.size(); ++i) {
    const double own = std::exp(law_log_predict_at(law, fit.theta, {cols.N[i], cols.D[i], cols.extra["U"][i]}));
    EXPECT_DOUBLE_EQ(j["points"]["fitted"][i].get<double>(), own) << i;
  }
  const double N = j["isoflop_curves"][0]["N"][0], C = j["isoflop_curves"][0]["C"];
  EXPECT_DOUBLE_EQ(j["isoflop_curves"][0]["loss"][0].get<double>(),
                   std::exp(law_log_predict_at(law, fit.theta, {N, C / (6 * N), 1e9})));
}
