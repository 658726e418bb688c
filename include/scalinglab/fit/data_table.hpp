#pragma once
// A CSV file as named columns of text, for the fitters: any CSV with a header row (ours, pandas',
// a spreadsheet's). Values are parsed when a column is asked for as numbers, so a bad value is
// reported with its column and line.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scalinglab::fit {

struct DataTable {
  std::string source;                           // file name, for messages
  std::vector<std::string> names;               // header
  std::vector<int> lines;                       // line number of each row in the file (1-based)
  // The cells' text back to back, row by row, and where each cell ends: one allocation for a table
  // of a million rows rather than one per cell.
  std::string text;
  std::vector<std::size_t> ends;
  // The decimal separator of the numbers: '.', or ',' for a cell such as "2,71" (spreadsheets in
  // many European locales); with ',' a cell holding '.' is refused (a thousands separator?).
  char decimal = '.';

  std::size_t rows() const { return lines.size(); }
  // The text of cell (row, column index), quotes removed.
  std::string_view cell(std::size_t row, std::size_t column) const {
    const std::size_t k = row * names.size() + column;
    const std::size_t begin = k ? ends[k - 1] : 0;
    return std::string_view(text).substr(begin, ends[k] - begin);
  }
  bool has(const std::string& column) const;
  // Whether row `row` repeats the header (every cell equal to its column's name): what two exports
  // concatenated into one file leave in the middle.
  bool header_row(std::size_t row) const;
  // The column as numbers; throws InputError naming the column (and the columns that exist) when it
  // is missing, and the line when a value is not a finite decimal number (hexadecimal, inf and nan
  // are refused; a subnormal such as 1e-310 is kept). A missing cell (missing_cell), an infinite
  // one (infinite_cell) and a repeated header line (header_row) are refused with messages of their
  // own, which name --drop-missing.
  std::vector<double> numbers(const std::string& column) const;
  // Keeps the rows where every (column, value) pair matches (text equality, or numeric equality
  // when both sides are numbers). Throws when a column is missing.
  DataTable where(const std::vector<std::pair<std::string, std::string>>& filters) const;
  // Keeps the listed rows, in that order.
  DataTable select(const std::vector<std::size_t>& rows) const;
};

// Reads a CSV file (RFC 4180 quoting; blank lines skipped; a UTF-8 byte-order mark ignored; fields
// separated by `delimiter`). Throws InputError on a missing file, an empty file, a header naming a
// column twice, or a row whose field count differs from the header's. A header that is one field
// when split at `delimiter` but several when split at ';' or a tab is refused with the option that
// reads it (--sep ';', with --decimal ',' when its rows hold commas). The table's decimal separator
// is '.'; read_table (table_format.hpp) reads other formats and decimal commas.
DataTable read_csv(const std::string& path, char delimiter = ',');
DataTable parse_csv(const std::string& text, const std::string& source, char delimiter = ',');

// The delimiter named by `text`: one character other than a quote or a line break, or "tab".
// Throws InputError otherwise.
char parse_delimiter(const std::string& text);

// The decimal separator named by `text`: "." or ",". Throws InputError otherwise.
char parse_decimal(const std::string& text);

// Whether a cell is a missing value rather than a number: blank, or NaN, NA, N/A, null, None (any
// case; what spreadsheets, pandas, R and experiment trackers write for "no value").
bool missing_cell(std::string_view cell);

// Whether a cell is an infinite value: inf or infinity, any case, with an optional sign (what
// Python, pandas and JavaScript write for a diverged run's loss).
bool infinite_cell(std::string_view cell);

// "col=value" -> (col, value); throws InputError otherwise.
std::pair<std::string, std::string> parse_filter(const std::string& text);

}  // namespace scalinglab::fit
