// `fit` and `frontier` on the command line as a practitioner meets them: the same warnings about
// units from both, counts of dropped rows, progress on stderr while stdout holds the JSON, Ctrl-C
// that stops a fit with nothing written, and Approach 1 from learning curves.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

struct CliRun {
  int status = -1;
  std::string out, err;
};

// stdout and stderr apart; `env` is put before the command (e.g. "SCALINGLAB_PROGRESS_DELAY=0").
CliRun run_cli(const std::string& args, const std::string& env = "") {
  const std::string err_file = ::testing::TempDir() + "/cli-fitters-stderr-" + std::to_string(::getpid());
  const std::string cmd = env + " " + std::string(SCALINGLAB_CLI) + " " + args + " 2>" + err_file;
  CliRun o;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) o.out += buf.data();
  const int raw = pclose(p);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream e(err_file);
  o.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  std::filesystem::remove(err_file);
  return o;
}

std::string scratch(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/cli-fitters-" + name + "-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

// An IsoFLOP design under Hoffmann et al.'s law, N in millions and D in billions (as many
// published tables give them), C in FLOPs.
std::string isoflops_in_millions_and_billions() {
  std::string csv = "params_M,tokens_B,loss\n";
  for (double C : {1e18, 3e18, 1e19, 3e19, 1e20})
    for (int k = 0; k < 7; ++k) {
      const double N = std::sqrt(C) / 30 * std::pow(10.0, k / 6.0), D = C / (6 * N);
      const double L = 1.7 + 400 / std::pow(N, 0.34) + 410 / std::pow(D, 0.28);
      csv += fmt::format("{:.9g},{:.9g},{:.9g}\n", N / 1e6, D / 1e9, L);
    }
  return csv;
}

}  // namespace

TEST(CliFitters, FrontierWarnsAboutUnitsAsFitDoes) {
  const std::string dir = scratch("units");
  std::ofstream(dir + "/mb.csv") << isoflops_in_millions_and_billions();
  const std::string base = "'" + dir + "/mb.csv' --N params_M --D tokens_B --bootstrap 0 --at 1e22";
  for (const char* command : {"fit", "frontier --method isoflop", "frontier --method parametric"}) {
    const CliRun r = run_cli(std::string(command) + " " + base);
    ASSERT_EQ(r.status, 0) << command << "\n" << r.err;
    // fit prints its warnings with its table, frontier on stderr.
    EXPECT_NE((r.out + r.err).find("--N-scale"), std::string::npos) << command << "\n" << r.err << r.out;
    const CliRun scaled = run_cli(std::string(command) + " " + base + " --N-scale M --D-scale B");
    ASSERT_EQ(scaled.status, 0) << command << "\n" << scaled.err;
    EXPECT_EQ(scaled.err.find("--N-scale"), std::string::npos) << command << "\n" << scaled.err;
    EXPECT_EQ(scaled.out.find("--N-scale"), std::string::npos) << command << "\n" << scaled.out;
  }
  std::filesystem::remove_all(dir);
}

TEST(CliFitters, FrontierCountsTheRowsDropMissingLeavesOut) {
  const std::string dir = scratch("missing");
  std::ofstream(dir + "/runs.csv") << isoflops_in_millions_and_billions() << "100,2,\n200,3,NaN\n300,,2.5\n";
  const std::string base = "frontier '" + dir + "/runs.csv' --N params_M --D tokens_B --N-scale M --D-scale B "
                           "--bootstrap 0 --drop-missing";
  const CliRun text = run_cli(base);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("38 rows, 3 with a missing value dropped (loss 2, tokens_B 1)"), std::string::npos) << text.out;
  const CliRun json = run_cli(base + " --json");
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["missing_dropped"], 3);
  EXPECT_EQ(j["missing_by_column"]["loss"], 2);
  EXPECT_EQ(j["missing_by_column"]["tokens_B"], 1);
  std::filesystem::remove_all(dir);
}

TEST(CliFitters, ProgressGoesToStderrWhileStdoutHoldsTheJson) {
  const std::string file = std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv";
  const CliRun r = run_cli("fit '" + file + "' --law chinchilla --N 'Model Size' --C 'Training FLOP' --bootstrap 20 --json",
                        "SCALINGLAB_PROGRESS_DELAY=0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NO_THROW(nlohmann::json::parse(r.out)) << r.out;
  EXPECT_NE(r.err.find("fit: screening"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bootstrap refits"), std::string::npos) << r.err;
}

TEST(CliFitters, CtrlCStopsAFitWithNothingWritten) {
  const std::string dir = scratch("interrupt");
  const std::string file = std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv";
  // A bootstrap of 20000 refits runs for minutes; Ctrl-C once its progress shows (the handler is
  // in place then: a background job of a shell starts with SIGINT ignored), and a guard that kills
  // it should Ctrl-C fail.
  const std::string fit = "SCALINGLAB_PROGRESS_DELAY=0 " + std::string(SCALINGLAB_CLI) + " fit '" + file +
                          "' --law chinchilla --N 'Model Size' --C 'Training FLOP' --bootstrap 20000 --threads 1 "
                          "--save '" + dir + "/fit.json'";
  std::ofstream(dir + "/interrupt.sh")
      << fit << " 2>'" << dir << "/err' & pid=$!\n"
      << "i=0; while ! grep -q 'bootstrap refits' '" << dir << "/err' && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n"
      << "kill -INT $pid\n( sleep 30; kill -KILL $pid ) >/dev/null 2>&1 & guard=$!\n"
      << "wait $pid; echo $?; kill $guard 2>/dev/null\n";
  FILE* p = popen(("sh '" + dir + "/interrupt.sh'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::array<char, 256> buf{};
  std::string status;
  while (std::fgets(buf.data(), buf.size(), p)) status += buf.data();
  pclose(p);
  EXPECT_EQ(status, "130\n");
  std::ifstream e(dir + "/err");
  const std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  EXPECT_NE(err.find("nothing was written"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/fit.json"));
  std::filesystem::remove_all(dir);
}

TEST(CliFitters, Approach1ReadsLearningCurves) {
  const std::string dir = scratch("approach1");
  std::string csv = "run,N,tokens,loss\n";
  for (int k = 0; k < 6; ++k) {
    const double N = 1e7 * std::pow(10.0, k / 2.5), D_max = 1e20 / (6 * N);
    for (int i = 0; i < 20; ++i) {
      const double D = D_max / 100 * std::pow(100.0, i / 19.0);
      csv += fmt::format("r{},{:g},{:.9g},{:.9g}\n", k, N, D, 1.69 + 406.4 / std::pow(N, 0.34) + 410.7 / std::pow(D, 0.28));
    }
  }
  std::ofstream(dir + "/curves.csv") << csv;
  const std::string base = "frontier '" + dir + "/curves.csv' --method approach1 --N N --D tokens --bootstrap 50";
  const CliRun r = run_cli(base + " --run run --at 1e22");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Envelope of training curves (Approach 1): 6 runs, 120 checkpoints"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("C = 1e+22: N_opt = "), std::string::npos) << r.out;
  const CliRun no_run = run_cli(base);
  EXPECT_EQ(no_run.status, 2);
  EXPECT_NE(no_run.err.find("--run"), std::string::npos) << no_run.err;
  const CliRun trimmed = run_cli(base + " --run run --trim 5%");
  EXPECT_EQ(trimmed.status, 2);
  std::filesystem::remove_all(dir);
}

// Real exports: a European spreadsheet's semicolons and decimal commas, two exports joined (a
// repeated header line) with a diverged run (inf), and the same runs as W&B-style JSON lines.
TEST(CliFitters, RealExportsAreReadWithTheirOptionsAndCounted) {
  const std::string dir = scratch("exports");
  std::string comma, eu = "params_M;tokens_B;loss\n", jsonl;
  {
    std::istringstream in(isoflops_in_millions_and_billions());
    std::string line;
    std::getline(in, comma);  // header
    comma += "\n";
    while (std::getline(in, line)) {
      comma += line + "\n";
      std::string e = line;
      for (char& ch : e) ch = ch == ',' ? ';' : ch == '.' ? ',' : ch;
      eu += e + "\n";
      double n = 0, d = 0, l = 0;
      std::sscanf(line.c_str(), "%lf,%lf,%lf", &n, &d, &l);
      jsonl += fmt::format("{{\"config\": {{\"params_M\": {:.9g}, \"tokens_B\": {:.9g}}}, \"summary\": {{\"loss\": {:.9g}}}}}\n",
                           n, d, l);
    }
  }
  std::ofstream(dir + "/eu.csv") << eu;
  std::ofstream(dir + "/joined.csv") << comma << "params_M,tokens_B,loss\n100,2,inf\n";
  std::ofstream(dir + "/runs.jsonl") << jsonl;
  const std::string opts = " --N-scale M --D-scale B --bootstrap 0 --json";
  const CliRun plain = run_cli("frontier '" + dir + "/joined.csv' --N params_M --D tokens_B" + opts);
  EXPECT_EQ(plain.status, 2) << plain.out;
  EXPECT_NE(plain.err.find("--drop-missing"), std::string::npos) << plain.err;
  const CliRun joined = run_cli("frontier '" + dir + "/joined.csv' --N params_M --D tokens_B --drop-missing" + opts);
  ASSERT_EQ(joined.status, 0) << joined.err;
  const auto j = nlohmann::json::parse(joined.out);
  EXPECT_EQ(j["repeated_headers_dropped"], 1);
  EXPECT_EQ(j["infinite_dropped"], 1);
  EXPECT_EQ(j["infinite_by_column"]["loss"], 1);
  const CliRun text = run_cli("frontier '" + dir + "/joined.csv' --N params_M --D tokens_B --drop-missing --N-scale M "
                              "--D-scale B --bootstrap 0");
  EXPECT_NE(text.out.find("37 rows, 1 repeated header line dropped, 1 with an infinite value dropped (loss 1); C = 6 N D"),
            std::string::npos) << text.out;
  const CliRun refused = run_cli("frontier '" + dir + "/eu.csv' --N params_M --D tokens_B" + opts);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("--sep ';'"), std::string::npos) << refused.err;
  const CliRun eu_run = run_cli("frontier '" + dir + "/eu.csv' --N params_M --D tokens_B --sep ';' --decimal ','" + opts);
  ASSERT_EQ(eu_run.status, 0) << eu_run.err;
  const CliRun lines = run_cli("frontier '" + dir + "/runs.jsonl' --N config.params_M --D config.tokens_B "
                               "--loss summary.loss" + opts);
  ASSERT_EQ(lines.status, 0) << lines.err;
  const double a = nlohmann::json::parse(eu_run.out)["a"], b = nlohmann::json::parse(lines.out)["a"];
  EXPECT_EQ(a, double(j["a"]));  // the same numbers, read three ways
  EXPECT_EQ(b, double(j["a"]));
  std::filesystem::remove_all(dir);
}
