// results.jsonl (round trip, cut-off last line, concurrent appends), aggregation and summary.csv.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "scalinglab/core/error.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("scalinglab-results-" + std::to_string(::getpid()) + "-" + name);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TaskResult task(std::size_t point, uint64_t run, double value) {
  TaskResult t;
  t.point = point;
  t.key = "N=" + std::to_string(point);
  t.run = run;
  t.params = {{"N", point}, {"seed", 0}};
  t.record.set("value", value);
  return t;
}

}  // namespace

TEST(ResultsFile, RoundTripIsBitExactWithInfNanAndSeries) {
  TaskResult t = task(3, 7, 0.1 + 0.2);
  t.record.set("third", 1.0 / 3.0);
  t.record.set("big", INFINITY);
  t.record.set("bad", NAN);
  t.record.set_series("curve", {1e-300, -INFINITY, 2.5});
  t.seconds = 0.25;
  const std::string line = task_to_json(t).dump();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const TaskResult u = task_from_json(nlohmann::json::parse(line));
  EXPECT_EQ(u.point, 3u);
  EXPECT_EQ(u.key, "N=3");
  EXPECT_EQ(u.run, 7u);
  EXPECT_EQ(u.params, t.params);
  EXPECT_EQ(u.record.get("value"), 0.1 + 0.2);  // exact, not approximately
  EXPECT_EQ(u.record.get("third"), 1.0 / 3.0);
  EXPECT_EQ(u.record.get("big"), INFINITY);
  EXPECT_TRUE(std::isnan(u.record.get("bad")));
  ASSERT_EQ(u.record.series.size(), 1u);
  EXPECT_EQ(u.record.series[0].second, (std::vector<double>{1e-300, -INFINITY, 2.5}));
  EXPECT_EQ(u.seconds, 0.25);
  EXPECT_THROW(task_from_json(nlohmann::json{{"point", 1}}), InputError);
}

TEST(ResultsFile, ReaderDropsACutOffLastLineOnly) {
  const fs::path p = temp_file("cut.jsonl");
  const std::string a = task_to_json(task(0, 0, 1.5)).dump(), b = task_to_json(task(0, 1, 2.5)).dump();
  std::ofstream(p) << a << "\n" << b << "\n" << b.substr(0, b.size() / 2);
  auto r = read_results(p.string());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].record.get("value"), 2.5);

  std::ofstream(p) << a << "\n" << a.substr(0, 10) << "\n" << b << "\n";  // damage inside: an error
  try {
    read_results(p.string());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(p.string() + ":2"), std::string::npos) << e.what();
  }
  fs::remove(p);
  EXPECT_TRUE(read_results(p.string()).empty());  // missing file: nothing done yet
}

TEST(ResultsFile, WriterTruncatesACutOffLineBeforeAppending) {
  const fs::path p = temp_file("writer.jsonl");
  const std::string a = task_to_json(task(0, 0, 1.5)).dump();
  std::ofstream(p) << a << "\n" << a.substr(0, 20);
  {
    ResultsWriter w(p.string());
    w.append(task(1, 0, 3.5));
  }
  EXPECT_EQ(slurp(p), a + "\n" + task_to_json(task(1, 0, 3.5)).dump() + "\n");

  std::ofstream(p) << a;  // complete but unterminated: kept, and terminated
  { ResultsWriter w(p.string()); }
  EXPECT_EQ(slurp(p), a + "\n");
  fs::remove(p);
}

TEST(ResultsFile, ConcurrentAppendsStayWholeLines) {
  const fs::path p = temp_file("threads.jsonl");
  {
    ResultsWriter w(p.string());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) w.append(task(static_cast<std::size_t>(t), static_cast<uint64_t>(i), i * 0.5));
      });
    for (auto& t : threads) t.join();
  }
  EXPECT_EQ(read_results(p.string()).size(), 200u);
  fs::remove(p);
  EXPECT_THROW(ResultsWriter("/nonexistent-dir/results.jsonl"), InputError);
}

TEST(ResultsAggregate, MeanStdSemCountPerPointInGridOrder) {
  Measure m;
  m.name = "toy.agg";
  m.params = {int_param("N", "1", ""), count_param("T", "inf", "")};
  m.metrics = {{"value", ""}, {"curve", "", true}};
  std::vector<GridPoint> points;
  for (std::size_t i = 0; i < 3; ++i) {
    Params p = resolve_params(m.params, {{"N", std::to_string(i + 1)}}, "test");
    points.push_back({i, p, "N=" + std::to_string(i), &m, ""});
  }
  const std::vector<TaskResult> results = {task(1, 0, 1.0), task(1, 1, 3.0), task(0, 0, 5.0),
                                           task(1, 1, 99.0),   // duplicate run: counted once
                                           task(7, 0, 1.0)};  // not a point of this grid
  const Table t = aggregate(points, results);
  EXPECT_EQ(t.param_names, (std::vector<std::string>{"N", "T"}));
  EXPECT_EQ(t.metric_names, (std::vector<std::string>{"value"}));
  ASSERT_EQ(t.rows.size(), 2u);  // point 2 has no result
  EXPECT_EQ(t.rows[0].point, 0u);
  EXPECT_EQ(t.rows[0].count, 1u);
  EXPECT_EQ(t.rows[0].std[0], 0.0);
  EXPECT_EQ(t.rows[1].count, 2u);
  EXPECT_DOUBLE_EQ(t.metric(t.rows[1], "value"), 2.0);
  EXPECT_DOUBLE_EQ(t.rows[1].std[0], std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(t.rows[1].sem[0], 1.0);
  EXPECT_THROW(t.metric_index("nope"), InputError);

  const fs::path csv = temp_file("summary.csv");
  write_csv(t, csv.string());
  EXPECT_EQ(slurp(csv), "N,T,value,value_std,value_sem,count\n1,inf,5,0,0,1\n2,inf,2,1.4142135623730951,1,2\n");
  fs::remove(csv);
}

// Text parameters reach summary.csv quoted (RFC 4180) and, when a spreadsheet would take them for a
// formula, prefixed with a quote; numbers (-1.5, -inf) as they are. The fitters' reader reads it.
TEST(ResultsAggregate, SummaryCsvQuotesTextCellsAndMakesFormulasInert) {
  Measure m;
  m.name = "toy.text";
  m.params = {text_param("label", "x", "", [](const std::string&) {}), real_param("shift", "0", "")};
  m.metrics = {{"value", ""}};
  const std::vector<std::pair<std::string, std::string>> given = {
      {"=1+2,lean", "-1.5"}, {"w,x<b>", "-inf"}, {"say \"hi\"\nthere", "2"}, {"-cmd", "0"}};
  std::vector<GridPoint> points;
  std::vector<TaskResult> results;
  for (std::size_t i = 0; i < given.size(); ++i) {
    points.push_back({i, resolve_params(m.params, {{"label", given[i].first}, {"shift", given[i].second}}, "test"),
                      "N=" + std::to_string(i), &m, ""});
    results.push_back(task(i, 0, 1.0));
  }
  const fs::path csv = temp_file("text-summary.csv");
  write_csv(aggregate(points, results), csv.string());
  const std::string text = slurp(csv);
  EXPECT_EQ(text.find(",="), std::string::npos) << text;
  EXPECT_EQ(text.find("\n="), std::string::npos) << text;
  const fit::DataTable t = fit::read_csv(csv.string());  // refuses a row whose field count differs
  ASSERT_EQ(t.rows(), given.size());
  ASSERT_EQ(t.names, (std::vector<std::string>{"label", "shift", "value", "value_std", "value_sem", "count"}));
  const std::vector<std::string> labels = {"'=1+2,lean", "w,x<b>", "say \"hi\"\nthere", "'-cmd"};
  for (std::size_t r = 0; r < given.size(); ++r) {
    EXPECT_EQ(t.cell(r, 0), labels[r]) << r;
    EXPECT_EQ(t.cell(r, 1), given[r].second) << r;  // numbers untouched
  }
  fs::remove(csv);
}

// A line nested 10^5 levels deep is a malformed line with a sentence, not a stack overflow.
TEST(Results, DeeplyNestedLinesAreRefused) {
  const fs::path path = temp_file("deep.jsonl");
  {
    std::ofstream out(path);
    out << std::string(100000, '[') << std::string(100000, ']') << "\n{\"point\": 0}\n";
  }
  try {
    read_results(path.string());
    ADD_FAILURE() << "a 10^5-deep line was accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("deep.jsonl:1:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nested deeper than 64 levels"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
  }
  fs::remove(path);
}
