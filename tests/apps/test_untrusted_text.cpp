// Text from a user reaches the outputs inert for their readers: names that cannot be written are
// refused before any run (exit 2, one sentence), CSV cells are quoted and never start a formula,
// Markdown shows HTML as text, and the terminal never receives an escape sequence. The command
// line is run as a user runs it, on the cheapest worlds (a deterministic bound, microseconds a point).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_process.hpp"
#include "support/teacher_bound_world.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/fit/data_table.hpp"

namespace fs = std::filesystem;
using scalinglab::testing::CliOutcome;
using scalinglab::testing::run_cli_args;

namespace {

class UntrustedText : public scalinglab::testing::ScratchDirTest {
 protected:
  // A benchmark world of the bound with one design named `design`; methods are given on the command line.
  fs::path world(const std::string& file, const std::string& design) {
    return write(file, std::string(scalinglab::testing::kTeacherBoundHead) + "[benchmark]\n"
                       "budgets = [1e8, 1e10]\nsizes = [30, 30000]\nshift = 0.5\nhorizons = [10]\n"
                       "designs = [{ name = \"" + design + "\", per_decade = 2, sizes = 7, runs = 1 }]\n"
                       "bootstrap = 0\nrefine = 0\ntruth_sizes = 7\n");
  }
  CliOutcome benchmark(const fs::path& world_file, const fs::path& predictions) {
    return run_cli_args({"extrapolate", "--benchmark", world_file.string(), "--methods", "approach2", "--predictions",
                         predictions.string(), "--out", (dir / "out").string(), "--quiet", "--threads", "1"});
  }
  CliOutcome reproduce_hostile_paper();
  std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

const char* kPredictionsHeader = "world,design,replication,horizon,method,N_opt,N_lo,N_hi,L_opt,L_lo,L_hi\n";

// A method or design name of --predictions that is not UTF-8, or holds a control character,
// is refused with the file and line before the first run, not by the JSON writer after the last.
TEST_F(UntrustedText, PredictionsNamesThatCannotBeWrittenAreRefusedBeforeAnyRun) {
  const fs::path w = world("w.toml", "a");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"w,a,1,10,m\xff" "x,1000,,,,,\n", "0xFF"},       // a byte that is not UTF-8 in the method
      {"w,a\x1b[2J,1,10,m,1000,,,,,\n", "0x1B"},        // a terminal escape in the design
      {"w,a,1,10,\xc2\x9b" "31m,1000,,,,,\n", "U+009B"}};  // a C1 control in the method
  for (const auto& [row, what] : bad) {
    const fs::path p = write("p.csv", std::string(kPredictionsHeader) + "w,a,1,10,fine,1000,,,,,\n" + row);
    const CliOutcome o = benchmark(w, p);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("p.csv line 3"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find(what), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("json"), std::string::npos) << o.out;
    EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;  // one sentence
    EXPECT_EQ(o.out.find('\x1b'), std::string::npos) << o.out;
    EXPECT_FALSE(fs::exists(dir / "out")) << "work started before the refusal: " << o.out;
  }
}

// A world file `w,x<b>.toml`, a design `=1+2,lean` and a method `@SUM(1+1)` give CSV files of
// the header's field count whose cells never start a formula; numbers are written as they are.
TEST_F(UntrustedText, BenchmarkCsvCellsAreQuotedAndNeverStartAFormula) {
  const fs::path w = world("w,x<b>.toml", "=1+2,lean");
  const fs::path p =
      write("p.csv", std::string(kPredictionsHeader) + "\"w,x<b>\",\"=1+2,lean\",1,10,@SUM(1+1),1000,,,,,\n");
  const CliOutcome o = benchmark(w, p);
  ASSERT_EQ(o.status, 0) << o.out;
  for (const char* name : {"leaderboard.csv", "predictions.csv", "tables.csv", "truth.csv", "truth-curves.csv"}) {
    SCOPED_TRACE(name);
    scalinglab::fit::DataTable t;
    ASSERT_NO_THROW(t = scalinglab::fit::read_csv((dir / "out" / name).string()));  // every row as wide as the header
    ASSERT_GT(t.rows(), 0u);
    for (std::size_t r = 0; r < t.rows(); ++r)
      for (std::size_t c = 0; c < t.names.size(); ++c) {
        const std::string cell(t.cell(r, c));
        if (!cell.empty() && std::string("=+-@\t\r").find(cell[0]) != std::string::npos) {
          EXPECT_TRUE(scalinglab::is_number_text(cell)) << t.names[c] << " = " << cell;
        }
      }
    ASSERT_EQ(t.names[0], "world");
    for (std::size_t r = 0; r < t.rows(); ++r) EXPECT_EQ(t.cell(r, 0), "w,x<b>") << r;
  }
  const scalinglab::fit::DataTable lb = scalinglab::fit::read_csv((dir / "out" / "leaderboard.csv").string());
  std::vector<std::string> designs, methods;
  for (std::size_t r = 0; r < lb.rows(); ++r) {
    for (std::size_t c = 0; c < lb.names.size(); ++c) {
      if (lb.names[c] == "design") designs.emplace_back(lb.cell(r, c));
      if (lb.names[c] == "method") methods.emplace_back(lb.cell(r, c));
    }
  }
  EXPECT_NE(std::find(designs.begin(), designs.end(), "'=1+2,lean"), designs.end());
  EXPECT_NE(std::find(methods.begin(), methods.end(), "'@SUM(1+1)"), methods.end());
  EXPECT_NE(std::find(methods.begin(), methods.end(), "approach2"), methods.end());
}

// HTML in a world file's name, a design's and a method's reaches leaderboard.md as text.
TEST_F(UntrustedText, LeaderboardMarkdownShowsHtmlAsText) {
  const fs::path w = world("<svg onload=alert(2)>.toml", "<img src=x onerror=alert(1)>");
  const fs::path p = write("p.csv", std::string(kPredictionsHeader) +
                                        "<svg onload=alert(2)>,<img src=x onerror=alert(1)>,1,10,"
                                        "<script>alert(3)</script>,1000,,,,,\n");
  const CliOutcome o = benchmark(w, p);
  ASSERT_EQ(o.status, 0) << o.out;
  const std::string md = slurp(dir / "out" / "leaderboard.md");
  for (const char* raw : {"<svg", "<img", "<script", "</script"})
    EXPECT_EQ(md.find(raw), std::string::npos) << raw << "\n" << md;
  EXPECT_NE(md.find("## &lt;svg onload=alert(2)&gt; ("), std::string::npos) << md;
  EXPECT_NE(md.find("| &lt;img src=x onerror=alert(1)&gt; | &lt;script&gt;alert(3)&lt;/script&gt; |"),
            std::string::npos)
      << md;
}

// A paper of one sweep whose file name, title and claim hold HTML and terminal escapes (OSC 52 sets
// the clipboard, CSI 2J clears the screen), reproduced.
CliOutcome UntrustedText::reproduce_hostile_paper() {
  fs::create_directories(dir / "experiments" / "tiny");
  write("experiments/tiny/<svg onload=alert(2)>.toml",
        "measure = \"memory.infinite_memory_error\"\n"
        "title = \"<script>alert(1)</script> \\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\"\n"
        "[params]\nN = 10000\nalpha = 2.0\n[grid]\nT = \"logspace(100, 10000, 5)\"\n"
        "[[check]]\nclaim = \"<script>alert(3)</script> `x` | \\u001b[2J\"\n"
        "slope = { x = \"T\", y = \"error\", expect = -0.5, tol = 0.05 }\n");
  return run_cli_args({"reproduce", "tiny", "--experiments", (dir / "experiments").string(), "--out",
                       (dir / "out").string(), "--quiet", "--threads", "1"});
}

// That paper's report.md shows the HTML and the escapes as text.
TEST_F(UntrustedText, ReportMarkdownShowsTitlesClaimsAndFileNamesAsText) {
  const CliOutcome o = reproduce_hostile_paper();
  ASSERT_EQ(o.status, 0) << o.out;
  const std::string md = slurp(dir / "out" / "report.md");
  for (const char* raw : {"<svg", "<script", "</script", "\x1b", "\x07"})
    EXPECT_EQ(md.find(raw), std::string::npos) << md;
  EXPECT_NE(md.find("## &lt;svg onload=alert(2)&gt;: &lt;script&gt;alert(1)&lt;/script&gt; \\x1B\\]52;"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| &lt;script&gt;alert(3)&lt;/script&gt; \\`x\\` \\| \\x1B\\[2J |"), std::string::npos) << md;
}

// What the terminal receives of it (the title line, the check line) holds no control character.
TEST_F(UntrustedText, TerminalShowsEscapeSequencesOfTitlesAndClaimsAsText) {
  const CliOutcome o = reproduce_hostile_paper();
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_EQ(o.out.find('\x1b'), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find('\x07'), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("<script>alert(1)</script> \\x1B]52;c;ZXZpbA==\\x07\\x1B[2J"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("PASS  <script>alert(3)</script> `x` | \\x1B[2J: slope"), std::string::npos) << o.out;
}

}  // namespace
