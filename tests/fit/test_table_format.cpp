// How a table is read: decimal commas and other separators, the format by the file's name, and the
// files we do not read refused with how to convert them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/table_format.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

template <class F>
std::string format_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TableFormat european() {
  TableFormat f;
  f.delimiter = ';';
  f.decimal = ',';
  return f;
}

}  // namespace

// A European spreadsheet's export: ';' between fields, ',' as the decimal point. The numbers are
// the ones written, to the last bit.
TEST(TableFormat, SemicolonsAndDecimalCommas) {
  const DataTable t = parse_table("N;D;loss\n1,5e8;3e9;2,71\n2,5E8;6e9;2,5\n-0,125;1;+3\n", "eu.csv", european());
  EXPECT_EQ(t.numbers("N"), (std::vector<double>{1.5e8, 2.5e8, -0.125}));
  EXPECT_EQ(t.numbers("D"), (std::vector<double>{3e9, 6e9, 1}));
  EXPECT_EQ(t.numbers("loss"), (std::vector<double>{2.71, 2.5, 3}));
  // An equality filter takes either way of writing the number.
  EXPECT_EQ(t.where({{"loss", "2,71"}}).rows(), 1u);
  EXPECT_EQ(t.where({{"loss", "2.71"}}).rows(), 1u);
  // A '.' in a file of decimal commas is refused (a thousands separator would be read 1000x off).
  const DataTable dots = parse_table("N;loss\n1.500,5;2,71\n", "eu.csv", european());
  const std::string msg = format_error_of([&] { dots.numbers("N"); });
  EXPECT_TRUE(mentions(msg, "eu.csv:2")) << msg;
  EXPECT_TRUE(mentions(msg, "thousands separator")) << msg;
  const DataTable point = parse_table("N;loss\n1e8;2.71\n", "eu.csv", european());
  EXPECT_THROW(point.numbers("loss"), InputError);
  // A decimal comma read as '.' names the option that reads it.
  const DataTable semi = parse_table("N;loss\n1e8;2,71\n", "eu.csv", table_format("auto", ";", "."));
  const std::string hint = format_error_of([&] { semi.numbers("loss"); });
  EXPECT_TRUE(mentions(hint, "--decimal ','")) << hint;
}

TEST(TableFormat, DecimalCommaNeedsAnotherFieldSeparator) {
  const std::string msg = format_error_of([] { table_format("auto", ",", ","); });
  EXPECT_TRUE(mentions(msg, "--decimal ',' needs a field separator other than ','")) << msg;
  EXPECT_TRUE(mentions(msg, "--sep ';'")) << msg;
  EXPECT_THROW(table_format("auto", ";", "x"), InputError);
  EXPECT_THROW(table_format("auto", ".", "."), InputError);
  EXPECT_THROW(table_format("xml", ",", "."), InputError);
  EXPECT_EQ(table_format("csv", "tab", ",").delimiter, '\t');
  EXPECT_EQ(parse_decimal(","), ',');
  EXPECT_THROW(parse_decimal(""), InputError);
}

// A semicolon file read with the default ',' is one column; the message says what reads it.
TEST(TableFormat, SemicolonFileReadWithCommasSaysHowToReadIt) {
  std::string msg = format_error_of([] { parse_table("N;D;loss\n1,5e8;3e9;2,71\n", "eu.csv"); });
  EXPECT_TRUE(mentions(msg, "eu.csv:1")) << msg;
  EXPECT_TRUE(mentions(msg, "--sep ';' --decimal ','")) << msg;
  msg = format_error_of([] { parse_csv("N;D;loss\n1e8;3e9;2.5\n", "plain.csv"); });
  EXPECT_TRUE(mentions(msg, "--sep ';'")) << msg;
  EXPECT_FALSE(mentions(msg, "--decimal")) << msg;  // no commas in its numbers
  msg = format_error_of([] { parse_csv("N\tloss\n1e8\t2.5\n", "t.csv"); });
  EXPECT_TRUE(mentions(msg, "--sep tab")) << msg;
  // A real one-column file and a file read with its own separator are not refused.
  EXPECT_EQ(parse_csv("loss\n2.5\n", "t.csv").rows(), 1u);
  EXPECT_EQ(parse_table("N;loss\n1e8;2,5\n", "t.csv", european()).rows(), 1u);
}

TEST(TableFormat, FormatFollowsTheFileName) {
  EXPECT_EQ(resolved_format("runs.json", {}), "json");
  EXPECT_EQ(resolved_format("RUNS.JSON", {}), "json");
  EXPECT_EQ(resolved_format("runs.jsonl", {}), "jsonl");
  EXPECT_EQ(resolved_format("runs.ndjson", {}), "jsonl");
  EXPECT_EQ(resolved_format("runs.csv", {}), "csv");
  EXPECT_EQ(resolved_format("runs.txt", {}), "csv");
  TableFormat jsonl;
  jsonl.format = "jsonl";
  EXPECT_EQ(resolved_format("runs.txt", jsonl), "jsonl");
  EXPECT_EQ(parse_table("{\"N\": 1e8, \"loss\": 3}\n", "runs.txt", jsonl).numbers("N").at(0), 1e8);
  // Separators are for CSV.
  TableFormat semi;
  semi.delimiter = ';';
  EXPECT_TRUE(mentions(format_error_of([&] { resolved_format("runs.jsonl", semi); }), "apply to CSV files"));
  // JSON under another name is not read as a CSV with a strange header.
  const std::string msg = format_error_of([] { parse_table("[{\"N\": 1}]", "runs.txt"); });
  EXPECT_TRUE(mentions(msg, "--format json")) << msg;
  TableFormat csv;
  csv.format = "csv";  // unless asked for
  EXPECT_NO_THROW(parse_table("{a},loss\n1,2\n", "t.txt", csv));
}

// Parquet (no maintained C++ reader on Debian 12) is refused with how to convert it, by its name
// before any byte is read, or by its first bytes.
TEST(TableFormat, ParquetIsRefusedWithHowToConvertIt) {
  const std::string by_name = format_error_of([] { read_table("no-such-dir/runs.parquet"); });
  EXPECT_TRUE(mentions(by_name, "a Parquet file, which scalinglab does not read")) << by_name;
  EXPECT_TRUE(mentions(by_name, "pandas.read_parquet('no-such-dir/runs.parquet').to_csv('no-such-dir/runs.csv', "
                                "index=False)"))
      << by_name;
  EXPECT_TRUE(mentions(by_name, "scalinglab.fit")) << by_name;
  const std::string by_bytes = format_error_of([] { parse_table(std::string("PAR1\x15\x04\x15", 7), "runs.csv"); });
  EXPECT_TRUE(mentions(by_bytes, "a Parquet file")) << by_bytes;
  EXPECT_TRUE(mentions(format_error_of([] { read_table("runs.xlsx"); }), "pandas.read_excel"));
  EXPECT_TRUE(mentions(format_error_of([] { parse_table("\x1f\x8b\x08", "runs.csv.gz"); }), "gunzip"));
}

// read_table reads the file as read_csv does (a regular file, bounded), in each format.
TEST(TableFormat, ReadsFilesInEachFormat) {
  const auto dir = std::filesystem::temp_directory_path() / ("scalinglab-table-format-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  };
  EXPECT_EQ(read_table(write("eu.csv", "N;loss\n1,5e8;2,71\n"), european()).numbers("loss"), std::vector<double>{2.71});
  EXPECT_EQ(read_table(write("runs.jsonl", "{\"N\": 1.5e8, \"loss\": 2.71}\n")).numbers("loss"), std::vector<double>{2.71});
  EXPECT_EQ(read_table(write("runs.json", "[{\"N\": 1.5e8, \"loss\": 2.71}]")).numbers("N"), std::vector<double>{1.5e8});
  EXPECT_THROW(read_table((dir / "absent.json").string()), InputError);
  EXPECT_THROW(read_table(dir.string()), InputError);  // a folder
  std::filesystem::remove_all(dir);
}
