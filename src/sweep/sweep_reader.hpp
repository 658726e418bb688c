#pragma once
// Reading a sweep file's TOML, internal to src/sweep/. SweepReader holds the file's name (every error
// names file, line, column and key) and the measure the file's names are checked against; its
// members are defined in the file of the part of the sweep they read:
//   sweep_reader.cpp    scalars, parameter and metric names, where-selections, formulas
//   sweep_settings.cpp  [params], [grid] (linked axes) and [[part]]: how settings replace each other
//   sweep_profiles.cpp  [profile.NAME] tables and --set overrides
//   sweep_plot.cpp      [plot]
//   sweep_checks.cpp    [[check]]
//   sweep.cpp           the file's sections in order (parse_sweep)
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "scalinglab/lab/measure.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

class SweepReader {
 public:
  using Keys = std::vector<std::string>;
  static std::string join(const Keys& v);  // "a, b, c"

  SweepReader(std::string file, const Measure* m = nullptr) : file_(std::move(file)), m_(m) {}
  void set_measure(const Measure* m) { m_ = m; }

  // ---- scalars, names, selections and formulas (sweep_reader.cpp) ----
  [[noreturn]] void fail(const toml::node* n, const std::string& what) const;
  // Entries in file order (toml++ tables are sorted by key, so sort by source position).
  static std::vector<std::pair<std::string, const toml::node*>> ordered(const toml::table& t);
  const toml::table& table(const toml::node* n, const std::string& key) const;
  void allow_keys(const toml::table& t, const Keys& allowed, const std::string& section) const;
  // A scalar as text: integers exactly, floats the shortest way (1e3 -> "1000", inf -> "inf").
  std::string text(const toml::node* n, const std::string& key) const;
  std::string string(const toml::node* n, const std::string& key) const;
  double number(const toml::node* n, const std::string& key) const;
  int64_t integer(const toml::node* n, const std::string& key, int64_t lo) const;
  bool boolean(const toml::node* n, const std::string& key) const;
  // A parameter of the measure that sweeps may set (runs and seed live at the top level).
  const ParamSpec& param(const toml::node* n, const std::string& name, const std::string& key) const;
  void metric(const toml::node* n, const std::string& name, const std::string& key) const;
  // An x axis: a parameter, or (`metric_ok`) a scalar metric, whose mean over the runs places each row
  // (e.g. a parameter count against the compute-optimal data size). Returns whether it is a metric.
  bool x_axis(const toml::node* n, const std::string& name, const std::string& key, bool metric_ok) const;
  // A `where` value normalised like resolved parameters, so T = 1e3 matches "1000". A comparison
  // ("<=256", ">=64, <1e4", "!=inf") keeps its operators, each operand normalised and checked.
  std::string where_value(const toml::node* n, const ParamSpec& p, const std::string& key) const;
  // The same for text `t` read at node `n` (`quoted`: written as a string, so it may be a comparison).
  std::string where_value(const toml::node* n, const ParamSpec& p, const std::string& key, const std::string& t,
                          bool quoted) const;
  std::string where_operand(const toml::node* n, const ParamSpec& p, const std::string& key, std::string t) const;
  // A `where` table { T = "inf", d = "<=256" }, or conditions written as on the command line:
  // "d<=256" or ["d<=256", "T=inf"] (two conditions on one parameter must both hold).
  std::map<std::string, std::string> where(const toml::node* n, const std::string& key) const;
  // A formula of the measure's parameters: parsed now, so typos fail before anything runs.
  // `also`: one more variable it may read (the x series of a "curves" plot).
  // `metrics`: it may also read scalar metrics (check bounds: "chinchilla_excess", "2*bound_upper").
  std::string formula(const toml::node* n, const std::string& key, const std::string& also = "",
                      bool metrics = false) const;
  std::string series_metric(const toml::node* n, const std::string& key) const;

  // ---- the sweep's settings (sweep_settings.cpp) ----
  // Settings shared by the file and its profiles: params (fixed) and grid (axes). A later setting
  // of a parameter replaces an earlier one, fixed or on an axis.
  // `everywhere` (profiles, --set): the value also replaces the parts' own values.
  void params(const toml::node* n, const std::string& key, Sweep& s, bool everywhere = false) const;
  static void unset_axis(Sweep& s, const std::string& name);
  void not_part(const toml::node* n, const std::string& name, const std::string& key) const;
  static void unset_in_parts(Sweep& s, const std::string& name);
  void grid(const toml::node* n, const std::string& key, Sweep& s, bool everywhere = false) const;
  void add_linked(const toml::table& t, const toml::node* e, const std::string& key, GridAxis& axis) const;
  // [[part]] tables: name, measure and the part's own params (checked against its measure). Builds
  // the union of the parts' declarations, against which shared keys, plot and checks are checked.
  void parts(const toml::node* n, const Registry& registry, Sweep& s);

  // ---- profiles and overrides (sweep_profiles.cpp) ----
  // Every [profile.NAME] table is checked; the one named `profile` (if the file defines it) is applied.
  void profiles(const toml::node* n, const std::string& profile, Sweep& s) const;
  // --set k=v overrides ("runs", "seed", or a parameter: it replaces the grid axis and the parts' values).
  void set_overrides(const std::vector<std::string>& sets, Sweep& s) const;

  // ---- [plot] (sweep_plot.cpp) ----
  PlotSpec plot(const toml::node* n) const;
  // [plot] kind = "heatmap": matrix (a series metric), rows and cols (parameters), title, where.
  PlotSpec heatmap(const toml::node* n, const toml::table& t, PlotSpec p) const;
  // [plot] kind = "scatter": points (a series metric), optional classes and centers (series).
  PlotSpec scatter(const toml::node* n, const toml::table& t, PlotSpec p) const;
  // Title, labels, where and columns of the multi-panel kinds.
  PlotSpec panel_options(const toml::table& t, PlotSpec p) const;

  // ---- [[check]] (sweep_checks.cpp) ----
  CheckSpec check(const toml::node* n, std::size_t index) const;
  // A check's `counterfactual` table: the --set overrides (checked against the measure) and why.
  void counterfactual(const toml::node* n, const std::string& name, CheckSpec& c) const;
  // Every [[check]] into all_checks; those applying under `profile` also into checks.
  void checks(const toml::node* n, const std::string& profile, Sweep& s) const;

 private:
  void merge_into_union(const Measure& pm);

  std::string file_;
  const Measure* m_;
  Measure union_;  // multi-part sweeps: the union of the parts' parameters and metrics
};

}  // namespace scalinglab
