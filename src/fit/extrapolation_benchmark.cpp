// The extrapolation benchmark: replicated small-budget designs -> every method -> scored against a
// truth the methods never see.
#include "scalinglab/fit/extrapolation_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/extrapolation_plot.hpp"
#include "scalinglab/fit/extrapolation_score.hpp"
#include "scalinglab/fit/fit_method.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/protocol_world.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/lab/param.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab::fit {

using namespace protocol;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxExtensions = 3;  // a truth slice is extended at most this often towards its minimum

struct Design {
  std::string name;
  double per_decade = 3, sizes = 7, runs = 1;
  std::vector<double> budgets;  // derived
};

struct BenchSpec {
  std::vector<double> budgets, sizes, horizons{10, 100};
  double shift = 0, replications = 20, truth_sizes = 11, truth_spread = 4, truth_runs = 16, bootstrap = 100;
  std::vector<Design> designs;
  std::string main;  // the design of the leaderboard (default: the first)
};

struct World {
  std::string path, name;
  toml::table doc;
  Spec spec;
  BenchSpec bench;
  const Measure* measure = nullptr;
  std::unique_ptr<Model> model;
  std::uint64_t seed = 0;
  int replications = 0;
};

std::string at(const World& w) { return w.path + ": [benchmark] "; }

void read_design_list(const toml::node& node, const std::string& where, std::vector<Design>& out) {
  const auto* a = node.as_array();
  if (!a || a->empty()) throw InputError(where + "designs: give a list of { name, per_decade, sizes, runs } tables");
  out.clear();
  for (const auto& e : *a) {
    const auto* t = e.as_table();
    if (!t) throw InputError(where + "designs: each design is a table { name, per_decade, sizes, runs }");
    Design d;
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      if (key == "name") d.name = v.value_or<std::string>("");
      else if (key == "per_decade") d.per_decade = number(v, "designs." + key);
      else if (key == "sizes") d.sizes = number(v, "designs." + key);
      else if (key == "runs") d.runs = number(v, "designs." + key);
      else throw InputError(where + "designs: unknown key '" + key + "' (name, per_decade, sizes, runs)");
    }
    if (!is_plain_name(d.name)) throw InputError(where + "designs: each needs a name of letters, digits, '-' or '_'");
    out.push_back(d);
  }
}

void read_bench(const toml::table& t, const std::string& where, BenchSpec& b) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    try {
      if (key == "budgets") b.budgets = numbers_or_range(&v, key);
      else if (key == "sizes") b.sizes = numbers_or_range(&v, key);
      else if (key == "shift") b.shift = number(v, key);
      else if (key == "horizons") b.horizons = numbers_or_range(&v, key);
      else if (key == "replications") b.replications = number(v, key);
      else if (key == "designs") read_design_list(v, where, b.designs);
      else if (key == "main") b.main = v.value_or<std::string>("");
      else if (key == "truth_sizes") b.truth_sizes = number(v, key);
      else if (key == "truth_spread") b.truth_spread = number(v, key);
      else if (key == "truth_runs") b.truth_runs = number(v, key);
      else if (key == "bootstrap") b.bootstrap = number(v, key);
      else
        throw InputError("unknown key '" + key + "' (budgets, sizes, shift, horizons, replications, designs, main, "
                         "truth_sizes, truth_spread, truth_runs, bootstrap)");
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(where, 0) == 0 ? what : where + what);
    }
  }
}

bool whole(double v, double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); }

// Every number of [benchmark] and the work they make, checked as a whole before anything runs.
void check_bench(World& w, const BenchmarkOptions& o) {
  BenchSpec& b = w.bench;
  const std::string where = at(w);
  if (b.budgets.size() != 2 || !(b.budgets[0] > 0) || !(b.budgets[1] > b.budgets[0]) || !std::isfinite(b.budgets[1]))
    throw InputError(where + "budgets: give the first and last small budget, [C_first, C_last], 0 < C_first < C_last");
  if (b.sizes.size() != 2 || !(b.sizes[0] > 0) || !(b.sizes[1] > b.sizes[0]) || !std::isfinite(b.sizes[1]))
    throw InputError(where + "sizes: give the size knob's range at the first budget, [low, high], 0 < low < high");
  if (!(b.shift >= 0 && b.shift <= 1)) throw InputError(where + fmt::format("shift = {:g}: give an exponent in [0, 1]", b.shift));
  if (b.horizons.empty()) throw InputError(where + "horizons: give at least one factor beyond the last small budget");
  for (double h : b.horizons)
    if (!(h > 1) || !std::isfinite(h) || h > 1e6)
      throw InputError(where + fmt::format("horizons: {:g} is not a factor in (1, 1e6]", h));
  if (o.replications > 0) b.replications = o.replications;
  if (!whole(b.replications, 1, 100000)) throw InputError(where + fmt::format("replications = {:g}: give a whole number from 1 to 100000", b.replications));
  if (o.bootstrap >= 0) b.bootstrap = o.bootstrap;
  if (!(b.bootstrap == 0 || whole(b.bootstrap, 20, 100000)))
    throw InputError(where + fmt::format("bootstrap = {:g}: give 0 (no intervals) or a whole number from 20", b.bootstrap));
  if (!whole(b.truth_sizes, 5, 10000)) throw InputError(where + fmt::format("truth_sizes = {:g}: give a whole number from 5", b.truth_sizes));
  if (!(b.truth_spread > 1) || !std::isfinite(b.truth_spread) || b.truth_spread > 1e6)
    throw InputError(where + fmt::format("truth_spread = {:g}: give a factor above 1", b.truth_spread));
  if (!whole(b.truth_runs, 1, 1e6)) throw InputError(where + fmt::format("truth_runs = {:g}: give a whole number from 1", b.truth_runs));
  if (b.designs.empty()) b.designs.push_back(Design{"standard", 3, 7, 1, {}});
  std::set<std::string> names;
  for (auto& d : b.designs) {
    if (!names.insert(d.name).second) throw InputError(where + "designs: the name '" + d.name + "' is used twice");
    if (!(d.per_decade >= 1 && d.per_decade <= 100)) throw InputError(where + fmt::format("designs.{}: per_decade = {:g}: give 1 to 100", d.name, d.per_decade));
    if (!whole(d.sizes, 3, 1000)) throw InputError(where + fmt::format("designs.{}: sizes = {:g}: give a whole number from 3 to 1000", d.name, d.sizes));
    if (!whole(d.runs, 1, 1e6)) throw InputError(where + fmt::format("designs.{}: runs = {:g}: give a whole number from 1", d.name, d.runs));
    const double decades = std::log10(b.budgets[1] / b.budgets[0]);
    const int n = std::max(3, static_cast<int>(std::lround(d.per_decade * decades)) + 1);
    d.budgets.clear();
    for (int k = 0; k < n; ++k) d.budgets.push_back(b.budgets[0] * std::pow(b.budgets[1] / b.budgets[0], k / double(n - 1)));
  }
  if (b.main.empty()) b.main = b.designs.front().name;
  if (!names.count(b.main)) throw InputError(where + "main = '" + b.main + "' names no design");
  w.replications = w.measure->deterministic ? 1 : static_cast<int>(b.replications);  // a deterministic world repeats itself
  if (w.measure->deterministic) b.truth_runs = 1;
  double tasks = 0;
  for (const auto& d : b.designs) tasks += static_cast<double>(d.budgets.size()) * d.sizes * d.runs * w.replications;
  tasks += static_cast<double>(b.horizons.size()) * b.truth_sizes * b.truth_runs * (1 + kMaxExtensions);
  check_limit(tasks, limits().max_tasks, w.path + " [benchmark]", "tasks (designs x replications, and the truth slices)",
              "--max-tasks");
}

World load_world(const std::string& path, const BenchmarkOptions& o) {
  World w;
  w.path = path;
  w.name = std::filesystem::path(path).stem().string();
  if (!is_plain_name(w.name)) throw InputError(path + ": '" + w.name + "' cannot name a results folder; rename the file");
  const std::string text = read_file(path, kMaxSweepFileBytes, "world file");
  try {
    w.doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(path + ": malformed TOML: " + std::string(e.description()));
  }
  const auto* ex = w.doc["extrapolate"].as_table();
  const auto* bt = w.doc["benchmark"].as_table();
  if (!ex || !bt) throw InputError(path + ": a world file needs an [extrapolate] and a [benchmark] table (docs/extrapolation.md)");
  auto guarded = [&](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(path, 0) == 0 ? what : path + ": " + what);
    }
  };
  guarded([&] { read_spec(*ex, w.spec); });
  guarded([&] { read_bench(*bt, at(w), w.bench); });
  if (!o.profile.empty()) {
    if (!is_standard_profile(o.profile) && !w.doc["profile"][o.profile].as_table())
      throw InputError(path + ": unknown profile '" + o.profile + "' (the file has no [profile." + o.profile + "])");
    if (auto p = w.doc["profile"][o.profile]["extrapolate"].as_table()) guarded([&] { read_spec(*p, w.spec); });
    if (auto p = w.doc["profile"][o.profile]["benchmark"].as_table()) guarded([&] { read_bench(*p, at(w), w.bench); });
    if (w.doc["profile"][o.profile]["runs"])
      throw InputError(path + ": [profile." + o.profile + "] sets runs; the benchmark's designs set the runs per point");
  }
  for (auto [v, key] : {std::pair{&w.spec.size, "size"}, std::pair{&w.spec.data, "data"}, std::pair{&w.spec.loss, "loss"}})
    if (v->empty()) throw InputError(path + ": [extrapolate] needs '" + key + "'");
  const std::string measure_name = w.doc["measure"].value_or<std::string>("");
  w.measure = &builtin_registry().get(measure_name);
  for (const auto& knob : {w.spec.size, w.spec.data})
    if (!w.measure->param(knob)) throw InputError(path + ": [extrapolate] '" + knob + "' is not a parameter of " + measure_name);
  bool has_loss = false;
  for (const auto& metric : w.measure->metrics) has_loss = has_loss || metric.name == w.spec.loss;
  if (!has_loss) throw InputError(path + ": [extrapolate] loss: " + measure_name + " has no metric '" + w.spec.loss + "'");
  guarded([&] { w.model = std::make_unique<Model>(w.spec, fixed_numbers(w.doc)); });
  w.seed = static_cast<std::uint64_t>(w.doc["seed"].value_or<std::int64_t>(1));
  check_bench(w, o);
  return w;
}

// The doc of one sweep of the world: its seed and runs per point.
toml::table with_seed(const World& w, std::uint64_t seed, double runs) {
  toml::table doc = w.doc;
  doc.erase("benchmark");
  if (auto p = doc["profile"].as_table())
    for (auto& [name, node] : *p)
      if (auto t = node.as_table()) t->erase("benchmark");
  doc.insert_or_assign("seed", static_cast<std::int64_t>(seed));
  doc.insert_or_assign("runs", static_cast<std::int64_t>(runs));
  return doc;
}

std::vector<Planned> design_plan(const World& w, const Design& d) {
  std::vector<Planned> plan;
  const double n_lo = w.model->N(w.bench.sizes[0]), n_hi = w.model->N(w.bench.sizes[1]);
  for (double C : d.budgets) {
    const double move = std::pow(C / d.budgets.front(), w.bench.shift);
    for (int k = 0; k < static_cast<int>(d.sizes); ++k) {
      const double N = n_lo * move * std::pow(n_hi / n_lo, k / (d.sizes - 1));
      const double s = w.model->size_for_N(N);
      plan.push_back({s, w.model->data_for(s, C), C});
    }
  }
  return plan;
}

ProtocolTable table_of(const Sweeped& s) {
  ProtocolTable t;
  t.N = s.N, t.D = s.D, t.C = s.C, t.budget = s.budget, t.loss = s.loss;
  return t;
}

struct TruthPoint {
  double N, loss, sem;
};

struct Truth {
  double horizon = 0, C = 0, N = kNaN, D = kNaN, L = kNaN, N_lo = kNaN, N_hi = kNaN, L_lo = kNaN, L_hi = kNaN;
  std::vector<TruthPoint> points;  // by increasing N
  IsoflopSlice parabola;            // fitted to the window around the minimum
  double window_lo = 0, window_hi = 0;  // log N range of that window
  bool interior = false;
  std::string note;
  // The world's loss at N: the window's parabola inside it, else the measured points interpolated
  // in log N; NaN outside the slice.
  double loss_at(double N) const {
    const double x = std::log(N);
    if (!std::isfinite(x) || points.empty()) return kNaN;
    if (interior && x >= window_lo && x <= window_hi) return parabola.loss_at(N);
    if (x < std::log(points.front().N) || x > std::log(points.back().N)) return kNaN;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      const double a = std::log(points[i].N), b = std::log(points[i + 1].N);
      if (x >= a && x <= b) return points[i].loss + (points[i + 1].loss - points[i].loss) * (b > a ? (x - a) / (b - a) : 0.0);
    }
    return kNaN;
  }
};

// The minimum of a truth slice: a parabola in log N through the 5 points around the lowest mean
// (or, when noise bends those, through every point of the slice); false when the lowest mean is
// at an edge or neither parabola has its minimum inside the points it was fitted to.
bool window_minimum(const std::vector<TruthPoint>& pts, const std::vector<double>& loss, IsoflopSlice& s, double& lo,
                    double& hi) {
  const auto best = static_cast<std::size_t>(std::min_element(loss.begin(), loss.end()) - loss.begin());
  if (best == 0 || best + 1 == loss.size()) return false;
  for (std::size_t half : {std::size_t{2}, loss.size()}) {
    const std::size_t a = best >= half ? best - half : 0, b = std::min(loss.size() - 1, best + half);
    std::vector<double> x, y, wt;
    for (std::size_t i = a; i <= b; ++i) x.push_back(std::log(pts[i].N)), y.push_back(loss[i]), wt.push_back(1.0);
    std::string why;
    if (!slice_minimum(x, y, wt, s, why)) continue;
    lo = x.front(), hi = x.back();
    if (std::log(s.N_opt) >= lo && std::log(s.N_opt) <= hi) return true;
  }
  return false;
}

void fit_truth(Truth& t, std::uint64_t seed) {
  std::sort(t.points.begin(), t.points.end(), [](const TruthPoint& a, const TruthPoint& b) { return a.N < b.N; });
  std::vector<double> loss;
  for (const auto& p : t.points) loss.push_back(p.loss);
  t.interior = window_minimum(t.points, loss, t.parabola, t.window_lo, t.window_hi);
  if (!t.interior) {
    t.note = "the truth slice has no interior minimum";
    return;
  }
  t.N = t.parabola.N_opt;
  t.L = t.parabola.L_opt;
  t.D = t.C / (6 * t.N);
  // The truth's own uncertainty: its points redrawn within their standard errors.
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<double> ns, ls;
  for (int b = 0; b < 400; ++b) {
    std::vector<double> l2;
    for (const auto& p : t.points) l2.push_back(p.loss + p.sem * z(rng));
    IsoflopSlice s;
    double lo = 0, hi = 0;
    if (window_minimum(t.points, l2, s, lo, hi)) ns.push_back(s.N_opt), ls.push_back(s.L_opt);
  }
  if (ns.size() >= 100) {
    const Interval in = summarise_sample(ns, 0.95), il = summarise_sample(ls, 0.95);
    t.N_lo = in.lo, t.N_hi = in.hi, t.L_lo = il.lo, t.L_hi = il.hi;
  }
}

void progress(const BenchmarkOptions& o, const std::string& text) {
  if (!o.quiet) std::fprintf(stderr, "%s\n", text.c_str());
}

struct WorldRun {
  std::vector<std::vector<ProtocolTable>> tables;  // design x replication
  std::vector<double> cost;                        // design: FLOPs of one replication's small runs
  std::vector<Truth> truth;                        // horizon
  double small_seconds = 0, truth_seconds = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

WorldRun run_world(const World& w, const std::string& out, const BenchmarkOptions& o) {
  WorldRun run;
  PartOptions po;
  po.profile = o.profile;
  po.threads = o.threads;
  po.resume = o.resume;
  po.quiet = true;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t j = 0; j < w.bench.designs.size(); ++j) {
    const Design& d = w.bench.designs[j];
    run.tables.emplace_back();
    double cost = 0;
    for (int r = 0; r < w.replications; ++r) {
      const std::uint64_t seed = w.seed + 1 + 100000 * j + static_cast<std::uint64_t>(r);
      const Part part = plan_part(with_seed(w, seed, d.runs), w.spec, design_plan(w, d), "small", po, *w.measure);
      progress(o, fmt::format("[{}] design {} replication {}/{}: {} points x {} runs", w.name, d.name, r + 1,
                              w.replications, part.kept.size(), d.runs));
      const Sweeped s = run_part(part, w.spec, *w.model, fmt::format("{}/{}/{}/rep-{}", out, w.name, d.name, r + 1), po);
      if (r == 0)
        for (double c : s.C) cost += c * d.runs;
      run.tables.back().push_back(table_of(s));
    }
    run.cost.push_back(cost);
  }
  run.small_seconds = seconds_since(t0);

  // Where to look for the truth: the pooled prediction of every replication of the main design
  // (R times the data of one), which only places the slice; the slice's own minimum is the truth.
  const auto t1 = std::chrono::steady_clock::now();
  std::size_t main = 0;
  while (w.bench.designs[main].name != w.bench.main) ++main;
  ProtocolTable pooled;
  for (const auto& t : run.tables[main])
    for (std::size_t i = 0; i < t.size(); ++i)
      pooled.N.push_back(t.N[i]), pooled.D.push_back(t.D[i]), pooled.C.push_back(t.C[i]),
          pooled.budget.push_back(t.budget[i]), pooled.loss.push_back(t.loss[i]);
  std::vector<double> targets;
  for (double h : w.bench.horizons) targets.push_back(w.bench.budgets[1] * h);
  MethodOptions mo;
  mo.bootstrap = 0;
  mo.threads = o.threads;
  const MethodResult p2 = apply_method(parse_method("approach2"), pooled, targets, mo);
  const MethodResult p3 = apply_method(parse_method("approach3"), pooled, targets, mo);
  for (std::size_t h = 0; h < targets.size(); ++h) {
    Truth truth;
    truth.horizon = w.bench.horizons[h];
    truth.C = targets[h];
    double log_centre = 0;
    int n = 0;
    for (const auto* p : {&p2, &p3})
      if (p->ok && std::isfinite(p->at[h].N.value) && p->at[h].N.value > 0) log_centre += std::log(p->at[h].N.value), ++n;
    if (n == 0) {
      truth.note = "no pooled fit placed the truth slice";
      run.truth.push_back(truth);
      continue;
    }
    double centre = std::exp(log_centre / n);
    for (int ext = 0; ext <= kMaxExtensions; ++ext) {
      std::vector<Planned> plan;
      const int k = static_cast<int>(w.bench.truth_sizes);
      for (int i = 0; i < k; ++i) {
        const double N = centre * std::pow(w.bench.truth_spread, -1.0 + 2.0 * i / (k - 1));
        const double s = w.model->size_for_N(N);
        plan.push_back({s, w.model->data_for(s, truth.C), truth.C});
      }
      const std::uint64_t seed = w.seed + 9000000 + 1000 * h + static_cast<std::uint64_t>(ext);
      const Part part = plan_part(with_seed(w, seed, w.bench.truth_runs), w.spec, plan, "truth", po, *w.measure);
      progress(o, fmt::format("[{}] truth at {:g}x (C = {:.3g}){}: {} points x {} runs", w.name, truth.horizon, truth.C,
                              ext ? fmt::format(", extension {}", ext) : "", part.kept.size(), w.bench.truth_runs));
      const Sweeped s =
          run_part(part, w.spec, *w.model, fmt::format("{}/{}/truth-{:g}x{}", out, w.name, truth.horizon,
                                                       ext ? fmt::format("-ext{}", ext) : ""), po);
      for (std::size_t i = 0; i < s.N.size(); ++i) {
        bool seen = false;  // a size an earlier slice ran (after rounding) keeps its first runs
        for (const auto& p : truth.points) seen = seen || p.N == s.N[i];
        if (!seen) truth.points.push_back({s.N[i], s.loss[i], s.sem[i]});
      }
      fit_truth(truth, seed);
      if (truth.interior) break;
      // Extended only when the lowest mean is at an edge: look beyond it.
      const auto best = std::min_element(truth.points.begin(), truth.points.end(),
                                         [](const TruthPoint& a, const TruthPoint& b) { return a.loss < b.loss; });
      if (best == truth.points.begin()) centre = truth.points.front().N / w.bench.truth_spread;
      else if (best + 1 == truth.points.end()) centre = truth.points.back().N * w.bench.truth_spread;
      else {
        truth.note = "the truth slice's points are too noisy for a minimum (raise truth_runs)";
        break;
      }
    }
    run.truth.push_back(truth);
  }
  run.truth_seconds = seconds_since(t1);
  return run;
}

// One method's prediction on one replication at one horizon, scored.
struct Scored {
  std::string world, design, method;
  int replication = 0;
  double horizon = 0, C = 0;
  bool ok = false;
  std::string note;
  FrontierPrediction p;
  double regret = kNaN, seconds = 0;
};

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.8g}", v) : ""; }

nlohmann::json jnum(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// Predictions made elsewhere (e.g. a Python callable): world, design, replication, horizon, method,
// N_opt, N_lo, N_hi, L_opt, L_lo, L_hi (empty: none).
std::vector<Scored> read_external(const std::string& path) {
  const DataTable t = read_csv(path);
  std::vector<Scored> out;
  auto cell = [&](std::size_t r, const std::string& col) -> std::string {
    for (std::size_t c = 0; c < t.names.size(); ++c)
      if (t.names[c] == col) return std::string(t.cell(r, c));
    throw InputError(path + ": missing column '" + col + "'");
  };
  auto value = [&](std::size_t r, const std::string& col) {
    const std::string s = cell(r, col);
    if (s.empty() || s == "nan" || s == "NaN") return kNaN;
    const auto v = parse_number(s);
    if (!v) throw InputError(fmt::format("{} line {}: {} = '{}' is not a number", path, t.lines[r], col, s));
    return *v;
  };
  for (std::size_t r = 0; r < t.rows(); ++r) {
    Scored s;
    s.world = cell(r, "world"), s.design = cell(r, "design"), s.method = cell(r, "method");
    s.replication = static_cast<int>(value(r, "replication"));
    s.horizon = value(r, "horizon");
    s.p.N = {value(r, "N_opt"), value(r, "N_lo"), value(r, "N_hi")};
    s.p.L = {value(r, "L_opt"), value(r, "L_lo"), value(r, "L_hi")};
    s.ok = std::isfinite(s.p.N.value) || std::isfinite(s.p.L.value);
    out.push_back(s);
  }
  return out;
}

nlohmann::json spread_json(const Spread& s) {
  return {{"median", jnum(s.median)}, {"q25", jnum(s.q25)}, {"q75", jnum(s.q75)}, {"count", s.count}};
}

nlohmann::json coverage_json(const Coverage& c) {
  return {{"covered", c.covered}, {"total", c.total}, {"fraction", jnum(c.fraction)}, {"lo", jnum(c.lo)}, {"hi", jnum(c.hi)}};
}

std::vector<double> abs_of(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return v;
}

}  // namespace

nlohmann::json run_benchmark(const std::vector<std::string>& files, const BenchmarkOptions& o) {
  if (files.empty()) throw InputError("extrapolate --benchmark: name at least one world file (experiments/extrapolate/)");
  // Everything is read and checked before anything runs: the methods, every world, the output.
  std::vector<MethodSpec> methods;
  for (const auto& m : o.methods.empty() ? default_methods() : o.methods) methods.push_back(parse_method(m));
  std::vector<World> worlds;
  std::set<std::string> names;
  for (const auto& f : files) {
    worlds.push_back(load_world(f, o));
    if (!names.insert(worlds.back().name).second)
      throw InputError(f + ": two world files are named '" + worlds.back().name + "'");
  }
  for (const auto& e : o.external) {
    if (e.name.empty() || !e.predict) throw InputError("extrapolate: a method of the caller needs a name and a function");
    for (const auto& m : methods)
      if (m.name == e.name) throw InputError("extrapolate: two methods are named '" + e.name + "'");
  }
  std::vector<Scored> external;
  if (!o.predictions.empty()) external = read_external(o.predictions);
  // The plan, before anything runs: runs per world (the truth's at most: its slices may be extended).
  for (const auto& w : worlds) {
    double small = 0, flops = 0;
    for (const auto& d : w.bench.designs) {
      small += static_cast<double>(d.budgets.size()) * d.sizes * d.runs * w.replications;
      for (double C : d.budgets) flops += C * d.sizes * d.runs * w.replications;
    }
    double truth_flops = 0;
    for (double h : w.bench.horizons) truth_flops += w.bench.budgets[1] * h * w.bench.truth_sizes * w.bench.truth_runs;
    progress(o, fmt::format("plan [{}]: {:.0f} small runs ({} designs x {} replications, {:.3g} FLOPs), {:.0f} truth runs "
                            "({:.3g} FLOPs; up to {}x more if slices are extended), {} methods",
                            w.name, small, w.bench.designs.size(), w.replications, flops,
                            w.bench.horizons.size() * w.bench.truth_sizes * w.bench.truth_runs, truth_flops,
                            1 + kMaxExtensions, methods.size() + o.external.size()));
  }
  const std::string out = o.out_dir.empty() ? "results/extrapolation-benchmark" : o.out_dir;
  std::filesystem::create_directories(out);
  const auto t_start = std::chrono::steady_clock::now();

  std::vector<Scored> all;
  std::string tables_csv = "world,design,replication,N,D,C,budget,loss\n";
  std::string truth_csv = "world,horizon,C,N_opt,N_lo,N_hi,D_opt,L_opt,L_lo,L_hi,points,runs,note\n";
  std::string curve_csv = "world,horizon,N,loss,sem\n";
  nlohmann::json report;
  report["worlds"] = nlohmann::json::array();
  // The leaderboard and every table, rewritten after each world: a failure in a later world keeps
  // the earlier ones' results (and its runs, resumable).
  auto write_outputs = [&] {
    // The leaderboard: per world x design x method x horizon.
    std::string pred_csv =
        "world,design,method,replication,horizon,C,ok,N_opt,N_lo,N_hi,D_opt,D_lo,D_hi,L_opt,L_lo,L_hi,regret,seconds,note\n";
    for (const auto& s : all)
      pred_csv += fmt::format("{},{},{},{},{:g},{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{}\n", s.world, s.design,
                              csv_text(s.method), s.replication, s.horizon, num(s.C), s.ok ? 1 : 0, num(s.p.N.value),
                              num(s.p.N.lo), num(s.p.N.hi), num(s.p.D.value), num(s.p.D.lo), num(s.p.D.hi),
                              num(s.p.L.value), num(s.p.L.lo), num(s.p.L.hi), num(s.regret), s.seconds, csv_text(s.note));
    std::vector<std::string> method_names;
    for (const auto& m : methods) method_names.push_back(m.name);
    for (const auto& m : o.external) method_names.push_back(m.name);
    for (const auto& s : external)
      if (std::find(method_names.begin(), method_names.end(), s.method) == method_names.end()) method_names.push_back(s.method);
    std::string lb_csv =
        "world,design,main,design_cost,method,horizon,replications,failed,N_err_median,N_err_q25,N_err_q75,N_abs_err_median,"
        "D_err_median,L_err_median,L_err_q25,L_err_q75,L_abs_err_median,regret_median,regret_q75,N_coverage,N_covered,"
        "N_intervals,N_coverage_lo,N_coverage_hi,N_width,L_coverage,L_covered,L_intervals,L_width,truth_N,truth_L,seconds\n";
    report["rows"] = nlohmann::json::array();
    for (std::size_t wi = 0; wi < report["worlds"].size(); ++wi) {
      const World& w = worlds[wi];
      const auto& truths = report["worlds"][wi]["truth"];
      for (std::size_t j = 0; j < w.bench.designs.size(); ++j) {
        const Design& d = w.bench.designs[j];
        const double cost = report["worlds"][wi]["designs"][j]["cost"].get<double>();
        for (const auto& mname : method_names)
          for (std::size_t h = 0; h < w.bench.horizons.size(); ++h) {
            std::vector<Estimate> en, ed, el;
            std::vector<double> regret, secs;
            int failed = 0, count = 0;
            for (const auto& s : all)
              if (s.world == w.name && s.design == d.name && s.method == mname && s.horizon == w.bench.horizons[h]) {
                ++count;
                if (!s.ok) {
                  ++failed;
                  continue;
                }
                en.push_back(s.p.N), ed.push_back(s.p.D), el.push_back(s.p.L), regret.push_back(s.regret), secs.push_back(s.seconds);
              }
            if (count == 0) continue;
            const double tN = truths[h]["N_opt"].is_number() ? truths[h]["N_opt"].get<double>() : kNaN;
            const double tL = truths[h]["L_opt"].is_number() ? truths[h]["L_opt"].get<double>() : kNaN;
            const double tD = truths[h]["D_opt"].is_number() ? truths[h]["D_opt"].get<double>() : kNaN;
            const Spread nE = spread(relative_errors(en, tN)), dE = spread(relative_errors(ed, tD)),
                         lE = spread(relative_errors(el, tL)), nA = spread(abs_of(relative_errors(en, tN))),
                         lA = spread(abs_of(relative_errors(el, tL))), rg = spread(regret);
            const Coverage cN = coverage(en, tN), cL = coverage(el, tL);
            const double wN = median_width_ratio(en), wL = median_width_ratio(el), sec = spread(secs).median;
            nlohmann::json row = {{"world", w.name}, {"design", d.name}, {"design_cost", cost}, {"main", d.name == w.bench.main},
                                  {"method", mname}, {"horizon", w.bench.horizons[h]}, {"replications", count},
                                  {"failed", failed}, {"N_error", spread_json(nE)}, {"N_abs_error", spread_json(nA)},
                                  {"D_error", spread_json(dE)}, {"L_error", spread_json(lE)}, {"L_abs_error", spread_json(lA)},
                                  {"regret", spread_json(rg)}, {"N_coverage", coverage_json(cN)}, {"N_width", jnum(wN)},
                                  {"L_coverage", coverage_json(cL)}, {"L_width", jnum(wL)}, {"truth_N", jnum(tN)},
                                  {"truth_L", jnum(tL)}, {"seconds", jnum(sec)}};
            report["rows"].push_back(row);
            lb_csv += fmt::format("{},{},{},{},{},{:g},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                                  w.name, d.name, d.name == w.bench.main ? 1 : 0, num(cost), csv_text(mname), w.bench.horizons[h], count, failed,
                                  num(nE.median), num(nE.q25), num(nE.q75), num(nA.median), num(dE.median), num(lE.median),
                                  num(lE.q25), num(lE.q75), num(lA.median), num(rg.median), num(rg.q75), num(cN.fraction),
                                  cN.covered, cN.total, num(cN.lo), num(cN.hi), num(wN), num(cL.fraction), cL.covered,
                                  cL.total, num(wL), num(tN), num(tL), num(sec));
          }
      }
    }
    report["methods"] = method_names;
    report["seconds"] = seconds_since(t_start);
    report["out_dir"] = out;
    report["profile"] = o.profile;
    write_file(out + "/tables.csv", tables_csv);
    write_file(out + "/truth.csv", truth_csv);
    write_file(out + "/truth-curves.csv", curve_csv);
    write_file(out + "/predictions.csv", pred_csv);
    write_file(out + "/leaderboard.csv", lb_csv);
    write_file(out + "/leaderboard.json", report.dump(2) + "\n");
    write_file(out + "/leaderboard.md", leaderboard_markdown(report));
    plot_benchmark(out, report);
  };
  for (const auto& w : worlds) {
    const WorldRun run = run_world(w, out, o);
    nlohmann::json wj = {{"name", w.name}, {"file", w.path}, {"measure", w.measure->name},
                         {"deterministic", w.measure->deterministic}, {"replications", w.replications},
                         {"small_seconds", run.small_seconds}, {"truth_seconds", run.truth_seconds}};
    for (std::size_t j = 0; j < w.bench.designs.size(); ++j) {
      const Design& d = w.bench.designs[j];
      wj["designs"].push_back({{"name", d.name}, {"per_decade", d.per_decade}, {"sizes", d.sizes}, {"runs", d.runs},
                               {"budgets", d.budgets}, {"cost", run.cost[j]}});
      for (int r = 0; r < w.replications; ++r) {
        const auto& t = run.tables[j][static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < t.size(); ++i)
          tables_csv += fmt::format("{},{},{},{},{},{},{},{}\n", w.name, d.name, r + 1, num(t.N[i]), num(t.D[i]),
                                    num(t.C[i]), num(t.budget[i]), num(t.loss[i]));
      }
    }
    for (const auto& t : run.truth) {
      truth_csv += fmt::format("{},{:g},{},{},{},{},{},{},{},{},{},{},{}\n", w.name, t.horizon, num(t.C), num(t.N),
                               num(t.N_lo), num(t.N_hi), num(t.D), num(t.L), num(t.L_lo), num(t.L_hi), t.points.size(),
                               w.bench.truth_runs, csv_text(t.note));
      for (const auto& p : t.points) curve_csv += fmt::format("{},{:g},{},{},{}\n", w.name, t.horizon, num(p.N), num(p.loss), num(p.sem));
      wj["truth"].push_back({{"horizon", t.horizon}, {"C", t.C}, {"N_opt", jnum(t.N)}, {"N_lo", jnum(t.N_lo)},
                             {"N_hi", jnum(t.N_hi)}, {"D_opt", jnum(t.D)}, {"L_opt", jnum(t.L)}, {"L_lo", jnum(t.L_lo)},
                             {"L_hi", jnum(t.L_hi)}, {"points", t.points.size()}, {"note", t.note}});
    }
    // Every method on every replication, in parallel across replications (one thread per fit).
    std::vector<double> targets;
    for (double h : w.bench.horizons) targets.push_back(w.bench.budgets[1] * h);
    struct Job {
      std::size_t design;
      int replication;
      std::size_t method;
    };
    std::vector<Job> jobs;
    for (std::size_t j = 0; j < w.bench.designs.size(); ++j)
      for (int r = 0; r < w.replications; ++r)
        for (std::size_t m = 0; m < methods.size(); ++m) jobs.push_back({j, r, m});
    std::vector<MethodResult> results(jobs.size());
    const auto t_fit = std::chrono::steady_clock::now();
    progress(o, fmt::format("[{}] {} methods x {} replications x {} designs: fitting", w.name, methods.size(),
                            w.replications, w.bench.designs.size()));
    parallel_for(jobs.size(), o.threads, [&](std::size_t i, int) {
      const Job& jb = jobs[i];
      MethodOptions mo;
      mo.bootstrap = static_cast<int>(w.bench.bootstrap);
      mo.seed = 1 + i;
      mo.threads = 1;
      results[i] = apply_method(methods[jb.method], run.tables[jb.design][static_cast<std::size_t>(jb.replication)], targets, mo);
    });
    wj["fit_seconds"] = seconds_since(t_fit);
    // The caller's methods, on this thread (a Python callable holds its interpreter's lock).
    for (std::size_t e = 0; e < o.external.size(); ++e)
      for (std::size_t j = 0; j < w.bench.designs.size(); ++j)
        for (int r = 0; r < w.replications; ++r) {
          const auto t_ext = std::chrono::steady_clock::now();
          MethodResult res = o.external[e].predict(run.tables[j][static_cast<std::size_t>(r)], targets);
          res.seconds = seconds_since(t_ext);
          if (res.ok && res.at.size() != targets.size())
            throw InputError(fmt::format("method '{}' gave {} predictions for {} target budgets", o.external[e].name,
                                         res.at.size(), targets.size()));
          jobs.push_back({j, r, methods.size() + e});
          results.push_back(std::move(res));
        }
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto& res = results[i];
      for (std::size_t h = 0; h < targets.size(); ++h) {
        Scored s;
        s.world = w.name;
        s.design = w.bench.designs[jobs[i].design].name;
        s.method = jobs[i].method < methods.size() ? methods[jobs[i].method].name : o.external[jobs[i].method - methods.size()].name;
        s.replication = jobs[i].replication + 1;
        s.horizon = w.bench.horizons[h];
        s.C = targets[h];
        s.ok = res.ok;
        s.note = res.note;
        s.seconds = res.seconds;
        if (res.ok) s.p = res.at[h];
        all.push_back(s);
      }
    }
    for (auto s : external)
      if (s.world == w.name) {
        for (std::size_t h = 0; h < targets.size(); ++h)
          if (std::fabs(s.horizon / w.bench.horizons[h] - 1) < 1e-9) s.C = targets[h];
        if (s.C > 0 && std::isfinite(s.p.N.value)) s.p.D = {s.C / (6 * s.p.N.value), s.C / (6 * s.p.N.hi), s.C / (6 * s.p.N.lo)};
        all.push_back(s);
      }
    // Regret against the truth's loss curve.
    for (auto& s : all)
      if (s.world == w.name)
        for (const auto& t : run.truth)
          if (t.horizon == s.horizon && t.interior && std::isfinite(s.p.N.value)) s.regret = t.loss_at(s.p.N.value) / t.L - 1;
    report["worlds"].push_back(wj);
    write_outputs();
  }

  return report;
}

namespace {
std::string pct(const nlohmann::json& v) { return v.is_number() ? fmt::format("{:+.1f}%", 100 * v.get<double>()) : "—"; }
std::string pct_abs(const nlohmann::json& v) { return v.is_number() ? fmt::format("{:.1f}%", 100 * v.get<double>()) : "—"; }
std::string spread_cell(const nlohmann::json& s) {
  if (!s["median"].is_number()) return "—";
  return fmt::format("{} [{}, {}]", pct(s["median"]), pct(s["q25"]), pct(s["q75"]));
}
std::string coverage_cell(const nlohmann::json& c) {
  if (c["total"].get<int>() == 0) return "—";
  return fmt::format("{}/{}", c["covered"].get<int>(), c["total"].get<int>());
}
std::string md_text(std::string s) {  // a method's name in a table cell
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return o;
}
}  // namespace

std::string leaderboard_markdown(const nlohmann::json& j) {
  std::string s = "# Extrapolation leaderboard\n\n";
  s += fmt::format("Profile: {}. {} world(s), {} method(s); {:.0f} s in all.\n\n",
                   j["profile"].get<std::string>().empty() ? "default" : j["profile"].get<std::string>(),
                   j["worlds"].size(), j["methods"].size(), j["seconds"].get<double>());
  s += "Errors are prediction / truth - 1: the median over replications and, in brackets, the quartiles. "
       "Regret: the true loss at the predicted N_opt over the true optimum, minus 1 (median). Coverage: "
       "replications whose 95% interval contains the truth.\n\n";
  for (const auto& w : j["worlds"]) {
    s += fmt::format("## {} ({}, {} replication{})\n\n", w["name"].get<std::string>(), w["measure"].get<std::string>(),
                     w["replications"].get<int>(), w["replications"].get<int>() == 1 ? "" : "s");
    for (const auto& t : w["truth"])
      s += fmt::format("- truth at {:g}x (C = {:.3g}): N_opt = {}, L_opt = {}{}\n", t["horizon"].get<double>(),
                       t["C"].get<double>(), t["N_opt"].is_number() ? fmt::format("{:.4g}", t["N_opt"].get<double>()) : "—",
                       t["L_opt"].is_number() ? fmt::format("{:.4g}", t["L_opt"].get<double>()) : "—",
                       t["N_lo"].is_number() ? fmt::format(" (its own 95% interval on N_opt: {:.4g} to {:.4g})",
                                                           t["N_lo"].get<double>(), t["N_hi"].get<double>())
                                             : "");
    s += fmt::format("- times: small runs {:.0f} s, truth {:.0f} s, fits {:.0f} s\n\n", w["small_seconds"].get<double>(),
                     w["truth_seconds"].get<double>(), w["fit_seconds"].get<double>());
    s += "| design | method | horizon | N_opt error | L_opt error | regret | N cover | L cover | failed |\n";
    s += "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : j["rows"]) {
      if (r["world"] != w["name"] || !r["main"].get<bool>()) continue;
      s += fmt::format("| {} | {} | {:g}x | {} | {} | {} | {} | {} | {} |\n", r["design"].get<std::string>(),
                       md_text(r["method"].get<std::string>()), r["horizon"].get<double>(), spread_cell(r["N_error"]),
                       spread_cell(r["L_error"]), pct_abs(r["regret"]["median"]), coverage_cell(r["N_coverage"]),
                       coverage_cell(r["L_coverage"]), r["failed"].get<int>());
    }
    s += "\n";
  }
  s += "## Design cost\n\nMedian |N_opt error| at the largest horizon against the compute one replication's small runs spend.\n\n";
  s += "| world | design | cost (FLOPs) | method | median abs. N_opt error | median regret |\n|---|---|---|---|---|---|\n";
  for (const auto& w : j["worlds"]) {
    double hmax = 0;
    for (const auto& t : w["truth"]) hmax = std::max(hmax, t["horizon"].get<double>());
    for (const auto& r : j["rows"])
      if (r["world"] == w["name"] && r["horizon"].get<double>() == hmax)
        s += fmt::format("| {} | {} | {:.3g} | {} | {} | {} |\n", r["world"].get<std::string>(), r["design"].get<std::string>(),
                         r["design_cost"].get<double>(), md_text(r["method"].get<std::string>()),
                         pct_abs(r["N_abs_error"]["median"]), pct_abs(r["regret"]["median"]));
  }
  return s;
}

}  // namespace scalinglab::fit
