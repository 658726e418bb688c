#pragma once
// Aggregated tables built by hand for the check and plot tests: parameters d (int), T (count),
// scheme (choice), P (int, formula allowed); metric "error" with a given mean and std.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "scalinglab/claims/check.hpp"
#include "scalinglab/results/aggregate.hpp"

namespace scalinglab::testing {

inline const std::vector<ParamSpec>& hand_specs() {
  static const std::vector<ParamSpec> specs = {
      int_param("d", "8", "memory size"),
      count_param("T", "inf", "data"),
      choice_param("scheme", "q0", {"q0", "q1"}, "scheme"),
      int_param("P", "d/8", "stored inputs", 0).allow_expression(),
  };
  return specs;
}

class HandTable {
 public:
  HandTable() {
    table.param_names = {"d", "T", "scheme", "P"};
    table.metric_names = {"error"};
  }
  // Adds a row; `params` are "name=value" texts resolved like a sweep would.
  HandTable& add(std::map<std::string, std::string> params, double error, double std = 0) {
    Table::Row row;
    row.point = table.rows.size();
    row.params = resolve_params(hand_specs(), params, "hand table");
    row.mean = {error};
    row.std = {std};
    row.sem = {std / 2};
    row.count = 4;
    table.rows.push_back(std::move(row));
    return *this;
  }
  Table table;
};

// A sweep over the hand table's d and T that holds `check` alone.
inline Sweep sweep_with(CheckSpec check) {
  Sweep s;
  s.name = "test";
  s.grid.resize(2);
  s.grid[0].name = "d";
  s.grid[1].name = "T";
  check.claim = "claim";
  s.checks.push_back(std::move(check));
  return s;
}

// The verdict of `check` on `table` (with the runs' records where the check reads curves).
inline CheckResult judge(const Table& table, CheckSpec check, const std::vector<TaskResult>* results = nullptr) {
  auto verdicts = evaluate_checks(sweep_with(std::move(check)), table, results);
  if (verdicts.size() != 1) throw std::logic_error("one check gave " + std::to_string(verdicts.size()) + " verdicts");
  return std::move(verdicts.front());
}

}  // namespace scalinglab::testing
