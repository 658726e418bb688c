#pragma once
// Scoring a world's predictions against its truths, and the leaderboard's files: every cell reads
// ok, not applicable (why) or failed k of R (why); errors, regret (in loss and in compute), coverage
// against the truth and against the truth's own redraws, and whether the intervals are as wide as
// the spread of the predictions across replications.
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/fit/fit_method.hpp"
#include "truth_slice.hpp"

namespace scalinglab::extrapolate {

// One method's prediction on one replication at one horizon, scored.
struct Scored {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string design, method;
  int replication = 0;
  double horizon = 0, C = 0;
  bool ok = false;
  std::string not_applicable;  // why the method cannot apply to the design (known before running)
  std::string note, L_note;
  fit::FrontierPrediction p;
  double regret = kNaN;          // true loss at the predicted N_opt over the true optimum, minus 1
  double compute_regret = kNaN;  // the extra compute that loss costs on the true frontier (fraction)
  double seconds = 0;
  int bootstrap_failed = 0, bootstrap_total = 0;
};

// A design as the leaderboard reports it.
struct DesignInfo {
  std::string name, knob;
  double per_decade = 0, sizes = 0, runs = 0, cost = 0;
  std::vector<double> budgets;
  bool main = false;
};

// Everything one world contributed: its designs, tables, truths and scored predictions.
struct WorldRun {
  std::string name, path, measure, kind = "world";  // kind: "world" or "held-out"
  bool deterministic = false;
  int replications = 0;
  std::vector<DesignInfo> designs;
  std::vector<std::vector<fit::ProtocolTable>> tables;  // design x replication
  std::vector<Truth> truth;                             // one per horizon
  std::vector<Scored> scored;
  double small_seconds = 0, truth_seconds = 0, fit_seconds = 0;
  std::size_t reach_points = 0;  // sizes added to the truths to reach predictions outside them
};

// Regret of each scored prediction against its horizon's truth (loss and compute); the true
// frontier's slope between horizons is set on the truths first.
void score_regret(WorldRun& run);

// The JSON of one world (designs, truths) and the leaderboard rows of its cells.
nlohmann::json world_json(const WorldRun& run);
nlohmann::json leaderboard_rows(const WorldRun& run, const std::vector<std::string>& methods);

// Writes OUT/{tables,truth,truth-curves,predictions,leaderboard}.csv and leaderboard.{json,md}.
void write_leaderboard(const std::string& out, const std::vector<WorldRun>& runs, const nlohmann::json& report);

// The leaderboard as markdown.
std::string markdown(const nlohmann::json& report);

}  // namespace scalinglab::extrapolate
