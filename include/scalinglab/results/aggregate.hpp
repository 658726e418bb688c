#pragma once
// Aggregation of task results into one row per grid point: parameters, then for each scalar
// metric m the columns m, m_std, m_sem, and a final `count` (runs present for that point).
// A multi-part sweep gives one table: the column `part` first, then the union of the parts'
// parameters and metrics (a part's row leaves a parameter it lacks empty and a metric NaN).
#include <string>
#include <vector>

#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

struct Table {
  std::vector<std::string> param_names;   // every parameter of the measure(s) except runs/seed
  std::vector<const ParamSpec*> param_specs;  // their declarations (types), same order
  std::vector<std::string> metric_names;  // scalar metrics
  struct Row {
    std::size_t point;
    Params params;
    std::vector<double> mean, std, sem;  // per metric
    std::size_t count = 0;
    std::string key;  // the grid point's key (GridPoint::key): its runs' records in results.jsonl
  };
  std::vector<Row> rows;  // in grid order; points with no results are omitted

  double metric(const Row& r, const std::string& name) const;  // mean; throws InputError if unknown
  std::size_t metric_index(const std::string& name) const;
};

// Rows in point order; each point is summarised with its own measure (GridPoint::measure).
Table aggregate(const std::vector<GridPoint>& points, const std::vector<TaskResult>& results);

// Writes the table as CSV (header + one row per point; inf as "inf", text quoted when needed).
void write_csv(const Table& table, const std::string& path);

}  // namespace scalinglab
