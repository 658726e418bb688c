// CSV reading and column choice: quoting, derived columns, filters, dropping the highest losses,
// and errors that name the column or line.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

TEST(DataTable, ParsesQuotedFieldsAndSkipsBlankLines) {
  const DataTable t = parse_csv("\"Model Size\",\"note, with comma\",loss\r\n1e8,\"a \"\"b\"\"\",3.5\n\n2e8,x,3.25\n", "t.csv");
  ASSERT_EQ(t.names.size(), 3u);
  EXPECT_EQ(t.names[0], "Model Size");
  EXPECT_EQ(t.names[1], "note, with comma");
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.cell(0, 1), "a \"b\"");
  EXPECT_EQ(t.lines[1], 4);
  EXPECT_DOUBLE_EQ(t.numbers("loss")[1], 3.25);
}

TEST(DataTable, ErrorsNameColumnAndLine) {
  const DataTable t = parse_csv("N,loss\n1e8,3\n2e8,nan\n", "t.csv");
  try {
    t.numbers("loss");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:3"), std::string::npos) << e.what();
  }
  try {
    t.numbers("Loss");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("columns: 'N', 'loss'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_csv("a,b\n1,2,3\n", "t.csv"), InputError);
  EXPECT_THROW(parse_csv("", "t.csv"), InputError);
  EXPECT_THROW(read_csv("no-such-file.csv"), InputError);
}

TEST(FitColumns, DerivesDataSizeDropsTopLossesAndFilters) {
  const DataTable t = parse_csv("N,C,loss,part\n1e8,6e17,3.0,a\n2e8,1.2e18,4.0,a\n1e8,6e18,2.5,b\n3e8,1.8e18,3.9,a\n", "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.C = "C";
  c.drop_top = 1;
  FitColumns f = choose_columns(t, c, false);
  ASSERT_EQ(f.loss.size(), 3u);  // the 4.0 row dropped
  EXPECT_DOUBLE_EQ(f.loss[1], 2.5);
  EXPECT_DOUBLE_EQ(f.D[0], 6e17 / (6 * 1e8));
  EXPECT_EQ(f.derived, "D = C / (6 N)");
  EXPECT_EQ(f.lines[2], 5);
  c.drop_top = 0;
  c.where = {{"part", "a"}};
  f = choose_columns(t, c, false);
  EXPECT_EQ(f.loss.size(), 3u);
  c.where = {{"part", "z"}};
  EXPECT_THROW(choose_columns(t, c, false), InputError);
  ColumnChoice only_n;
  only_n.N = "N";
  EXPECT_THROW(choose_columns(t, only_n, false), InputError);  // two of N, D, C are needed
  ColumnChoice neg;
  neg.N = "N";
  neg.C = "C";
  const DataTable bad = parse_csv("N,C,loss\n1e8,6e17,3\n-1,6e17,3\n", "bad.csv");
  try {
    choose_columns(bad, neg, false);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:3"), std::string::npos) << e.what();
  }
}

// What spreadsheets and other tools write: a byte-order mark, other delimiters.
TEST(DataTable, ByteOrderMarkAndDelimiters) {
  const DataTable bom = parse_csv("\xEF\xBB\xBFN,loss\n1e8,3\n", "t.csv");
  EXPECT_EQ(bom.names.at(0), "N");
  const DataTable semi = parse_csv("N;loss;\"a;b\"\n1e8;3;x\n", "t.csv", ';');
  ASSERT_EQ(semi.names.size(), 3u);
  EXPECT_EQ(semi.names[2], "a;b");
  EXPECT_DOUBLE_EQ(semi.numbers("loss")[0], 3.0);
  const DataTable tab = parse_csv("N\tloss\n1e8\t2.5\n", "t.tsv", parse_delimiter("tab"));
  EXPECT_DOUBLE_EQ(tab.numbers("loss")[0], 2.5);
  EXPECT_EQ(parse_delimiter(";"), ';');
  EXPECT_THROW(parse_delimiter("\""), InputError);
  EXPECT_THROW(parse_delimiter(";;"), InputError);
  EXPECT_THROW(parse_delimiter(""), InputError);
}

// A header naming a column twice is refused: fitting one of them would be a guess.
TEST(DataTable, DuplicateColumnNamesAreRefused) {
  try {
    parse_csv("N,loss,N\n1,2,3\n", "t.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("column 'N' twice (fields 1 and 3)"), std::string::npos) << e.what();
  }
}

// Decimal numbers only: hexadecimal, inf and nan are refused; a subnormal is a finite number; an
// overflow is refused.
TEST(DataTable, NumbersAreFiniteDecimals) {
  const DataTable t = parse_csv("a,b,c,d,e\n0x10,1e-310,inf,1e400, 2.5 \n", "t.csv");
  EXPECT_THROW(t.numbers("a"), InputError);
  const double sub = t.numbers("b").at(0);
  EXPECT_GT(sub, 0.0);
  EXPECT_TRUE(std::isfinite(sub));
  EXPECT_NEAR(sub, 1e-310, 1e-320);
  EXPECT_THROW(t.numbers("c"), InputError);
  EXPECT_THROW(t.numbers("d"), InputError);
  EXPECT_DOUBLE_EQ(t.numbers("e").at(0), 2.5);
}
