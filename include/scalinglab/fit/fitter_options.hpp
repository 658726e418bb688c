#pragma once
// The options every fitter of a table shares (`fit` and `frontier`, on the command line and in
// Python alike): how the table is read, which rows and columns, the bootstrap, the budgets to
// report, the threads; and the reading of a request's JSON form (Python sends one, keys as the
// command line's long options with '-' as '_'), which both requests use, so that an option added
// here reaches both fitters in both front ends.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/parametric_fit.hpp"
#include "scalinglab/fit/table_format.hpp"

namespace scalinglab::fit {

struct FitterOptions {
  ColumnChoice columns;
  BootstrapOptions boot;
  std::vector<double> at;  // compute budgets at which to report the optimal allocation
  int threads = 0;
  // How the table is read (table_format.hpp), as typed: the field separator (one character or
  // "tab"), the decimal separator ("." or ","), the format ("auto": by the file's name).
  std::string delimiter = ",", decimal = ".", format = "auto";
  TableFormat table_format() const;
};

// The options' numbers checked (bootstrap, level, budgets, threads, drop-top, aggregate,
// delimiter), with the command line's option in each sentence.
void check_fitter_options(const FitterOptions& o);

// A request's JSON object read key by key: each value's type is checked, and a wrong one is an
// InputError naming the command line's option ("--level: expected a number, got \"x\"").
class RequestReader {
 public:
  // `command` names the request in messages ("fit", "frontier"); `known`: its keys.
  RequestReader(const nlohmann::json& j, const std::string& command, const std::set<std::string>& known);
  bool given(const char* key) const;
  void text(const char* key, std::string& out) const;
  void texts(const char* key, std::vector<std::string>& out) const;
  void number(const char* key, double& out) const;  // "inf", "-inf", "nan" as text too (JSON has none)
  void numbers(const char* key, std::vector<double>& out) const;
  void whole(const char* key, int& out) const;
  void flag(const char* key, bool& out) const;
  void seed(const char* key, std::uint64_t& out) const;
  void unit_scale(const char* key, double& out) const;  // a number, or its text ("1e6", "M")
  static std::string option(const std::string& key);    // "drop_top" -> "--drop-top"

 private:
  InputError wrong(const char* key, const char* expected) const;
  double real(const nlohmann::json& v, const char* key) const;
  const nlohmann::json& j_;
};

// The keys of FitterOptions in a request, and their reading.
const std::set<std::string>& fitter_option_keys();
void read_fitter_options(const RequestReader& in, FitterOptions& out);

// --where as given (COLUMN=VALUE or a condition) into the column choice.
void add_where(ColumnChoice& c, const std::vector<std::string>& where);

// Warnings that N, D or C may not be in parameters, tokens and FLOPs, as the frontier they give
// shows: a budget of `at` far outside the data's C, or a compute-optimal D/N at one of them (from
// `tokens_per_parameter`, NaN when there is no optimum) more than 100x outside the data's D/N.
std::vector<std::string> allocation_warnings(const FitColumns& data, const std::vector<double>& at,
                                             const std::function<double(double C)>& tokens_per_parameter);

// What happened to the rows (read, dropped as missing per column, filtered, merged, not the best of
// their sweep, highest losses dropped) into a result's JSON, and as the text after "FILE: ".
void put_rows_json(nlohmann::json& j, const FitColumns& c);
std::string rows_text(const FitColumns& c, std::size_t held_out = 0);

}  // namespace scalinglab::fit
