// Experiment trackers' exports as tables: wandb.Table's JSON, a list of runs, JSON lines; nested
// objects flattened with dots, missing keys as missing cells, and the bad cases refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/json_table.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

template <class F>
std::string json_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every cell of a column as text.
std::vector<std::string> cells(const DataTable& t, const std::string& column) {
  std::size_t j = 0;
  while (j < t.names.size() && t.names[j] != column) ++j;
  EXPECT_LT(j, t.names.size()) << column;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.rows() && j < t.names.size(); ++i) out.emplace_back(t.cell(i, j));
  return out;
}

}  // namespace

TEST(JsonTable, WandbTableForm) {
  const DataTable t = parse_json_table(
      R"({"_type": "table", "columns": ["N", "D", "loss", "config"],
          "data": [[1e8, 2e9, 3.1, {"lr": 0.001}], [200000000, 2e9, null, {"lr": 0.002, "wd": 0.1}]],
          "ncols": 4, "nrows": 2})",
      "table.json");
  EXPECT_EQ(t.names, (std::vector<std::string>{"N", "D", "loss", "config.lr", "config.wd"}));
  EXPECT_EQ(t.lines, (std::vector<int>{1, 2}));
  EXPECT_EQ(t.numbers("N"), (std::vector<double>{1e8, 2e8}));
  EXPECT_EQ(cells(t, "loss"), (std::vector<std::string>{"3.1", ""}));
  EXPECT_EQ(cells(t, "config.lr"), (std::vector<std::string>{"0.001", "0.002"}));
  EXPECT_EQ(cells(t, "config.wd"), (std::vector<std::string>{"", "0.1"}));
  // "data" before "columns" (hand-written files) reads the same.
  const DataTable late = parse_json_table(R"({"data": [[1, "a"], [2, "b"]], "columns": ["N", "name"]})", "late.json");
  EXPECT_EQ(cells(late, "name"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(late.lines, (std::vector<int>{1, 2}));
}

// One object per run, nested config and summary flattened; the header is the union of the keys in
// the order first seen; values as text (numbers read back exactly).
TEST(JsonTable, ListOfRunsFlattensNestedObjects) {
  const DataTable t = parse_json_table(
      R"([{"name": "a", "config": {"N": 1e8, "opt": {"lr": 1e-3}}, "summary": {"loss": 2.1}},
          {"name": "b", "config": {"N": 2e8}, "summary": {"loss": 0.30000000000000004, "acc": 0.5},
           "done": true, "tags": ["x", "y"], "note": null}])",
      "runs.json");
  EXPECT_EQ(t.names, (std::vector<std::string>{"name", "config.N", "config.opt.lr", "summary.loss", "summary.acc",
                                               "done", "tags", "note"}));
  EXPECT_EQ(cells(t, "config.opt.lr"), (std::vector<std::string>{"0.001", ""}));
  EXPECT_EQ(cells(t, "summary.acc"), (std::vector<std::string>{"", "0.5"}));
  EXPECT_EQ(cells(t, "done"), (std::vector<std::string>{"", "true"}));
  EXPECT_EQ(cells(t, "tags"), (std::vector<std::string>{"", R"(["x","y"])"}));
  EXPECT_EQ(t.numbers("summary.loss"), (std::vector<double>{2.1, 0.1 + 0.2}));
  EXPECT_EQ(t.numbers("config.N"), (std::vector<double>{1e8, 2e8}));
  // pandas' orient="table": the runs under "data".
  const DataTable p = parse_json_table(
      R"({"schema": {"fields": [{"name": "N"}], "primaryKey": ["index"]}, "data": [{"index": 0, "N": 1e8, "loss": 3}]})",
      "pandas.json");
  EXPECT_EQ(p.names, (std::vector<std::string>{"index", "N", "loss"}));
}

// JSON lines: a row's line is its line in the file; NaN and Infinity as Python's json writes them
// (bare) are a missing and an infinite value, which --drop-missing counts.
TEST(JsonTable, JsonLinesWithBareNaNAndInfinity) {
  const DataTable t = parse_jsonl_table(
      "{\"N\": 1e8, \"D\": 2e9, \"loss\": 3.1}\n"
      "\n"
      "{\"N\": 2e8, \"loss\": NaN, \"D\": 2e9}\r\n"
      "{\"N\": 3e8, \"D\": 4e9, \"loss\": Infinity, \"note\": \"a NaN, Infinity \\\" -Infinity\"}\n"
      "{\"N\": 4e8, \"D\": 4e9, \"loss\": 2.8}\n"
      "{\"N\": 5e8, \"D\": 8e9, \"loss\": -Infinity}",
      "runs.jsonl");
  EXPECT_EQ(t.names, (std::vector<std::string>{"N", "D", "loss", "note"}));
  EXPECT_EQ(t.lines, (std::vector<int>{1, 3, 4, 5, 6}));
  EXPECT_EQ(cells(t, "loss"), (std::vector<std::string>{"3.1", "NaN", "Infinity", "2.8", "-Infinity"}));
  EXPECT_EQ(cells(t, "note")[2], "a NaN, Infinity \" -Infinity");  // strings untouched
  ColumnChoice c;
  c.N = "N";
  c.D = "D";
  const std::string msg = json_error_of([&] { choose_columns(t, c, false); });
  EXPECT_TRUE(says(msg, "runs.jsonl:3: column 'loss' has no value")) << msg;
  c.drop_missing = true;
  const FitColumns f = choose_columns(t, c, false);
  EXPECT_EQ(f.missing_dropped, 1u);
  EXPECT_EQ(f.infinite_dropped, 2u);
  EXPECT_EQ(f.lines, (std::vector<int>{1, 5}));
}

TEST(JsonTable, BadFilesAreRefusedNamingWhere) {
  // pandas' default orient ("columns") and other shapes: the forms we read are named.
  std::string msg = json_error_of([] { parse_json_table(R"({"N": {"0": 1e8}, "loss": {"0": 3}})", "p.json"); });
  EXPECT_TRUE(says(msg, "orient=\"records\"")) << msg;
  EXPECT_TRUE(says(json_error_of([] { parse_json_table("3", "p.json"); }), "not a table we read"));
  msg = json_error_of([] { parse_json_table(R"([{"N": 1}, 2])", "p.json"); });
  EXPECT_TRUE(says(msg, "item 2 of the list is a number")) << msg;
  msg = json_error_of([] { parse_json_table(R"({"columns": ["N", "loss"], "data": [[1, 2], [3]]})", "w.json"); });
  EXPECT_TRUE(says(msg, "row 2 of \"data\" has 1 values, but \"columns\" names 2")) << msg;
  msg = json_error_of([] { parse_json_table(R"({"columns": ["N", "N"], "data": []})", "w.json"); });
  EXPECT_TRUE(says(msg, "names column 'N' twice")) << msg;
  EXPECT_TRUE(says(json_error_of([] { parse_json_table("[]", "e.json"); }), "no runs"));
  msg = json_error_of([] { parse_json_table(R"([{"a.b": 1, "a": {"b": 2}}])", "d.json"); });
  EXPECT_TRUE(says(msg, "d.json:1: two values for column 'a.b'")) << msg;
  // Runs one per line in a .json file: the message names JSON lines.
  msg = json_error_of([] { parse_json_table("{\"N\": 1}\n{\"N\": 2}\n", "lines.json"); });
  EXPECT_TRUE(says(msg, "stops being JSON on line 2")) << msg;
  EXPECT_TRUE(says(msg, "--format jsonl")) << msg;
  msg = json_error_of([] { parse_jsonl_table("{\"N\": 1}\n{\"N\": 2,\n", "runs.jsonl"); });
  EXPECT_TRUE(says(msg, "runs.jsonl:2: not a JSON object")) << msg;
  msg = json_error_of([] { parse_jsonl_table("{\"N\": 1}\n[1, 2]\n", "runs.jsonl"); });
  EXPECT_TRUE(says(msg, "runs.jsonl:2: a list, not an object")) << msg;
  EXPECT_TRUE(says(json_error_of([] { parse_jsonl_table("\n \n", "e.jsonl"); }), "no runs"));
  // Nesting is bounded before anything deep is built, in both forms.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRUE(says(json_error_of([&] { parse_json_table(deep, "deep.json"); }), "nested deeper than 64"));
  EXPECT_TRUE(says(json_error_of([&] { parse_jsonl_table("{\"a\": " + deep + "}", "deep.jsonl"); }),
                   "nested deeper than 64"));
  // Runs with keys of their own would make a table of billions of empty cells.
  std::string wide;
  for (int i = 0; i < 12000; ++i) wide += "{\"k" + std::to_string(i) + "\": 1}\n";
  msg = json_error_of([&] { parse_jsonl_table(wide, "wide.jsonl"); });
  EXPECT_TRUE(says(msg, "12000 rows and 12000 columns")) << msg;
}
