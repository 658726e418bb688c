// The real-data example: Approach 3 on the Chinchilla Figure 4 extraction (5 highest losses dropped)
// must reproduce Besiroglu et al. (2024), "Chinchilla Scaling: A replication attempt", Table 1:
// E = 1.82 (0.03), A = 482.01 (124.58), B = 2085.43 (1293.23), alpha = 0.35 (0.02), beta = 0.37 (0.02)
// -- within their bootstrap standard errors -- and reach an objective at least as low as their grid
// fit's printed 0.0010182740240. Also through the command line, as a user runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

using namespace scalinglab::fit;

namespace {

const std::string kData = std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv";

struct Published {
  const char* name;
  double value, se;
};
const Published kBesiroglu[] = {
    {"E", 1.82, 0.03}, {"A", 482.01, 124.58}, {"B", 2085.43, 1293.23}, {"alpha", 0.35, 0.02}, {"beta", 0.37, 0.02}};

std::string run(const std::string& args) {
  const std::string cmd = std::string(SCALINGLAB_CLI) + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  while (pipe && fgets(buf, sizeof buf, pipe.get())) out += buf;
  return out;
}

}  // namespace

TEST(ChinchillaExample, ReproducesBesirogluWithinTheirStandardErrors) {
  const DataTable table = read_csv(kData);
  ColumnChoice c;
  c.N = "Model Size";
  c.C = "Training FLOP";
  c.loss = "loss";
  c.drop_top = 5;
  const FitColumns cols = choose_columns(table, c, false);
  ASSERT_EQ(cols.loss.size(), 240u);
  const ScalingLaw& law = scaling_law("chinchilla");
  const LawFit f = fit_law(law, make_law_data(law, cols.N, cols.D, cols.loss, cols.lines));
  EXPECT_LE(f.objective, 0.0010182740240 * (1 + 1e-9));
  for (const auto& p : kBesiroglu) EXPECT_NEAR(f.value(p.name), p.value, p.se) << p.name;
  // Their compute-optimal exponent a = beta / (alpha + beta), from the printed estimates: 0.513.
  EXPECT_NEAR(f.value("a"), 0.3658 / (0.3478 + 0.3658), 0.02);
}

TEST(ChinchillaExample, CommandLineReportsEveryParameterWithItsError) {
  const std::string out = run("fit '" + kData +
                              "' --law chinchilla --N 'Model Size' --C 'Training FLOP' --loss loss --drop-top 5 "
                              "--bootstrap 60 --json");
  const auto j = nlohmann::json::parse(out);
  for (const char* k : {"E", "A", "B", "alpha", "beta", "a", "b"}) {
    ASSERT_TRUE(j.contains(k) && j.contains(std::string(k) + "_se")) << k;
    EXPECT_GT(j[std::string(k) + "_se"].get<double>(), 0) << k;
  }
  EXPECT_EQ(j["points"], 240);
  // Bootstrap standard errors of the same order as the paper's (theirs: 4000 replicates).
  EXPECT_GT(j["A_se"].get<double>(), 124.58 / 2);
  EXPECT_LT(j["A_se"].get<double>(), 124.58 * 2);
  EXPECT_GT(j["alpha_se"].get<double>(), 0.01);
  EXPECT_LT(j["alpha_se"].get<double>(), 0.04);
}

TEST(ChinchillaExample, CommandLineErrorsAreClear) {
  EXPECT_NE(run("fit '" + kData + "' --law chinchilla --N 'Model Size' --loss loss").find("name two of the columns"),
            std::string::npos);
  EXPECT_NE(run("fit '" + kData + "' --law chinchilla --N 'Model size' --C 'Training FLOP'").find("no column 'Model size'"),
            std::string::npos);
  EXPECT_NE(run("fit '" + kData + "' --law chinchila --N 'Model Size' --C 'Training FLOP'").find("unknown law"),
            std::string::npos);
  const std::string iso = run("frontier '" + kData + "' --method isoflop --N 'Model Size' --C 'Training FLOP'");
  EXPECT_NE(iso.find("IsoFLOP slice"), std::string::npos) << iso;  // Figure 4's runs are not IsoFLOP slices
}

// Screening the 4,500 starts with a loose tolerance and continuing the best 64 reaches the optimum
// of the fit that runs every start to the full tolerance.
TEST(ChinchillaExample, ScreenedGridReachesTheFullFitsOptimum) {
  const DataTable table = read_csv(kData);
  ColumnChoice c;
  c.N = "Model Size";
  c.C = "Training FLOP";
  c.loss = "loss";
  c.drop_top = 5;
  const FitColumns cols = choose_columns(table, c, false);
  const ScalingLaw& law = scaling_law("chinchilla");
  const LawData d = make_law_data(law, cols.N, cols.D, cols.loss, cols.lines);
  FitOptions full, screened;
  full.polish = 0;
  const LawFit a = fit_law(law, d, full), b = fit_law(law, d, screened);
  EXPECT_EQ(a.polished, 4500u);
  EXPECT_EQ(b.polished, 64u);
  EXPECT_NEAR(b.objective, a.objective, 1e-12 * a.objective);
  for (const char* p : {"E", "A", "B", "alpha", "beta"}) EXPECT_NEAR(b.value(p), a.value(p), 1e-6 * std::fabs(a.value(p))) << p;
}

// Their printed point estimates come from maximum likelihood under a Huber density of the log
// residuals (delta 1e-3) with a fitted scale; ours by that objective lands on them (their code's
// optimum, log A = 6.17795598, log B = 7.64273236, log E = 0.59711196, alpha = 0.34781303,
// beta = 0.36585412), where the Huber-loss fit above gives A = 478.
TEST(ChinchillaExample, MaximumLikelihoodIsBesirogluEstimate) {
  const DataTable table = read_csv(kData);
  ColumnChoice c;
  c.N = "Model Size";
  c.C = "Training FLOP";
  c.loss = "loss";
  c.drop_top = 5;
  const FitColumns cols = choose_columns(table, c, false);
  const ScalingLaw& law = scaling_law("chinchilla");
  FitOptions o;
  o.likelihood = true;
  const LawFit f = fit_law(law, make_law_data(law, cols.N, cols.D, cols.loss, cols.lines), o);
  EXPECT_NEAR(std::log(f.value("A")), 6.17795598, 1e-4);
  EXPECT_NEAR(std::log(f.value("B")), 7.64273236, 1e-4);
  EXPECT_NEAR(std::log(f.value("E")), 0.59711196, 1e-4);
  EXPECT_NEAR(f.value("alpha"), 0.34781303, 1e-5);
  EXPECT_NEAR(f.value("beta"), 0.36585412, 1e-5);
  EXPECT_TRUE(f.likelihood);
  EXPECT_GT(f.noise_sd, 0.0);
  EXPECT_LT(f.noise_sd, f.residuals.rmse);  // a heavy-tailed density: the outliers do not inflate it
}
