#pragma once
// How a table is read: CSV (any field separator, '.' or ',' as the decimal separator), a JSON table
// or JSON lines (json_table.hpp: experiment trackers' exports). The format follows the file's
// extension unless it is given; every format becomes the same DataTable.
#include <string>

#include "scalinglab/fit/data_table.hpp"

namespace scalinglab::fit {

struct TableFormat {
  // "auto" (by the file name: .json a JSON table, .jsonl or .ndjson JSON lines, anything else CSV),
  // "csv", "json" or "jsonl".
  std::string format = "auto";
  char delimiter = ',';  // CSV: the field separator
  char decimal = '.';    // CSV: the decimal separator, '.' or ',' ("2,71" is 2.71)
};

// The format from the options' text as a user types them: --format (auto, csv, json, jsonl),
// --sep/--delimiter (parse_delimiter: one character or "tab") and --decimal ("." or ","); checked
// by check_table_format. Throws InputError naming the option.
TableFormat table_format(const std::string& format, const std::string& delimiter, const std::string& decimal);

// Refuses, in one sentence naming the option: an unknown format, a field separator that is a
// quote or a line break, a decimal separator other than '.' or ',', and a decimal separator equal
// to the field separator (--decimal ',' needs --sep ';' or another).
void check_table_format(const TableFormat& format);

// "csv", "json" or "jsonl": the format `source` (a file name) is read in. A Parquet or spreadsheet
// file (.parquet, .xlsx, .xls, .ods) is refused with a sentence saying how to convert it.
std::string resolved_format(const std::string& source, const TableFormat& format);

// Reads the file (a regular file, at most kMaxTableBytes: core read_file) in its format. The
// separators apply to CSV; given with a JSON format (other than the defaults) they are refused.
// Contents that are not text (Parquet's, a zip archive's as in .xlsx, gzip's) are refused by what
// they start with, whatever the name.
DataTable read_table(const std::string& path, const TableFormat& format = {});

// The same for text already read (Python passes a file's bytes, or a DataFrame as CSV); `source`
// names it in messages and, for "auto", decides the format by its extension.
DataTable parse_table(const std::string& text, const std::string& source, const TableFormat& format = {});

}  // namespace scalinglab::fit
