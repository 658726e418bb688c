// The extrapolation benchmark: replicated small-budget designs -> every method -> scored against a
// truth the methods never see.
#include "scalinglab/extrapolate/extrapolation_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "benchmark_world.hpp"
#include "held_out.hpp"
#include "leaderboard.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/core/utf8.hpp"
#include "scalinglab/extrapolate/extrapolation_plot.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_method.hpp"
#include "scalinglab/lab/param.hpp"
#include "truth_slice.hpp"

namespace scalinglab::extrapolate {

using namespace fit;
using namespace protocol;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void progress(const BenchmarkOptions& o, const std::string& text) {
  if (!o.quiet) std::fprintf(stderr, "%s\n", terminal_text(text).c_str());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

ProtocolTable table_of(const Sweeped& s) {
  ProtocolTable t;
  t.N = s.N, t.D = s.D, t.C = s.C, t.budget = s.budget, t.loss = s.loss;
  t.curves = s.curves;
  return t;
}

// The small runs of every design and replication, then the truth at each horizon, placed by the
// pooled prediction of every replication of the main design (R times the data of one), which only
// places the slice: the slice's own minimum is the truth.
WorldRun run_world(const World& w, const std::string& out, const BenchmarkOptions& o) {
  WorldRun run;
  run.name = w.name;
  run.path = w.path;
  run.measure = w.measure->name;
  run.deterministic = w.measure->deterministic;
  run.replications = w.replications;
  PartOptions po;
  po.profile = o.profile;
  po.threads = o.threads;
  po.resume = o.resume;
  po.quiet = true;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t j = 0; j < w.bench.designs.size(); ++j) {
    const Design& d = w.bench.designs[j];
    run.tables.emplace_back();
    DesignInfo info{d.name, d.knob, d.per_decade, d.sizes, d.runs, 0, d.budgets, d.name == w.bench.main};
    for (int r = 0; r < w.replications; ++r) {
      const std::uint64_t seed = w.seed + 1 + 100000 * j + static_cast<std::uint64_t>(r);
      const Part part = plan_part(with_seed(w, seed, d.runs), w.spec, design_plan(w, d), "small", po, *w.measure);
      progress(o, fmt::format("[{}] design {} replication {}/{}: {} points x {} runs", w.name, d.name, r + 1,
                              w.replications, part.kept.size(), d.runs));
      const Sweeped s = run_part(part, w.spec, *w.model, fmt::format("{}/{}/{}/rep-{}", out, w.name, d.name, r + 1), po);
      if (r == 0)
        for (double c : s.C) info.cost += c * d.runs;
      run.tables.back().push_back(table_of(s));
    }
    run.designs.push_back(info);
  }
  run.small_seconds = seconds_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  ProtocolTable pooled;
  for (const auto& t : run.tables[w.main_design()])
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
  PartOptions tpo = po;
  for (std::size_t h = 0; h < targets.size(); ++h) {
    double log_centre = 0;
    int n = 0;
    for (const auto* p : {&p2, &p3})
      if (p->ok && std::isfinite(p->at[h].N.value) && p->at[h].N.value > 0) log_centre += std::log(p->at[h].N.value), ++n;
    if (n == 0) {
      Truth t;
      t.horizon = w.bench.horizons[h];
      t.C = targets[h];
      t.note = "no pooled fit placed the truth slice";
      run.truth.push_back(t);
      continue;
    }
    run.truth.push_back(run_truth(w, h, targets[h], std::exp(log_centre / n), out, tpo,
                                  [&](const std::string& s) { progress(o, s); }));
  }
  run.truth_seconds = seconds_since(t1);
  return run;
}

// Every method on every replication of every design, in parallel across fits (one thread each); a
// method that cannot apply to a design is recorded as such and not run.
void fit_methods(WorldRun& run, const std::vector<MethodSpec>& methods, const std::vector<ExternalMethod>& external,
                 int bootstrap, bool has_curves, const std::vector<std::string>& design_methods,
                 const BenchmarkOptions& o) {
  // A method left out of the other designs (design_methods) is simply not scored there.
  auto runs_on = [&](std::size_t j, const MethodSpec& m) {
    return run.designs[j].main || design_methods.empty() ||
           std::find(design_methods.begin(), design_methods.end(), m.name) != design_methods.end();
  };
  std::vector<double> targets;
  for (const auto& t : run.truth) targets.push_back(t.C);
  struct Job {
    std::size_t design;
    std::size_t replication;
    std::size_t method;
  };
  std::vector<Job> jobs;
  std::vector<std::string> why(run.designs.size() * methods.size());
  for (std::size_t j = 0; j < run.designs.size(); ++j)
    for (std::size_t m = 0; m < methods.size(); ++m) {
      why[j * methods.size() + m] = not_applicable(methods[m], run.designs[j].budgets.size(), has_curves);
      if (!runs_on(j, methods[m])) continue;
      for (std::size_t r = 0; r < run.tables[j].size(); ++r)
        if (why[j * methods.size() + m].empty()) jobs.push_back({j, r, m});
    }
  std::vector<MethodResult> results(jobs.size());
  const auto t0 = std::chrono::steady_clock::now();
  progress(o, fmt::format("[{}] {} fits ({} methods x {} designs x {} replications, inapplicable ones left out)", run.name,
                          jobs.size(), methods.size(), run.designs.size(), run.replications));
  parallel_for(jobs.size(), o.threads, [&](std::size_t i, int) {
    MethodOptions mo;
    mo.bootstrap = bootstrap;
    mo.seed = 1 + i;
    mo.threads = 1;
    results[i] = apply_method(methods[jobs[i].method], run.tables[jobs[i].design][jobs[i].replication], targets, mo);
  });
  run.fit_seconds = seconds_since(t0);
  // The caller's methods, on this thread (a Python callable holds its interpreter's lock).
  for (std::size_t e = 0; e < external.size(); ++e)
    for (std::size_t j = 0; j < run.designs.size(); ++j)
      for (std::size_t r = 0; r < run.tables[j].size(); ++r) {
        const auto t_ext = std::chrono::steady_clock::now();
        MethodResult res = external[e].predict(run.tables[j][r], targets);
        res.seconds = seconds_since(t_ext);
        if (res.ok && res.at.size() != targets.size())
          throw InputError(fmt::format("method '{}' gave {} predictions for {} target budgets", external[e].name,
                                       res.at.size(), targets.size()));
        jobs.push_back({j, r, methods.size() + e});
        results.push_back(std::move(res));
      }
  auto name_of = [&](std::size_t m) { return m < methods.size() ? methods[m].name : external[m - methods.size()].name; };
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (std::size_t h = 0; h < targets.size(); ++h) {
      const auto& res = results[i];
      Scored s;
      s.design = run.designs[jobs[i].design].name;
      s.method = name_of(jobs[i].method);
      s.replication = static_cast<int>(jobs[i].replication) + 1;
      s.horizon = run.truth[h].horizon;
      s.C = targets[h];
      s.ok = res.ok;
      s.note = res.note;
      s.L_note = res.L_note;
      s.seconds = res.seconds;
      s.bootstrap_failed = res.bootstrap_failed;
      s.bootstrap_total = res.bootstrap_total;
      if (res.ok) s.p = res.at[h];
      run.scored.push_back(s);
    }
  for (std::size_t j = 0; j < run.designs.size(); ++j)
    for (std::size_t m = 0; m < methods.size(); ++m)
      if (!why[j * methods.size() + m].empty() && runs_on(j, methods[m]))
        for (std::size_t r = 0; r < run.tables[j].size(); ++r)
          for (const auto& t : run.truth) {
            Scored s;
            s.design = run.designs[j].name;
            s.method = methods[m].name;
            s.replication = static_cast<int>(r) + 1;
            s.horizon = t.horizon;
            s.C = t.C;
            s.not_applicable = why[j * methods.size() + m];
            run.scored.push_back(s);
          }
}

// Predictions made elsewhere (e.g. a Python callable): world, design, replication, horizon, method,
// N_opt, N_lo, N_hi, L_opt, L_lo, L_hi (empty: none).
struct ExternalRow {
  std::string world;
  Scored s;
};

std::vector<ExternalRow> read_external(const std::string& path) {
  const DataTable t = read_csv(path);
  std::vector<ExternalRow> out;
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
  // The names are written to every output (JSON, CSV, Markdown, the terminal): checked here, before
  // any run, rather than refused by the JSON writer once the runs are done.
  auto name = [&](std::size_t r, const std::string& col) {
    std::string s = cell(r, col);
    if (const std::string why = unprintable_reason(s); !why.empty())
      throw InputError(fmt::format("{} line {}: the {} name holds {}; names are UTF-8 text without control characters",
                                   path, t.lines[r], col, why));
    if (s.empty() && col == "method")
      throw InputError(fmt::format("{} line {}: the method name is empty", path, t.lines[r]));
    return s;
  };
  for (std::size_t r = 0; r < t.rows(); ++r) {
    ExternalRow e;
    e.world = name(r, "world");
    Scored& s = e.s;
    s.design = name(r, "design"), s.method = name(r, "method");
    s.replication = static_cast<int>(value(r, "replication"));
    s.horizon = value(r, "horizon");
    s.p.N = {value(r, "N_opt"), value(r, "N_lo"), value(r, "N_hi")};
    s.p.L = {value(r, "L_opt"), value(r, "L_lo"), value(r, "L_hi")};
    s.ok = std::isfinite(s.p.N.value) || std::isfinite(s.p.L.value);
    out.push_back(e);
  }
  return out;
}

// The predictions made elsewhere for this world, on its truths' budgets.
void add_external(WorldRun& run, const std::vector<ExternalRow>& external) {
  for (auto e : external)
    if (e.world == run.name) {
      for (const auto& t : run.truth)
        if (std::fabs(e.s.horizon / t.horizon - 1) < 1e-9) e.s.C = t.C;
      if (e.s.C > 0 && std::isfinite(e.s.p.N.value))
        e.s.p.D = {e.s.C / (6 * e.s.p.N.value), e.s.C / (6 * e.s.p.N.hi), e.s.C / (6 * e.s.p.N.lo)};
      run.scored.push_back(e.s);
    }
}

}  // namespace

nlohmann::json run_benchmark(const std::vector<std::string>& files, const BenchmarkOptions& o) {
  if (files.empty()) throw InputError("extrapolate --benchmark: name at least one world file (experiments/extrapolate/)");
  // Everything is read and checked before anything runs: the methods, every world, the output.
  std::vector<MethodSpec> methods;
  for (const auto& m : o.methods.empty() ? default_methods() : o.methods) methods.push_back(parse_method(m));
  std::vector<World> worlds;
  std::vector<HeldOut> held;
  std::vector<bool> is_held;
  std::set<std::string> names;
  for (const auto& f : files) {
    const bool h = is_held_out(f);
    is_held.push_back(h);
    if (h) held.push_back(load_held_out(f));
    else worlds.push_back(load_world(f, o));
    const std::string name = h ? held.back().name : worlds.back().name;
    if (!names.insert(name).second) throw InputError(f + ": two world files are named '" + name + "'");
  }
  for (const auto& m : methods)
    if (const std::string why = unprintable_reason(m.name); !why.empty())
      throw InputError("extrapolate: the method '" + terminal_text(m.name) + "' holds " + why +
                       "; names are UTF-8 text without control characters");
  for (const auto& e : o.external) {
    if (e.name.empty() || !e.predict) throw InputError("extrapolate: a method of the caller needs a name and a function");
    if (const std::string why = unprintable_reason(e.name); !why.empty())
      throw InputError("extrapolate: the caller's method '" + terminal_text(e.name) + "' holds " + why +
                       "; names are UTF-8 text without control characters");
    for (const auto& m : methods)
      if (m.name == e.name) throw InputError("extrapolate: two methods are named '" + e.name + "'");
  }
  std::vector<ExternalRow> external;
  if (!o.predictions.empty()) external = read_external(o.predictions);
  // The plan, before anything runs: runs and FLOPs per world (the truth's at its first slice; it
  // may be extended, refined and given more runs, up to the bound printed), and the fits.
  nlohmann::json plan = nlohmann::json::array();
  std::string plan_text;
  for (const auto& w : worlds) {
    double small = 0, flops = 0, fits = 0;
    const double n_methods = static_cast<double>(methods.size() + o.external.size());
    for (const auto& d : w.bench.designs) {
      small += static_cast<double>(d.budgets.size()) * d.sizes * d.runs * w.replications;
      for (double C : d.budgets) flops += C * d.sizes * d.runs * w.replications;
      const bool main = d.name == w.bench.main;
      fits += w.replications * (main || w.bench.design_methods.empty() ? n_methods
                                                                        : static_cast<double>(w.bench.design_methods.size()));
    }
    double truth_flops = 0;
    for (double h : w.bench.horizons) truth_flops += w.bench.budgets[1] * h * w.bench.truth_sizes * w.bench.truth_runs;
    const double truth_runs = static_cast<double>(w.bench.horizons.size()) * w.bench.truth_sizes * w.bench.truth_runs;
    const double truth_bound = static_cast<double>(w.bench.horizons.size()) *
                               (w.bench.truth_sizes * w.bench.truth_runs * (1 + kMaxExtensions + w.bench.refine) +
                                w.bench.truth_sizes * (w.bench.truth_max_runs - w.bench.truth_runs) +
                                2 * kMaxReach * w.bench.truth_runs);
    const std::string line = fmt::format(
        "plan [{}]: {:.0f} small runs ({} designs x {} replications, {:.3g} FLOPs), {:.0f} truth runs ({:.3g} FLOPs; "
        "at most {:.0f} runs if slices are extended, refined, made precise and reached out), {:.0f} fits",
        w.name, small, w.bench.designs.size(), w.replications, flops, truth_runs, truth_flops, truth_bound, fits);
    progress(o, line);
    plan_text += line + "\n";
    plan.push_back({{"world", w.name}, {"small_runs", small}, {"small_flops", flops}, {"truth_runs", truth_runs},
                    {"truth_flops", truth_flops}, {"truth_runs_at_most", truth_bound}, {"fits", fits},
                    {"replications", w.replications}});
  }
  for (const auto& h : held) {
    const std::string line = fmt::format("plan [{}]: the held-out table {}, its {:g} largest budgets the truth, {} fits",
                                         h.name, h.table, h.held, methods.size() + o.external.size());
    progress(o, line);
    plan_text += line + "\n";
    plan.push_back({{"world", h.name}, {"table", h.table}, {"held", h.held}});
  }
  if (o.plan_only) return {{"plan", plan}, {"plan_text", plan_text}};
  const std::string out = o.out_dir.empty() ? "results/extrapolation-benchmark" : o.out_dir;
  std::filesystem::create_directories(out);
  const auto t_start = std::chrono::steady_clock::now();

  std::vector<std::string> method_names;
  for (const auto& m : methods) method_names.push_back(m.name);
  for (const auto& m : o.external) method_names.push_back(m.name);
  for (const auto& e : external)
    if (std::find(method_names.begin(), method_names.end(), e.s.method) == method_names.end())
      method_names.push_back(e.s.method);
  std::vector<WorldRun> runs;
  nlohmann::json report;
  report["worlds"] = nlohmann::json::array();
  report["rows"] = nlohmann::json::array();
  report["methods"] = method_names;
  report["profile"] = o.profile;
  report["out_dir"] = valid_utf8(out);
  std::size_t wi = 0, hi = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    WorldRun run;
    PartOptions po;
    po.profile = o.profile;
    po.threads = o.threads;
    po.resume = o.resume;
    po.quiet = true;
    if (is_held[f]) {
      const HeldOut& h = held[hi++];
      progress(o, fmt::format("[{}] held-out table {}", h.name, h.table));
      run = held_out_run(h);
      fit_methods(run, methods, o.external, o.bootstrap >= 0 ? o.bootstrap : static_cast<int>(h.bootstrap), false, {}, o);
      add_external(run, external);
    } else {
      const World& w = worlds[wi++];
      run = run_world(w, out, o);
      fit_methods(run, methods, o.external, static_cast<int>(w.bench.bootstrap), w.spec.has_curves(),
                  w.bench.design_methods, o);
      add_external(run, external);
      // Every prediction scored: sizes added to each truth to reach the predictions outside it.
      for (std::size_t h = 0; h < run.truth.size(); ++h) {
        std::vector<double> predicted;
        for (const auto& s : run.scored)
          if (s.horizon == run.truth[h].horizon && s.ok) predicted.push_back(s.p.N.value);
        run.reach_points += reach_predictions(run.truth[h], w, h, predicted, out, po, [&](const std::string& s) { progress(o, s); });
      }
    }
    score_regret(run);
    report["worlds"].push_back(world_json(run));
    for (auto& row : leaderboard_rows(run, method_names)) report["rows"].push_back(row);
    runs.push_back(std::move(run));
    // Rewritten after each world: a failure in a later world keeps the earlier ones' results.
    report["seconds"] = seconds_since(t_start);
    write_leaderboard(out, runs, report);
    plot_benchmark(out, report);
  }
  return report;
}

std::string leaderboard_markdown(const nlohmann::json& report) { return markdown(report); }

}  // namespace scalinglab::extrapolate
