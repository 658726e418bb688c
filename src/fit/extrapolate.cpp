// The extrapolation protocol: small-budget IsoFLOP sweeps -> fits -> prediction -> target run.
#include "scalinglab/fit/extrapolate.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <filesystem>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/expression.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/frontier.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/parametric_fit.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/panels.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/run/runner.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab::fit {

namespace {

struct Spec {
  std::string size, data, N, D, loss;
  std::vector<double> budgets, sizes;
  double target = 0;
  // Read as a number and checked whole before it is used: a cast to int wrapped 3e9 round to no run.
  double target_sizes = 9;
  double target_spread = 4;
};

// The n of "logspace(a, b, n)" or "linspace(a, b, n)" (0 for anything else), so that a huge n is
// refused before expand_values makes the values.
double spaced_count(const std::string& spec) {
  std::string s = spec;
  std::erase_if(s, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if ((s.rfind("logspace(", 0) != 0 && s.rfind("linspace(", 0) != 0) || s.back() != ')') return 0;
  const auto comma = s.rfind(',');
  if (comma == std::string::npos) return 0;
  const auto n = parse_number(s.substr(comma + 1, s.size() - comma - 2));
  return n && *n > 0 ? *n : 0;  // a bad n is expand_values' to report
}

double number(const toml::node& n, const std::string& key) {
  if (auto v = n.value<double>()) return *v;
  throw InputError("[extrapolate] " + key + ": expected a number");
}

std::vector<double> numbers_or_range(const toml::node* n, const std::string& key) {
  std::vector<double> out;
  if (!n) throw InputError("[extrapolate] missing '" + key + "'");
  if (auto s = n->value<std::string>()) {
    check_limit(spaced_count(*s), limits().max_points, "[extrapolate] " + key + " = \"" + *s + "\"", "values",
                "--max-points");
    ParamSpec real;
    real.name = key;
    real.type = ParamType::Real;
    for (const auto& t : expand_values(*s, real)) {
      const auto v = parse_number(t);
      if (!v || !std::isfinite(*v)) throw InputError("[extrapolate] " + key + ": '" + t + "' is not a finite number");
      out.push_back(*v);
    }
  } else if (auto a = n->as_array()) {
    for (const auto& e : *a) out.push_back(number(e, key));
  } else {
    out.push_back(number(*n, key));
  }
  return out;
}

void read_spec(const toml::table& t, Spec& s) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key == "size") s.size = v.value_or<std::string>("");
    else if (key == "data") s.data = v.value_or<std::string>("");
    else if (key == "N") s.N = v.value_or<std::string>("");
    else if (key == "D") s.D = v.value_or<std::string>("");
    else if (key == "loss") s.loss = v.value_or<std::string>("");
    else if (key == "budgets") s.budgets = numbers_or_range(&v, key);
    else if (key == "sizes") s.sizes = numbers_or_range(&v, key);
    else if (key == "target") s.target = number(v, key);
    else if (key == "target_sizes") s.target_sizes = number(v, key);
    else if (key == "target_spread") s.target_spread = number(v, key);
    else throw InputError("[extrapolate] unknown key '" + key + "' (keys: size, data, N, D, loss, budgets, sizes, target, "
                          "target_sizes, target_spread)");
  }
}

// One planned run: the knobs and the budget it belongs to.
struct Planned {
  double size, data, budget;
};

class Model {
 public:
  Model(const Spec& s, const std::map<std::string, double>& fixed)
      : spec_(s), fixed_(fixed), N_(s.N.empty() ? s.size : s.N), D_(s.D.empty() ? s.data : s.D) {
    // D must be proportional to the data knob, so that the knob for a given D is D / D(knob = 1).
    const double d1 = D(1.0, 1.0), d2 = D(1.0, 2.0);
    if (!(d1 > 0) || std::abs(d2 / d1 - 2) > 1e-9)
      throw InputError("[extrapolate] D = '" + D_.text() + "' must be proportional to the data knob '" + s.data + "'");
  }
  double N(double size) const { return eval(N_, size, 1.0); }
  double D(double size, double data) const { return eval(D_, size, data); }
  double data_for(double size, double budget) const { return budget / (6 * N(size)) / D(size, 1.0); }

 private:
  double eval(const Expression& e, double size, double data) const {
    try {
      return e.eval([&](const std::string& name) -> std::optional<double> {
        if (name == spec_.size) return size;
        if (name == spec_.data) return data;
        if (auto it = fixed_.find(name); it != fixed_.end()) return it->second;
        return std::nullopt;
      });
    } catch (const InputError&) {
      throw;
    } catch (const std::exception&) {  // the math library's own error (gamma at a pole): NaN, refused by callers
      return std::numeric_limits<double>::quiet_NaN();
    }
  }
  const Spec& spec_;
  std::map<std::string, double> fixed_;
  Expression N_, D_;
};

std::string value_text(double v, bool integer) {
  return integer ? fmt::format("{}", std::llround(v)) : fmt::format("{:.10g}", v);
}

// The sweep text: the file without [extrapolate] (and profiles' extrapolate tables), plus a linked
// grid axis over (size, data).
std::string sweep_text(toml::table doc, const Spec& spec, const std::vector<Planned>& runs, bool size_int, bool data_int) {
  doc.erase("extrapolate");
  doc.erase("title");
  if (auto p = doc["profile"].as_table())
    for (auto& [name, node] : *p)
      if (auto t = node.as_table()) t->erase("extrapolate");
  std::ostringstream out;
  out << doc << "\n\n[grid]\n" << spec.size << " = [\n";
  for (const auto& r : runs)
    out << fmt::format("  {{ {} = {}, {} = {} }},\n", spec.size, value_text(r.size, size_int), spec.data,
                       value_text(r.data, data_int));
  out << "]\n";
  return out.str();
}

struct Sweeped {
  std::vector<double> N, D, C, loss, size;
  std::vector<double> budget;  // the budget each run was planned for (rounding moves its own C)
};

// One sweep of the protocol, planned: the knobs rounded as the measure will, duplicates and points
// outside the knobs' ranges dropped, the sweep parsed (which checks it as `run` does).
struct Part {
  Sweep sweep;
  std::vector<Planned> kept;
};

Part plan_part(const toml::table& doc, const Spec& spec, std::vector<Planned> plan, const std::string& name,
               const ExtrapolateOptions& o, const Measure& m) {
  const ParamSpec* ps = m.param(spec.size);
  const ParamSpec* pd = m.param(spec.data);
  const bool size_int = ps->type == ParamType::Int || ps->type == ParamType::Count;
  const bool data_int = pd->type == ParamType::Int || pd->type == ParamType::Count;
  Part part;
  std::set<std::pair<double, double>> seen;
  for (auto p : plan) {
    if (size_int) p.size = std::round(p.size);
    if (data_int) p.data = std::round(p.data);
    if (!(p.size >= ps->min && p.size <= ps->max && p.data >= pd->min && p.data <= pd->max)) continue;  // NaN too
    if (!seen.insert({p.size, p.data}).second) continue;
    part.kept.push_back(p);
  }
  if (part.kept.empty()) throw InputError("[extrapolate] no run of the " + name + " sweep lies within the knobs' ranges");
  part.sweep = parse_sweep(sweep_text(doc, spec, part.kept, size_int, data_int), name + ".toml", o.profile, {},
                           builtin_registry());
  return part;
}

Sweeped run_part(const Part& part, const Spec& spec, const Model& model, const std::string& dir,
                 const ExtrapolateOptions& o) {
  RunOptions ro;
  ro.out_dir = dir;
  ro.threads = o.threads;
  ro.resume = o.resume;
  ro.quiet = o.quiet;
  run_sweep(part.sweep, ro);
  const DataTable t = read_csv(dir + "/summary.csv");
  Sweeped out;
  out.size = t.numbers(spec.size);
  const std::vector<double> data = t.numbers(spec.data);
  out.loss = t.numbers(spec.loss);
  for (std::size_t i = 0; i < out.size.size(); ++i) {
    out.N.push_back(model.N(out.size[i]));
    out.D.push_back(model.D(out.size[i], data[i]));
    out.C.push_back(6 * out.N.back() * out.D.back());
    // The planned run this row is (the nearest in log size and log data).
    double best = std::numeric_limits<double>::infinity();
    double budget = out.C.back();
    for (const auto& p : part.kept) {
      const double d = std::fabs(std::log(p.size / out.size[i])) + std::fabs(std::log(p.data / data[i]));
      if (d < best) best = d, budget = p.budget;
    }
    out.budget.push_back(budget);
  }
  return out;
}

// Every number of [extrapolate] and the amount of work they make, checked as a whole before
// anything runs or is written, each refusal one sentence: a typo such as target_sizes = 1e9 once
// filled memory after the small sweeps had run, and 3e9 (past an int) planned no run and exited 0.
void check_spec(const Spec& s, const std::string& path) {
  const std::string at = path + ": [extrapolate] ";
  auto positive = [&](const std::vector<double>& values, const char* key) {
    for (double v : values)
      if (!(v > 0) || !std::isfinite(v))
        throw InputError(at + key + fmt::format(": {:g} is not a positive, finite number", v));
  };
  positive(s.budgets, "budgets");
  positive(s.sizes, "sizes");
  if (!(s.target > 0) || !std::isfinite(s.target))
    throw InputError(at + fmt::format("target = {:g}: the budget to predict must be positive and finite", s.target));
  if (!(s.target_sizes >= 1) || !std::isfinite(s.target_sizes) || s.target_sizes != std::floor(s.target_sizes))
    throw InputError(at + fmt::format("target_sizes = {:g}: give a whole number of sizes, 1 or more", s.target_sizes));
  if (!(s.target_spread > 1) || !std::isfinite(s.target_spread))
    throw InputError(at + fmt::format("target_spread = {:g}: give a finite factor above 1", s.target_spread));
  const double runs = static_cast<double>(s.budgets.size()) * static_cast<double>(s.sizes.size()) + s.target_sizes + 2;
  check_limit(runs, limits().max_points, path + " [extrapolate]",
              "grid points (budgets x sizes, plus target_sizes + 2 at the target)", "--max-points");
  if (!(runs < 1e15)) throw InputError(at + fmt::format("{:g} grid points are too many to plan", runs));
}

std::map<std::string, double> fixed_numbers(const toml::table& doc) {
  std::map<std::string, double> out;
  if (auto p = doc["params"].as_table())
    for (const auto& [k, v] : *p)
      if (auto x = v.value<double>()) out[std::string(k.str())] = *x;
  return out;
}

nlohmann::json rel_error(double predicted, double measured) {
  const double e = predicted / measured - 1;
  return std::isfinite(e) ? nlohmann::json(e) : nlohmann::json(nullptr);
}

void plot(const std::string& dir, const Sweeped& small, const Sweeped& target, const IsoflopFit& iso,
          const LawFit& law, double target_budget, const IsoflopSlice* measured) {
  std::string pts, tgt, line2, line3;
  for (std::size_t i = 0; i < small.N.size(); ++i)
    pts += fmt::format("{:.8g} {:.8g} {:.4f}\n", small.N[i], small.loss[i], std::log10(small.C[i]));
  for (std::size_t i = 0; i < target.N.size(); ++i) tgt += fmt::format("{:.8g} {:.8g}\n", target.N[i], target.loss[i]);
  const double c0 = iso.slices.front().C;
  for (int k = 0; k <= 40; ++k) {
    const double C = std::exp(std::log(c0) + (std::log(target_budget * 3) - std::log(c0)) * k / 40.0);
    line2 += fmt::format("{:.8g} {:.8g}\n", C, iso.N_at(C));
    line3 += fmt::format("{:.8g} {:.8g}\n", C, optimal_allocation(law, C).N);
  }
  std::string minima;
  for (const auto& s : iso.slices) minima += fmt::format("{:.8g} {:.8g}\n", s.C, s.N_opt);
  std::string meas = measured ? fmt::format("{:.8g} {:.8g}\n", target_budget, measured->N_opt) : "";
  const auto a3 = optimal_allocation(law, target_budget);
  const std::string pre = "$pts << EOD\n" + pts + "EOD\n$tgt << EOD\n" + tgt + "EOD\n$l2 << EOD\n" + line2 +
                          "EOD\n$l3 << EOD\n" + line3 + "EOD\n$minima << EOD\n" + minima + "EOD\n$meas << EOD\n" +
                          (meas.empty() ? "NaN NaN\n" : meas) + "EOD\n" + panel_style_lines() +
                          "set format x '10^{%L}'\nset palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n";
  const std::string mp =
      "set multiplot layout 1,2\nunset logscale\nset autoscale xy\nset logscale xy\nset format y '%g'\nset xlabel 'N (parameters)'\n"
      "set ylabel 'loss'\n@panel_key\nset title 'IsoFLOP runs: small budgets (colour) and the target (vermillion)'\n"
      "plot $pts using 1:2:3 with points pt 7 ps 0.7 lc palette notitle, $tgt with linespoints pt 5 ps 0.8 lw 2 "
      "lc rgb '#D55E00' title 'target budget', " +
      fmt::format("'+' using ({:.8g}):(NaN) with points notitle\n", a3.N) +
      "set format y '10^{%L}'\nset xlabel 'C (FLOPs)'\nset ylabel 'N_{opt}'\n@panel_key\nset title 'compute-optimal size: fits and the target run'\n"
      "plot $minima with points pt 7 ps 1 lc rgb '#0072B2' title 'small-budget minima', "
      "$l2 with lines dt 2 lw 2 lc rgb '#0072B2' title 'Approach 2', $l3 with lines dt 4 lw 2 lc rgb '#009E73' title 'Approach 3', "
      "$meas with points pt 9 ps 2 lc rgb '#D55E00' title 'measured at the target'\nunset multiplot\n";
  write_and_run_multiplot(dir, "extrapolate", 1200, 520, "extrapolation protocol", pre, mp);
}

}  // namespace

nlohmann::json run_extrapolation(const std::string& path, const ExtrapolateOptions& o) {
  const std::string text = read_file(path, kMaxSweepFileBytes, "protocol file");
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(path + ": malformed TOML: " + std::string(e.description()));
  }
  auto* ex = doc["extrapolate"].as_table();
  if (!ex) throw InputError(path + ": missing the [extrapolate] table (see docs/fit.md)");
  Spec spec;
  auto read = [&](const toml::table& t) {
    try {
      read_spec(t, spec);
    } catch (const InputError& e) {
      throw InputError(path + ": " + e.what());
    }
  };
  read(*ex);
  if (!o.profile.empty() && !is_standard_profile(o.profile) && !doc["profile"][o.profile].as_table())
    throw InputError(path + ": unknown profile '" + o.profile + "' (the file has no [profile." + o.profile + "])");
  if (!o.profile.empty())
    if (auto p = doc["profile"][o.profile]["extrapolate"].as_table()) read(*p);
  for (auto [v, key] : {std::pair{&spec.size, "size"}, std::pair{&spec.data, "data"}, std::pair{&spec.loss, "loss"}})
    if (v->empty()) throw InputError(path + ": [extrapolate] needs '" + key + "'");
  if (spec.budgets.size() < 3) throw InputError(path + ": [extrapolate] budgets: at least 3 small budgets are needed");
  if (spec.sizes.size() < 3) throw InputError(path + ": [extrapolate] sizes: at least 3 sizes per budget are needed");
  if (spec.target == 0) throw InputError(path + ": [extrapolate] target: the budget to predict is needed");
  check_spec(spec, path);
  const std::string measure_name = doc["measure"].value_or<std::string>("");
  const Measure& m = builtin_registry().get(measure_name);
  for (const auto& knob : {spec.size, spec.data})
    if (!m.param(knob)) throw InputError(path + ": [extrapolate] '" + knob + "' is not a parameter of " + measure_name);
  bool has_loss = false;
  for (const auto& metric : m.metrics) has_loss = has_loss || metric.name == spec.loss;
  if (!has_loss) throw InputError(path + ": [extrapolate] loss: " + measure_name + " has no metric '" + spec.loss + "'");
  const Model model(spec, fixed_numbers(doc));
  const std::string stem = std::filesystem::path(path).stem().string();
  if (o.out_dir.empty() && !is_plain_name(stem))
    throw InputError(path + ": '" + stem + "' cannot name a results folder; give --out");
  const std::string out = o.out_dir.empty() ? "results/" + stem : o.out_dir;

  // 1. IsoFLOP sweeps at the small budgets, planned, and checked with the target's runs as a whole
  // (tasks, and the memory of the small runs) before anything runs; the target's runs, whose sizes
  // follow from the fits, are checked against the memory limit by their own sweep before they run.
  std::vector<Planned> plan;
  for (double C : spec.budgets)
    for (double s : spec.sizes) plan.push_back({s, model.data_for(s, C), C});
  const Part small_part = plan_part(doc, spec, plan, "small", o, m);
  const double target_points = spec.target_sizes + 2;
  check_limit((static_cast<double>(small_part.kept.size()) + target_points) * static_cast<double>(small_part.sweep.runs),
              limits().max_tasks, path + " [extrapolate]", "tasks (grid points x runs, the target's included)",
              "--max-tasks");
  const int threads = resolve_threads(o.threads);
  for (const auto& p : expand_grid(small_part.sweep, builtin_registry())) check_memory(*p.measure, p.params, threads);
  std::filesystem::create_directories(out);
  const Sweeped small = run_part(small_part, spec, model, out + "/small", o);

  // 2. Fits: Approach 2 (slices skipped when they lack an interior minimum) and Approach 3.
  IsoflopOptions io;
  io.skip_bad_slices = true;
  io.budget_labels = small.budget;  // slices are the planned budgets, whatever rounding did to each run's C
  const IsoflopFit iso = fit_isoflop(small.C, small.N, small.loss, io);
  const ScalingLaw& law = scaling_law("chinchilla");
  FitOptions fo;
  fo.threads = o.threads;
  const LawFit law_fit = fit_law(law, make_law_data(law, small.N, small.D, small.loss), fo);
  const Allocation a3 = optimal_allocation(law_fit, spec.target);
  const double n2 = iso.N_at(spec.target);

  // 3. The target budget: sizes around both predictions (and the predictions themselves).
  std::vector<Planned> tplan;
  std::vector<double> knob_for_n;
  auto size_for_n = [&](double N) {  // invert N(size) by bisection in log (N increases with size)
    double lo = 1e-6, hi = 1e12;
    for (int it = 0; it < 200; ++it) {
      const double mid = std::sqrt(lo * hi);
      (model.N(mid) < N ? lo : hi) = mid;
    }
    return std::sqrt(lo * hi);
  };
  const double centre = std::sqrt(size_for_n(n2) * size_for_n(a3.N));
  const auto target_sizes = static_cast<std::int64_t>(spec.target_sizes);  // whole and bounded (check_spec)
  for (std::int64_t k = 0; k < target_sizes; ++k) {
    const double t = target_sizes == 1 ? 0.0 : -1.0 + 2.0 * static_cast<double>(k) / static_cast<double>(target_sizes - 1);
    const double s = centre * std::pow(spec.target_spread, t);
    tplan.push_back({s, model.data_for(s, spec.target), spec.target});
  }
  for (double N : {n2, a3.N}) {
    const double s = size_for_n(N);
    tplan.push_back({s, model.data_for(s, spec.target), spec.target});
  }
  const Sweeped target = run_part(plan_part(doc, spec, tplan, "target", o, m), spec, model, out + "/target", o);

  // 4. Score: the target slice's parabola gives the measured optimum and the loss at each prediction.
  std::vector<double> logn, w;
  for (double N : target.N) logn.push_back(std::log(N));
  IsoflopSlice measured;
  measured.C = spec.target;
  std::string why;
  const bool have_opt = slice_minimum(logn, target.loss, w, measured, why);
  nlohmann::json j;
  j["file"] = path;
  j["measure"] = measure_name;
  j["target"] = spec.target;
  j["budgets"] = spec.budgets;
  j["small_runs"] = small.N.size();
  j["target_runs"] = target.N.size();
  j["approach2"] = {{"a", iso.a()}, {"b", iso.b()}, {"N_opt", n2}, {"D_opt", iso.D_at(spec.target)},
                    {"loss_opt", iso.L_at(spec.target)}, {"slices", iso.slices.size()}, {"skipped", iso.skipped}};
  j["approach3"] = {{"E", law_fit.value("E")}, {"A", law_fit.value("A")}, {"B", law_fit.value("B")},
                    {"alpha", law_fit.value("alpha")}, {"beta", law_fit.value("beta")}, {"a", law_fit.value("a")},
                    {"b", law_fit.value("b")}, {"N_opt", a3.N}, {"D_opt", a3.D}, {"loss_opt", a3.L},
                    {"log_rmse", law_fit.residuals.rmse}};
  if (have_opt) {
    j["measured"] = {{"N_opt", measured.N_opt}, {"D_opt", measured.D_opt}, {"loss_opt", measured.L_opt}};
    j["approach2"]["N_opt_error"] = rel_error(n2, measured.N_opt);
    j["approach2"]["loss_opt_error"] = rel_error(iso.L_at(spec.target), measured.L_opt);
    j["approach2"]["loss_at_prediction"] = measured.loss_at(n2);
    j["approach2"]["regret"] = rel_error(measured.loss_at(n2), measured.L_opt);
    j["approach3"]["N_opt_error"] = rel_error(a3.N, measured.N_opt);
    j["approach3"]["loss_opt_error"] = rel_error(a3.L, measured.L_opt);
    j["approach3"]["loss_at_prediction"] = measured.loss_at(a3.N);
    j["approach3"]["regret"] = rel_error(measured.loss_at(a3.N), measured.L_opt);
  } else {
    j["measured"] = {{"error", "the target slice has no interior minimum: " + why}};
  }
  write_file(out + "/extrapolate.json", j.dump(2) + "\n");
  plot(out, small, target, iso, law_fit, spec.target, have_opt ? &measured : nullptr);
  j["out_dir"] = out;
  return j;
}

std::string extrapolation_text(const nlohmann::json& j) {
  std::string s = fmt::format("extrapolation of {} from {} budgets ({} runs) to C = {:.3g} ({} runs)\n",
                              j["measure"].get<std::string>(), j["budgets"].size(), j["small_runs"].get<int>(),
                              j["target"].get<double>(), j["target_runs"].get<int>());
  const bool have = j["measured"].contains("N_opt");
  s += fmt::format("{:<34} {:>12} {:>12} {:>12}\n", "", "N_opt", "loss_opt", "regret");
  for (const char* a : {"approach2", "approach3"}) {
    const auto& x = j[a];
    s += fmt::format("{:<34} {:>12.4g} {:>12.5g} {:>12}\n",
                     std::string(a) == "approach2" ? fmt::format("Approach 2 (N_opt ~ C^{:.3f})", x["a"].get<double>())
                                                   : fmt::format("Approach 3 (N_opt ~ C^{:.3f})", x["a"].get<double>()),
                     x["N_opt"].get<double>(), x["loss_opt"].get<double>(),
                     have && x["regret"].is_number() ? fmt::format("{:+.2f}%", 100 * x["regret"].get<double>()) : "");
  }
  if (have) {
    s += fmt::format("{:<34} {:>12.4g} {:>12.5g}\n", "measured at the target", j["measured"]["N_opt"].get<double>(),
                     j["measured"]["loss_opt"].get<double>());
    for (const char* a : {"approach2", "approach3"})
      s += fmt::format("{}: N_opt off by {:+.1f}%, loss_opt off by {:+.2f}%\n", a, 100 * j[a]["N_opt_error"].get<double>(),
                       100 * j[a]["loss_opt_error"].get<double>());
  } else {
    s += j["measured"]["error"].get<std::string>() + "\n";
  }
  s += "(regret: the measured loss at the predicted size over the measured optimum, minus 1)\n";
  s += "report: " + j["out_dir"].get<std::string>() + "/extrapolate.json, figure: extrapolate.svg\n";
  return s;
}

}  // namespace scalinglab::fit
