#pragma once
// Choosing the columns of a table for a fit: which column is N, D, C, x and the loss; D derived
// as C / (6 N) (or N as C / (6 D), C as 6 N D) when a column is absent, or C computed from a FLOP
// formula of N, D and other columns; filters; per-row weights; keeping the best row of a
// hyperparameter sweep per fit input (best-of); dropping the k highest losses (Besiroglu et al.
// 2024 drop the 5 highest of Chinchilla's Figure 4 data); extra columns carried along for laws
// that read them. The order is: equality filters, missing values (--drop-missing), conditions,
// aggregation of repeated inputs (--aggregate), best-of, drop-top.
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scalinglab/fit/data_table.hpp"

namespace scalinglab::fit {

struct ColumnChoice {
  std::string x, N, D, C, loss = "loss";
  std::vector<std::pair<std::string, std::string>> where;  // column = value filters
  int drop_top = 0;
  // FLOP accounting: C per row as an expression (scalinglab::Expression) of `N`, `D` (the chosen
  // columns) and of any other column by its header name (names that are identifiers only).
  // Empty: C is a column or 6 N D. Needs --N and --D as columns, and no --C.
  std::string flops;
  // Per-row weights (finite, > 0): a column's name (read as that column), or else an expression
  // (scalinglab::Expression) of N, D, C, x, loss (the chosen columns, as the conditions see them)
  // and any column by its header name, e.g. "sqrt(C)", "1/loss", "n_seeds*2". Empty: unweighted.
  std::string weight;
  // Column of a swept hyperparameter (e.g. a learning rate): among rows with identical fit
  // inputs ((N, D), or x for one-input laws) only the lowest loss is kept (ties: first in file).
  std::string best_of;
  // Further numeric columns carried through, aligned with the kept rows (finite, any sign).
  std::vector<std::string> extra;
  // Row conditions (expressions such as "C >= 1e19" or "(N > 1e8) * (D < 1e12)"): a row is kept
  // where every one is non-zero. Variables: N, D, C, x, loss (the chosen columns, derived ones
  // included) and any column by its header name. Applied with the filters, before best-of.
  std::vector<std::string> conditions;
  // Rows held out of the fit (an expression like the conditions, e.g. "C >= 1e21"): marked in
  // FitColumns::held_out, not removed.
  std::string holdout;
  // Leave out the repeated header lines (DataTable::header_row: two exports joined into one file),
  // then, after the equality filters, the rows with a missing value (missing_cell: blank, NaN, ...)
  // or an infinite one (infinite_cell: a diverged run) in any column the fit reads; otherwise each
  // is an error naming its line.
  bool drop_missing = false;
  // Rows with identical fit inputs (N, D and C, or x; every extra column; the best-of value) merged
  // into one: "mean" (the mean loss, weighted by the rows' weights, the group's total weight as its
  // weight) or "min" (the lowest-loss row, as it is). Empty: rows kept as they are.
  std::string aggregate;
  // Warn about rows with identical inputs (repeated seeds?). Off for learning curves (Approach 1),
  // whose runs of one size share (N, D) at their checkpoints without being seeds of one run.
  bool warn_repeated = true;
  // Units: the N, D, C columns (and x when it is one of them, x_scale) multiplied by these.
  double N_scale = 1, D_scale = 1, C_scale = 1, x_scale = 1;
};

// What --aggregate did: the rows merged, the groups they formed, and the spread within groups
// (pooled standard deviation of log loss: the noise of one run).
struct Aggregation {
  std::string how;              // "mean" or "min"; empty when not asked for
  std::size_t rows = 0;         // rows before merging
  std::size_t groups = 0;       // rows after
  std::size_t largest = 0;      // rows in the largest group
  double noise_sd = std::numeric_limits<double>::quiet_NaN();  // pooled within-group sd of log loss
  std::size_t dof = 0;          // its degrees of freedom, sum over groups of (size - 1)
};

struct FitColumns {
  std::vector<double> x, N, D, C, loss;  // the ones that apply (x for one-input laws)
  std::vector<int> lines;                // file line of each kept row
  std::size_t rows_read = 0, rows_filtered = 0, dropped = 0;
  std::string derived;                   // e.g. "D = C / (6 N)", "C = 6*N*D + 12*n_layer*ctx*D"
  std::vector<double> weight;            // aligned with the kept rows; empty when not asked for
  std::map<std::string, std::vector<double>> extra;  // ColumnChoice::extra, aligned with the kept rows
  std::size_t best_of_dropped = 0;       // rows removed by best-of
  std::vector<std::string> warnings;     // notes on the data (best-of sweeps not bracketing the best)
  // What the columns are called, as the user named them (labels of plots); empty when derived.
  std::string x_name, N_name, D_name, C_name, loss_name;
  double N_scale = 1, D_scale = 1, C_scale = 1;  // the unit factors applied (ColumnChoice)
  std::vector<bool> held_out;            // ColumnChoice::holdout per kept row (empty: none)
  std::string flops;                     // the FLOP formula: "6*N*D" when derived by default, the
                                         // --flops text, empty when C was a column (or one-input)
  // --drop-missing: rows left out, and per column how many of them had no value there.
  std::size_t missing_dropped = 0;
  std::map<std::string, std::size_t> missing_by_column;
  // --drop-missing: repeated header lines left out (before the equality filters).
  std::size_t repeated_headers_dropped = 0;
  // --drop-missing: rows left out for an infinite value (and no missing one: a row with both counts
  // as missing), and per column how many of them were infinite there.
  std::size_t infinite_dropped = 0;
  std::map<std::string, std::size_t> infinite_by_column;
  Aggregation aggregation;
  // With N, D and C all columns: the median of C / (6 N D) over the kept rows (NaN otherwise).
  double C_over_6ND = std::numeric_limits<double>::quiet_NaN();
};

// A unit factor as given to --N-scale, --D-scale, --C-scale: a positive finite number, or one of the
// suffixes k (1e3), M (1e6), B or G (1e9), T (1e12). Throws InputError naming `option`.
double parse_unit_scale(const std::string& text, const std::string& option);

// `need_x`: a one-input law (x, loss); otherwise N, D and C are resolved. Throws InputError naming
// the missing option or column, and rows with non-positive or non-finite values.
FitColumns choose_columns(const DataTable& table, const ColumnChoice& choice, bool need_x);

// Whether `text` is a row condition (has a comparison) rather than a COLUMN=VALUE filter.
bool is_condition(const std::string& text);

// Warnings (not errors) about a design that cannot pin the law down: a constant N or D in a
// two-input fit (that term's scale merges with E), a constant x in a one-input fit, fewer than 3
// distinct compute budgets (C grouped within 10%) in two-input data, and fewer points than
// 3 x `parameters` (fewer than parameters + 1 is refused by the fitter). Each message names the
// numbers. `two_inputs`: the columns are N, D, C (otherwise x).
std::vector<std::string> design_warnings(const FitColumns& cols, std::size_t parameters, bool two_inputs);

}  // namespace scalinglab::fit
