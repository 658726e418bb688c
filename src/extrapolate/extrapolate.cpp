// The extrapolation protocol: small-budget IsoFLOP sweeps -> fits -> prediction -> target run.
#include "scalinglab/extrapolate/extrapolate.hpp"

#include <fmt/format.h>

#include <algorithm>
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
#include "scalinglab/core/utf8.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/fit_columns.hpp"
#include "scalinglab/fit/frontier.hpp"
#include "scalinglab/fit/isoflop.hpp"
#include "scalinglab/fit/parametric_fit.hpp"
#include "scalinglab/extrapolate/protocol_world.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/lab/param.hpp"
#include "scalinglab/plot/figure_style.hpp"
#include "scalinglab/plot/panels.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/run/runner.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab::extrapolate {

using namespace fit;

using namespace protocol;

namespace {

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

nlohmann::json run_extrapolation(const std::string& path, const ExtrapolateOptions& options) {
  PartOptions o;
  o.profile = options.profile;
  o.threads = options.threads;
  o.resume = options.resume;
  o.quiet = options.quiet;
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
  const Measure& m = world_registry().get(measure_name);
  for (const auto& knob : {spec.size, spec.data})
    if (!m.param(knob)) throw InputError(path + ": [extrapolate] '" + knob + "' is not a parameter of " + measure_name);
  bool has_loss = false;
  for (const auto& metric : m.metrics) has_loss = has_loss || metric.name == spec.loss;
  if (!has_loss) throw InputError(path + ": [extrapolate] loss: " + measure_name + " has no metric '" + spec.loss + "'");
  const Model model(spec, fixed_numbers(doc));
  const std::string stem = std::filesystem::path(path).stem().string();
  if (options.out_dir.empty() && !is_plain_name(stem))
    throw InputError(path + ": '" + stem + "' cannot name a results folder; give --out");
  const std::string out = options.out_dir.empty() ? "results/" + stem : options.out_dir;

  // 1. IsoFLOP sweeps at the small budgets, planned, and checked with the target's runs as a whole
  // (tasks, and the memory of the small runs) before anything runs; the target's runs, whose sizes
  // follow from the fits, are checked against the memory limit by their own sweep before they run.
  // The size knob rounded first (as the measure will), then D computed for it: 6 N D = C per run.
  const ParamSpec* size_param = m.param(spec.size);
  const bool size_int = size_param->type == ParamType::Int || size_param->type == ParamType::Count;
  auto planned = [&](double s, double C) {
    if (size_int) s = std::max(1.0, std::round(s));
    return Planned{s, model.data_for(s, C), C};
  };
  std::vector<Planned> plan;
  for (double C : spec.budgets)
    for (double s : spec.sizes) plan.push_back(planned(s, C));
  const Part small_part = plan_part(doc, spec, plan, "small", o, m);
  const double target_points = spec.target_sizes + 2;
  check_limit((static_cast<double>(small_part.kept.size()) + target_points) * static_cast<double>(small_part.sweep.runs),
              limits().max_tasks, path + " [extrapolate]", "tasks (grid points x runs, the target's included)",
              "--max-tasks");
  const int threads = resolve_threads(o.threads);
  for (const auto& p : expand_grid(small_part.sweep, world_registry())) check_task(*p.measure, p.params, threads);
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
  auto size_for_n = [&](double N) { return model.size_for_N(N); };
  const double centre = std::sqrt(size_for_n(n2) * size_for_n(a3.N));
  const auto target_sizes = static_cast<std::int64_t>(spec.target_sizes);  // whole and bounded (check_spec)
  for (std::int64_t k = 0; k < target_sizes; ++k) {
    const double t = target_sizes == 1 ? 0.0 : -1.0 + 2.0 * static_cast<double>(k) / static_cast<double>(target_sizes - 1);
    tplan.push_back(planned(centre * std::pow(spec.target_spread, t), spec.target));
  }
  for (double N : {n2, a3.N}) tplan.push_back(planned(size_for_n(N), spec.target));
  const Sweeped target = run_part(plan_part(doc, spec, tplan, "target", o, m), spec, model, out + "/target", o);

  // 4. Score: the target slice's parabola gives the measured optimum and the loss at each prediction.
  std::vector<double> logn, w;
  for (double N : target.N) logn.push_back(std::log(N));
  IsoflopSlice measured;
  measured.C = spec.target;
  std::string why;
  const bool have_opt = slice_minimum(logn, target.loss, w, measured, why);
  nlohmann::json j;
  j["file"] = valid_utf8(path);  // a byte of the path that is not UTF-8 must not stop the JSON writer
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

}  // namespace scalinglab::extrapolate
