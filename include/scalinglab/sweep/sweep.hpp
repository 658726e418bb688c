#pragma once
// Sweep files (TOML): one measure (or several "parts", each a measure with its own parameters, run
// over the same grid and drawn in one figure), fixed parameters, a grid, seeds, an optional plot
// and checks. The format is documented in docs/sweeps.md. Loading validates everything against the
// measures' declarations before any task runs.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// One grid axis: values as text ("10", "inf", "q0"), already expanded from logspace/linspace.
// A linked axis (`scheme = [{ scheme = "q0", rho = 0 }, { scheme = "rho", rho = 1 }]`) sets several
// parameters together: element i sets linked[i], and values[i] is its label (the value it gives the
// axis's own parameter).
struct GridAxis {
  std::string name;
  std::vector<std::string> values;
  std::vector<std::map<std::string, std::string>> linked;  // empty for a plain axis
};

// A theory curve drawn on the plot: a formula of the x parameter and of any other parameter of
// the point (e.g. "3.5*d^-1", "d^(1-alpha)"), optionally restricted to the points matching `where`.
struct ReferenceCurve {
  std::string expr;
  std::string label;                          // legend; defaults to the formula
  std::map<std::string, std::string> where;   // param -> value (text compare after resolution)
};

struct PlotSpec {
  // "lines": means vs x per series (below). "heatmap": one panel per selected grid point showing a
  // series metric (`matrix`) reshaped to rows x cols, with the shape read from two parameters;
  // the first run of each point is drawn (a picture of one realisation, as in the papers).
  // "curves": series metrics (learning curves, iterates) of each selected grid point: y (a series)
  // against x (a series; empty: the position 1, 2, ...), averaged pointwise over runs, one curve
  // per series value; log, band, where, reference (reading x) as for lines.
  // "scatter": one panel per selected grid point with the 2-D points of a series metric (n x 2,
  // row-major), coloured by an optional class series, and optional centers (m x 2) drawn as arrows
  // with the plane shaded by argmax_k <center_k, u> (embeddings and their decision regions).
  std::string kind = "lines";
  std::string matrix, rows, cols;  // heatmap only
  std::string points, classes, centers;  // scatter only (classes and centers optional)
  int columns = 0;                 // heatmap, scatter: panels per row (0: about the square root of the count)
  std::string x, y;          // parameter on the x axis, metric on the y axis (curves: series metrics)
  std::vector<std::string> more_y;  // y = ["a", "b"]: further metrics drawn as their own curves
  std::vector<std::string> dashed;  // metrics of y drawn dashed, in the colour of their series' first curve
  std::string series;        // parameter distinguishing curves (optional)
  bool logx = false, logy = false;
  std::string title, xlabel, ylabel;
  std::vector<ReferenceCurve> references;
  std::map<std::string, std::string> where;  // only points matching this are drawn
  std::string band = "sem";  // shaded band around the mean: "sem" (standard error of the mean), "std" or "none"
  // Legend text per series value, instead of "series = value" (filled from the parts' labels
  // when the series is `part`).
  std::map<std::string, std::string> series_labels;
  // lines and curves: legend texts replacing the lab's own ("q_rho, lr = 10" -> "q_rho, rho = 0.05").
  std::map<std::string, std::string> legend;
  // Filled from the [[part]] tables when the file is loaded: parts that are theory (drawn dashed,
  // without a band, in the colour of the simulation curve of the same metric and series value),
  // each part's legend label, and the metrics each part's measure has (a part is not drawn for a
  // metric it lacks).
  std::vector<std::string> theory_parts;
  std::map<std::string, std::string> part_labels;
  std::map<std::string, std::vector<std::string>> part_metrics;
};

// A claim of the paper, evaluated on the aggregated table. `kind` is one of
//   slope     log-log slope of y vs x (least squares on the means) equals expect +- tol
//   below     y <= bound at every selected point (bound: a formula of the params)
//   above     y >= bound at every selected point
//   ordered   at every x, y(series order[0]) <= y(order[1]) <= ...  (or >= with decreasing = true)
//   reaches   the first x (increasing) with y <= threshold (or >= with rising = true) is
//             before (<=) or after (>=) a given x value
//   optimum   for each value of `series` (a numeric parameter, e.g. a compute budget), the x that
//             minimises y (a parabola in log x through the lowest point and its neighbours); the
//             log-log slope of that argmin against the series value equals expect +- tol
//             (IsoFLOP analysis: the compute-optimal size against compute)
//   within    |y - bound| <= sem x (standard error of y) + rtol x |bound| at every selected point
//             (two-sided: a value that matches a formula or another metric)
//   approaches  along increasing x, y moves monotonically towards `limit` from one side and its
//             distance to the limit shrinks to at most `shrink` times the first one (a curve that
//             tends to a value, not one that merely stays below it)
//   equal_compute  curves (series metrics: y against a compute x) compared at the same compute,
//             interpolated in log-log between recorded points: ordered as `ordered` at `at` (a
//             number, or "common": the largest compute every run of every curve reaches)
// Common fields: y (metric), x (param), where (param -> value), x_min/x_max (range of x).
struct CheckSpec {
  std::string claim;  // the paper's words, with a figure/section reference
  std::vector<std::string> profiles;  // when not empty: applies only under these profiles ("default": none)
  std::string known_failure;          // why the claim is known not to reproduce here (reported, not fatal)
  std::vector<std::string> refs;      // the paper's items this check tests ("Thm. 1", "Fig. 4"): CLAIMS.md
  // Why this check tests another setting or claim than the paper's item: reported as a substitute,
  // never counted as reproducing the item.
  std::string substitute;
  std::size_t index = 0;  // 1-based position among the file's [[check]] tables (before profile filtering)
  // A wrong model the check must reject (`counterfactual = { set = "scheme=q1", why = "..." }`): --set
  // overrides that break the mechanism the claim rests on, and why. `scalinglab counterfactuals` runs
  // the sweep with them and requires the check to FAIL; a check counted as evidence needs one.
  std::vector<std::string> counterfactual;  // "name=value", as --set
  std::string counterfactual_why;
  // Why the wrong model is still a plausible one although it leaves the paper's range (a step of 0,
  // a size below the smallest the paper runs): required for such a counterfactual (docs/checks.md).
  std::string counterfactual_below_paper;
  // Why no plausible wrong model makes this check fail: it is run and shown, and its counterfactual
  // (if any) is run and shown accepting, but it is no evidence for its items.
  std::string not_evidence;
  std::string kind;
  std::string x, y;
  std::map<std::string, std::string> where;
  double x_min = -1e308, x_max = 1e308;
  double expect = 0, tol = 0;                  // slope, optimum: expect +- tol
  // slope, optimum: instead of expect +- tol, a one-sided or two-sided range (a claim that a quantity
  // rises, not by how much).
  std::optional<double> at_least, at_most;
  bool slope_ok(double slope) const;
  double slope_low() const;   // the accepted range of the slope: expect - tol, or at_least (-inf)
  double slope_high() const;  // expect + tol, or at_most (inf)
  std::string slope_text() const;  // "-1 +- 0.15", ">= 0", "in [0.4, 0.6]"
  std::string bound;                           // below/above: formula
  std::string series;                          // ordered: parameter naming the curves
  std::vector<std::string> order;              // ordered: series values, smallest first
  // ordered: the group of each value of `order`. `order = ["a", ["b", "c"], "d"]` gives groups
  // 0, 1, 1, 2: every member of a group must be <= every member of the next (ties within a group
  // are not compared). Empty: each value is its own group.
  std::vector<std::size_t> order_group;
  bool decreasing = false;                     // ordered: reverse the sense
  // ordered: a pair counts as out of order only beyond sem x sqrt(sem_a^2 + sem_b^2) (a tolerance
  // for ties); within: the allowance in standard errors of y.
  double sem = 0;
  // ordered, equal_compute: each pair must be in order by more than `significant` standard errors of
  // the difference (strictly, when the values are exact): an order, not a tie.
  double significant = 0;
  double factor = 1;  // ordered: a margin: factor x y(earlier) <= y(later) (y(earlier) >= factor x y(later) when decreasing)
  double rtol = 0;    // within: relative allowance (of |bound|)
  double limit = 0;   // approaches: the value y tends to
  double shrink = 1;  // approaches: the last distance to the limit is at most shrink x the first
  bool from_above = false;  // approaches: y comes down to the limit (default: rises to it)
  // equal_compute: the compute compared at (empty: `at_rule`).
  std::optional<double> at;
  // "common": the largest compute every curve reaches, each curve interpolated there; "first": the
  // compute the first curve of `order` ends at (its budget), each curve's lowest value within it (a
  // curve that ended earlier keeps its best; a longer one is interpolated at the budget).
  std::string at_rule = "common";
  double threshold = 0;                        // reaches
  bool rising = false;                         // reaches: y >= threshold instead of <=
  std::optional<double> before, after;         // reaches
};

// One part of a multi-measure sweep: a measure with its own fixed parameters, run over the shared
// grid (the axes its measure declares) and shown as the value `name` of the pseudo-parameter `part`.
struct SweepPart {
  std::string name;
  std::string label;  // legend text (default: the name)
  std::string measure;
  // Drawn as theory (dashed, in its simulation's colour): `theory = true|false` in the file,
  // by default whether the measure is deterministic (a formula or recursion, not a simulation).
  bool theory = false;
  std::vector<std::string> metrics;  // the measure's metrics (scalars and series)
  std::map<std::string, std::string> fixed;  // override the shared [params] and grid axes
};

struct Sweep {
  std::string name;     // file stem, e.g. "fig1-left"
  std::string path;     // as given
  std::string title;    // one line shown in reports
  std::string measure;  // "world.name"; with parts, the first part's measure
  std::vector<SweepPart> parts;  // empty: a single-measure sweep
  int64_t runs = 1;
  uint64_t seed = 0;
  std::map<std::string, std::string> fixed;  // param -> text (formulas allowed)
  std::vector<GridAxis> grid;                // cartesian product, first axis slowest
  std::optional<PlotSpec> plot;
  std::vector<CheckSpec> checks;      // those that apply under the profile chosen
  std::vector<CheckSpec> all_checks;  // every [[check]] of the file, whatever its profiles (CLAIMS.md)
  std::string profile;  // profile applied ("" = none)
  // Why the setting run is smaller than the paper's own ("" = the paper's setting): the file's or the
  // applied profile's `reduced`, "quick profile" for a [profile.quick] table, "--set k=v" for overrides.
  std::string reduced;
  std::vector<std::string> profiles;  // profiles the file knows: its [profile.NAME] tables and checks' profiles
  std::string text;     // the file's verbatim contents (copied into results dirs as sweep.toml)

  // The distinct measures run, in order ("memory.train, memory.error"), for reports.
  std::string measures_text() const;
};

// The pseudo-parameter `part` that names a row's part in tables, plots and checks.
const ParamSpec& part_param();

// Loads and validates a sweep file. `profile` (e.g. "quick", "paper"; "" for none) applies the
// [profile.NAME] overrides; `sets` ("k=v", from --set) then override fixed parameters (removing
// the grid axis of that name), or `runs` and `seed`. Throws InputError naming file and key.
Sweep load_sweep(const std::string& path, const std::string& profile = "",
                 const std::vector<std::string>& sets = {});
// The same against another registry (tests, embedders).
Sweep load_sweep(const std::string& path, const std::string& profile, const std::vector<std::string>& sets,
                 const Registry& registry);
// Parses sweep text as if read from `path` (which names the sweep and prefixes error messages).
Sweep parse_sweep(const std::string& text, const std::string& path, const std::string& profile,
                  const std::vector<std::string>& sets, const Registry& registry);

// The profiles every sweep accepts: "quick" and "paper" run a file as written unless it defines them
// (a file already small is its own quick profile; a file at the paper's sizes its own paper one).
bool is_standard_profile(const std::string& profile);
// InputError unless `profile` is "", a standard profile or one the sweep knows: a misspelt
// --profile must not silently run the file as written.
void require_known_profile(const Sweep& sweep, const std::string& profile);

// The number of grid points the sweep expands to (before expanding it).
double grid_size(const Sweep& sweep, const Registry& registry);

// Expands "logspace(a, b, n)" (n log-spaced values from a to b; rounded when the parameter is an
// integer type), "linspace(a, b, n)", or a single value into text values.
std::vector<std::string> expand_values(const std::string& spec, const ParamSpec& param);

// One task-level grid point: the resolved parameters (runs/seed excluded from its key).
struct GridPoint {
  std::size_t index;  // position in the task order (parts outermost, then the cartesian product)
  Params params;
  std::string key;    // "MEASURE " + params.canonical(), prefixed by "part=NAME " in a multi-part sweep
  const Measure* measure = nullptr;
  std::string part;   // "" for a single-measure sweep
};

// All grid points in order (fixed parameters merged in, formulas evaluated, ranges checked).
// In a multi-part sweep each part runs over the axes its measure declares, parts outermost.
// Two points with the same key are an InputError (a task is identified by key and run).
std::vector<GridPoint> expand_grid(const Sweep& sweep, const Registry& registry);
// A single-measure sweep against that measure.
std::vector<GridPoint> expand_grid(const Sweep& sweep, const Measure& measure);

// How a sweep was loaded: enough to load it again exactly (the results directory keeps a verbatim
// copy of the file as sweep.toml and this as run.json, so `merge` sees exactly what ran).
struct SweepOrigin {
  std::string profile;
  std::vector<std::string> sets;
};

}  // namespace scalinglab
