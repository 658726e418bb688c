// Fit requests end to end on synthetic tables with known laws: held-out rows expose a wrong law,
// leave-one-budget-out folds are the budgets, weights equal duplicated rows, a saved fit predicts
// what the law says, the default one-input fit is ordinary least squares in log space.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/fit_request.hpp"
#include "scalinglab/fit/law_expression.hpp"
#include "support/cli_process.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

// An IsoFLOP design: `budgets` budgets from 1e18 to 1e22, 9 sizes each around the optimum, loss
// from a Chinchilla law (E 1.8, A 400, B 2000, alpha 0.34, beta 0.28) times exp(sigma * normal).
DataTable chinchilla_table(double sigma, std::uint64_t seed, int budgets = 5) {
  Stream s(seed);
  std::string csv = "N,D,C,loss,w\n";
  for (int b = 0; b < budgets; ++b) {
    const double C = 1e18 * std::pow(1e4, b / double(budgets - 1));
    const double n_opt = 0.1 * std::pow(C / 6, 0.45);
    for (int k = -4; k <= 4; ++k) {
      const double N = n_opt * std::pow(10.0, k / 4.0);
      const double D = C / (6 * N);
      const double L = 1.8 + 400 / std::pow(N, 0.34) + 2000 / std::pow(D, 0.28);
      csv += fmt::format("{:.17g},{:.17g},{:.17g},{:.17g},{}\n", N, D, C, L * std::exp(sigma * s.normal()), 1 + (k + 4) % 3);
    }
  }
  return parse_csv(csv, "synthetic");
}

FitRequest request(const std::string& law) {
  FitRequest r;
  r.law = law;
  r.columns.N = "N";
  r.columns.D = "D";
  r.columns.loss = "loss";
  r.bounds = "E=0:,A=0:,B=0:";
  r.grid = {"log(E)=0,0.5", "log(A)=3,6", "log(B)=3,8", "alpha=0.2,0.5", "beta=0.2,0.5"};  // 32 starts
  r.boot.replicates = 0;
  r.threads = 2;
  return r;
}

}  // namespace

TEST(FitRequest, HeldOutRowsExposeAWrongLaw) {
  const DataTable t = chinchilla_table(0.005, 3);
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.columns.holdout = "C >= 1e21";
  r.compare = {"E + A/N^alpha"};
  const FitOutcome o = run_fit(t, r);
  ASSERT_EQ(o.laws.size(), 2u);
  const PredictionErrors& right = o.laws[0].holdout;
  const PredictionErrors& wrong = o.laws[1].holdout;
  EXPECT_EQ(right.points, 18u);  // the two largest budgets
  EXPECT_EQ(o.laws[0].train.size(), 27);
  // The true law extrapolates to within a few noise levels; the law without a data term does not.
  EXPECT_LT(right.log_rmse, 3 * 0.005);
  EXPECT_GT(wrong.log_rmse, 5 * right.log_rmse);
  const nlohmann::json j = fit_outcome_json(o);
  EXPECT_EQ(j["compare"].size(), 2u);
  EXPECT_EQ(j["held_out"], 18);
}

TEST(FitRequest, LeaveOneBudgetOutFoldsAreTheBudgets) {
  const DataTable t = chinchilla_table(0.01, 4);
  FitRequest r = request("chinchilla");
  r.cv = "leave-one-budget-out";
  const FitOutcome o = run_fit(t, r);
  const auto& folds = o.laws[0].folds;
  ASSERT_EQ(folds.size(), 5u);
  for (std::size_t b = 0; b < folds.size(); ++b) {
    EXPECT_EQ(folds[b].errors.points, 9u);
    EXPECT_NEAR(std::log10(folds[b].C), 18 + b, 1e-9);
  }
  EXPECT_EQ(o.laws[0].cv.points, 45u);
  // Out-of-fold errors of the true law are of the order of the noise.
  EXPECT_LT(o.laws[0].cv.log_rmse, 2 * 0.01);
  EXPECT_GT(o.laws[0].cv.log_rmse, 0.5 * 0.01);
  r.cv = "k-fold";
  EXPECT_THROW(run_fit(t, r), InputError);
}

TEST(FitRequest, AWeightIsADuplicatedRow) {
  const DataTable t = chinchilla_table(0.01, 5);
  FitRequest weighted = request("E + A/N^alpha + B/D^beta");
  weighted.columns.weight = "w";
  const FitOutcome a = run_fit(t, weighted);
  // The same rows, each written w times.
  const std::vector<double> w = t.numbers("w");
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < t.rows(); ++i)
    for (int k = 0; k < static_cast<int>(w[i]); ++k) rows.push_back(i);
  const FitOutcome b = run_fit(t.select(rows), request("E + A/N^alpha + B/D^beta"));
  EXPECT_NEAR(a.laws[0].fit.objective, b.laws[0].fit.objective, 1e-12 + 1e-9 * b.laws[0].fit.objective);
  for (std::size_t p = 0; p < 5; ++p)
    EXPECT_NEAR(a.laws[0].fit.values[p], b.laws[0].fit.values[p], 1e-6 * std::fabs(b.laws[0].fit.values[p]));
  // Unweighted differs (the weights are not all equal).
  const FitOutcome c = run_fit(t, request("E + A/N^alpha + B/D^beta"));
  EXPECT_GT(std::fabs(c.laws[0].fit.values[3] - a.laws[0].fit.values[3]), 1e-6);
}

TEST(FitRequest, ASavedFitPredictsTheLawWithItsBootstrapInterval) {
  const DataTable t = chinchilla_table(0.01, 6);
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.boot.replicates = 40;
  const FitOutcome o = run_fit(t, r);
  const nlohmann::json saved = nlohmann::json::parse(fit_outcome_saved(o).dump());  // through text, as a file
  const nlohmann::json p = predict_saved(saved, {{"N", {7e10, 1e9}}, {"D", {1.4e12}}}, 0.9);
  ASSERT_EQ(p["predictions"].size(), 2u);
  const auto& v = o.laws[0].fit.values;  // E, A, alpha, B, beta
  for (int i = 0; i < 2; ++i) {
    const double N = i == 0 ? 7e10 : 1e9, D = 1.4e12;
    const double expect = v[0] + v[1] / std::pow(N, v[2]) + v[3] / std::pow(D, v[4]);
    const auto& row = p["predictions"][i];
    EXPECT_NEAR(row["loss"].get<double>(), expect, 1e-12 * expect);
    EXPECT_LT(row["loss_lo"].get<double>(), expect);
    EXPECT_GT(row["loss_hi"].get<double>(), expect);
  }
  EXPECT_THROW(predict_saved(saved, {{"N", {1e9}}}, 0.9), InputError);                        // D missing
  EXPECT_THROW(predict_saved(saved, {{"N", {1e9}}, {"D", {1e9}}, {"U", {1}}}, 0.9), InputError);  // not read
  EXPECT_THROW(predict_saved(nlohmann::json::object(), {{"N", {1e9}}}, 0.9), InputError);
}

TEST(FitRequest, OneInputFitsAreLeastSquaresInLogSpaceByDefault) {
  // A noisy power law: the default fit of `power` is the ordinary least-squares line of log y on
  // log x, so `power` and an expression of the same law agree with it to rounding.
  Stream s(8);
  std::string csv = "x,y\n";
  std::vector<double> lx, ly;
  for (int i = 0; i < 40; ++i) {
    const double x = std::pow(10.0, 1 + 5 * s.uniform());
    const double y = 3 * std::pow(x, -0.4) * std::exp(0.05 * s.normal());
    csv += fmt::format("{:.17g},{:.17g}\n", x, y);
    lx.push_back(std::log(x));
    ly.push_back(std::log(y));
  }
  double mx = 0, my = 0;
  for (int i = 0; i < 40; ++i) mx += lx[i] / 40, my += ly[i] / 40;
  double sxy = 0, sxx = 0;
  for (int i = 0; i < 40; ++i) sxy += (lx[i] - mx) * (ly[i] - my), sxx += (lx[i] - mx) * (lx[i] - mx);
  const double slope = sxy / sxx;
  const DataTable t = parse_csv(csv, "power");
  for (const std::string law : {"power", "A*x^-a"}) {
    FitRequest r;
    r.law = law;
    r.columns.x = "x";
    r.columns.loss = "y";
    r.bounds = "A=0:";
    r.boot.replicates = 0;
    const FitOutcome o = run_fit(t, r);
    EXPECT_NEAR(o.laws[0].fit.values[1], -slope, 1e-8) << law;
    EXPECT_FALSE(std::isfinite(o.laws[0].fit.delta)) << law;
  }
}

TEST(FitRequest, ConditionsAndBadRequests) {
  const DataTable t = chinchilla_table(0.01, 9);
  FitRequest r = request("chinchilla");
  r.x_min = 1e7;  // two-input law: N >= 1e7
  const FitOutcome o = run_fit(t, r);
  for (double N : o.columns.N) EXPECT_GE(N, 1e7);
  EXPECT_LT(o.columns.N.size(), 45u);
  FitRequest bad = request("chinchila");
  EXPECT_THROW(run_fit(t, bad), InputError);  // unknown law
  bad = request("chinchilla");
  bad.bounds = "gamma=0:1";
  EXPECT_THROW(run_fit(t, bad), InputError);  // no such parameter
  bad = request("chinchilla");
  bad.columns.holdout = "C > 1e30";
  EXPECT_THROW(run_fit(t, bad), InputError);  // holds out nothing
  bad = request("E + A*U^-a");
  EXPECT_THROW(run_fit(t, bad), InputError);  // U is no column: a law without inputs
}

TEST(FitRequest, OneInputLawsReadDerivedColumnsAndFilterOnTheOthers) {
  const DataTable t = chinchilla_table(0.01, 10);
  // D derived from N and C for a law of D alone.
  FitRequest r;
  r.law = "E + B*D^-beta";
  r.columns.N = "N";
  r.columns.C = "C";
  r.bounds = "E=0:,B=0:";
  r.boot.replicates = 0;
  const FitOutcome a = run_fit(t, r);
  EXPECT_EQ(a.laws[0].train.size(), 45);
  const std::vector<double> D = t.numbers("D");
  EXPECT_NEAR(a.laws[0].train.inputs[0][0], D[0], 1e-9 * D[0]);
  // A law of N alone filtered and held out on C.
  r.law = "E + A*N^-alpha";
  r.bounds = "E=0:,A=0:";
  r.columns.conditions = {"C >= 1e19"};
  r.columns.holdout = "C >= 1e21";
  r.cv = "leave-one-budget-out";
  const FitOutcome b = run_fit(t, r);
  EXPECT_EQ(b.laws[0].train.size() + b.laws[0].test.size(), 36);  // 4 budgets of 9
  EXPECT_EQ(b.laws[0].test.size(), 18);
  EXPECT_EQ(b.laws[0].fold_key, "N");
}

TEST(FitRequest, PredictRefusesInputsWhereTheLawIsUndefined) {
  const DataTable t = chinchilla_table(0.01, 11);
  const FitOutcome o = run_fit(t, request("chinchilla"));
  const nlohmann::json saved = fit_outcome_saved(o);
  EXPECT_THROW(predict_saved(saved, {{"N", {-1.0}}, {"D", {1e9}}}, 0.9), InputError);
}

// ---- what a user gives, checked once for the command line and Python ----------------------------

namespace {

// The message of the InputError `f` throws ("accepted" when it throws none).
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(FitRequest, PythonsRequestIsCheckedAsTheCommandLineIs) {
  // Python once accepted each of these (a level of 2 read outside the bootstrap sample, 1e7
  // crashed); the command line refused them. Now one check serves both, naming the option.
  const std::vector<std::pair<nlohmann::json, std::string>> bad = {
      {{{"level", 2.0}}, "--level 2:"},
      {{{"level", 1e7}}, "--level 1e+07:"},
      {{{"level", "nan"}}, "--level nan:"},
      {{{"delta", -1}}, "--delta -1:"},
      {{{"seed", -1}}, "--seed -1:"},
      {{{"seed", "18446744073709551616"}}, "--seed 18446744073709551616:"},
      {{{"seed", 2.5}}, "--seed 2.5:"},
      {{{"bootstrap", -5}}, "--bootstrap -5:"},
      {{{"bootstrap", 1}}, "--bootstrap 1:"},
      {{{"bootstrap", 4294967301ll}}, "--bootstrap 4294967301: out of range"},
      {{{"bootstrap_starts", -7}}, "--bootstrap-starts -7:"},
      {{{"polish", -1}}, "--polish -1:"},
      {{{"threads", -1}}, "--threads -1:"},
      {{{"at", {1e20, -1.0}}}, "--at -1:"},
      {{{"at", {"inf"}}}, "--at inf:"},
      {{{"x_min", "inf"}}, "--x-min inf:"},
      {{{"x_min", "nan"}}, "--x-min nan:"},
      {{{"drop_top", -1}}, "--drop-top -1:"},
      {{{"law", 5}}, "--law: expected text"},
      {{{"grid", "a=1"}}, "--grid: expected a list of text"},
      {{{"bootstrap", "200"}}, "--bootstrap: expected a whole number"},
      {{{"nope", 1}}, "unknown option 'nope'"},
  };
  for (const auto& [request, expected] : bad) {
    const std::string m = refusal([&] { fit_request_from_json(request); });
    EXPECT_EQ(m.rfind(expected, 0) == 0 || m.find(expected) != std::string::npos, true) << request.dump() << ": " << m;
    EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
  }
  // Infinity travels as text (JSON has none): least squares from Python is delta=inf.
  EXPECT_TRUE(std::isinf(fit_request_from_json({{"delta", "inf"}}).delta));
  EXPECT_EQ(fit_request_from_json({{"seed", 18446744073709551615ull}}).boot.seed, 18446744073709551615ull);
  // run_fit applies the same check to a request built in C++.
  FitRequest r = request("chinchilla");
  r.boot.level = 2;
  EXPECT_NE(refusal([&] { run_fit(chinchilla_table(0.01, 1), r); }).find("--level 2:"), std::string::npos);
}

TEST(FitRequest, SeedsAreWholeNumbersFromZeroUp) {
  EXPECT_EQ(parse_seed("0"), 0u);
  EXPECT_EQ(parse_seed(" 42 "), 42u);
  EXPECT_EQ(parse_seed("18446744073709551615"), 18446744073709551615ull);
  for (const char* bad : {"-1", "18446744073709551616", "1e3", "", "0x10", "1.0", "seven"})
    EXPECT_NE(refusal([&] { parse_seed(bad); }).find("--seed"), std::string::npos) << bad;
}

TEST(FitRequest, PredictChecksItsLevelAndTheSavedFitFieldByField) {
  const DataTable t = chinchilla_table(0.01, 12);
  FitRequest r = request("chinchilla");
  r.boot.replicates = 8;
  const nlohmann::json saved = fit_outcome_saved(run_fit(t, r));
  const std::map<std::string, std::vector<double>> at = {{"N", {7e10}}, {"D", {1.4e12}}};
  // A level of 1e7 crashed the Python module (an index far outside the replicates).
  for (double level : {2.0, 1e7, 0.0, std::nan("")})
    EXPECT_NE(refusal([&] { predict_saved(saved, at, level); }).find("--level"), std::string::npos) << level;
  // An edited file: each wrong field is a sentence naming it, never nlohmann's text or a read
  // past the end of theta (an empty theta crashed `predict`).
  auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = saved;
    edit(j["saved"]);
    return refusal([&] { predict_saved(j, at, 0.9); });
  };
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> edits = {
      {[](nlohmann::json& s) { s["theta"] = nlohmann::json::array(); }, "'theta'"},
      {[](nlohmann::json& s) { s["theta"] = {1, 2, 3, 4, 5, 6}; }, "'theta'"},
      {[](nlohmann::json& s) { s["theta"][0] = "x"; }, "'theta'"},
      {[](nlohmann::json& s) { s["bootstrap_thetas"][1] = {1.0}; }, "'bootstrap_thetas'"},
      {[](nlohmann::json& s) { s["bootstrap_thetas"] = "x"; }, "'bootstrap_thetas'"},
      {[](nlohmann::json& s) { s.erase("law"); }, "no 'law'"},
      {[](nlohmann::json& s) { s["law"] = 5; }, "'law'"},
      {[](nlohmann::json& s) { s["coordinate_names"] = 5; }, "'coordinate_names'"},
      {[](nlohmann::json& s) { s["law"] = "E + A/N^alpha"; s["inputs"] = {1}; }, "'inputs'"},
  };
  for (const auto& [edit, expected] : edits) {
    const std::string m = edited(edit);
    EXPECT_NE(m.find(expected), std::string::npos) << m;
    EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
  }
  EXPECT_NE(refusal([&] { predict_saved(nlohmann::json::array(), at, 0.9); }).find("not a saved fit"), std::string::npos);
  // Text that is not JSON: where it stops, not nlohmann's exception text.
  const std::string m = refusal([] { parse_json("{\"saved\": nope}", "predict: fit.json"); });
  EXPECT_EQ(m, "predict: fit.json is not JSON (it stops being JSON at byte 12)");
}

// ---- the command line on hostile or careless input -----------------------------------------------

namespace {

const std::string kChinchillaCsv =
    std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv";

}  // namespace

// Outside the anonymous namespace: gtest's test classes derive from it.
class FitCli : public scalinglab::testing::ScratchDirTest {
 protected:
  // Exit status 2 within `seconds`, one line of ours naming `needle`, no library's text.
  void expect_refused(const std::vector<std::string>& args, const std::string& needle, double seconds = 10) {
    const scalinglab::testing::CliOutcome o = scalinglab::testing::run_cli_args(args, 60, dir.string());
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    EXPECT_FALSE(o.timed_out) << cmd;
    EXPECT_EQ(o.status, 2) << cmd << "\n" << o.out;
    EXPECT_NE(o.out.find(needle), std::string::npos) << cmd << "\n" << o.out;
    const auto error = o.out.find("scalinglab: error: ");
    ASSERT_NE(error, std::string::npos) << cmd << "\n" << o.out;
    EXPECT_EQ(o.out.find('\n', error), o.out.size() - 1) << cmd << "\n" << o.out;  // the last line, and one line
    for (const char* raw : {"json.exception", "boost::", "Error in function", "std::", "bad_alloc"})
      EXPECT_EQ(o.out.find(raw), std::string::npos) << cmd << "\n" << o.out;
    EXPECT_LT(o.seconds, seconds) << cmd;
  }
  std::vector<std::string> fit_args(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"fit", kChinchillaCsv, "--law", "chinchilla", "--N", "Model Size", "--C",
                                  "Training FLOP", "--drop-top", "5", "--grid", "alpha=0.3", "--grid", "beta=0.3",
                                  "--threads", "2"};
    if (std::find(extra.begin(), extra.end(), "--bootstrap") == extra.end()) a.insert(a.end(), {"--bootstrap", "20"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string saved_fit() {
    const std::string path = (dir / "fit.json").string();
    const auto o = scalinglab::testing::run_cli_args(fit_args({"--save", path}));
    EXPECT_EQ(o.status, 0) << o.out;
    return path;
  }
};

TEST_F(FitCli, RangesThatNeverEndAreRefusedAtOnce) {
  // Each of these once added a step too small to change the value, for ever, until memory ran out.
  expect_refused({"fit", kChinchillaCsv, "--law", "E + a/N^b", "--bounds", "E=0:", "--N", "Model Size", "--C",
                  "Training FLOP", "--bootstrap", "0", "--grid", "a=1e17:1:100000000000000512"},
                 "--grid a range '1e17:1:100000000000000512': the step 1 does not change");
  const std::string saved = saved_fit();
  expect_refused({"predict", saved, "N=1:1e-17:1.000000000000001", "D=1e12"},
                 "predict N range '1:1e-17:1.000000000000001': the step 1e-17 does not change");
  // A range's values count against --max-points, before any is made.
  expect_refused({"predict", saved, "N=1:1:1e9", "D=1e12"}, "has 1e+09 values, more than the limit of 1e+05");
  expect_refused({"predict", saved, "N=1:1:100", "D=1e12", "--max-points", "50"}, "--max-points");
  const auto ok = scalinglab::testing::run_cli_args({"predict", saved, "N=1e9:1e9:1e10", "D=1e12", "--json"});
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["predictions"].size(), 10u);
}

TEST_F(FitCli, BadNumbersAreRefusedWithTheSameSentenceAsInPython) {
  expect_refused(fit_args({"--level", "2"}), "--level 2: the coverage of an interval must be from 0.5 to 0.999");
  expect_refused(fit_args({"--seed", "-1"}), "--seed -1: a seed is a whole number");
  expect_refused(fit_args({"--bootstrap", "-5"}), "--bootstrap -5:");
  expect_refused(fit_args({"--bootstrap-starts", "-7"}), "--bootstrap-starts -7:");
  expect_refused(fit_args({"--delta", "-1"}), "--delta -1:");
  expect_refused({"frontier", kChinchillaCsv, "--N", "Model Size", "--C", "Training FLOP", "--group-tolerance", "-1"},
                 "--group-tolerance -1:");
  const std::string saved = saved_fit();
  expect_refused({"predict", saved, "N=7e10", "D=1.4e12", "--level", "1e7"}, "--level 1e+07:");
}

TEST_F(FitCli, EditedOrForeignFitFilesAreSentences) {
  const std::string saved = saved_fit();
  nlohmann::json j = nlohmann::json::parse(std::ifstream(saved));
  j["saved"]["theta"] = nlohmann::json::array();  // once a read past its end (a crash)
  std::ofstream(dir / "edited.json") << j.dump();
  expect_refused({"predict", (dir / "edited.json").string(), "N=7e10", "D=1.4e12"}, "'theta' is not a list of 5 numbers");
  write("deep.json", std::string(100000, '[') + std::string(100000, ']'));  // nesting is bounded as results lines' is
  expect_refused({"predict", (dir / "deep.json").string(), "N=7e10", "D=1.4e12"}, "nested deeper than 64 levels");
  write("text.json", "not json\n");
  expect_refused({"predict", (dir / "text.json").string(), "N=7e10", "D=1.4e12"}, "is not JSON (it stops being JSON at byte");
  write("other.json", "{\"saved\": {\"law\": 5}}");
  expect_refused({"predict", (dir / "other.json").string(), "N=7e10", "D=1.4e12"}, "'law' is not");
  // Boost's gamma at a pole: no loss there, in a sentence (once Boost's text, exit 1).
  write("g.csv", "x,loss\n1.5,2\n2.5,1.5\n3.5,1.2\n4.5,1.1\n5.5,1.05\n");
  const std::string g = (dir / "g.json").string();
  const auto fit = scalinglab::testing::run_cli_args({"fit", (dir / "g.csv").string(), "--law", "A*gamma(x)^-b", "--x",
                                                      "x", "--bootstrap", "0", "--save", g});
  ASSERT_EQ(fit.status, 0) << fit.out;
  expect_refused({"predict", g, "x=-1"}, "gives no positive, finite loss at x=-1");
  expect_refused({"predict", g, "x=200"}, "gives no positive, finite loss at x=200");
  expect_refused({"fit", (dir / "g.csv").string(), "--law", "A*x^-b", "--x", "x", "--grid", "A=gamma(-1)"},
                 "'gamma(-1)' is not a finite number");
  // A filter at a pole is NaN, hence false: the row is left out, as `log(x) > 0` leaves out x <= 0.
  const auto filtered = scalinglab::testing::run_cli_args(
      {"fit", (dir / "g.csv").string(), "--law", "A*x^-b", "--x", "x", "--where", "gamma(x-1.5)>0", "--bootstrap", "0"});
  EXPECT_EQ(filtered.status, 0) << filtered.out;
  EXPECT_NE(filtered.out.find("5 rows, 4 after filters"), std::string::npos) << filtered.out;
}

TEST_F(FitCli, ASaveThatCannotBeWrittenWholeIsAnError) {
  // Through std::ofstream a full disk left the first 4096 bytes and exit status 0. (No bootstrap:
  // the save is under test, and refits take minutes under the sanitizers.)
  expect_refused(fit_args({"--bootstrap", "0", "--save", "/dev/full"}), "/dev/full", 60);
  expect_refused(fit_args({"--bootstrap", "0", "--save", (dir / "no" / "such" / "dir.json").string()}), "no such file or directory", 60);
  // A small full file system, where mounting one is permitted (root, outside most containers).
  const std::filesystem::path mnt = dir / "small";
  std::filesystem::create_directories(mnt);
  if (::mount("none", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{mnt.string()};
  {
    std::ofstream filler(mnt / "filler", std::ios::binary);
    filler << std::string(62 * 1024, 'x');
  }
  expect_refused(fit_args({"--bootstrap", "0", "--save", (mnt / "fit.json").string()}), "no space left on device", 60);
  EXPECT_FALSE(std::filesystem::exists(mnt / "fit.json"));
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(mnt)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"filler"});  // no temporary left behind
}

TEST_F(FitCli, AnExtrapolationIsCheckedAsAWholeBeforeAnyRun) {
  const std::string base = R"toml(measure = "memory.error"
runs = 2
seed = 1
[params]
N = 100000
M = 5
alpha = 2.0
scheme = "threshold"
P = "d/8"
[extrapolate]
size = "d"
data = "T"
N = "d^2"
D = "T"
loss = "error"
budgets = [1e6, 3e6, 1e7, 3e7]
sizes = "logspace(8, 1024, 11)"
target = 1e9
)toml";
  auto refused = [&](const std::string& extra, const std::string& needle, const std::vector<std::string>& flags = {}) {
    const std::string file = write("p.toml", base + extra).string();
    std::vector<std::string> args = {"extrapolate", file, "--out", (dir / "out").string(), "--quiet"};
    args.insert(args.end(), flags.begin(), flags.end());
    expect_refused(args, needle, 10);
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << extra;  // nothing run, nothing written
  };
  // 1e9 once allocated gigabytes after the small sweeps had run; 3e9, past an int, planned no run
  // and exited 0.
  refused("target_sizes = 1e9\n", "has 1e+09 grid points");
  refused("target_sizes = 3e9\n", "has 3e+09 grid points");
  refused("target_sizes = 0\n", "target_sizes = 0: give a whole number");
  refused("target_sizes = 2.5\n", "target_sizes = 2.5: give a whole number");
  refused("target_sizes = -3\n", "target_sizes = -3: give a whole number");
  refused("target_sizes = 9\n", "--max-points", {"--max-points", "40"});
  refused("target_sizes = 9\n", "--max-tasks", {"--max-tasks", "100"});
  refused("target_sizes = 9\n", "--max-memory", {"--max-memory", "1000"});
  refused("target_sizes = 9\ntarget_spread = 0.5\n", "target_spread = 0.5");
  refused("target_sizes = 9\n[profile.quick.extrapolate]\nbudgets = [1e6, -1, 1e7]\n", "budgets: -1 is not", {"--profile", "quick"});
  refused("target_sizes = 9\n[profile.quick.extrapolate]\nsizes = \"logspace(8, 1024, 1e6)\"\n", "has 1e+06 values",
          {"--profile", "quick"});
  refused("target_sizes = 9\n[profile.quick.extrapolate]\ntarget = inf\n", "target = inf", {"--profile", "quick"});
}

// Compared laws read their own columns: a law in N_no_emb (a column the main law does not read,
// named by --input-column) compared with chinchilla in (N, D), in both orders, on the same rows; a
// law reading a column the file does not have is refused before any law is fitted.
TEST(FitRequest, ComparedLawsReadTheirOwnColumnsOnTheSameRows) {
  Stream s(11);
  std::string csv = "N,N_no_emb,D,loss\n";
  for (int b = 0; b < 5; ++b) {
    const double C = 1e18 * std::pow(10.0, b / 2.0);
    for (int k = -4; k <= 4; ++k) {
      const double N = 0.1 * std::pow(C / 6, 0.45) * std::pow(10.0, k / 4.0), D = C / (6 * N), Ne = 0.8 * N;
      const double L = 1.8 + 400 / std::pow(Ne, 0.34) + 2000 / std::pow(D, 0.28);
      // One row without N_no_emb: left out for every law with --drop-missing.
      const std::string ne = b == 2 && k == 0 ? "" : fmt::format("{:.17g}", Ne);
      csv += fmt::format("{:.17g},{},{:.17g},{:.17g}\n", N, ne, D, L * std::exp(0.002 * s.normal()));
    }
  }
  const DataTable t = parse_csv(csv, "emb");
  const std::string emb = "E + A/N_no_emb^alpha + B/D^beta";
  for (const bool emb_first : {false, true}) {
    FitRequest r = request(emb_first ? emb : "E + A/N^alpha + B/D^beta");
    r.compare = {emb_first ? "E + A/N^alpha + B/D^beta" : emb};
    r.input_columns = {"N_no_emb"};
    r.columns.drop_missing = true;
    const FitOutcome o = run_fit(t, r);
    ASSERT_EQ(o.laws.size(), 2u);
    EXPECT_EQ(o.columns.missing_dropped, 1u);
    EXPECT_EQ(o.columns.missing_by_column.at("N_no_emb"), 1u);
    const LawOutcome& e = o.laws[emb_first ? 0 : 1];
    EXPECT_EQ(e.train.size(), 44);
    EXPECT_EQ(o.laws[0].train.size(), o.laws[1].train.size());
    // The law of the column the data follow finds its parameters; the other law fits worse.
    EXPECT_NEAR(e.fit.values[1], 400, 40) << emb_first;  // A
    EXPECT_NEAR(e.fit.values[2], 0.34, 0.01) << emb_first;  // alpha
    EXPECT_LE(e.fit.residuals.rmse, o.laws[emb_first ? 1 : 0].fit.residuals.rmse * 1.001);
  }
  // Without --drop-missing the blank cell is an error naming its line, column and the option.
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.compare = {emb};
  r.input_columns = {"N_no_emb"};
  try {
    run_fit(t, r);
    FAIL();
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("emb:24"), std::string::npos) << m;
    EXPECT_NE(m.find("'N_no_emb'"), std::string::npos) << m;
    EXPECT_NE(m.find("--drop-missing"), std::string::npos) << m;
  }
  // A compared law reading a column the file lacks (muennighoff reads U) is refused before any fit:
  // the main law's grid, which its fit would refuse, is not reached.
  r.compare = {"muennighoff"};
  r.input_columns.clear();
  r.columns.drop_missing = true;
  r.grid = {"E=-1"};
  try {
    run_fit(t, r);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no column 'U'"), std::string::npos) << e.what();
  }
}

// Repeated inputs: warned about as they are; merged by --aggregate mean into one row per (N, D) of
// the mean loss, weighted by the group's size, with the spread within groups as a noise estimate;
// --aggregate min keeps the lowest.
TEST(FitRequest, RepeatedSeedsAreWarnedAboutAndAggregated) {
  const DataTable base = chinchilla_table(0.0, 12);
  Stream s(4);
  std::string csv = "N,D,loss,seed\n";
  const auto N = base.numbers("N"), D = base.numbers("D"), L = base.numbers("loss");
  for (std::size_t i = 0; i < N.size(); ++i)
    for (int k = 0; k < (i % 2 ? 3 : 2); ++k)
      csv += fmt::format("{:.17g},{:.17g},{:.17g},{}\n", N[i], D[i], L[i] * std::exp(0.01 * s.normal()), k);
  const DataTable t = parse_csv(csv, "seeds");
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  const FitOutcome plain = run_fit(t, r);
  std::string warnings;
  for (const auto& w : plain.warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("45 (N, D) pairs occur on more than one row (112 rows, up to 3 times"), std::string::npos) << warnings;

  r.columns.aggregate = "mean";
  const FitOutcome mean = run_fit(t, r);
  EXPECT_EQ(mean.train_columns.loss.size(), 45u);
  const Aggregation& a = mean.columns.aggregation;
  EXPECT_EQ(a.rows, 112u);
  EXPECT_EQ(a.groups, 45u);
  EXPECT_EQ(a.largest, 3u);
  EXPECT_EQ(a.dof, 112u - 45u);
  EXPECT_NEAR(a.noise_sd, 0.01, 0.002);  // the seeds' noise
  EXPECT_EQ(mean.warnings.size(), plain.warnings.size() - 1);  // no repeated-rows warning
  // The merged row: the mean loss of its group, weighted by the group's size.
  const auto loss = t.numbers("loss");
  EXPECT_NEAR(mean.train_columns.loss[0], (loss[0] + loss[1]) / 2, 1e-15);
  EXPECT_EQ(mean.train_columns.weight[0], 2.0);
  EXPECT_NEAR(mean.train_columns.loss[1], (loss[2] + loss[3] + loss[4]) / 3, 1e-15);
  EXPECT_EQ(mean.train_columns.weight[1], 3.0);

  r.columns.aggregate = "min";
  const FitOutcome low = run_fit(t, r);
  EXPECT_EQ(low.train_columns.loss[0], std::min(loss[0], loss[1]));
  EXPECT_EQ(low.train_columns.loss[1], std::min({loss[2], loss[3], loss[4]}));
  EXPECT_TRUE(low.train_columns.weight.empty());
  r.columns.aggregate = "median";
  EXPECT_THROW(run_fit(t, r), InputError);
}

// Units: N in millions and D in billions, with C a column of FLOPs, are warned about (C is not
// 6 N D) and --N-scale/--D-scale make them parameters and tokens: the same fit as the file in units.
TEST(FitRequest, UnitsAreCheckedAgainstComputeAndScaled) {
  const DataTable t = chinchilla_table(0.005, 13);
  std::string csv = "N_M,D_B,C,loss\n";
  const auto N = t.numbers("N"), D = t.numbers("D"), C = t.numbers("C"), L = t.numbers("loss");
  for (std::size_t i = 0; i < N.size(); ++i)
    csv += fmt::format("{:.17g},{:.17g},{:.17g},{:.17g}\n", N[i] / 1e6, D[i] / 1e9, C[i], L[i]);
  const DataTable u = parse_csv(csv, "units");
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.columns.N = "N_M";
  r.columns.D = "D_B";
  r.columns.C = "C";
  const FitOutcome wrong = run_fit(u, r);
  EXPECT_NEAR(wrong.columns.C_over_6ND, 1e15, 1e6);
  std::string warnings;
  for (const auto& w : wrong.warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("C is not about 6 N D: C / (6 N D) has median 1e15, and 45 of 45 rows"), std::string::npos)
      << warnings;
  r.columns.N_scale = 1e6;
  r.columns.D_scale = 1e9;
  r.at = {1e24};
  const FitOutcome right = run_fit(u, r);
  EXPECT_NEAR(right.columns.C_over_6ND, 1, 1e-12);
  for (const auto& w : right.warnings) EXPECT_EQ(w.find("6 N D"), std::string::npos) << w;
  FitRequest ref = request("E + A/N^alpha + B/D^beta");
  ref.at = {1e24};
  const FitOutcome expected = run_fit(t, ref);
  for (std::size_t p = 0; p < 5; ++p)
    EXPECT_NEAR(right.laws[0].fit.values[p], expected.laws[0].fit.values[p], 1e-6 * std::fabs(expected.laws[0].fit.values[p]));
  // Without C, N in millions and D in billions make C = 6 N D 1e15 times too small: a budget of
  // real FLOPs is then far beyond the data, and said so.
  r.columns.C.clear();
  r.columns.N_scale = r.columns.D_scale = 1;
  warnings.clear();
  for (const auto& w : run_fit(u, r).warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("--at 1e+24 is"), std::string::npos) << warnings;
  EXPECT_EQ(parse_unit_scale("M", "--N-scale"), 1e6);
  EXPECT_EQ(parse_unit_scale("B", "--D-scale"), 1e9);
  EXPECT_EQ(parse_unit_scale("2.5e3", "--N-scale"), 2500.0);
  for (const char* bad : {"0", "-1", "inf", "nan", "0x10", "1e6x", "m", ""}) EXPECT_THROW(parse_unit_scale(bad, "--N-scale"), InputError) << bad;
}

// --objective mle with a normal density (delta inf): the estimates are least squares in log space,
// the fitted noise is the rmse of the residuals, and close to the noise put in; the bootstrap gives
// it an interval. With Hoffmann's delta the fitted scale solves its likelihood equation.
TEST(FitRequest, MaximumLikelihoodWithANormalDensityIsLeastSquaresWithItsNoise) {
  const double sigma = 0.02;
  const DataTable t = chinchilla_table(sigma, 21, 40);  // 360 points
  FitRequest ls = request("E + A/N^alpha + B/D^beta");
  ls.delta = std::numeric_limits<double>::infinity();
  FitRequest ml = ls;
  ml.objective = "mle";
  ml.boot.replicates = 40;
  const FitOutcome a = run_fit(t, ls), b = run_fit(t, ml);
  for (std::size_t p = 0; p < 5; ++p)
    EXPECT_NEAR(b.laws[0].fit.values[p], a.laws[0].fit.values[p], 1e-6 * std::fabs(a.laws[0].fit.values[p])) << p;
  const LawFit& f = b.laws[0].fit;
  EXPECT_NEAR(f.noise_sd, f.residuals.rmse, 1e-9);
  EXPECT_NEAR(f.noise_sd, sigma, 0.1 * sigma);
  const double n = 360;
  EXPECT_NEAR(f.objective, n * std::log(f.noise_sd) + n / 2 * (1 + std::log(2 * M_PI)), 1e-6);
  const Interval& iv = b.laws[0].boot->noise_sd;
  EXPECT_LT(iv.lo, f.noise_sd);
  EXPECT_GT(iv.hi, f.noise_sd);
  const nlohmann::json j = fit_outcome_json(b);
  EXPECT_EQ(j["objective_kind"], "mle");
  EXPECT_TRUE(j.contains("noise_sd_lo"));
  // Huber density: the fitted scale s solves sum min((r/s)^2, delta |r/s|) = n.
  Eigen::ArrayXd r(6);
  r << 0.01, -0.02, 0.003, 0.05, -0.0001, 0.0;
  for (double delta : {1e-3, 0.5, 3.0}) {
    const NoiseFit nf = fit_noise(r, Eigen::ArrayXd(), delta);
    const Eigen::ArrayXd z = (r / nf.scale).abs();
    EXPECT_NEAR((z.square()).min(delta * z).sum(), 6.0, 1e-9) << delta;
  }
  ml.objective = "ml";
  EXPECT_THROW(run_fit(t, ml), InputError);
}

// A grid past 10^4 starts is announced (the expression law's default grid has 12,800); the
// screening of a large table runs on a subsample and still reaches the optimum of every row.
TEST(FitRequest, LargeGridsAreWarnedAboutAndLargeTablesScreenedOnASubsample) {
  const DataTable t = chinchilla_table(0.01, 31, 40);
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.grid.clear();
  std::string warnings;
  for (const auto& w : run_fit(t, r).warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("12800 starting points (more than 10^4)"), std::string::npos) << warnings;
  // Screening on 60 of the 360 rows, then polishing on all: the same optimum as screening on all.
  const ScalingLaw& law = scaling_law("chinchilla");
  const auto N = t.numbers("N"), D = t.numbers("D"), L = t.numbers("loss");
  const LawData data = make_law_data(law, N, D, L);
  FitOptions all, few;
  all.threads = few.threads = 2;
  few.screen_rows = 60;
  const LawFit a = fit_law(law, data, all), b = fit_law(law, data, few);
  EXPECT_NEAR(b.objective, a.objective, 1e-9 * a.objective);
  for (std::size_t p = 0; p < 5; ++p) EXPECT_NEAR(b.values[p], a.values[p], 1e-5 * std::fabs(a.values[p])) << p;
  EXPECT_EQ(b.polished, 64u);
}

// A table with a column named like a law's parameter (a memory world's table has `alpha`, the Zipf
// exponent): in a law whose inputs are mapped by options the name is a parameter, said in a
// warning; in a law written in the table's columns (no N, D, C, x) a column's name is data.
TEST(FitRequest, ALawParameterNamedLikeAColumnIsAParameterWhenTheInputsAreMapped) {
  std::string csv = "params,tokens,error,alpha\n";
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const double N = 1e6 * std::pow(10.0, i), D = 1e8 * std::pow(10.0, j);
      csv += fmt::format("{:.17g},{:.17g},{:.17g},1.1\n", N, D, 0.5 + 40 / std::pow(N, 0.3) + 200 / std::pow(D, 0.25));
    }
  const DataTable t = parse_csv(csv, "memory");
  FitRequest r = request("E + A/N^alpha + B/D^beta");
  r.columns.N = "params";
  r.columns.D = "tokens";
  r.columns.loss = "error";
  r.bounds = "E=0:,A=0:,B=0:";
  r.grid = {"log(E)=-1", "log(A)=3,4", "log(B)=5", "alpha=0.3", "beta=0.25"};  // 2 starts
  const FitOutcome o = run_fit(t, r);
  const LawOutcome& main = o.laws.front();
  EXPECT_EQ(main.law->inputs, (std::vector<std::string>{"N", "D"}));
  EXPECT_NEAR(main.fit.value("alpha"), 0.3, 1e-6);
  EXPECT_NEAR(main.fit.value("beta"), 0.25, 1e-6);
  ASSERT_FALSE(o.warnings.empty());
  EXPECT_NE(o.warnings[0].find("'alpha' is also the name of a column; fitted as a parameter"), std::string::npos)
      << o.warnings[0];
  EXPECT_NE(o.warnings[0].find("add --input-column alpha)"), std::string::npos) << o.warnings[0];
  // --input-column maps the column: then it is an input (and one no law reads is refused).
  r.input_columns = {"alpha"};
  r.grid = {"log(E)=-1", "log(A)=3", "log(B)=5", "beta=0.25"};
  EXPECT_EQ(run_fit(t, r).laws.front().law->inputs, (std::vector<std::string>{"N", "D", "alpha"}));
  r.input_columns = {"tokens"};
  EXPECT_THROW(run_fit(t, r), InputError);
  // No option maps a name: the law is written in the columns, and those it names are its inputs.
  const auto by_columns = resolve_law("c + A*params^-a*alpha", t, "", ColumnChoice{});
  EXPECT_EQ(by_columns->inputs, (std::vector<std::string>{"params", "alpha"}));
  // --x maps `params`: then `alpha` is a parameter again.
  ColumnChoice x;
  x.x = "params";
  std::vector<std::string> notes;
  const auto mapped = resolve_law("c + A*params^-alpha", t, "", x, &notes);
  EXPECT_EQ(mapped->inputs, (std::vector<std::string>{"params"}));
  EXPECT_EQ(notes.size(), 1u);
  // A count of inputs that still does not match says which names are data and which parameters.
  try {
    law_log_predict_at(*by_columns, {0.1, 1.0, 0.3}, {1e6});
    ADD_FAILURE() << "one input for two";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 input(s), got 1 (taken as data columns: params, alpha; as parameters: "
                                         "c, A, a)"),
              std::string::npos)
        << e.what();
  }
}
