// Aggregation of task results into summary.csv: one row per grid point, mean/std/sem per metric.
#include "scalinglab/results/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/stats.hpp"
#include "scalinglab/core/text_escape.hpp"

namespace scalinglab {

std::size_t Table::metric_index(const std::string& name) const {
  for (std::size_t i = 0; i < metric_names.size(); ++i)
    if (metric_names[i] == name) return i;
  std::string known;
  for (const auto& m : metric_names) known += (known.empty() ? "" : ", ") + m;
  throw InputError("unknown metric '" + name + "' (known: " + known + ")");
}

double Table::metric(const Row& r, const std::string& name) const { return r.mean[metric_index(name)]; }

Table aggregate(const std::vector<GridPoint>& points, const std::vector<TaskResult>& results) {
  Table table;
  auto add_param = [&](const ParamSpec& p) {
    if (p.name == "runs" || p.name == "seed") return;
    if (std::find(table.param_names.begin(), table.param_names.end(), p.name) != table.param_names.end()) return;
    table.param_names.push_back(p.name);
    table.param_specs.push_back(&p);
  };
  const bool parts = !points.empty() && !points.front().part.empty();
  if (parts) add_param(part_param());
  std::vector<const Measure*> measures;
  for (const auto& pt : points)
    if (std::find(measures.begin(), measures.end(), pt.measure) == measures.end()) measures.push_back(pt.measure);
  for (const Measure* measure : measures) {
    for (const auto& p : measure->params) add_param(p);
    for (const auto& m : measure->metrics)
      if (!m.series && std::find(table.metric_names.begin(), table.metric_names.end(), m.name) == table.metric_names.end())
        table.metric_names.push_back(m.name);
  }
  const std::size_t nm = table.metric_names.size();

  // Results are matched to points by key (not by index); each (key, run) counts once, and runs are
  // summed in run order, so the summary does not depend on the order of lines in results.jsonl.
  std::unordered_map<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < points.size(); ++i) by_key.emplace(points[i].key, i);
  std::vector<std::map<uint64_t, const Record*>> runs(points.size());
  for (const auto& r : results)
    if (auto it = by_key.find(r.key); it != by_key.end()) runs[it->second].emplace(r.run, &r.record);
  std::vector<std::vector<Summary>> stats(points.size(), std::vector<Summary>(nm));
  for (std::size_t i = 0; i < points.size(); ++i)
    for (const auto& [run, record] : runs[i])
      for (std::size_t k = 0; k < nm; ++k) {
        double v = std::nan("");  // a missing metric shows as nan rather than vanishing
        for (const auto& [name, x] : record->scalars)
          if (name == table.metric_names[k]) v = x;
        stats[i][k].add(v);
      }
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (runs[i].empty()) continue;
    Table::Row row{points[i].index, points[i].params, {}, {}, {}, runs[i].size(), points[i].key};
    if (parts)  // the part as a parameter of the row, so plots and checks can select and group by it
      row.params.entries_.insert(row.params.entries_.begin(),
                                 Params::Entry{&part_param(), points[i].part, std::nan(""), ""});
    for (const auto& s : stats[i]) {
      row.mean.push_back(s.mean);
      row.std.push_back(s.std());
      row.sem.push_back(s.sem());
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

void write_csv(const Table& table, const std::string& path) {
  // Written next to the target and renamed, so readers never see half a file.
  std::string out;
  {
    std::string header;
    for (const auto& p : table.param_names) header += csv_cell(p) + ",";
    for (const auto& m : table.metric_names)
      header += csv_cell(m) + "," + csv_cell(m + "_std") + "," + csv_cell(m + "_sem") + ",";
    out += header + "count\n";
    for (const auto& row : table.rows) {
      std::string line;
      for (const auto& p : table.param_names)
        line += (row.params.has(p) ? csv_cell(row.params.entry(p).text) : "") + ",";
      for (std::size_t k = 0; k < table.metric_names.size(); ++k)
        line += format_number(row.mean[k]) + "," + format_number(row.std[k]) + "," + format_number(row.sem[k]) + ",";
      out += line + std::to_string(row.count) + "\n";
    }
  }
  write_file(path, out);
}

}  // namespace scalinglab
