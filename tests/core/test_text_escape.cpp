// User text made inert for a spreadsheet, a Markdown renderer and a terminal, ordinary text kept.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/fit/data_table.hpp"

using namespace scalinglab;

namespace {

// A one-column CSV of `cells` written with csv_cell, read back by the project's own reader.
fit::DataTable csv_round_trip(const std::vector<std::string>& cells) {
  std::string text = csv_cell("name") + "," + csv_cell("x") + "\n";
  for (const auto& c : cells) text += csv_cell(c) + ",1.5\n";
  return fit::parse_csv(text, "round-trip");
}

}  // namespace

TEST(TextEscape, CsvCellQuotesPerRfc4180AndReadsBackThroughTheProjectsReader) {
  const std::vector<std::string> cells = {"plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "w,x<b>",
                                          "\"", ",", "caf\xc3\xa9, \xe2\x82\xac", ""};
  EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_cell("plain"), "plain");
  const fit::DataTable t = csv_round_trip(cells);
  ASSERT_EQ(t.rows(), cells.size());
  ASSERT_EQ(t.names, (std::vector<std::string>{"name", "x"}));
  for (std::size_t r = 0; r < cells.size(); ++r) {
    EXPECT_EQ(t.cell(r, 0), cells[r]) << r;
    EXPECT_EQ(t.cell(r, 1), "1.5") << r;
  }
}

TEST(TextEscape, CsvCellMakesFormulasInertAndWritesNumbersAsTheyAre) {
  EXPECT_EQ(csv_cell("=1+2,lean"), "\"'=1+2,lean\"");
  EXPECT_EQ(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(csv_cell("+cmd"), "'+cmd");
  EXPECT_EQ(csv_cell("-2+3"), "'-2+3");
  EXPECT_EQ(csv_cell("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_cell("\tx"), "'\tx");
  EXPECT_EQ(csv_cell("\rx"), "\"'\rx\"");
  for (const char* number : {"-1.5", "-inf", "+2", "1e-05", "-2.5E+06", "-nan", "inf", "NaN", "-.5", "0"})
    EXPECT_EQ(csv_cell(number), number) << number;
  // Read back, the prefix stays: the cell is text, and says so to a spreadsheet.
  const fit::DataTable t = csv_round_trip({"=1+2,lean", "-1.5"});
  EXPECT_EQ(t.cell(0, 0), "'=1+2,lean");
  EXPECT_EQ(t.cell(1, 0), "-1.5");
}

TEST(TextEscape, NumberTextIsWhatTheProjectWritesAsNumbers) {
  for (const char* yes : {"1", "-1.5", "+2", ".5", "1.", "1e5", "1E-05", "-inf", "Infinity", "nan"})
    EXPECT_TRUE(is_number_text(yes)) << yes;
  for (const char* no : {"", "-", ".", "e5", "1e", "1e+", "--1", "-1+2", "0x1p3", "-nan(1)", "1,5", " 1", "-info"})
    EXPECT_FALSE(is_number_text(no)) << no;
}

TEST(TextEscape, MarkdownTextOpensNoHtmlCodeLinkOrCell) {
  const std::string script = markdown_text("<script>alert(1)</script>");
  EXPECT_EQ(script.find('<'), std::string::npos) << script;
  EXPECT_EQ(script.find('>'), std::string::npos) << script;
  EXPECT_EQ(script, "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(markdown_text("<svg onload=alert(2)>"), "&lt;svg onload=alert(2)&gt;");
  EXPECT_EQ(markdown_text("R&D &amp;"), "R&amp;D &amp;amp;");
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("`rm -rf`"), "\\`rm -rf\\`");
  EXPECT_EQ(markdown_text("[x](javascript:alert(1))"), "\\[x\\](javascript:alert(1))");
  EXPECT_EQ(markdown_text("a\\|b"), "a\\\\\\|b");  // a backslash cannot escape the pipe after it
  EXPECT_EQ(markdown_text("two\nlines\r\tend"), "two lines  end");
  EXPECT_EQ(markdown_text("\x1b[2J"), "\\x1B\\[2J");
  // Ordinary text as it is.
  EXPECT_EQ(markdown_text("approach2 caf\xc3\xa9 \xe2\x82\xac N_opt = 1e+06 (quick)"),
            "approach2 caf\xc3\xa9 \xe2\x82\xac N_opt = 1e+06 (quick)");
  // What a table reader needs back.
  for (const std::string s : {"<script>", "a|b \\| c", "R&D &amp; &lt;", "`x` [y]", "caf\xc3\xa9", "\\x"})
    EXPECT_EQ(markdown_unescape(markdown_text(s)), s) << s;
}

TEST(TextEscape, MarkdownCodeIsFencedAroundItsBackticks) {
  EXPECT_EQ(markdown_code("-1 +- 0.05"), "`-1 +- 0.05`");
  EXPECT_EQ(markdown_code("<script>"), "`<script>`");  // HTML is text inside a code span
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`x"), "`` `x ``");
  EXPECT_EQ(markdown_code(" x "), "`  x  `");
  EXPECT_EQ(markdown_code("a|b"), "`a|b`");
  EXPECT_EQ(markdown_code("a|b", true), "`a\\|b`");
  EXPECT_EQ(markdown_code("a\nb"), "`a b`");
  EXPECT_EQ(markdown_code(""), "");
}

TEST(TextEscape, TerminalTextShowsControlCharactersAndKeepsLetters) {
  const std::string osc = terminal_text("title\x1b]52;c;ZXZpbA==\x07 and \x1b[2J");
  EXPECT_EQ(osc.find('\x1b'), std::string::npos) << osc;
  EXPECT_EQ(osc.find('\x07'), std::string::npos) << osc;
  EXPECT_EQ(osc, "title\\x1B]52;c;ZXZpbA==\\x07 and \\x1B[2J");
  EXPECT_EQ(terminal_text("a\rb\x7f"), "a\\x0Db\\x7F");
  EXPECT_EQ(terminal_text("\xc2\x9b" "31m"), "\\u009B31m");  // C1 CSI, as UTF-8
  EXPECT_EQ(terminal_text("\x9b" "31m"), "\\x9B31m");        // C1 CSI, a raw byte
  EXPECT_EQ(terminal_text("ok\xff"), "ok\\xFF");
  EXPECT_EQ(terminal_text("lines\nand\ttabs"), "lines\nand\ttabs");
  EXPECT_EQ(terminal_text("plain caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0"),
            "plain caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0");
}

TEST(TextEscape, UnprintableReasonNamesTheFirstBadCharacter) {
  EXPECT_EQ(unprintable_reason("approach2"), "");
  EXPECT_EQ(unprintable_reason("m\xc3\xa9thode law:E + A/N^a"), "");
  EXPECT_EQ(unprintable_reason("a\xff" "b\x1b"), "a byte 0xFF that is not UTF-8");
  EXPECT_EQ(unprintable_reason("a\x1b[2J"), "the control character 0x1B");
  EXPECT_EQ(unprintable_reason("two\nlines"), "the control character 0x0A");
  EXPECT_EQ(unprintable_reason("\xc2\x85"), "the control character U+0085");
}
