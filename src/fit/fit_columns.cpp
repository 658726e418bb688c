// Column selection for the fitters.
#include "scalinglab/fit/fit_columns.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"

namespace scalinglab::fit {

namespace {

// User text (column names, formulas, cells) as it may appear in a message: control characters
// (a terminal escape, a line break that would forge a second message line) shown as \xNN, and the
// whole cut short when very long.
std::string shown(const std::string& text, std::size_t limit = 200) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A number for a message: 4 significant digits, exponents without '+' and leading zeros (1e8,
// 2.5e-4).
std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  std::string s = buf;
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
  bool negative = false;
  if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
    negative = exponent[0] == '-';
    exponent.erase(0, 1);
  }
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return mantissa + "e" + (negative ? "-" : "") + exponent;
}

std::string where(const DataTable& t, std::size_t row) { return t.source + ":" + std::to_string(t.lines[row]); }

std::string column_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + shown(n, 60) + "'";
  return out;
}

// The column as numbers for `option`: a missing column or a bad cell is an InputError naming the
// option, the column and the line (user text shown safely).
std::vector<double> column(const DataTable& t, const std::string& name, const std::string& option) {
  if (name.empty()) throw InputError(option + ": a column name is needed");
  if (!t.has(name))
    throw InputError(option + ": " + shown(t.source) + " has no column '" + shown(name) + "' (columns: " +
                     column_list(t.names) + ")");
  try {
    return t.numbers(name);
  } catch (const InputError& e) {
    throw InputError(shown(e.what(), 1000) + " (" + option + ")");
  }
}

void require_positive(const std::vector<double>& v, const std::string& name, const DataTable& t) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!(v[i] > 0) || !std::isfinite(v[i]))
      throw InputError(where(t, i) + ": " + name + " = " + std::to_string(v[i]) +
                       " (scaling laws need positive, finite values)");
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return s != "inf" && s != "pi";  // the expression language reads these as constants
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// The formula's text on one line (the parser takes any white space between tokens).
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && !out.empty() && out.back() == ' ') continue;
    out += space ? ' ' : c;
  }
  return out;
}

// C per row from the --flops formula of N, D and the table's columns.
std::vector<double> flops_per_row(const DataTable& t, const std::string& text, const std::vector<double>& N,
                                  const std::vector<double>& D) {
  const std::string opt = "--flops \"" + shown(text) + "\"";
  std::optional<Expression> e;
  try {
    e.emplace(text);
  } catch (const InputError& err) {
    throw InputError("--flops: " + shown(err.what(), 1000));
  }
  std::vector<std::pair<std::string, std::vector<double>>> vars;
  for (const std::string& v : e->variables()) {
    if (v == "N" || v == "D") continue;
    if (!t.has(v)) {
      std::vector<std::string> unusable;
      for (const auto& n : t.names)
        if (!is_identifier(n)) unusable.push_back(n);
      std::string msg = opt + ": '" + shown(v) + "' is neither N, D (the columns given as --N and --D) nor a column of " +
                        shown(t.source) + " (columns: " + column_list(t.names) + ")";
      msg += unusable.empty()
                 ? ""
                 : "; a column whose name is not an identifier (letters, digits and _, not starting with a digit) "
                   "cannot be referenced in the formula: " + column_list(unusable) + " (rename it in the file)";
      throw InputError(msg);
    }
    vars.emplace_back(v, column(t, v, opt));
  }
  std::vector<double> C(t.rows());
  for (std::size_t i = 0; i < t.rows(); ++i) {
    auto lookup = [&](const std::string& name) -> std::optional<double> {
      if (name == "N") return N[i];
      if (name == "D") return D[i];
      for (const auto& [n, values] : vars)
        if (n == name) return values[i];
      return std::nullopt;
    };
    try {
      C[i] = e->eval(lookup);
    } catch (const InputError& err) {
      throw InputError(where(t, i) + ": " + opt + ": " + shown(err.what(), 1000));
    } catch (const std::exception&) {  // the math library's own error, e.g. gamma at a pole: not our sentence
      C[i] = std::numeric_limits<double>::quiet_NaN();
    }
    if (!(C[i] > 0) || !std::isfinite(C[i]))
      throw InputError(where(t, i) + ": " + opt + " gives C = " + num(C[i]) + " (N = " + num(N[i]) + ", D = " +
                       num(D[i]) + "): a FLOP count must be positive and finite");
  }
  return C;
}

// The columns a law reads besides N, D, C and x (muennighoff's U), by name.
using ExtraColumns = std::vector<std::pair<std::string, std::vector<double>>>;

// What makes two rows the same run for the law: their inputs (x, or N and D, with C when `with_C`)
// and every extra column it reads; runs that differ only in U are different runs, not seeds.
// --aggregate, --best-of and the repeated-inputs warning group by this key. `skip` names a column
// left out (best-of's swept column, which varies within a group by design).
std::vector<double> input_key(std::size_t i, bool need_x, bool with_C, const std::vector<double>& x,
                              const std::vector<double>& N, const std::vector<double>& D, const std::vector<double>& C,
                              const ExtraColumns& extra, const std::string& skip = "") {
  std::vector<double> key = need_x ? std::vector<double>{x[i]} : std::vector<double>{N[i], D[i]};
  if (!need_x && with_C) key.push_back(C[i]);
  for (const auto& e : extra)
    if (e.first != skip) key.push_back(e.second[i]);
  return key;
}

// The key's names: "(N, D)" or "x", "(N, D, U)" or "(x, U)" when the law reads U too.
std::string input_tuple(bool need_x, const ExtraColumns& extra, const std::string& skip = "") {
  std::string names;
  for (const auto& e : extra)
    if (e.first != skip) names += ", " + shown(e.first, 40);
  if (names.empty()) return need_x ? "x" : "(N, D)";
  return (need_x ? "(x" : "(N, D") + names + ")";
}

// Best-of: the rows (indices into the filtered table, in file order) that have the lowest loss among
// the rows with the same fit inputs; notes on sweeps that do not bracket the best value.
std::vector<std::size_t> best_of_rows(const DataTable& t, const std::string& name, bool need_x,
                                      const std::vector<double>& x, const std::vector<double>& N,
                                      const std::vector<double>& D, const ExtraColumns& extra,
                                      const std::vector<double>& loss, const std::vector<std::size_t>& candidates,
                                      std::vector<std::string>& warnings) {
  const std::vector<double> value = column(t, name, "--best-of");
  std::map<std::vector<double>, std::size_t> group_of;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i : candidates) {
    // Not C: a recorded budget may differ between the runs of one sweep.
    const auto [it, inserted] = group_of.emplace(input_key(i, need_x, false, x, N, D, {}, extra, name), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  const std::string what = input_tuple(need_x, extra, name);
  const std::string col = shown(name, 60);
  std::vector<std::size_t> keep;
  std::size_t swept = 0, at_edge = 0, repeated = 0, multi_row = 0;
  std::string example;
  for (const auto& g : groups) {
    std::size_t best = g[0];
    for (std::size_t i : g)
      if (loss[i] < loss[best]) best = i;  // strict: ties keep the first in file order
    keep.push_back(best);
    if (g.size() > 1) ++multi_row;
    std::vector<double> tried;
    for (std::size_t i : g) tried.push_back(value[i]);
    std::sort(tried.begin(), tried.end());
    if (std::adjacent_find(tried.begin(), tried.end()) != tried.end()) ++repeated;
    if (tried.front() == tried.back()) continue;  // one value tried: no sweep to judge
    ++swept;
    const bool smallest = value[best] == tried.front(), largest = value[best] == tried.back();
    if (!smallest && !largest) continue;
    if (at_edge++ == 0)
      example = (need_x ? "x=" + num(x[best]) : "N=" + num(N[best]) + ", D=" + num(D[best])) + ": " + col + "=" +
                num(value[best]) + ", the " + (smallest ? "smallest" : "largest");
  }
  std::sort(keep.begin(), keep.end());
  if (at_edge > 0)
    warnings.push_back("best-of " + col + ": the best value is at the edge of the values tried for " +
                       std::to_string(at_edge) + " of " + std::to_string(swept) + " " + what + " groups (e.g. " +
                       example + "); the sweep does not bracket the best value there, so those losses may be " +
                       "higher than the best reachable");
  if (repeated > 0)
    warnings.push_back("best-of " + col + ": in " + std::to_string(repeated) + " of " + std::to_string(groups.size()) +
                       " " + what + " groups a value of " + col + " occurs on more than one row (repeated seeds?); " +
                       "the lowest loss among them is kept, an optimistic pick (average repeats before fitting)");
  if (multi_row == 0)
    warnings.push_back("best-of " + col + ": every " + what + " occurs on one row only, so there is nothing to " +
                       "choose between (is " + col + " swept at each " + what + "?)");
  return keep;
}

// --aggregate: rows with identical fit inputs (N, D, C or x, every extra column, the best-of value)
// merged into one. Returns the rows that stand for their groups, in file order, after writing each
// group's mean loss and total weight into its row ("mean"), or picking its lowest loss ("min").
std::vector<std::size_t> aggregate_rows(const DataTable& t, const ColumnChoice& c, bool need_x,
                                        const std::vector<double>& x, const std::vector<double>& N,
                                        const std::vector<double>& D, const std::vector<double>& C,
                                        const ExtraColumns& extra, std::vector<double>& loss,
                                        std::vector<double>& weight, Aggregation& agg) {
  if (c.aggregate != "mean" && c.aggregate != "min")
    throw InputError("--aggregate '" + shown(c.aggregate, 40) + "': give mean or min");
  const std::vector<double> swept = c.best_of.empty() ? std::vector<double>{} : column(t, c.best_of, "--best-of");
  const std::size_t n = loss.size();
  std::map<std::vector<double>, std::size_t> group_of;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> key = input_key(i, need_x, true, x, N, D, C, extra);
    if (!swept.empty()) key.push_back(swept[i]);
    const auto [it, inserted] = group_of.emplace(std::move(key), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  agg.how = c.aggregate;
  agg.rows = n;
  agg.groups = groups.size();
  const bool mean = c.aggregate == "mean";
  // The mean of k runs is k times as precise as one: its weight (without --weight) is k.
  if (mean && weight.empty() && groups.size() < n) weight.assign(n, 1.0);
  double ss = 0;
  std::vector<std::size_t> keep;
  for (const auto& g : groups) {
    agg.largest = std::max(agg.largest, g.size());
    double m = 0;
    for (std::size_t i : g) m += std::log(loss[i]);
    m /= static_cast<double>(g.size());
    for (std::size_t i : g) ss += (std::log(loss[i]) - m) * (std::log(loss[i]) - m);
    agg.dof += g.size() - 1;
    std::size_t rep = g[0];
    if (mean) {
      double total = 0, sum = 0;
      for (std::size_t i : g) {
        const double w = weight.empty() ? 1.0 : weight[i];
        total += w;
        sum += w * loss[i];
      }
      loss[rep] = sum / total;
      if (!weight.empty()) weight[rep] = total;
    } else {
      for (std::size_t i : g)
        if (loss[i] < loss[rep]) rep = i;  // strict: ties keep the first in file order
    }
    keep.push_back(rep);
  }
  std::sort(keep.begin(), keep.end());
  if (agg.dof > 0) agg.noise_sd = std::sqrt(ss / static_cast<double>(agg.dof));
  return keep;
}

// The columns of `t` that a fit with this choice reads (for --drop-missing): the loss, N, D, C or x,
// the weight, best-of and extra columns, and the columns the formulas (--flops, --where conditions,
// --holdout) name.
std::vector<std::string> columns_read(const DataTable& t, const ColumnChoice& c, bool need_x) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (!name.empty() && t.has(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  add(c.loss);
  if (need_x) {
    add(c.x);
  } else {
    add(c.N), add(c.D), add(c.C);
  }
  add(c.weight);
  add(c.best_of);
  for (const auto& e : c.extra) add(e);
  std::vector<std::string> formulas = c.conditions;
  formulas.push_back(c.flops);
  formulas.push_back(c.holdout);
  if (!t.has(c.weight)) formulas.push_back(c.weight);  // a weight expression
  const std::map<std::string, std::string> named = {{"N", c.N}, {"D", c.D}, {"C", c.C}, {"x", c.x}, {"loss", c.loss}};
  for (const auto& f : formulas) {
    if (trim(f).empty()) continue;
    try {
      for (const auto& v : Expression(f).variables()) {
        const auto it = named.find(v);
        add(it != named.end() && !it->second.empty() ? it->second : v);
      }
    } catch (const InputError&) {
      // a formula that does not parse is reported where it is used
    }
  }
  return out;
}

}  // namespace

namespace {

// The value of an expression on each kept row of `out` (rows of `t` by file line): N, D, C, x and
// loss are the chosen columns, any other name a column of the table.
std::vector<double> per_row(const DataTable& t, const FitColumns& out, const std::string& text, const std::string& option,
                            const ColumnChoice& choice) {
  const Expression e(text);
  std::map<std::string, const std::vector<double>*> alias;
  if (!out.N.empty()) alias["N"] = &out.N;
  if (!out.D.empty()) alias["D"] = &out.D;
  if (!out.C.empty()) alias["C"] = &out.C;
  if (!out.x.empty()) alias["x"] = &out.x;
  alias["loss"] = &out.loss;
  std::map<std::string, std::vector<double>> columns;
  // A one-input fit has no N, D, C vectors: N, D and C then read the columns named for them.
  const std::map<std::string, std::string> named = {{"N", choice.N}, {"D", choice.D}, {"C", choice.C}};
  for (const auto& v : e.variables()) {
    const auto n = named.find(v);
    if (!alias.count(v) && n != named.end() && !n->second.empty() && t.has(n->second)) {
      columns[v] = t.numbers(n->second);
      const double scale = v == "N" ? choice.N_scale : v == "D" ? choice.D_scale : choice.C_scale;
      for (double& value : columns[v]) value *= scale;
    }
  }
  for (const auto& v : e.variables())
    if (!alias.count(v) && !columns.count(v)) {
      if (!t.has(v))
        throw InputError(option + " \"" + shown(text) + "\": '" + shown(v) + "' is neither a column (" + column_list(t.names) +
                         ") nor one of N, D, C, x, loss as named by --N, --D, --C, --x, --loss" +
                         (v == "N" || v == "D" || v == "C" ? std::string(" (a derived ") + v + " cannot be read by a one-input law)" : ""));
      columns[v] = t.numbers(v);
    }
  std::map<int, std::size_t> row_of_line;
  for (std::size_t r = 0; r < t.rows(); ++r) row_of_line[t.lines[r]] = r;
  std::vector<double> values(out.loss.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::size_t r = row_of_line.at(out.lines[i]);
    try {
      values[i] = e.eval([&](const std::string& name) -> std::optional<double> {
        const auto a = alias.find(name);
        if (a != alias.end()) return (*a->second)[i];
        return columns.at(name)[r];
      });
    } catch (const InputError&) {
      throw;
    } catch (const std::exception&) {  // the math library's own error, e.g. gamma at a pole
      throw InputError(where(t, r) + ": " + option + " \"" + shown(text) +
                       "\" cannot be evaluated there (a function at a pole, or past the range of a double)");
    }
  }
  return values;
}

// --weight as an expression (it names no column): evaluated on every row of `t` as the conditions
// are, with N, D, C, x and loss the chosen (scaled, derived) values.
std::vector<double> weight_per_row(const DataTable& t, const ColumnChoice& c, const std::vector<double>& x,
                                   const std::vector<double>& N, const std::vector<double>& D,
                                   const std::vector<double>& C, const std::vector<double>& loss) {
  const std::string opt = "--weight \"" + shown(c.weight) + "\"";
  try {
    const Expression parsed(c.weight);
    (void)parsed;
  } catch (const InputError& err) {
    throw InputError(opt + ": neither a column of " + shown(t.source) + " (columns: " + column_list(t.names) +
                     ") nor an expression of N, D, C, x, loss and the columns (" + shown(err.what(), 300) + ")");
  }
  FitColumns rows;
  rows.x = x, rows.N = N, rows.D = D, rows.C = C, rows.loss = loss;
  rows.lines = t.lines;
  return per_row(t, rows, c.weight, "--weight", c);
}

}  // namespace

namespace {

// Rows with the same fit inputs (repeated seeds) are fitted and resampled as independent points.
// Same inputs as --aggregate merges: N, D, C (or x) and every extra column.
void repeated_inputs_warning(FitColumns& out, bool need_x, const std::vector<std::string>& extra_names) {
  ExtraColumns extra;
  for (const auto& name : extra_names)
    if (out.extra.count(name) && std::none_of(extra.begin(), extra.end(), [&](const auto& e) { return e.first == name; }))
      extra.emplace_back(name, out.extra.at(name));
  std::map<std::vector<double>, std::size_t> count;
  for (std::size_t i = 0; i < out.loss.size(); ++i)
    ++count[input_key(i, need_x, true, out.x, out.N, out.D, out.C, extra)];
  std::size_t groups = 0, rows = 0, largest = 0;
  for (const auto& [key, k] : count)
    if (k > 1) {
      ++groups;
      rows += k;
      largest = std::max(largest, k);
    }
  if (groups == 0) return;
  const std::string what =
      extra.empty() ? (need_x ? "values of x" : "(N, D) pairs") : input_tuple(need_x, extra) + " combinations";
  out.warnings.push_back(std::to_string(groups) + " " + what + " occur on more than one row (" + std::to_string(rows) +
                         " rows, up to " + std::to_string(largest) + " times; repeated seeds?): the fit and the "
                         "bootstrap take them as independent points, which narrows the intervals; merge them with "
                         "--aggregate mean (each group's mean loss, weighted by its size) or --aggregate min");
}

// With N, D and C all given as columns, C should be about 6 N D: a factor far from 1 means columns
// in other units (millions of parameters, billions of tokens).
void check_compute(FitColumns& out) {
  std::vector<double> ratio;
  for (std::size_t i = 0; i < out.loss.size(); ++i) ratio.push_back(out.C[i] / (6 * out.N[i] * out.D[i]));
  if (ratio.empty()) return;
  std::size_t off = 0;
  for (double r : ratio) off += r > 3 || r < 1.0 / 3 ? 1 : 0;
  std::vector<double> sorted = ratio;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  out.C_over_6ND = sorted[sorted.size() / 2];
  if (off > 0)
    out.warnings.push_back("C is not about 6 N D: C / (6 N D) has median " + num(out.C_over_6ND) + ", and " +
                           std::to_string(off) + " of " + std::to_string(ratio.size()) + " rows are off by more than " +
                           "a factor 3; are N (parameters), D (tokens) and C (FLOPs) in these units? --N-scale, " +
                           "--D-scale and --C-scale multiply a column (e.g. --N-scale M for millions)");
}

}  // namespace

double parse_unit_scale(const std::string& text, const std::string& option) {
  const std::string t = trim(text);
  static const std::map<std::string, double> suffix = {{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}};
  if (const auto it = suffix.find(t); it != suffix.end()) return it->second;
  char* end = nullptr;
  const double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v) || t.find_first_of("xXnNiI") != std::string::npos)
    throw InputError(option + " '" + shown(text, 40) + "': give a positive factor such as 1e6, or k, M, B (or G), T");
  return v;
}

bool is_condition(const std::string& text) { return text.find_first_of("<>") != std::string::npos; }

FitColumns choose_columns(const DataTable& full, const ColumnChoice& c, bool need_x) {
  if (c.drop_missing) {
    // Repeated header lines first (not data, whatever a filter says); then, after the equality
    // filters, the rows without a usable value in a column read: missing, or else infinite.
    std::vector<std::size_t> body_rows;
    for (std::size_t i = 0; i < full.rows(); ++i)
      if (!full.header_row(i)) body_rows.push_back(i);
    const std::size_t headers = full.rows() - body_rows.size();
    std::optional<DataTable> without_headers;
    if (headers > 0) without_headers = full.select(body_rows);
    const DataTable& body = without_headers ? *without_headers : full;
    const DataTable filtered = c.where.empty() ? body : body.where(c.where);
    std::vector<std::pair<std::string, std::size_t>> read;
    for (const auto& name : columns_read(filtered, c, need_x))
      for (std::size_t j = 0; j < filtered.names.size(); ++j)
        if (filtered.names[j] == name) read.emplace_back(name, j);
    std::map<std::string, std::size_t> missing_by_column, infinite_by_column;
    std::size_t infinite = 0;
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < filtered.rows(); ++i) {
      bool missing = false;
      for (const auto& [name, j] : read)
        if (missing_cell(filtered.cell(i, j))) {
          ++missing_by_column[name];
          missing = true;
        }
      if (missing) continue;
      bool inf = false;
      for (const auto& [name, j] : read)
        if (infinite_cell(filtered.cell(i, j))) {
          ++infinite_by_column[name];
          inf = true;
        }
      if (inf) ++infinite;
      else keep.push_back(i);
    }
    if (keep.empty() && filtered.rows() > 0)
      throw InputError(shown(full.source) + ": every row has a missing or infinite value in a column the fit reads");
    ColumnChoice rest = c;
    rest.where.clear();
    rest.drop_missing = false;
    FitColumns out = choose_columns(keep.size() == filtered.rows() ? filtered : filtered.select(keep), rest, need_x);
    out.rows_read = full.rows();
    out.repeated_headers_dropped = headers;
    out.missing_dropped = filtered.rows() - keep.size() - infinite;
    out.missing_by_column = missing_by_column;
    out.infinite_dropped = infinite;
    out.infinite_by_column = infinite_by_column;
    return out;
  }
  if (!c.conditions.empty()) {
    // The conditions read derived columns too: resolve the columns first, then keep the rows.
    const DataTable filtered = c.where.empty() ? full : full.where(c.where);
    ColumnChoice plain;
    plain.x = c.x, plain.N = c.N, plain.D = c.D, plain.C = c.C, plain.loss = c.loss, plain.flops = c.flops;
    plain.N_scale = c.N_scale, plain.D_scale = c.D_scale, plain.C_scale = c.C_scale, plain.x_scale = c.x_scale;
    const FitColumns pre = choose_columns(filtered, plain, need_x);
    std::vector<bool> keep(pre.loss.size(), true);
    for (const auto& cond : c.conditions) {
      const std::vector<double> v = per_row(filtered, pre, cond, "--where", c);
      for (std::size_t i = 0; i < v.size(); ++i) keep[i] = keep[i] && v[i] != 0;
    }
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) rows.push_back(i);
    if (rows.empty()) throw InputError(full.source + ": no rows satisfy the --where conditions");
    ColumnChoice rest = c;
    rest.where.clear();
    rest.conditions.clear();
    FitColumns out = choose_columns(filtered.select(rows), rest, need_x);
    out.rows_read = full.rows();
    out.rows_filtered = rows.size();
    return out;
  }
  FitColumns out;
  out.rows_read = full.rows();
  const DataTable t = c.where.empty() ? full : full.where(c.where);
  out.rows_filtered = t.rows();
  if (t.rows() == 0) throw InputError(full.source + ": no rows" + (c.where.empty() ? "" : " match the filters"));
  if (c.loss.empty()) throw InputError("--loss: the loss column is needed");
  if (c.drop_top < 0) throw InputError("--drop-top must be >= 0");
  const std::string flops = trim(c.flops);
  std::vector<double> loss = column(t, c.loss, "--loss");
  std::vector<double> x, N, D, C;
  if (need_x) {
    if (!flops.empty())
      throw InputError("--flops: this law has one input x, and the FLOP formula defines the compute C of two-input "
                       "laws (N, D); leave --flops out");
    if (c.x.empty()) throw InputError("--x: this law has one input; name its column");
    x = column(t, c.x, "--x");
    for (double& v : x) v *= c.x_scale;
  } else {
    if (!flops.empty()) {
      if (!c.C.empty())
        throw InputError("--flops and --C both define the compute C (a formula and the column '" + shown(c.C) +
                         "'): give one of them");
      if (c.N.empty() || c.D.empty())
        throw InputError(std::string("--flops needs both --N and --D as columns (missing: ") +
                         (c.N.empty() && c.D.empty() ? "--N, --D" : c.N.empty() ? "--N" : "--D") +
                         "): with a general FLOP formula, N or D cannot be derived from C");
    } else {
      const int given = !c.N.empty() + !c.D.empty() + !c.C.empty();
      if (given < 2) throw InputError("name two of the columns --N, --D, --C (the third is derived from C = 6 N D)");
    }
    if (!c.N.empty()) N = column(t, c.N, "--N");
    if (!c.D.empty()) D = column(t, c.D, "--D");
    if (!c.C.empty()) C = column(t, c.C, "--C");
    for (double& v : N) v *= c.N_scale;
    for (double& v : D) v *= c.D_scale;
    for (double& v : C) v *= c.C_scale;
    if (!c.N.empty()) require_positive(N, "N ('" + shown(c.N) + "')", t);
    if (!c.D.empty()) require_positive(D, "D ('" + shown(c.D) + "')", t);
    if (!c.C.empty()) require_positive(C, "C ('" + shown(c.C) + "')", t);
    const std::size_t n = loss.size();
    if (!flops.empty()) {
      C = flops_per_row(t, flops, N, D);
      out.flops = one_line(flops);
      out.derived = "C = " + out.flops;
    } else if (D.empty()) {
      D.resize(n);
      for (std::size_t i = 0; i < n; ++i) D[i] = C[i] / (6 * N[i]);
      out.derived = "D = C / (6 N)";
    } else if (N.empty()) {
      N.resize(n);
      for (std::size_t i = 0; i < n; ++i) N[i] = C[i] / (6 * D[i]);
      out.derived = "N = C / (6 D)";
    } else if (C.empty()) {
      C.resize(n);
      for (std::size_t i = 0; i < n; ++i) C[i] = 6 * N[i] * D[i];
      out.derived = "C = 6 N D";
      out.flops = "6*N*D";
    }
    // A derived input that overflows (C = 6 N D past 1.8e308) or underflows to 0 is refused as a
    // literal inf or 0 cell is, naming the row and the formula.
    const std::string derived = out.derived.empty() ? "" : " (derived: " + out.derived + ")";
    require_positive(N, "N" + derived, t);
    require_positive(D, "D" + derived, t);
    require_positive(C, "C" + derived, t);
  }
  require_positive(loss, "loss ('" + shown(c.loss) + "')", t);
  if (need_x) require_positive(x, "x ('" + shown(c.x) + "')", t);

  std::vector<double> weight;
  if (!c.weight.empty()) {
    weight = t.has(c.weight) ? column(t, c.weight, "--weight") : weight_per_row(t, c, x, N, D, C, loss);
    for (std::size_t i = 0; i < weight.size(); ++i) {
      if (weight[i] == 0)
        throw InputError(where(t, i) + ": weight ('" + shown(c.weight) + "') = 0: weights must be positive; to " +
                         "leave rows out, remove them from the file or keep the others with --where COLUMN=VALUE");
      if (!(weight[i] > 0) || !std::isfinite(weight[i]))
        throw InputError(where(t, i) + ": weight ('" + shown(c.weight) + "') = " + num(weight[i]) +
                         ": weights must be positive and finite");
    }
  }
  ExtraColumns extra;
  for (const std::string& name : c.extra) {
    bool seen = false;
    for (const auto& e : extra) seen = seen || e.first == name;
    if (!seen) extra.emplace_back(name, column(t, name, "a column a law reads"));
  }

  // Repeated inputs merged, then best-of, on the filtered rows: the rows still in play, in file order.
  std::vector<std::size_t> rows(loss.size());
  std::iota(rows.begin(), rows.end(), 0);
  if (!c.aggregate.empty()) rows = aggregate_rows(t, c, need_x, x, N, D, C, extra, loss, weight, out.aggregation);
  const std::size_t before_best_of = rows.size();
  if (!c.best_of.empty()) rows = best_of_rows(t, c.best_of, need_x, x, N, D, extra, loss, rows, out.warnings);
  out.best_of_dropped = before_best_of - rows.size();

  // Keep all rows but the drop_top highest losses (ties broken by file order), in file order.
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return loss[rows[a]] > loss[rows[b]]; });
  const std::size_t drop = std::min<std::size_t>(static_cast<std::size_t>(c.drop_top), rows.size());
  std::vector<bool> keep(rows.size(), true);
  for (std::size_t k = 0; k < drop; ++k) keep[order[k]] = false;
  out.dropped = drop;
  if (drop == rows.size())
    throw InputError("--drop-top " + std::to_string(c.drop_top) + " leaves none of the " + std::to_string(rows.size()) +
                     " rows to fit");
  for (const auto& e : extra) out.extra[e.first];
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (!keep[k]) continue;
    const std::size_t i = rows[k];
    out.loss.push_back(loss[i]);
    out.lines.push_back(t.lines[i]);
    if (need_x) {
      out.x.push_back(x[i]);
    } else {
      out.N.push_back(N[i]);
      out.D.push_back(D[i]);
      out.C.push_back(C[i]);
    }
    if (!weight.empty()) out.weight.push_back(weight[i]);
    for (const auto& e : extra) out.extra[e.first].push_back(e.second[i]);
  }
  if (c.warn_repeated && c.aggregate.empty() && c.best_of.empty()) repeated_inputs_warning(out, need_x, c.extra);
  if (!need_x && !c.N.empty() && !c.D.empty() && !c.C.empty() && flops.empty()) check_compute(out);
  out.x_name = c.x;
  out.loss_name = c.loss;
  out.N_name = c.N;
  out.D_name = c.D;
  out.C_name = c.C;
  out.N_scale = c.N_scale, out.D_scale = c.D_scale, out.C_scale = c.C_scale;
  if (!trim(c.holdout).empty()) {
    const std::vector<double> v = per_row(t, out, c.holdout, "--holdout", c);
    for (double h : v) out.held_out.push_back(h != 0);
  }
  return out;
}

namespace {

// Whether every value is the same (to 1e-9 relative: a derived column may wobble in the last bit).
bool constant(const std::vector<double>& v) {
  if (v.size() < 2) return false;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo <= 1e-9 * std::max(std::fabs(*lo), std::fabs(*hi));
}

}  // namespace

std::vector<std::string> design_warnings(const FitColumns& cols, std::size_t parameters, bool two_inputs) {
  std::vector<std::string> out;
  const std::size_t n = cols.loss.size();
  if (two_inputs) {
    if (constant(cols.N))
      out.push_back("N is " + num(cols.N[0]) + " on every row: the law's N term is not identifiable (A / N^alpha is " +
                    "then a constant whose scale merges with E), and neither is the compute-optimal split; add " +
                    "runs at other model sizes, or fit a one-input law in D");
    if (constant(cols.D))
      out.push_back("D is " + num(cols.D[0]) + " on every row: the law's D term is not identifiable (B / D^beta is " +
                    "then a constant whose scale merges with E), and neither is the compute-optimal split; add " +
                    "runs at other data sizes, or fit a one-input law in N");
    if (!cols.C.empty()) {
      // Budgets within 10% of a group's smallest share it (as IsoFLOP slices do).
      std::vector<double> c = cols.C;
      std::sort(c.begin(), c.end());
      std::vector<double> budgets{c[0]};
      for (double v : c)
        if (v > budgets.back() * 1.1) budgets.push_back(v);
      if (budgets.size() < 3) {
        std::string list;
        for (double b : budgets) list += (list.empty() ? "" : ", ") + num(b);
        out.push_back("only " + std::to_string(budgets.size()) + " distinct compute budget" +
                      (budgets.size() == 1 ? "" : "s") + " (C within 10% counted as one): " + list +
                      " FLOPs; the compute-optimal frontier's exponents are not pinned down by fewer than 3 budgets; " +
                      "add runs at other budgets");
      }
    }
  } else if (constant(cols.x)) {
    out.push_back("x is " + num(cols.x[0]) + " on every row: the law's x term is not identifiable (its scale merges " +
                  "with the constant); add runs at other values of x");
  }
  if (parameters > 0) {
    const std::string counts = "only " + std::to_string(n) + " point" + (n == 1 ? "" : "s") + " for a law with " +
                               std::to_string(parameters) + " parameter" + (parameters == 1 ? "" : "s");
    if (n < parameters + 1)
      out.push_back(counts + ": the fit needs at least " + std::to_string(parameters + 1) + " and will refuse");
    else if (n < 3 * parameters)
      out.push_back(counts + " (fewer than 3 per parameter, " + std::to_string(3 * parameters) +
                    "): the fit is barely determined; expect wide bootstrap intervals and a fit that follows the noise");
  }
  return out;
}

}  // namespace scalinglab::fit
