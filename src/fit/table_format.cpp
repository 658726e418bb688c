// Choosing how a table file is read, and refusing the files we do not read with how to convert them.
#include "scalinglab/fit/table_format.hpp"

#include <cctype>
#include <filesystem>
#include <string_view>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/fit/json_table.hpp"

namespace scalinglab::fit {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && std::string_view(s).substr(s.size() - tail.size()) == tail;
}

std::string separator_name(char c) { return c == '\t' ? "tab" : "'" + std::string(1, c) + "'"; }

// The file name with its extension replaced, for the conversion shown in a message.
std::string as_csv(const std::string& source) {
  return std::filesystem::path(source).replace_extension(".csv").string();
}

[[noreturn]] void refuse_parquet(const std::string& source) {
  throw InputError(source + ": a Parquet file, which scalinglab does not read; convert it to CSV first, e.g. in Python: "
                   "pandas.read_parquet('" + source + "').to_csv('" + as_csv(source) +
                   "', index=False) (or pass the DataFrame to scalinglab.fit directly)");
}

[[noreturn]] void refuse_workbook(const std::string& source) {
  throw InputError(source + ": a spreadsheet workbook, which scalinglab does not read; save the sheet as CSV (one "
                   "with ';' between fields and decimal commas is read with --sep ';' --decimal ','), or in Python: "
                   "pandas.read_excel('" + source + "').to_csv('" + as_csv(source) + "', index=False)");
}

// What a file's first bytes say it is, whatever its name: formats that are not text.
void refuse_binary(std::string_view text, const std::string& source) {
  if (text.substr(0, 4) == "PAR1") refuse_parquet(source);
  if (text.substr(0, 4) == std::string_view("PK\x03\x04", 4)) refuse_workbook(source);
  if (text.substr(0, 2) == "\x1f\x8b")
    throw InputError(source + ": a compressed (gzip) file; decompress it first (gunzip -k " + source + ")");
}

// A file named as CSV that begins as JSON does ('{' or '[' and then a value or the list's end).
bool looks_like_json(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const std::size_t a = text.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos || (text[a] != '{' && text[a] != '[')) return false;
  const std::size_t b = text.find_first_not_of(" \t\r\n", a + 1);
  return b == std::string_view::npos || std::string_view("{[\"]}").find(text[b]) != std::string_view::npos;
}

}  // namespace

TableFormat table_format(const std::string& format, const std::string& delimiter, const std::string& decimal) {
  TableFormat f;
  f.format = format;
  f.delimiter = parse_delimiter(delimiter);
  f.decimal = parse_decimal(decimal);
  check_table_format(f);
  return f;
}

void check_table_format(const TableFormat& f) {
  if (f.format != "auto" && f.format != "csv" && f.format != "json" && f.format != "jsonl")
    throw InputError("--format '" + f.format + "': give auto (by the file's extension), csv, json or jsonl");
  if (f.delimiter == '"' || f.delimiter == '\n' || f.delimiter == '\r')
    throw InputError("--sep " + separator_name(f.delimiter) + ": one character (',', ';', '|', ...) or 'tab'");
  if (f.decimal != '.' && f.decimal != ',')
    throw InputError("--decimal " + separator_name(f.decimal) + ": the decimal separator is '.' or ','");
  if (f.decimal == f.delimiter)
    throw InputError("--decimal " + separator_name(f.decimal) + " needs a field separator other than " +
                     separator_name(f.delimiter) + " (the numbers would be split at it): give --sep ';' as well");
}

std::string resolved_format(const std::string& source, const TableFormat& f) {
  check_table_format(f);
  const std::string name = lower(source);
  if (ends_with(name, ".parquet") || ends_with(name, ".pq")) refuse_parquet(source);
  if (ends_with(name, ".xlsx") || ends_with(name, ".xls") || ends_with(name, ".ods")) refuse_workbook(source);
  std::string format = f.format;
  if (format == "auto") {
    if (ends_with(name, ".json")) format = "json";
    else if (ends_with(name, ".jsonl") || ends_with(name, ".ndjson")) format = "jsonl";
    else format = "csv";
  }
  if (format != "csv" && (f.delimiter != ',' || f.decimal != '.'))
    throw InputError("--sep and --decimal apply to CSV files, and " + source + " is read as " +
                     (format == "json" ? "a JSON table" : "JSON lines") + "; leave them out");
  return format;
}

DataTable parse_table(const std::string& text, const std::string& source, const TableFormat& f) {
  const std::string format = resolved_format(source, f);
  refuse_binary(text, source);
  if (format == "json") return parse_json_table(text, source);
  if (format == "jsonl") return parse_jsonl_table(text, source);
  if (f.format == "auto" && looks_like_json(text))
    throw InputError(source + " looks like JSON, not CSV: name it .json (a table, or a list of runs) or .jsonl (a run "
                     "per line), or give --format json or --format jsonl");
  DataTable t = parse_csv(text, source, f.delimiter);
  t.decimal = f.decimal;
  return t;
}

DataTable read_table(const std::string& path, const TableFormat& f) {
  // Refused by name before a byte is read: a Parquet file past the size limit gets the sentence
  // that helps, not the limit's.
  const std::string format = resolved_format(path, f);
  return parse_table(read_file(path, kMaxTableBytes, format == "csv" ? "CSV table" : "JSON table"), path, f);
}

}  // namespace scalinglab::fit
