#pragma once
// Aggregated tables built by hand for the check and plot tests: parameters d (int), T (count),
// scheme (choice), P (int, formula allowed); metric "error" with a given mean and std.
#include <map>
#include <string>
#include <vector>

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

}  // namespace scalinglab::testing
