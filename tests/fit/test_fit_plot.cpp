// The fit figure's script: the frontier panel starts from its own y range (the loss panel's range
// used to carry over and leave it empty), and a log loss axis narrower than a decade gets labelled
// ticks; a law that reads another column (muennighoff's U) is drawn with it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "scalinglab/fit/fit_figure.hpp"
#include "scalinglab/fit/fit_plot.hpp"
#include "scalinglab/fit/scaling_law.hpp"

namespace fs = std::filesystem;
using namespace scalinglab;
using namespace scalinglab::fit;

TEST(FitPlot, FrontierPanelHasItsOwnRangeAndNarrowLossAxisHasTicks) {
  // Chinchilla's law (Hoffmann et al. 2022: E 1.69, A 406.4, B 410.7, alpha 0.34, beta 0.28) on four
  // IsoFLOP slices: losses between about 2.3 and 3.5, less than a decade.
  FitColumns cols;
  for (const double C : {1e18, 1e19, 1e20, 1e21})
    for (int i = 0; i < 9; ++i) {
      const double N = std::pow(10.0, 7 + 0.25 * i + 0.5 * std::log10(C / 1e18)), D = C / (6 * N);
      cols.N.push_back(N);
      cols.D.push_back(D);
      cols.C.push_back(C);
      cols.loss.push_back(1.69 + 406.4 / std::pow(N, 0.34) + 410.7 / std::pow(D, 0.28));
    }
  const ScalingLaw& law = scaling_law("chinchilla");
  const LawFit fit = fit_law(law, make_law_data(law, cols.N, cols.D, cols.loss));
  const fs::path dir = fs::temp_directory_path() / ("scalinglab-fit-plot-" + std::to_string(::getpid()));
  plot_law_fit(dir.string(), "fit", fit, cols, nullptr, 0.95);
  std::ifstream in(dir / "fit.gp");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string gp = ss.str();
  fs::remove_all(dir);
  const auto yrange = gp.find("set yrange"), frontier = gp.find("frontier:");
  ASSERT_NE(yrange, std::string::npos) << gp;
  ASSERT_NE(frontier, std::string::npos) << gp;
  const auto reset = gp.find("set autoscale xy", yrange);
  EXPECT_LT(reset, frontier) << "the loss panel's y range reaches the frontier panel:\n" << gp;
  const auto tics = gp.find("set ytics (");
  EXPECT_LT(tics, frontier) << gp;
  EXPECT_LT(gp.find("set ytics autofreq", tics), frontier) << gp;
  EXPECT_NE(gp.find("\"2.5\" 2.5"), std::string::npos) << gp;  // a labelled tick inside [2.3, 3.5]
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
