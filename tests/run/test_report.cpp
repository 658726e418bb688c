// reproduce: a tiny paper of two deterministic sweeps (one claim true, one false) end to end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/run/report.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Proposition 1's exact error is deterministic and fast: slope -1/2 at alpha = 2.
std::string prop1_sweep(double expect) {
  std::ostringstream s;
  s << "measure = \"memory.infinite_memory_error\"\n"
    << "title = \"tiny Prop. 1\"\n"
    << "[params]\nN = 10000\nalpha = 2.0\n"
    << "[grid]\nT = \"logspace(100, 10000, 5)\"\n"
    << "[plot]\nx = \"T\"\ny = \"error\"\nlog = [\"x\", \"y\"]\n"
    << "[[check]]\nclaim = \"slope | of Prop. 1\"\n"
    << "slope = { x = \"T\", y = \"error\", expect = " << expect << ", tol = 0.05 }\n";
  return s.str();
}

class ReproduceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("scalinglab_test_report_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "experiments" / "tiny");
    std::ofstream(root / "experiments" / "tiny" / "b-false.toml") << prop1_sweep(-1.0);
    std::ofstream(root / "experiments" / "tiny" / "a-true.toml") << prop1_sweep(-0.5);
    options.paper = "tiny";
    options.experiments_dir = (root / "experiments").string();
    options.out_dir = (root / "out").string();
    options.quiet = true;
    options.threads = 1;
  }
  void TearDown() override { fs::remove_all(root); }

  fs::path root;
  ReproduceOptions options;
};

TEST_F(ReproduceTest, RunsEverySweepAndWritesTheReport) {
  ::testing::internal::CaptureStdout();
  const ReproduceOutcome r = reproduce(options);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(r.passed, 1);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.report_path, (root / "out" / "report.md").string());
  // Sweeps in name order, each with its claim line; the summary is the last line.
  const auto a = out.find("a-true"), b = out.find("b-false");
  ASSERT_NE(a, std::string::npos) << out;
  EXPECT_LT(a, b) << out;
  EXPECT_NE(out.find("PASS  slope | of Prop. 1: slope -0.5"), std::string::npos) << out;
  EXPECT_NE(out.find("FAIL  slope | of Prop. 1"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.rfind('\n', out.size() - 2) + 1), "1 passed, 1 failed\n") << out;

  const std::string md = slurp(r.report_path);
  EXPECT_NE(md.find("# Reproducing `tiny`"), std::string::npos) << md;
  EXPECT_NE(md.find("## a-true: tiny Prop. 1"), std::string::npos) << md;
  EXPECT_NE(md.find("| PASS |  | slope \\| of Prop. 1 |"), std::string::npos) << md;  // pipes escaped
  EXPECT_NE(md.find("| **FAIL** |"), std::string::npos) << md;
  EXPECT_NE(md.find("`-1 +- 0.05`"), std::string::npos) << md;
  EXPECT_TRUE(fs::exists(root / "out" / "report.html"));
  const std::string html = slurp(root / "out" / "report.html");
  if (fs::exists(root / "out" / "a-true" / "plot.svg")) {  // small figures inline, with links to every format
    EXPECT_NE(html.find("<img alt=\"a-true\" src=\"data:image/svg+xml;base64,"), std::string::npos);
    EXPECT_NE(html.find("<a href=\"./a-true/plot.pdf\">PDF</a>"), std::string::npos);
  }
  if (fs::exists(root / "out" / "a-true" / "plot.png")) {
    EXPECT_NE(md.find("![a-true](./a-true/plot.png)"), std::string::npos) << md;
  }

  // Running again into the same folder needs --resume (refused before anything runs).
  EXPECT_THROW(reproduce(options), InputError);
  options.resume = true;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(reproduce(options).passed, 1);
  ::testing::internal::GetCapturedStdout();
}

// With a claims index, the report counts checks by scale and lists the paper's items with their status.
TEST_F(ReproduceTest, ReportsTheItemsOfTheClaimsIndex) {
  const fs::path dir = root / "experiments" / "tiny";
  std::ofstream(dir / "a-true.toml") << prop1_sweep(-0.5) << "ref = \"Prop. 1\"\n"
                                    << "counterfactual = { set = \"alpha=3\", why = \"the rate follows alpha\" }\n";
  std::ofstream(dir / "b-false.toml") << prop1_sweep(-1.0) << "ref = \"Fig. 2\"\nsubstitute = \"another T\"\n";
  std::ofstream(dir / "claims.toml") << "paper = \"Tiny (2024)\"\n[[item]]\nid = \"Prop. 1\"\nclaim = \"decay\"\n"
                                        "[[item]]\nid = \"Fig. 2\"\nclaim = \"picture\"\n"
                                        "[[item]]\nid = \"Lemma 3\"\nclaim = \"device\"\nnot_checked = \"no observable\"\n";
  ::testing::internal::CaptureStdout();
  const ReproduceOutcome r = reproduce(options);  // claims.toml is the index, not a sweep
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(r.passed, 1);
  EXPECT_NE(out.find("checks: 1 reproduced at the paper's setting, 0 at reduced scale, 0 substitute, 1 not reproduced"),
            std::string::npos) << out;
  EXPECT_NE(out.find("items of the paper: 1 reproduced at the paper's setting, 0 at reduced scale, 0 substitute only, "
                     "1 not reproduced, 1 not checked (of 3 items)"), std::string::npos) << out;
  const std::string md = slurp(r.report_path);
  EXPECT_NE(md.find("## Claims of the paper"), std::string::npos) << md;
  EXPECT_NE(md.find("| Lemma 3 | not checked (no observable) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **FAIL** | Fig. 2 | (substitute: another T) slope"), std::string::npos) << md;
  const std::string claims = slurp(root / "out" / "claims.md");
  EXPECT_NE(claims.find("| Prop. 1 | decay | reproduced at the paper's setting | a-true #1 (declared, not run: alpha=3) |"), std::string::npos) << claims;
  // report.html: contents with each section's counts; each figure links to the rows of the claims
  // table it tests, and each row back to its sections.
  const std::string html = slurp(root / "out" / "report.html");
  EXPECT_NE(html.find("<li><a href=\"#sweep-1\">a-true</a> <span class=\"pass\">1 PASS</span></li>"), std::string::npos) << html;
  EXPECT_NE(html.find("<li><a href=\"#sweep-2\">b-false</a> <span class=\"fail\">0 PASS, 1 FAIL</span></li>"), std::string::npos) << html;
  EXPECT_NE(html.find("claims table: <a href=\"#item-1\">Prop. 1</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr id=\"item-2\"><td>Fig. 2</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td><a href=\"#sweep-2\">b-false</a></td></tr>"), std::string::npos) << html;
  EXPECT_NE(html.find("<h2 id=\"claims\">"), std::string::npos) << html;
}

// Sections (and runs) come in the paper's order: fig3 before fig10, whatever a byte sort says.
TEST_F(ReproduceTest, SectionsComeInThePapersOrder) {
  const fs::path dir = root / "experiments" / "tiny";
  fs::rename(dir / "a-true.toml", dir / "fig10.toml");
  fs::rename(dir / "b-false.toml", dir / "fig3-left.toml");
  ::testing::internal::CaptureStdout();
  reproduce(options);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_LT(out.find("[1/2] fig3-left"), out.find("[2/2] fig10")) << out;
  const std::string html = slurp(root / "out" / "report.html"), md = slurp(root / "out" / "report.md");
  EXPECT_NE(html.find("<h2 id=\"sweep-1\">fig3-left"), std::string::npos) << html;
  EXPECT_NE(html.find("<h2 id=\"sweep-2\">fig10"), std::string::npos) << html;
  EXPECT_LT(html.find("href=\"#sweep-1\">fig3-left"), html.find("href=\"#sweep-2\">fig10")) << html;
  EXPECT_LT(md.find("## fig3-left"), md.find("## fig10")) << md;
  EXPECT_NE(md.find("- fig3-left: 0 PASS, 1 FAIL\n- fig10: 1 PASS\n"), std::string::npos) << md;
}

// A sweep's folder name reaches report.html's links percent-encoded after "./": never a scheme.
TEST_F(ReproduceTest, LinksNeverBecomeASchemeWhateverTheSweepIsCalled) {
  const fs::path dir = root / "experiments" / "tiny";
  fs::remove(dir / "b-false.toml");
  fs::rename(dir / "a-true.toml", dir / "javascript:alert(1).toml");
  ::testing::internal::CaptureStdout();
  reproduce(options);
  ::testing::internal::GetCapturedStdout();
  const std::string html = slurp(root / "out" / "report.html"), md = slurp(root / "out" / "report.md");
  EXPECT_EQ(html.find("href=\"javascript"), std::string::npos) << html;
  EXPECT_EQ(html.find("src=\"javascript"), std::string::npos) << html;
  EXPECT_NE(html.find("href=\"./javascript%3Aalert%281%29/summary.csv\""), std::string::npos) << html;
  EXPECT_EQ(md.find("](javascript"), std::string::npos) << md;
  EXPECT_NE(md.find("](./javascript%3Aalert%281%29/summary.csv)"), std::string::npos) << md;
}

TEST_F(ReproduceTest, UnknownPaperListsTheAvailableOnes) {
  options.paper = "nope";
  try {
    reproduce(options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown paper 'nope'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(": tiny)"), std::string::npos) << e.what();
  }
}

TEST(ReportHtml, LargeFiguresAreLinkedAndThePageStaysLight) {
  std::uintmax_t inlined = 0;
  EXPECT_TRUE(inline_figure(100'000, inlined));
  EXPECT_EQ(inlined, 100'000u);
  EXPECT_FALSE(inline_figure(3'000'000, inlined));  // one heavy figure: linked
  EXPECT_EQ(inlined, 100'000u);
  int inlined_count = 0;
  for (int i = 0; i < 100; ++i) inlined_count += inline_figure(200'000, inlined);
  EXPECT_GT(inlined_count, 5);
  EXPECT_LT(inlined_count, 100);
  EXPECT_LE(inlined * 4 / 3, 2'600'000u);  // base64 of all that was inlined: well under 3 MB
}

TEST(FindExperimentsDir, ExplicitHintWins) { EXPECT_EQ(find_experiments_dir("/some/where"), "/some/where"); }

TEST(FindExperimentsDir, FallsBackToTheSourceTree) {
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::temp_directory_path());  // no ./experiments here
  const std::string dir = find_experiments_dir();
  fs::current_path(cwd);
  EXPECT_EQ(dir, std::string(SCALINGLAB_SOURCE_DIR) + "/experiments");
}

}  // namespace
}  // namespace scalinglab
