// Preparing the rows for a fit: FLOP formulas, weights, best-of over a hyperparameter sweep, extra
// columns carried along, and the warnings on designs that cannot pin a law down.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

// The InputError message of `f`, or "" when it does not throw.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

}  // namespace

TEST(FitColumns, FlopsFormulaReadsOtherColumns) {
  const DataTable t = parse_csv("N,D,n_layer,ctx,loss\n1e8,2e9,12,2048,3.1\n3e8,4e9,24,4096,2.9\n", "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.flops = "6*N*D + 12*n_layer*ctx*D";
  const FitColumns f = choose_columns(t, c, false);
  ASSERT_EQ(f.C.size(), 2u);
  EXPECT_EQ(f.C[0], 6.0 * 1e8 * 2e9 + 12.0 * 12 * 2048 * 2e9);
  EXPECT_EQ(f.C[1], 6.0 * 3e8 * 4e9 + 12.0 * 24 * 4096 * 4e9);
  EXPECT_NE(f.C[0], 6.0 * 1e8 * 2e9);  // the extra term counts
  EXPECT_EQ(f.derived, "C = 6*N*D + 12*n_layer*ctx*D");
  EXPECT_EQ(f.flops, "6*N*D + 12*n_layer*ctx*D");

  // The default derivation is recorded as a formula too; a C column has none.
  c.flops.clear();
  EXPECT_EQ(choose_columns(t, c, false).flops, "6*N*D");
  EXPECT_EQ(choose_columns(t, c, false).C[1], 6.0 * 3e8 * 4e9);
  const DataTable tc = parse_csv("N,C,loss\n1e8,6e17,3\n2e8,6e18,2.5\n", "tc.csv");
  ColumnChoice nc;
  nc.N = "N";
  nc.C = "C";
  EXPECT_EQ(choose_columns(tc, nc, false).flops, "");

  // A column whose name is not an identifier cannot be referenced: the error says so.
  const DataTable spaced = parse_csv("N,D,n layer,loss\n1e8,2e9,12,3.1\n", "s.csv");
  c.flops = "6*N*D + 12*n_layer*D";
  const std::string msg = error_of([&] { choose_columns(spaced, c, false); });
  EXPECT_TRUE(contains(msg, "'n_layer'")) << msg;
  EXPECT_TRUE(contains(msg, "not an identifier")) << msg;
  EXPECT_TRUE(contains(msg, "'n layer'")) << msg;

  // A formula giving a non-positive C is refused at the row's file line.
  c.flops = "N - 2e8";
  const std::string neg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(neg, "t.csv:2")) << neg;
  EXPECT_TRUE(contains(neg, "positive and finite")) << neg;
  c.flops = "6*N*(D";
  EXPECT_TRUE(contains(error_of([&] { choose_columns(t, c, false); }), "--flops")) ;
}

TEST(FitColumns, FlopsWithCIsRefused) {
  const DataTable t = parse_csv("N,D,C,loss\n1e8,2e9,1.2e18,3.1\n", "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.C = "C";
  EXPECT_EQ(error_of([&] { choose_columns(t, c, false); }), "");  // without --flops: fine
  c.flops = "6*N*D";
  const std::string msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "--flops and --C")) << msg;
}

TEST(FitColumns, FlopsWithoutDIsRefused) {
  const DataTable t = parse_csv("N,D,C,loss\n1e8,2e9,1.2e18,3.1\n", "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.flops = "6*N*D";
  const std::string msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "--flops needs both --N and --D")) << msg;
  EXPECT_TRUE(contains(msg, "missing: --D")) << msg;
  c.D = "D";
  EXPECT_EQ(error_of([&] { choose_columns(t, c, false); }), "");
  // One-input laws have no compute to define.
  ColumnChoice x;
  x.x = "N";
  x.flops = "6*N*D";
  EXPECT_TRUE(contains(error_of([&] { choose_columns(t, x, true); }), "--flops"));
}

TEST(FitColumns, WeightsAreAlignedAndZeroIsRefusedNamingTheLine) {
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.weight = "w";
  const DataTable good = parse_csv("N,D,w,loss\n1e8,2e9,0.5,3.1\n2e8,2e9,2,2.9\n", "t.csv");
  FitColumns f = choose_columns(good, c, false);
  EXPECT_EQ(f.weight, (std::vector<double>{0.5, 2}));
  c.weight.clear();
  EXPECT_TRUE(choose_columns(good, c, false).weight.empty());

  c.weight = "w";
  const DataTable zero = parse_csv("N,D,w,loss\n1e8,2e9,1,3.1\n2e8,2e9,0,2.9\n", "z.csv");
  const std::string msg = error_of([&] { choose_columns(zero, c, false); });
  EXPECT_TRUE(contains(msg, "z.csv:3")) << msg;
  EXPECT_TRUE(contains(msg, "--where")) << msg;
  const DataTable negative = parse_csv("N,D,w,loss\n1e8,2e9,-1,3.1\n", "n.csv");
  EXPECT_TRUE(contains(error_of([&] { choose_columns(negative, c, false); }), "n.csv:2"));

  // A column name is user text: a control character in it is escaped in the message.
  c.weight = "w\x1b[31m";
  const std::string esc = error_of([&] { choose_columns(good, c, false); });
  EXPECT_TRUE(contains(esc, "w\\x1B[31m")) << esc;
  EXPECT_FALSE(contains(esc, "\x1b")) << esc;
}

TEST(FitColumns, BestOfKeepsTheLowestLossPerInputs) {
  // Three (N, D) groups, each with a learning-rate sweep whose best value is inside the range.
  const std::string header = "N,D,lr,loss\n";
  const std::string rows =
      "1e8,2e9,0.001,3.30\n"   // line 2
      "1e8,2e9,0.003,3.10\n"   // line 3: best of (1e8, 2e9)
      "1e8,2e9,0.01,3.20\n"    // line 4
      "2e8,2e9,0.001,3.00\n"   // line 5
      "2e8,2e9,0.003,2.90\n"   // line 6: best (tie with line 7: the first is kept)
      "2e8,2e9,0.006,2.90\n"   // line 7
      "2e8,2e9,0.01,2.95\n"    // line 8
      "2e8,4e9,0.001,2.85\n"   // line 9
      "2e8,4e9,0.003,2.70\n"   // line 10: best of (2e8, 4e9)
      "2e8,4e9,0.01,2.80\n";   // line 11
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.best_of = "lr";
  FitColumns f = choose_columns(parse_csv(header + rows, "t.csv"), c, false);
  EXPECT_EQ(f.rows_filtered, 10u);
  EXPECT_EQ(f.best_of_dropped, 7u);
  EXPECT_EQ(f.lines, (std::vector<int>{3, 6, 10}));
  EXPECT_EQ(f.loss, (std::vector<double>{3.10, 2.90, 2.70}));
  EXPECT_TRUE(f.warnings.empty()) << joined(f.warnings);

  // The (1e8, 2e9) sweep's best is now its largest value: one group of three at the edge.
  const std::string edge = header + "1e8,2e9,0.001,3.30\n1e8,2e9,0.003,3.20\n1e8,2e9,0.01,3.00\n" + rows.substr(rows.find("2e8"));
  f = choose_columns(parse_csv(edge, "t.csv"), c, false);
  EXPECT_EQ(f.best_of_dropped, 7u);
  EXPECT_EQ(f.lines, (std::vector<int>{4, 6, 10}));
  ASSERT_EQ(f.warnings.size(), 1u) << joined(f.warnings);
  EXPECT_TRUE(contains(f.warnings[0], "best-of lr")) << f.warnings[0];
  EXPECT_TRUE(contains(f.warnings[0], "1 of 3 (N, D) groups")) << f.warnings[0];
  EXPECT_TRUE(contains(f.warnings[0], "N=1e8, D=2e9: lr=0.01, the largest")) << f.warnings[0];

  // Without --best-of every row is kept.
  c.best_of.clear();
  f = choose_columns(parse_csv(header + rows, "t.csv"), c, false);
  EXPECT_EQ(f.loss.size(), 10u);
  EXPECT_EQ(f.best_of_dropped, 0u);

  // One-input laws group by x; the smallest value tried is named as such.
  ColumnChoice x;
  x.x = "N";
  x.best_of = "lr";
  f = choose_columns(parse_csv("N,lr,loss\n1e8,0.001,3.0\n1e8,0.01,3.2\n2e8,0.001,2.9\n", "x.csv"), x, true);
  EXPECT_EQ(f.lines, (std::vector<int>{2, 4}));
  EXPECT_EQ(f.best_of_dropped, 1u);
  ASSERT_EQ(f.warnings.size(), 1u) << joined(f.warnings);
  EXPECT_TRUE(contains(f.warnings[0], "1 of 1 x groups (e.g. x=1e8: lr=0.001, the smallest")) << f.warnings[0];
}

TEST(FitColumns, ExtraColumnsStayAlignedThroughFiltersBestOfAndDropTop) {
  // w = the file line: the kept values tell which rows survived. U is a law's input, so a sweep's
  // rows share it (rows that differ in U are other runs, not a sweep).
  const DataTable t = parse_csv(
      "N,D,lr,part,U,w,loss\n"
      "1e8,2e9,0.001,a,30,2,3.30\n"   // line 2
      "1e8,2e9,0.003,a,30,3,3.10\n"   // line 3: best of (1e8, 2e9)
      "1e8,2e9,0.003,b,40,4,1.00\n"   // line 4: filtered out (part b)
      "2e8,2e9,0.001,a,50,5,3.50\n"   // line 5: best of (2e8, 2e9), then dropped as the highest loss
      "2e8,2e9,0.01,a,50,6,3.60\n"    // line 6
      "2e8,4e9,0.001,a,-70,7,2.80\n"  // line 7: best of (2e8, 4e9); U may be negative
      "2e8,4e9,0.003,a,-70,8,2.90\n"  // line 8
      "4e8,4e9,0.003,a,90,9,2.60\n",  // line 9: alone in its group
      "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.where = {{"part", "a"}};
  c.best_of = "lr";
  c.drop_top = 1;
  c.weight = "w";
  c.extra = {"U", "lr"};
  const FitColumns f = choose_columns(t, c, false);
  EXPECT_EQ(f.rows_filtered, 7u);
  EXPECT_EQ(f.best_of_dropped, 3u);
  EXPECT_EQ(f.dropped, 1u);
  EXPECT_EQ(f.lines, (std::vector<int>{3, 7, 9}));
  ASSERT_EQ(f.extra.size(), 2u);
  EXPECT_EQ(f.extra.at("U"), (std::vector<double>{30, -70, 90}));
  EXPECT_EQ(f.extra.at("lr"), (std::vector<double>{0.003, 0.001, 0.003}));
  EXPECT_EQ(f.weight, (std::vector<double>{3, 7, 9}));
  EXPECT_EQ(f.loss, (std::vector<double>{3.10, 2.80, 2.60}));
  EXPECT_EQ(f.N, (std::vector<double>{1e8, 2e8, 4e8}));

  c.extra = {"nope"};
  EXPECT_TRUE(contains(error_of([&] { choose_columns(t, c, false); }), "no column 'nope'"));
}

// Runs that differ only in a column the law reads (muennighoff's U, unique tokens) are different
// runs: neither repeated seeds to warn about, nor rows for --aggregate to merge or for --best-of
// to choose between. Truly repeated rows still are.
TEST(FitColumns, RepeatedInputsIncludeTheColumnsALawReads) {
  const std::string rows =
      "N,D,U,loss\n"
      "1e8,2e9,2e9,3.00\n"
      "1e8,2e9,5e8,3.05\n"
      "1e8,2e9,1e8,3.30\n"
      "2e8,4e9,4e9,2.80\n";
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.extra = {"U"};
  FitColumns f = choose_columns(parse_csv(rows, "u.csv"), c, false);
  EXPECT_TRUE(f.warnings.empty()) << joined(f.warnings);

  // A law that does not read U: those three rows are one (N, D) pair.
  ColumnChoice plain = c;
  plain.extra.clear();
  f = choose_columns(parse_csv(rows, "u.csv"), plain, false);
  ASSERT_EQ(f.warnings.size(), 1u) << joined(f.warnings);
  EXPECT_TRUE(contains(f.warnings[0], "1 (N, D) pairs occur on more than one row (3 rows")) << f.warnings[0];

  // The same (N, D, U) twice: a repeat, named with U.
  const std::string repeated = rows + "1e8,2e9,5e8,3.07\n";
  f = choose_columns(parse_csv(repeated, "u.csv"), c, false);
  ASSERT_EQ(f.warnings.size(), 1u) << joined(f.warnings);
  EXPECT_TRUE(contains(f.warnings[0], "1 (N, D, U) combinations occur on more than one row (2 rows, up to 2 times"))
      << f.warnings[0];

  // --aggregate groups by the same inputs: only the repeated pair is merged.
  ColumnChoice agg = c;
  agg.aggregate = "mean";
  f = choose_columns(parse_csv(repeated, "u.csv"), agg, false);
  EXPECT_EQ(f.aggregation.groups, 4u);
  EXPECT_EQ(f.aggregation.largest, 2u);
  EXPECT_EQ(f.extra.at("U"), (std::vector<double>{2e9, 5e8, 1e8, 4e9}));
  EXPECT_NEAR(f.loss[1], 3.06, 1e-12);

  // --best-of picks within each (N, D, U), not across U.
  ColumnChoice best = c;
  best.best_of = "lr";
  f = choose_columns(parse_csv("N,D,U,lr,loss\n"
                               "1e8,2e9,2e9,0.001,3.10\n"
                               "1e8,2e9,2e9,0.003,3.00\n"
                               "1e8,2e9,2e9,0.01,3.20\n"
                               "1e8,2e9,1e8,0.001,3.40\n"
                               "1e8,2e9,1e8,0.003,3.30\n"
                               "1e8,2e9,1e8,0.01,3.35\n",
                               "b.csv"),
                     best, false);
  EXPECT_EQ(f.lines, (std::vector<int>{3, 6}));
  EXPECT_EQ(f.extra.at("U"), (std::vector<double>{2e9, 1e8}));
  EXPECT_TRUE(f.warnings.empty()) << joined(f.warnings);
}

TEST(FitColumns, DesignWarnings) {
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  // Constant N: the N term is not identifiable.
  FitColumns f = choose_columns(
      parse_csv("N,D,loss\n1.3e9,1e9,3\n1.3e9,1e10,2.8\n1.3e9,1e11,2.7\n1.3e9,1e12,2.65\n", "t.csv"), c, false);
  std::string w = joined(design_warnings(f, 1, true));
  EXPECT_TRUE(contains(w, "N is 1.3e9 on every row")) << w;
  EXPECT_FALSE(contains(w, "D is")) << w;
  EXPECT_FALSE(contains(w, "compute budget")) << w;  // four budgets, a decade apart

  // Two budgets (within 10% counted as one): 6e17 and 1.2e19.
  f = choose_columns(parse_csv("N,D,loss\n1e8,1e9,3\n2e8,5e8,3.1\n1.05e8,1e9,3\n1e9,2e9,2.5\n2e9,1e9,2.6\n", "t.csv"),
                     c, false);
  w = joined(design_warnings(f, 1, true));
  EXPECT_TRUE(contains(w, "only 2 distinct compute budgets")) << w;
  EXPECT_TRUE(contains(w, "6e17, 1.2e19")) << w;
  EXPECT_FALSE(contains(w, "every row")) << w;

  // Points against parameters: 5 points for 5 parameters is refused by the fitter; for 2, barely
  // determined; for 1, enough.
  EXPECT_TRUE(contains(joined(design_warnings(f, 5, true)), "will refuse"));
  EXPECT_TRUE(contains(joined(design_warnings(f, 2, true)), "barely determined"));
  EXPECT_FALSE(contains(joined(design_warnings(f, 1, true)), "points"));

  // One input: a constant x.
  ColumnChoice x;
  x.x = "x";
  f = choose_columns(parse_csv("x,loss\n5,3\n5,2.9\n5,3.1\n", "x.csv"), x, true);
  EXPECT_TRUE(contains(joined(design_warnings(f, 1, false)), "x is 5 on every row"));

  // A good design: Chinchilla's Figure 4 data, fitted with the 5-parameter law.
  const DataTable chinchilla = read_csv(std::string(SCALINGLAB_SOURCE_DIR) + "/examples/data/chinchilla-figure4-epoch-extraction.csv");
  ColumnChoice cc;
  cc.N = "Model Size";
  cc.C = "Training FLOP";
  cc.loss = "loss";
  f = choose_columns(chinchilla, cc, false);
  ASSERT_GT(f.loss.size(), 200u);
  const auto none = design_warnings(f, 5, true);
  EXPECT_TRUE(none.empty()) << joined(none);
}

// Two exports joined into one file: the second one's header is a row in the middle. It is an error
// naming its line without --drop-missing, and left out (and counted) with it.
TEST(FitColumns, RepeatedHeaderLineIsDroppedAndCounted) {
  const DataTable t = parse_csv("N,D,loss\n1e8,2e9,3.1\n2e8,2e9,3.0\n\"N\", D ,loss\n3e8,4e9,2.9\n4e8,4e9,2.8\n", "t.csv");
  EXPECT_FALSE(t.header_row(0));
  EXPECT_TRUE(t.header_row(2));  // quoted and spaced, still the header's names
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  const std::string msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "t.csv:4: the header's names again")) << msg;
  EXPECT_TRUE(contains(msg, "--drop-missing")) << msg;
  c.drop_missing = true;
  const FitColumns f = choose_columns(t, c, false);
  EXPECT_EQ(f.repeated_headers_dropped, 1u);
  EXPECT_EQ(f.missing_dropped, 0u);
  EXPECT_EQ(f.infinite_dropped, 0u);
  EXPECT_EQ(f.rows_read, 5u);
  EXPECT_EQ(f.lines, (std::vector<int>{2, 3, 5, 6}));
  EXPECT_EQ(f.loss, (std::vector<double>{3.1, 3.0, 2.9, 2.8}));
  // Before the equality filters: counted even where a filter would have left the line out.
  c.where = {{"D", "4e9"}};
  const FitColumns g = choose_columns(t, c, false);
  EXPECT_EQ(g.repeated_headers_dropped, 1u);
  EXPECT_EQ(g.lines, (std::vector<int>{5, 6}));
}

// Diverged runs: inf, -inf, Infinity in a column the fit reads. Refused naming the line, or with
// --drop-missing left out and counted per column, apart from the missing values (a row with both
// counts as missing).
TEST(FitColumns, InfiniteValuesAreDroppedAndCountedPerColumn) {
  EXPECT_TRUE(infinite_cell("inf"));
  EXPECT_TRUE(infinite_cell(" -INF "));
  EXPECT_TRUE(infinite_cell("+Infinity"));
  EXPECT_FALSE(infinite_cell("infinit"));
  EXPECT_FALSE(infinite_cell("nan"));
  EXPECT_FALSE(infinite_cell(""));
  EXPECT_FALSE(infinite_cell("1e400"));
  const DataTable t = parse_csv(
      "N,D,loss,note\n1e8,2e9,3.1,inf\n2e8,2e9,inf,a\n3e8,2e9,-inf,b\ninf,4e9,2.9,c\n4e8,4e9,Infinity,d\n"
      "5e8,,Infinity,e\n6e8,4e9,2.7,f\n7e8,8e9,2.6,g\n",
      "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  const std::string msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "t.csv:3: column 'loss' holds 'inf', an infinite value")) << msg;
  EXPECT_TRUE(contains(msg, "--drop-missing")) << msg;
  c.drop_missing = true;
  const FitColumns f = choose_columns(t, c, false);
  EXPECT_EQ(f.infinite_dropped, 4u);
  EXPECT_EQ(f.infinite_by_column, (std::map<std::string, std::size_t>{{"N", 1}, {"loss", 3}}));
  EXPECT_EQ(f.missing_dropped, 1u);
  EXPECT_EQ(f.missing_by_column, (std::map<std::string, std::size_t>{{"D", 1}}));
  EXPECT_EQ(f.lines, (std::vector<int>{2, 8, 9}));  // the 'inf' of a column not read does not count
}

// --weight as an expression of the chosen columns and the file's columns: the same weights as a
// column computed by hand.
TEST(FitColumns, WeightExpressionEqualsTheColumnComputedByHand) {
  const DataTable t = parse_csv(
      "N,D,n_seeds,loss,w_sqrt_C,w_inv_loss,w_seeds\n"
      "1e8,2e9,3,3.1,1095445115.0103323,0.3225806451612903,6\n"
      "2e8,6e9,1,2.9,2683281572.9997478,0.3448275862068966,2\n",
      "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  const std::vector<std::pair<std::string, std::string>> same = {
      {"sqrt(C)", "w_sqrt_C"}, {"1/loss", "w_inv_loss"}, {"n_seeds*2", "w_seeds"}};
  for (const auto& [expression, column] : same) {
    c.weight = expression;
    const std::vector<double> by_expression = choose_columns(t, c, false).weight;
    c.weight = column;
    const std::vector<double> by_column = choose_columns(t, c, false).weight;
    ASSERT_EQ(by_expression.size(), 2u) << expression;
    for (std::size_t i = 0; i < 2; ++i) EXPECT_DOUBLE_EQ(by_expression[i], by_column[i]) << expression;
  }
  c.weight = "C";  // the derived C, 6 N D
  EXPECT_EQ(choose_columns(t, c, false).weight, (std::vector<double>{6 * 1e8 * 2e9, 6 * 2e8 * 6e9}));
  c.weight = "n_seeds";  // a plain column, as before
  EXPECT_EQ(choose_columns(t, c, false).weight, (std::vector<double>{3, 1}));

  // One-input laws: x and the file's columns.
  ColumnChoice x;
  x.x = "N";
  x.weight = "x/1e8 + n_seeds";
  EXPECT_EQ(choose_columns(t, x, true).weight, (std::vector<double>{4, 3}));
}

TEST(FitColumns, WeightExpressionMustBePositiveAndFinite) {
  const DataTable t = parse_csv("N,D,n_seeds,loss\n1e8,2e9,3,3.1\n2e8,6e9,1,2.9\n", "t.csv");
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  c.weight = "n_seeds - 1";  // 0 on line 3
  std::string msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "t.csv:3")) << msg;
  EXPECT_TRUE(contains(msg, "must be positive")) << msg;
  c.weight = "3 - loss";  // negative on line 2
  msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "t.csv:2")) << msg;
  EXPECT_TRUE(contains(msg, "positive and finite")) << msg;
  c.weight = "1/(N - 1e8)";  // infinite on line 2
  msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "t.csv:2")) << msg;
  c.weight = "2*n_seed";  // a misspelt column
  msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "'n_seed' is neither a column")) << msg;
  c.weight = "n seeds";  // neither a column nor an expression
  msg = error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(contains(msg, "neither a column of t.csv")) << msg;
  EXPECT_TRUE(contains(msg, "'n_seeds'")) << msg;  // the columns listed

  // --drop-missing reads the columns the expression names.
  const DataTable gap = parse_csv("N,D,n_seeds,loss\n1e8,2e9,3,3.1\n2e8,6e9,,2.9\n3e8,6e9,2,2.8\n", "g.csv");
  c.weight = "n_seeds*2";
  c.drop_missing = true;
  const FitColumns f = choose_columns(gap, c, false);
  EXPECT_EQ(f.missing_by_column, (std::map<std::string, std::size_t>{{"n_seeds", 1}}));
  EXPECT_EQ(f.weight, (std::vector<double>{6, 4}));
}
