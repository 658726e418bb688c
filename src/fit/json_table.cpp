// JSON tables (runs exported by experiment trackers) read into a DataTable.
#include "scalinglab/fit/json_table.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"

namespace scalinglab::fit {

namespace {

// Keys in the file's order: the header follows the runs' own order of their keys.
using Json = nlohmann::ordered_json;
using Event = Json::parse_event_t;

// The most cells (rows x columns, the union of the keys) a JSON table may fill: records with keys
// of their own would otherwise make a small file a table of billions of empty cells.
constexpr std::size_t kMaxJsonCells = std::size_t{1} << 27;

std::string_view without_bom(const std::string& text) {
  std::string_view t(text);
  if (t.substr(0, 3) == "\xEF\xBB\xBF") t.remove_prefix(3);
  return t;
}

// Python's json module writes NaN, Infinity and -Infinity bare, which JSON does not allow. Outside
// strings no JSON token starts with N or I, so each is quoted here and read as the text it is (a
// missing and an infinite cell). The text is copied only when one occurs.
std::string_view quote_bare_constants(std::string_view text, std::string& storage) {
  bool in_string = false, found = false;
  std::size_t copied = 0;  // text[0, copied) is in storage
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    std::size_t n = 0;
    if (c == 'N' && text.substr(i, 3) == "NaN") n = 3;
    else if (c == 'I' && text.substr(i, 8) == "Infinity") n = 8;
    else if (c == '-' && text.substr(i, 9) == "-Infinity") n = 9;
    if (n == 0) continue;
    if (!found) storage.reserve(text.size() + 64);
    found = true;
    storage.append(text.substr(copied, i - copied));
    storage += '"';
    storage.append(text.substr(i, n));
    storage += '"';
    i += n - 1;
    copied = i + 1;
  }
  if (!found) return text;
  storage.append(text.substr(copied));
  return storage;
}

std::string kind_of(const Json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "a list";
  if (v.is_string()) return "text";
  if (v.is_boolean()) return "true or false";
  if (v.is_null()) return "null";
  return "a number";
}

// A name or a cell as shown in a message: cut short, control characters as spaces.
std::string shown(const std::string& text) {
  std::string out = text.size() > 60 ? text.substr(0, 57) + "..." : text;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return out;
}

// The runs as they are read: each cell's column and text, row after row, made a dense table once
// the union of the keys is known.
class TableBuilder {
 public:
  explicit TableBuilder(const std::string& source) : source_(source) {}

  // A run given as an object, at `line` (its line, or its index from 1).
  void add_record(const Json& record, int line) {
    begin_row(line);
    for (const auto& [key, value] : record.items()) add(key, value);
  }

  // A row of wandb.Table's "data", named by its "columns".
  void add_row(const std::vector<std::string>& columns, const Json& row, int line) {
    if (row.size() != columns.size())
      throw InputError(source_ + ": row " + std::to_string(line) + " of \"data\" has " + std::to_string(row.size()) +
                       " values, but \"columns\" names " + std::to_string(columns.size()));
    begin_row(line);
    for (std::size_t k = 0; k < columns.size(); ++k) add(columns[k], row[k]);
  }

  std::size_t rows() const { return lines_.size(); }

  DataTable finish() {
    DataTable t;
    t.source = source_;
    t.names = names_;
    t.lines = lines_;
    const std::size_t columns = names_.size();
    if (columns > 0 && rows() > kMaxJsonCells / columns)
      throw InputError(source_ + ": " + std::to_string(rows()) + " rows and " + std::to_string(columns) +
                       " columns (the union of the runs' keys) are more than the " + std::to_string(kMaxJsonCells) +
                       " cells a table we read may have; keep the keys to fit when exporting");
    t.text.reserve(text_.size());
    t.ends.reserve(rows() * columns);
    std::vector<std::string_view> row(columns);
    for (std::size_t r = 0; r < rows(); ++r) {
      std::fill(row.begin(), row.end(), std::string_view());
      const std::size_t last = r + 1 < rows() ? row_begin_[r + 1] : cells_.size();
      for (std::size_t k = row_begin_[r]; k < last; ++k) {
        const std::size_t begin = k ? cells_[k - 1].end : 0;
        row[cells_[k].column] = std::string_view(text_).substr(begin, cells_[k].end - begin);
      }
      for (const std::string_view cell : row) {
        t.text.append(cell);
        t.ends.push_back(t.text.size());
      }
    }
    return t;
  }

 private:
  struct Cell {
    std::size_t column, end;
  };

  void begin_row(int line) {
    lines_.push_back(line);
    row_begin_.push_back(cells_.size());
  }

  // A value under its column's name; an object's members under NAME.KEY.
  void add(const std::string& name, const Json& value) {
    if (value.is_object()) {
      for (const auto& [key, member] : value.items()) add(name + "." + key, member);
      return;
    }
    const auto [it, fresh] = index_.emplace(name, names_.size());
    if (fresh) {
      names_.push_back(name);
      row_of_.push_back(0);
    }
    const std::size_t column = it->second;
    if (row_of_[column] == rows())
      throw InputError(source_ + ":" + std::to_string(lines_.back()) + ": two values for column '" + shown(name) +
                       "' (a key with a dot and a nested object name the same column)");
    row_of_[column] = rows();
    if (value.is_string()) text_ += value.get_ref<const std::string&>();
    else if (value.is_boolean()) text_ += value.get<bool>() ? "true" : "false";
    else if (!value.is_null()) text_ += value.dump();  // numbers: shortest round-trip text; lists: JSON
    cells_.push_back({column, text_.size()});
  }

  std::string source_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::size_t> row_of_;  // the row (from 1) that last filled each column
  std::vector<int> lines_;
  std::vector<std::size_t> row_begin_;
  std::vector<Cell> cells_;
  std::string text_;
};

// Where the parser stopped, as a line of `text` (byte counted from 1).
int line_of(std::string_view text, std::size_t byte) {
  int line = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

const char* const kForms =
    "a JSON table is {\"columns\": [...], \"data\": [[...], ...]} (a wandb.Table), a list of objects, one per run "
    "(pandas: to_json(orient=\"records\")), or one object per line in a .jsonl file";

}  // namespace

DataTable parse_json_table(const std::string& input, const std::string& source) {
  std::string storage;
  const std::string_view text = quote_bare_constants(without_bom(input), storage);
  TableBuilder table(source);
  enum class Top { unknown, records, object } top = Top::unknown;
  std::string key;  // the key of the top-level object being read
  std::optional<std::vector<std::string>> columns;
  bool has_data = false, pending = false;
  int row = 0;
  // Runs are taken as the parser finishes each one and then dropped from the document, so a large
  // file is never held as a whole tree of values.
  auto take = [&](int depth, Event event, Json& parsed) -> bool {
    if (depth > kMaxJsonDepth) throw JsonTooDeep{};
    if (depth == 0) {
      if (event == Event::array_start) top = Top::records;
      else if (event == Event::object_start) top = Top::object;
      return true;
    }
    if (top == Top::records && depth == 1) {
      if (event == Event::object_start || event == Event::array_start) return true;
      ++row;
      if (event != Event::object_end)
        throw InputError(source + ": item " + std::to_string(row) + " of the list is " + kind_of(parsed) +
                         ", not an object (one run's values by name)");
      table.add_record(parsed, row);
      return false;
    }
    if (top != Top::object) return true;
    if (depth == 1 && event == Event::key) {
      key = parsed.get<std::string>();
      has_data = has_data || key == "data";
      return true;
    }
    if (depth == 1 && key == "columns" && event == Event::array_end) {
      columns.emplace();
      std::unordered_map<std::string, std::size_t> seen;
      for (const auto& name : parsed) {
        if (!name.is_string()) throw InputError(source + ": \"columns\" holds " + kind_of(name) + ", not only names");
        const auto [at, fresh] = seen.emplace(name.get<std::string>(), columns->size());
        if (!fresh)
          throw InputError(source + ": \"columns\" names column '" + shown(name.get<std::string>()) + "' twice (" +
                           std::to_string(at->second + 1) + " and " + std::to_string(columns->size() + 1) +
                           "): which one is meant would be a guess");
        columns->push_back(name.get<std::string>());
      }
      return true;
    }
    if (depth == 2 && key == "data") {
      if (event == Event::object_start || event == Event::array_start) return true;
      ++row;
      if (event == Event::object_end) {
        table.add_record(parsed, row);
        return false;
      }
      if (event == Event::array_end) {
        if (!columns) {  // "data" before "columns": kept until the names are known
          pending = true;
          return true;
        }
        table.add_row(*columns, parsed, row);
        return false;
      }
      throw InputError(source + ": row " + std::to_string(row) + " of \"data\" is " + kind_of(parsed) +
                       ", not a list of values");
    }
    return true;
  };
  Json document;
  try {
    document = Json::parse(text.begin(), text.end(), take);
  } catch (const JsonTooDeep&) {
    throw InputError(source + ": not a table we read (JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels)");
  } catch (const Json::parse_error& e) {
    // One run per line read as a whole file stops at the second line: say which format it is.
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    const bool lines = first != std::string_view::npos && text[first] == '{' && line_of(text, e.byte) > line_of(text, first + 1);
    throw InputError(source + " is not JSON (it stops being JSON on line " + std::to_string(line_of(text, e.byte)) + ")" +
                     (lines ? "; if it holds one object per line, read it as JSON lines (name it .jsonl, or give "
                              "--format jsonl)"
                            : ""));
  } catch (const Json::exception&) {
    throw InputError(source + " is not JSON we read (a number beyond the range of a double?)");
  }
  if (top == Top::unknown || (top == Top::object && !has_data))
    throw InputError(source + ": not a table we read; " + kForms);
  if (pending) {
    if (!columns) throw InputError(source + ": \"data\" holds rows of values but no \"columns\" names them");
    int index = 0;
    for (const auto& values : document["data"]) {
      ++index;
      if (values.is_array()) table.add_row(*columns, values, index);
    }
  }
  if (table.rows() == 0) throw InputError(source + ": no runs (an empty table)");
  return table.finish();
}

DataTable parse_jsonl_table(const std::string& input, const std::string& source) {
  std::string storage;
  const std::string_view text = quote_bare_constants(without_bom(input), storage);
  TableBuilder table(source);
  auto bounded = [](int depth, Event, Json&) {
    if (depth > kMaxJsonDepth) throw JsonTooDeep{};
    return true;
  };
  int line = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view one = text.substr(begin, end - begin);
    begin = end + 1;
    ++line;
    if (one.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string at = source + ":" + std::to_string(line);
    Json record;
    try {
      record = Json::parse(one.begin(), one.end(), bounded);
    } catch (const JsonTooDeep&) {
      throw InputError(at + ": not a run we read (JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels)");
    } catch (const Json::parse_error& e) {
      throw InputError(at + ": not a JSON object (it stops being JSON at byte " + std::to_string(e.byte) +
                       " of the line; JSON lines hold one run per line)");
    } catch (const Json::exception&) {
      throw InputError(at + ": not JSON we read (a number beyond the range of a double?)");
    }
    if (!record.is_object())
      throw InputError(at + ": " + kind_of(record) + ", not an object (one run's values by name)");
    table.add_record(record, line);
  }
  if (table.rows() == 0) throw InputError(source + ": no runs (an empty file)");
  return table.finish();
}

}  // namespace scalinglab::fit
