// CSV reading for the fitters.
#include "scalinglab/fit/data_table.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"

namespace scalinglab::fit {

namespace {

std::string_view trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  return s.substr(a, b - a);
}

// A decimal number: digits, sign, point and exponent only (strtod would also take "0x1p3", "inf" and
// "nan", which are not what a measurement column holds). Underflow to a subnormal or zero is kept
// (a finite value); overflow is refused. `s` is trimmed.
bool parse_number(std::string_view s, double& out) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
  // from_chars reads without allocating; it takes no leading '+'.
  std::string_view digits = s;
  if (digits[0] == '+') {
    digits.remove_prefix(1);
    if (digits.empty() || digits[0] == '+' || digits[0] == '-') return false;
  }
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (ec == std::errc() && end == digits.data() + digits.size()) return true;
  if (ec != std::errc::result_out_of_range) return false;
  // Out of range: overflow (refused) or underflow (kept), as strtod tells them apart.
  const std::string copy(s);
  char* stop = nullptr;
  errno = 0;
  out = std::strtod(copy.c_str(), &stop);
  if (!stop || *stop != '\0') return false;
  return errno != ERANGE || std::abs(out) < 1.0;
}

// A number written with `decimal` as its decimal separator. With ',' the cell is read with '.' in
// its place, and a cell holding '.' is not a number (a thousands separator, or the other
// convention: which one would be a guess). A stack buffer keeps the common case free of allocation.
bool read_number(std::string_view s, char decimal, double& out) {
  if (decimal == '.') return parse_number(s, out);
  char buf[64];
  if (s.size() > sizeof buf) {
    std::string copy(s);
    if (copy.find('.') != std::string::npos) return false;
    for (char& c : copy) c = c == decimal ? '.' : c;
    return parse_number(copy, out);
  }
  for (std::size_t k = 0; k < s.size(); ++k) {
    const char c = s[k];
    if (c == '.') return false;
    buf[k] = c == decimal ? '.' : c;
  }
  return parse_number(std::string_view(buf, s.size()), out);
}

// A header that is one field when split at `delimiter` but several at ';' (or a tab) is another
// kind of file: a European spreadsheet's "N;D;loss" read with ',' would fail later, on its first
// row, with a field count. `rest` is the text after the header, whose first row tells whether the
// numbers have decimal commas.
void refuse_other_separator(const std::string& header, char delimiter, std::string_view rest, const std::string& source,
                            int line) {
  std::string option;
  if (delimiter != ';' && header.find(';') != std::string::npos) {
    const std::string_view row = rest.substr(0, rest.find('\n'));
    option = "--sep ';'" + std::string(row.find(',') != std::string_view::npos ? " --decimal ','" : "");
  } else if (delimiter != '\t' && header.find('\t') != std::string::npos) {
    option = "--sep tab";
  } else {
    return;
  }
  std::string shown_header = header.size() > 60 ? header.substr(0, 57) + "..." : header;
  for (char& c : shown_header)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  throw InputError(source + ":" + std::to_string(line) + ": the header '" + shown_header + "' is one field when split at '" +
                   (delimiter == '\t' ? std::string("tab") : std::string(1, delimiter)) +
                   "', and it looks like a file of another separator (as spreadsheets write in many locales); read it "
                   "with " + option);
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

bool DataTable::header_row(std::size_t row) const {
  for (std::size_t j = 0; j < names.size(); ++j)
    if (trim(cell(row, j)) != names[j]) return false;
  return true;
}

std::vector<double> DataTable::numbers(const std::string& column) const {
  const std::size_t j = column_index(*this, column);
  std::vector<double> out(rows());
  for (std::size_t i = 0; i < rows(); ++i) {
    // Only the cells that do not read as numbers are looked at more closely: a missing value, an
    // infinity and a repeated header all fail the plain parse.
    if (read_number(trim(cell(i, j)), decimal, out[i]) && std::isfinite(out[i])) continue;
    const std::string_view s = cell(i, j);
    const std::string at = source + ":" + std::to_string(lines[i]) + ": ";
    if (header_row(i))
      throw InputError(at + "the header's names again, not values (a repeated header line, as where two files were "
                       "joined); --drop-missing leaves out such lines");
    if (missing_cell(s))
      throw InputError(at + "column '" + column + "' has no value there ('" + std::string(s) +
                       "'); --drop-missing leaves out the rows with a missing value in a column the fit reads");
    if (infinite_cell(s))
      throw InputError(at + "column '" + column + "' holds '" + std::string(s) +
                       "', an infinite value (a diverged run?); --drop-missing leaves out the rows with an infinite "
                       "value in a column the fit reads");
    const std::string_view t = trim(s);
    double v = 0;
    if (decimal == '.' && t.find(',') != std::string_view::npos && read_number(t, ',', v))
      throw InputError(at + "column '" + column + "' holds '" + std::string(s) +
                       "', a number with a decimal comma; read the file with --decimal ',' (and a field separator "
                       "other than ',', e.g. --sep ';')");
    if (decimal != '.' && t.find('.') != std::string_view::npos &&
        t.find_first_not_of("0123456789+-.,eE") == std::string_view::npos)
      throw InputError(at + "column '" + column + "' holds '" + std::string(s) + "', which has a '.' where the file's "
                       "decimal separator is '" + std::string(1, decimal) + "' (a thousands separator?); write it as "
                       "a plain number, or read the file with --decimal '.'");
    throw InputError(at + "column '" + column + "' holds '" + std::string(s) + "', not a finite decimal number");
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
      const std::string_view value = trim(cell(i, js[k]));
      double a = 0, b = 0;
      const std::string_view wanted = trim(filters[k].second);
      ok = value == filters[k].second ||
           (read_number(value, decimal, a) && (parse_number(wanted, b) || read_number(wanted, decimal, b)) && a == b);
    }
    if (ok) keep.push_back(i);
  }
  return select(keep);
}

DataTable DataTable::select(const std::vector<std::size_t>& rows_to_keep) const {
  DataTable out;
  out.source = source;
  out.names = names;
  out.decimal = decimal;
  const std::size_t columns = names.size();
  out.lines.reserve(rows_to_keep.size());
  out.ends.reserve(rows_to_keep.size() * columns);
  for (std::size_t i : rows_to_keep) {
    if (i >= rows()) throw std::out_of_range("DataTable::select: row out of range");
    for (std::size_t j = 0; j < columns; ++j) {
      out.text += cell(i, j);
      out.ends.push_back(out.text.size());
    }
    out.lines.push_back(lines[i]);
  }
  return out;
}

char parse_decimal(const std::string& text) {
  if (text == "." || text == ",") return text[0];
  throw InputError("--decimal '" + text + "': the decimal separator is '.' or ','");
}

char parse_delimiter(const std::string& text) {
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text.size() != 1 || text[0] == '"' || text[0] == '\n' || text[0] == '\r')
    throw InputError("--delimiter '" + text + "': one character (',', ';', '|', ...) or 'tab'");
  return text[0];
}

DataTable parse_csv(const std::string& input, const std::string& source, char delimiter) {
  // A byte-order mark (spreadsheets write one) is not part of the first column's name.
  std::string_view text(input);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  DataTable t;
  t.source = source;
  t.text.reserve(text.size());
  // Fields go straight into t.text; a row's fields are the ends from row_first on.
  std::size_t row_first = 0, field_start = 0;
  bool quoted = false, any = false;
  int line = 1, row_line = 1;
  std::size_t at = 0;  // where in the text a row ends, for the header's check
  auto end_field = [&] {
    t.ends.push_back(t.text.size());
    field_start = t.text.size();
  };
  auto end_row = [&] {
    end_field();
    const std::size_t fields = t.ends.size() - row_first;
    const std::size_t begin = row_first ? t.ends[row_first - 1] : 0;
    const bool blank = fields == 1 && trim(std::string_view(t.text).substr(begin)).empty();
    if (blank) {
      t.text.resize(begin);
      t.ends.resize(row_first);
    } else if (t.names.empty()) {
      for (std::size_t k = row_first; k < t.ends.size(); ++k) {
        const std::size_t b = k ? t.ends[k - 1] : 0;
        t.names.emplace_back(trim(std::string_view(t.text).substr(b, t.ends[k] - b)));
      }
      // One pass with a hash of the names seen: a header of 10^5 names is checked in milliseconds.
      std::unordered_map<std::string_view, std::size_t> seen;
      seen.reserve(t.names.size());
      for (std::size_t j = 0; j < t.names.size(); ++j) {
        const auto [at, fresh] = seen.emplace(t.names[j], j);
        const std::size_t k = at->second;
        if (!fresh)
          throw InputError(source + ":" + std::to_string(row_line) + ": the header names column '" + t.names[j] +
                             "' twice (fields " + std::to_string(k + 1) + " and " + std::to_string(j + 1) +
                             "): which one is meant would be a guess");
      }
      if (t.names.size() == 1) refuse_other_separator(t.names[0], delimiter, text.substr(std::min(text.size(), at + 1)), source, row_line);
      t.text.clear();
      t.ends.clear();
    } else {
      if (fields != t.names.size())
        throw InputError(source + ":" + std::to_string(row_line) + ": " + std::to_string(fields) +
                         " fields, but the header has " + std::to_string(t.names.size()));
      t.lines.push_back(row_line);
    }
    row_first = t.ends.size();
    field_start = t.text.size();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        t.text += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        t.text += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == delimiter) {
      end_field();
      any = true;
    } else if (c == '\n') {
      at = i;
      end_row();
      row_line = ++line;
    } else if (c != '\r') {
      // The run of plain characters up to the next special one, copied at once.
      std::size_t j = i;
      while (j < text.size() && text[j] != delimiter && text[j] != '"' && text[j] != '\n' && text[j] != '\r') ++j;
      t.text.append(text.substr(i, j - i));
      i = j - 1;
      any = true;
    }
  }
  at = text.size();
  if (any || t.text.size() > field_start) end_row();
  if (t.names.empty()) throw InputError(source + ": empty file (a CSV with a header row is expected)");
  return t;
}

DataTable read_csv(const std::string& path, char delimiter) {
  return parse_csv(read_file(path, kMaxTableBytes, "CSV table"), path, delimiter);
}

bool infinite_cell(std::string_view cell) {
  std::string_view t = trim(cell);
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  if (t.size() != 3 && t.size() != 8) return false;
  static constexpr std::string_view word = "infinity";
  for (std::size_t k = 0; k < t.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(t[k])) != word[k]) return false;
  return true;
}

bool missing_cell(std::string_view cell) {
  const std::string_view t = trim(cell);
  if (t.size() > 4) return false;
  std::string lower(t);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.empty() || lower == "nan" || lower == "na" || lower == "n/a" || lower == "null" || lower == "none";
}

std::pair<std::string, std::string> parse_filter(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--where '" + text + "': expected COLUMN=VALUE");
  return {std::string(trim(text.substr(0, eq))), std::string(trim(text.substr(eq + 1)))};
}

}  // namespace scalinglab::fit
