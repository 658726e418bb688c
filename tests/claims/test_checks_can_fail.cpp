// Every check of every sweep file under experiments/ can fail: on a table whose selected rows are
// perturbed against the claim (a slope off by more than its tolerance, a value far beyond its bound,
// the first curve of an ordering on top, a threshold never or immediately reached, an optimum that
// does not move), under each profile where the check applies, it must report FAIL. A check that
// still passes selects no row it can be wrong about, or its bound holds whatever the data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "scalinglab/claims/check.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/results/aggregate.hpp"
#include "scalinglab/results/results.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

std::vector<fs::path> all_sweep_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(SCALINGLAB_SOURCE_DIR) / "experiments"))
    if (e.is_regular_file() && e.path().extension() == ".toml" && e.path().filename() != "claims.toml" &&
        e.path().parent_path().filename() != "extrapolate")  // extrapolation files, not sweeps
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// One row per grid point, every scalar metric 1 with no spread.
Table flat_table(const Sweep& sweep) {
  const auto points = expand_grid(sweep, world_registry());
  std::vector<TaskResult> results;
  for (const auto& p : points) {
    TaskResult t;
    t.point = p.index;
    t.key = p.key;
    for (const auto& m : p.measure->metrics)
      if (!m.series) t.record.set(m.name, 1.0);
    results.push_back(std::move(t));
  }
  return aggregate(points, results);
}

double x_of(const Table& t, const Table::Row& row, const std::string& x) {
  return row.params.has(x) ? row.params.entry(x).number : row.mean.at(t.metric_index(x));
}

// The table perturbed so that `c` should fail. An optimum has three variants (`variant` 0, 1, 2): the
// argmin at the smallest x for every series value; at the smallest x for the smallest series value and
// the largest x for the others (it moves up with the series); the reverse (it moves down).
Table against(const Table& base, const CheckSpec& c, int variant = 0) {
  if (c.kind == "equal_compute") return base;  // judged on the runs' curves (curves_against)
  double lowest_series = 1e308;
  if (c.kind == "optimum")
    for (const auto& row : base.rows)
      if (row.params.has(c.series)) lowest_series = std::min(lowest_series, row.params.entry(c.series).number);
  Table t = base;
  const std::size_t y = t.metric_index(c.y);
  // An x along a metric gets distinct values, 2, 3, ..., as a parameter axis would have.
  if (!t.rows.empty() && !t.rows.front().params.has(c.x))
    for (std::size_t i = 0; i < t.rows.size(); ++i) t.rows[i].mean.at(t.metric_index(c.x)) = 2.0 + i;
  for (auto& row : t.rows) {
    row.std.assign(row.std.size(), 0.0);
    row.sem.assign(row.sem.size(), 0.0);
    double v = 1.0;
    if (c.kind == "slope") {
      // A slope one beyond the accepted range.
      const double wrong = c.at_most ? *c.at_most + 1.0 : c.at_least ? *c.at_least - 1.0 : c.expect + c.tol + 1.0;
      v = std::pow(x_of(t, row, c.x), wrong);
    } else if (c.kind == "below") {
      v = 1e30;
    } else if (c.kind == "above") {
      v = -1e30;
    } else if (c.kind == "ordered") {
      // The first group of the order on top (at the bottom when decreasing), the rest at 1.
      bool first = false;
      if (row.params.has(c.series))
        for (std::size_t k = 0; k < c.order.size(); ++k)
          if ((c.order_group.empty() ? k : c.order_group[k]) == 0 && entry_matches(row.params.entry(c.series), c.order[k]))
            first = true;
      v = first ? (c.decreasing ? -1e30 : 1e30) : 1.0;
    } else if (c.kind == "reaches") {
      const bool reach_at_once = c.after.has_value();  // `after`: reached at the smallest x
      v = (reach_at_once != c.rising) ? -1e30 : 1e30;
    } else if (c.kind == "optimum") {
      const bool lowest = row.params.has(c.series) && row.params.entry(c.series).number == lowest_series;
      const bool at_smallest = variant == 0 || (variant == 1) == lowest;
      v = at_smallest ? x_of(t, row, c.x) : 1.0 / x_of(t, row, c.x);
    } else if (c.kind == "within") {
      v = 1e30;
    } else if (c.kind == "approaches") {
      v = c.from_above ? c.limit - 1 : c.limit + 1;  // on the wrong side of the limit
    }
    row.mean[y] = v;
  }
  return t;
}

// Whether a row's series value is in the first group of an ordering.
bool first_of_order(const CheckSpec& c, const Params& params, const std::string& part) {
  const bool is_part = c.series == "part";
  if (!is_part && !params.has(c.series)) return false;
  for (std::size_t k = 0; k < c.order.size(); ++k)
    if ((c.order_group.empty() ? k : c.order_group[k]) == 0 &&
        (is_part ? part == c.order[k] : entry_matches(params.entry(c.series), c.order[k])))
      return true;
  return false;
}

// Runs' records for checks on series (equal_compute): every curve runs over x = 1..10 at y = 1, the
// first group of the order on top (at the bottom when decreasing); two runs per point, equal.
std::vector<TaskResult> curves_against(const Sweep& sweep, const CheckSpec& c) {
  std::vector<TaskResult> out;
  for (const auto& p : expand_grid(sweep, world_registry()))
    for (uint64_t run = 0; run < 2; ++run) {
      TaskResult t;
      t.point = p.index;
      t.key = p.key;
      t.run = run;
      const double y = c.kind == "equal_compute" && first_of_order(c, p.params, p.part) ? (c.decreasing ? 1e-30 : 1e30) : 1.0;
      std::vector<double> xs, ys;
      for (int i = 1; i <= 10; ++i) xs.push_back(i), ys.push_back(y);
      t.record.set_series(c.x, xs);
      t.record.set_series(c.y, ys);
      out.push_back(std::move(t));
    }
  return out;
}

TEST(ChecksCanFail, EveryCheckOfEverySweepFileFailsOnATableAgainstItsClaim) {
  std::size_t checked = 0;
  for (const auto& file : all_sweep_files()) {
    std::set<std::string> profiles = {"", "quick", "paper"};
    const Sweep plain = load_sweep(file.string());
    for (const auto& p : plain.profiles) profiles.insert(p);
    for (const auto& profile : profiles) {
      if (!profile.empty() && profile != "quick" && profile != "paper" &&
          std::find(plain.profiles.begin(), plain.profiles.end(), profile) == plain.profiles.end())
        continue;
      const Sweep sweep = load_sweep(file.string(), profile);
      if (sweep.checks.empty()) continue;
      const Table base = flat_table(sweep);
      for (const auto& c : sweep.checks) {
        Sweep one = sweep;
        one.checks = {c};
        const auto curves = curves_against(sweep, c);
        auto r = evaluate_checks(one, against(base, c), &curves);
        for (int variant = 1; variant < 3 && c.kind == "optimum" && r[0].passed; ++variant)
          r = evaluate_checks(one, against(base, c, variant), &curves);
        ASSERT_EQ(r.size(), 1u);
        EXPECT_FALSE(r[0].passed) << file.filename().string() << " [[check]] #" << c.index << " (profile '"
                                  << profile << "', " << c.kind << ") passes on a table against its claim: "
                                  << r[0].measured << "\n  claim: " << c.claim;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

// The perturbation itself: a check that holds on the flat table must fail on the perturbed one, and
// a check that cannot fail (its bound is infinite) is caught.
TEST(ChecksCanFail, AVacuousBoundIsCaught) {
  const auto dir = fs::temp_directory_path() / "scalinglab-can-fail";
  fs::create_directories(dir);
  const auto file = dir / "vacuous.toml";
  std::ofstream(file) << "measure = \"memory.error\"\n[grid]\nd = [8, 16]\n"
                         "[[check]]\nclaim = \"holds whatever\"\nbelow = { x = \"d\", y = \"error\", bound = \"inf\" }\n"
                         "[[check]]\nclaim = \"reached after a value below the grid\"\n"
                         "reaches = { x = \"d\", y = \"error\", threshold = 0.5, after = 4 }\n";
  const Sweep sweep = load_sweep(file.string());
  const Table base = flat_table(sweep);
  for (const auto& c : sweep.checks) {
    Sweep one = sweep;
    one.checks = {c};
    EXPECT_TRUE(evaluate_checks(one, against(base, c))[0].passed) << c.claim << ": vacuous, so it passes";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalinglab
