#pragma once
// One fit as a user asks for it (`scalinglab fit` and `scalinglab.fit` in Python build the same
// request, so both give the same numbers): a law by name or as an expression, the rows, bounds
// and initial values, held-out rows, leave-one-budget-out cross-validation, other laws to compare
// on the same rows, the bootstrap. The outcome renders as JSON and as a table.
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/fitter_options.hpp"
#include "scalinglab/fit/fit_monitor.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

// The shared options (FitterOptions: rows, columns, bootstrap, budgets, threads, delimiter) and the
// law's own; `columns.x` and `columns.holdout` are the fit's only.
struct FitRequest : FitterOptions {
  std::string law = "chinchilla";     // a law's name, or an expression such as "E + A/N^alpha + B/D^beta"
  std::vector<std::string> compare;   // further laws fitted on the same rows
  // Columns an expression law reads by their own names besides N, D, C, x (--input-column): such a
  // name is otherwise a parameter in a law that reads N, D, C or x (resolve_law).
  std::vector<std::string> input_columns;
  std::string bounds;                 // "alpha=0:2,E=0:"
  std::vector<std::string> grid;      // "NAME=v1,v2,...", "NAME=first:step:last", "log(NAME)=..."
  double delta = std::numeric_limits<double>::quiet_NaN();  // NaN: the law's default
  int polish = 64;                    // FitOptions::polish
  std::string objective = "huber";    // FitOptions::likelihood: "huber" (false) or "mle" (true)
  std::string cv;                     // "" or "leave-one-budget-out"
  double x_min = std::numeric_limits<double>::quiet_NaN();  // keep rows with x (two-input laws: N) >= this
};

// Errors of a fitted law on points it did not see (or on its own).
struct PredictionErrors {
  std::size_t points = 0;
  double rel_mean = std::numeric_limits<double>::quiet_NaN();  // mean |L_hat / L - 1|
  double rel_max = std::numeric_limits<double>::quiet_NaN();
  double log_rmse = std::numeric_limits<double>::quiet_NaN();  // of log L_hat - log L
  double log_mean = std::numeric_limits<double>::quiet_NaN();  // bias: > 0 predicts too high
};
PredictionErrors prediction_errors(const ScalingLaw& law, const std::vector<double>& theta, const LawData& data);

struct CrossValidationFold {
  double C = 0;  // the budget left out (geometric mean of its rows' C, or x for one-input laws)
  PredictionErrors errors;
};

// One law fitted to the request's rows.
struct LawOutcome {
  std::shared_ptr<const ScalingLaw> law;
  LawData train, test;  // test: the held-out rows (empty without --holdout)
  LawFit fit;
  std::shared_ptr<Bootstrap> boot;
  PredictionErrors holdout;
  std::vector<CrossValidationFold> folds;
  std::string fold_key = "C";  // what the folds group by
  PredictionErrors cv;  // pooled over the folds
};

struct FitOutcome {
  FitRequest request;
  FitColumns columns;        // every kept row (train and held out)
  FitColumns train_columns;  // the rows fitted
  std::vector<LawOutcome> laws;  // the requested law first, then the compared ones
  std::vector<std::string> warnings;  // about the data (design, best-of)
};

// The law a request names: a built-in or named law, or an expression whose variables that name
// data are its inputs, every other variable a parameter. Data are the mapped names: N, D, C, x, a
// column that `columns` maps to one of them (--N, --D, --C, --x) and the columns of `columns.extra`
// (--input-column). A law that reads none of those is written in the columns of `table`, and its
// names that are columns are data too; in a law that reads a mapped name, a name that is also a
// column (a table's `alpha` in "E + A/N^alpha + B/D^beta") stays a parameter, and `notes` (when
// given) gets a sentence naming it. `bounds` decide which parameters are positive scales (fitted as
// logarithms).
std::shared_ptr<const ScalingLaw> resolve_law(const std::string& text, const DataTable& table,
                                              const std::string& bounds, const ColumnChoice& columns,
                                              std::vector<std::string>* notes = nullptr);

// Runs the request on the table. Throws InputError for anything the user can fix.
// `monitor`: progress lines on stderr and/or a callback that may stop the fit (fit_monitor.hpp).
FitOutcome run_fit(const DataTable& table, const FitRequest& request, const FitMonitor& monitor = {});

nlohmann::json fit_outcome_json(const FitOutcome& outcome);
std::string fit_outcome_table(const FitOutcome& outcome);

// What `scalinglab predict` needs: the law, its coordinates and the bootstrap replicates.
nlohmann::json fit_outcome_saved(const FitOutcome& outcome);

// Predictions of a saved fit at points given as NAME -> values (one list per input; lists of
// length 1 are broadcast), with the bootstrap's percentile interval at `level` when saved.
nlohmann::json predict_saved(const nlohmann::json& saved, const std::map<std::string, std::vector<double>>& inputs,
                             double level);

// A request from its JSON form (Python passes one): keys as the CLI's long options. Checked as
// check_fit_request does; a value of the wrong type is an InputError naming its key.
FitRequest fit_request_from_json(const nlohmann::json& j);
// The keys a fit request takes (the shared ones, fitter_option_keys, and the law's own).
const std::set<std::string>& fit_option_keys();

// JSON text (a saved fit, a request) parsed, or an InputError naming `what` and the byte where the
// text stops being JSON (nlohmann's exception text is not shown).
nlohmann::json parse_json(const std::string& text, const std::string& what);

// ---- the numbers a user gives, checked in one place --------------------------------------------
// The command line and the Python module both call these before any work, so both refuse the same
// values with the same sentence. Messages name the command line's option ("--level 2: ..."); the
// Python layer rewrites it as the keyword ("level=2: ...").

// --level: the coverage of a percentile interval, from 0.5 to 0.999.
void check_level(double level);
// --bootstrap (0, or 2 to 10^6 refits), --level, --bootstrap-starts (0: the whole grid, or more).
void check_bootstrap_options(const BootstrapOptions& boot);
// --at: compute budgets, each positive and finite.
void check_budgets(const std::vector<double>& at);
// --threads: 0 (all cores) to 1024.
void check_threads(int threads);
// Everything a fit request holds that is a number: the above, --delta, --polish, --x-min, --drop-top.
void check_fit_request(const FitRequest& request);
// --seed as the user wrote it (the command line's text, Python's int): a whole number from 0 to
// 2^64 - 1. A negative seed is refused rather than wrapped round to a huge one.
std::uint64_t parse_seed(const std::string& text);

}  // namespace scalinglab::fit
