// CSV reading for the fitters.
#include "scalinglab/fit/data_table.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"

namespace scalinglab::fit {

namespace {

// A decimal number: digits, sign, point and exponent only (strtod would also take "0x1p3", "inf" and
// "nan", which are not what a measurement column holds). Underflow to a subnormal or zero is kept
// (a finite value); overflow is refused.
bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  std::size_t end_of_number = s.size();
  while (end_of_number > 0 && (s[end_of_number - 1] == ' ' || s[end_of_number - 1] == '\t' || s[end_of_number - 1] == '\r'))
    --end_of_number;
  for (std::size_t i = 0; i < end_of_number; ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
  }
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
  if (!end || *end != '\0') return false;
  return errno != ERANGE || std::abs(out) < 1.0;  // ERANGE: overflow (refused) or underflow (kept)
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  return s.substr(a, b - a);
}

std::string column_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

bool DataTable::has(const std::string& column) const {
  for (const auto& n : names)
    if (n == column) return true;
  return false;
}

static std::size_t column_index(const DataTable& t, const std::string& column) {
  for (std::size_t j = 0; j < t.names.size(); ++j)
    if (t.names[j] == column) return j;
  throw InputError(t.source + ": no column '" + column + "' (columns: " + column_list(t.names) + ")");
}

std::vector<double> DataTable::numbers(const std::string& column) const {
  const std::size_t j = column_index(*this, column);
  std::vector<double> out(rows());
  for (std::size_t i = 0; i < rows(); ++i) {
    const std::string& s = cells[i][j];
    if (missing_cell(s))
      throw InputError(source + ":" + std::to_string(lines[i]) + ": column '" + column + "' has no value there ('" + s +
                       "'); --drop-missing leaves out the rows with a missing value in a column the fit reads");
    if (!parse_number(trim(s), out[i]) || !std::isfinite(out[i]))
      throw InputError(source + ":" + std::to_string(lines[i]) + ": column '" + column + "' holds '" + s +
                       "', not a finite decimal number");
  }
  return out;
}

DataTable DataTable::where(const std::vector<std::pair<std::string, std::string>>& filters) const {
  std::vector<std::size_t> js;
  for (const auto& [c, v] : filters) js.push_back(column_index(*this, c));
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < rows(); ++i) {
    bool ok = true;
    for (std::size_t k = 0; k < filters.size() && ok; ++k) {
      const std::string cell = trim(cells[i][js[k]]);
      double a = 0, b = 0;
      ok = cell == filters[k].second ||
           (parse_number(cell, a) && parse_number(filters[k].second, b) && a == b);
    }
    if (ok) keep.push_back(i);
  }
  return select(keep);
}

DataTable DataTable::select(const std::vector<std::size_t>& rows_to_keep) const {
  DataTable out{source, names, {}, {}};
  out.cells.reserve(rows_to_keep.size());
  for (std::size_t i : rows_to_keep) {
    out.cells.push_back(cells.at(i));
    out.lines.push_back(lines.at(i));
  }
  return out;
}

char parse_delimiter(const std::string& text) {
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text.size() != 1 || text[0] == '"' || text[0] == '\n' || text[0] == '\r')
    throw InputError("--delimiter '" + text + "': one character (',', ';', '|', ...) or 'tab'");
  return text[0];
}

DataTable parse_csv(const std::string& input, const std::string& source, char delimiter) {
  // A byte-order mark (spreadsheets write one) is not part of the first column's name.
  const std::string bom = "\xEF\xBB\xBF";
  const std::string text = input.compare(0, bom.size(), bom) == 0 ? input.substr(bom.size()) : input;
  DataTable t;
  t.source = source;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  int line = 1, row_line = 1;
  auto end_row = [&] {
    row.push_back(field);
    field.clear();
    const bool blank = row.size() == 1 && trim(row[0]).empty();
    if (!blank) {
      if (t.names.empty()) {
        for (auto& n : row) n = trim(n);
        for (std::size_t j = 0; j < row.size(); ++j)
          for (std::size_t k = 0; k < j; ++k)
            if (row[j] == row[k])
              throw InputError(source + ":" + std::to_string(row_line) + ": the header names column '" + row[j] +
                               "' twice (fields " + std::to_string(k + 1) + " and " + std::to_string(j + 1) +
                               "): which one is meant would be a guess");
        t.names = row;
      } else {
        if (row.size() != t.names.size())
          throw InputError(source + ":" + std::to_string(row_line) + ": " + std::to_string(row.size()) +
                           " fields, but the header has " + std::to_string(t.names.size()));
        t.cells.push_back(row);
        t.lines.push_back(row_line);
      }
    }
    row.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == delimiter) {
      row.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n') {
      end_row();
      row_line = ++line;
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) end_row();
  if (t.names.empty()) throw InputError(source + ": empty file (a CSV with a header row is expected)");
  return t;
}

DataTable read_csv(const std::string& path, char delimiter) {
  return parse_csv(read_file(path, kMaxTableBytes, "CSV table"), path, delimiter);
}

bool missing_cell(const std::string& cell) {
  std::string t = trim(cell);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t.empty() || t == "nan" || t == "na" || t == "n/a" || t == "null" || t == "none";
}

std::pair<std::string, std::string> parse_filter(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--where '" + text + "': expected COLUMN=VALUE");
  return {trim(text.substr(0, eq)), trim(text.substr(eq + 1))};
}

}  // namespace scalinglab::fit
