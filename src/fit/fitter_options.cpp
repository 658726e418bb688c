// The options `fit` and `frontier` share, their checks, and a request's JSON read key by key.
#include "scalinglab/fit/fitter_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <limits>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_request.hpp"

namespace scalinglab::fit {

TableFormat FitterOptions::table_format() const { return fit::table_format(format, delimiter, decimal); }

void check_fitter_options(const FitterOptions& o) {
  check_bootstrap_options(o.boot);
  check_budgets(o.at);
  check_threads(o.threads);
  o.table_format();
  const ColumnChoice& c = o.columns;
  if (!c.aggregate.empty() && c.aggregate != "mean" && c.aggregate != "min")
    throw InputError("--aggregate '" + c.aggregate + "': give mean or min");
  if (c.drop_top < 0) throw InputError(fmt::format("--drop-top {}: give the number of rows to drop, 0 or more", c.drop_top));
}

RequestReader::RequestReader(const nlohmann::json& j, const std::string& command, const std::set<std::string>& known)
    : j_(j) {
  if (!j.is_object()) throw InputError(command + ": the request is not a set of options");
  for (const auto& [k, v] : j.items())
    if (!known.count(k)) throw InputError(command + ": unknown option '" + k + "'");
}

std::string RequestReader::option(const std::string& key) {
  std::string o = "--" + key;
  std::replace(o.begin(), o.end(), '_', '-');
  return o;
}

bool RequestReader::given(const char* k) const { return j_.contains(k) && !j_[k].is_null(); }

InputError RequestReader::wrong(const char* k, const char* expected) const {
  std::string got = j_[k].dump();
  if (got.size() > 40) got = got.substr(0, 37) + "...";
  return InputError(option(k) + ": expected " + expected + ", got " + got);
}

void RequestReader::text(const char* k, std::string& out) const {
  if (!given(k)) return;
  if (!j_[k].is_string()) throw wrong(k, "text");
  out = j_[k].get<std::string>();
}

void RequestReader::texts(const char* k, std::vector<std::string>& out) const {
  if (!given(k)) return;
  if (!j_[k].is_array()) throw wrong(k, "a list of text");
  for (const auto& e : j_[k]) {
    if (!e.is_string()) throw wrong(k, "a list of text");
    out.push_back(e.get<std::string>());
  }
}

double RequestReader::real(const nlohmann::json& v, const char* k) const {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string t = v.get<std::string>();
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (t == "inf" || t == "+inf" || t == "infinity") return std::numeric_limits<double>::infinity();
    if (t == "-inf" || t == "-infinity") return -std::numeric_limits<double>::infinity();
    if (t == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw wrong(k, "a number");
}

void RequestReader::number(const char* k, double& out) const {
  if (given(k)) out = real(j_[k], k);
}

void RequestReader::numbers(const char* k, std::vector<double>& out) const {
  if (!given(k)) return;
  if (!j_[k].is_array()) throw wrong(k, "a list of numbers");
  for (const auto& c : j_[k]) out.push_back(real(c, k));
}

// A whole number that fits an int (a cast would wrap a larger one round to a small one).
void RequestReader::whole(const char* k, int& out) const {
  if (!given(k)) return;
  const nlohmann::json& v = j_[k];
  if (!v.is_number_integer()) throw wrong(k, "a whole number");
  const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX)
                                           : v.get<std::int64_t>() >= INT_MIN && v.get<std::int64_t>() <= INT_MAX;
  if (!fits) throw InputError(option(k) + " " + v.dump() + ": out of range");
  out = v.get<int>();
}

void RequestReader::flag(const char* k, bool& out) const {
  if (!given(k)) return;
  if (!j_[k].is_boolean()) throw wrong(k, "True or False");
  out = j_[k].get<bool>();
}

void RequestReader::seed(const char* k, std::uint64_t& out) const {
  if (!given(k)) return;
  const nlohmann::json& v = j_[k];
  if (!v.is_number() && !v.is_string()) throw wrong(k, "a whole number");
  out = parse_seed(v.is_string() ? v.get<std::string>() : v.dump());
}

void RequestReader::unit_scale(const char* k, double& out) const {
  if (!given(k)) return;
  const nlohmann::json& v = j_[k];
  if (v.is_number()) out = parse_unit_scale(fmt::format("{:.17g}", v.get<double>()), option(k));
  else if (v.is_string()) out = parse_unit_scale(v.get<std::string>(), option(k));
  else throw wrong(k, "a number or one of k, M, B, G, T");
}

const std::set<std::string>& fitter_option_keys() {
  static const std::set<std::string> keys = {
      "N", "D", "C", "loss", "where", "drop_top", "flops", "weight", "best_of", "drop_missing", "aggregate",
      "N_scale", "D_scale", "C_scale", "bootstrap", "level", "seed", "at", "threads", "sep", "decimal", "format"};
  return keys;
}

void add_where(ColumnChoice& c, const std::vector<std::string>& where) {
  for (const auto& w : where) {
    if (is_condition(w)) c.conditions.push_back(w);
    else c.where.push_back(parse_filter(w));
  }
}

void read_fitter_options(const RequestReader& in, FitterOptions& o) {
  ColumnChoice& c = o.columns;
  in.text("N", c.N);
  in.text("D", c.D);
  in.text("C", c.C);
  in.text("loss", c.loss);
  in.text("flops", c.flops);
  in.text("weight", c.weight);
  in.text("best_of", c.best_of);
  std::vector<std::string> where;
  in.texts("where", where);
  add_where(c, where);
  in.whole("drop_top", c.drop_top);
  in.flag("drop_missing", c.drop_missing);
  in.text("aggregate", c.aggregate);
  in.unit_scale("N_scale", c.N_scale);
  in.unit_scale("D_scale", c.D_scale);
  in.unit_scale("C_scale", c.C_scale);
  in.whole("bootstrap", o.boot.replicates);
  in.number("level", o.boot.level);
  in.seed("seed", o.boot.seed);
  in.numbers("at", o.at);
  in.whole("threads", o.threads);
  in.text("sep", o.delimiter);
  in.text("decimal", o.decimal);
  in.text("format", o.format);
}

std::vector<std::string> allocation_warnings(const FitColumns& c, const std::vector<double>& at,
                                             const std::function<double(double C)>& tokens_per_parameter) {
  std::vector<std::string> out;
  if (c.N.empty() || c.D.empty() || c.C.empty() || at.empty()) return out;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (std::size_t i = 0; i < c.N.size(); ++i) {
    lo = std::min(lo, c.D[i] / c.N[i]);
    hi = std::max(hi, c.D[i] / c.N[i]);
  }
  double c_lo = std::numeric_limits<double>::infinity(), c_hi = 0;
  for (double C : c.C) c_lo = std::min(c_lo, C), c_hi = std::max(c_hi, C);
  for (double C : at) {
    if (C > 1e6 * c_hi || C < c_lo / 1e3)
      out.push_back(fmt::format(
          "--at {:.3g} is {:.2g} times the {} budget of the data (C from {:.3g} to {:.3g}): if N, D or C are not in "
          "parameters, tokens and FLOPs, convert them (--N-scale, --D-scale, --C-scale)", C,
          C > c_hi ? C / c_hi : C / c_lo, C > c_hi ? "largest" : "smallest", c_lo, c_hi));
    const double ratio = tokens_per_parameter(C);
    if (!(ratio < lo / 100) && !(ratio > hi * 100)) continue;
    out.push_back(fmt::format(
        "at C = {:.3g} the compute-optimal D/N is {:.3g}, more than 100x outside the data's D/N ({:.3g} to {:.3g}): "
        "the allocation is extrapolated far beyond the runs, or N and D are not in parameters and tokens "
        "(--N-scale, --D-scale)", C, ratio, lo, hi));
  }
  return out;
}

void put_rows_json(nlohmann::json& j, const FitColumns& c) {
  j["rows_read"] = c.rows_read;
  j["rows_filtered"] = c.rows_filtered;
  j["dropped"] = c.dropped;
  j["best_of_dropped"] = c.best_of_dropped;
  j["missing_dropped"] = c.missing_dropped;
  j["missing_by_column"] = c.missing_by_column;
  j["repeated_headers_dropped"] = c.repeated_headers_dropped;
  j["infinite_dropped"] = c.infinite_dropped;
  j["infinite_by_column"] = c.infinite_by_column;
  if (!c.aggregation.how.empty()) {
    const Aggregation& a = c.aggregation;
    j["aggregate"] = {{"how", a.how}, {"rows", a.rows}, {"groups", a.groups}, {"largest", a.largest},
                      {"noise_sd", std::isfinite(a.noise_sd) ? nlohmann::json(a.noise_sd) : nlohmann::json(nullptr)},
                      {"dof", a.dof}};
  }
  if (std::isfinite(c.C_over_6ND)) j["C_over_6ND"] = c.C_over_6ND;
  if (!c.derived.empty()) j["derived"] = c.derived;
}

std::string rows_text(const FitColumns& c, std::size_t held_out) {
  std::string t = std::to_string(c.rows_read) + " rows";
  if (c.missing_dropped) {
    std::string by;
    for (const auto& [column, count] : c.missing_by_column)
      by += (by.empty() ? "" : ", ") + column + " " + std::to_string(count);
    t += ", " + std::to_string(c.missing_dropped) + " with a missing value dropped (" + by + ")";
  }
  if (c.repeated_headers_dropped)
    t += ", " + std::to_string(c.repeated_headers_dropped) + " repeated header line" +
         (c.repeated_headers_dropped > 1 ? "s" : "") + " dropped";
  if (c.infinite_dropped) {
    std::string by;
    for (const auto& [column, count] : c.infinite_by_column)
      by += (by.empty() ? "" : ", ") + column + " " + std::to_string(count);
    t += ", " + std::to_string(c.infinite_dropped) + " with an infinite value dropped (" + by + ")";
  }
  if (c.rows_filtered != c.rows_read - c.missing_dropped - c.repeated_headers_dropped - c.infinite_dropped)
    t += ", " + std::to_string(c.rows_filtered) + " after filters";
  if (!c.aggregation.how.empty() && c.aggregation.groups < c.aggregation.rows)
    t += ", " + std::to_string(c.aggregation.rows) + " merged into " + std::to_string(c.aggregation.groups);
  if (c.best_of_dropped) t += ", " + std::to_string(c.best_of_dropped) + " not the best of their sweep";
  if (c.dropped) t += ", " + std::to_string(c.dropped) + " highest losses dropped";
  if (held_out) t += ", " + std::to_string(held_out) + " held out";
  if (!c.derived.empty()) t += "; " + c.derived;
  return t;
}

}  // namespace scalinglab::fit
