// The held-out mode: a public table's smaller budgets fitted, its largest ones the truth.
#include "held_out.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include <toml++/toml.h>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/fit/data_table.hpp"
#include "scalinglab/fit/parametric_fit.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab::extrapolate {

using namespace fit;

namespace {

toml::table parse(const std::string& path) {
  const std::string text = read_file(path, kMaxSweepFileBytes, "held-out file");
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw InputError(path + ": malformed TOML: " + std::string(e.description()));
  }
}

struct Slice {
  double C;
  std::vector<double> logN, loss;
};

// The slice's parabola in log N through all its points; false without an interior minimum.
bool minimum_of(const Slice& s, const std::vector<double>& weight, IsoflopSlice& out) {
  std::string why;
  return slice_minimum(s.logN, s.loss, weight, out, why);
}

}  // namespace

bool is_held_out(const std::string& path) { return parse(path)["held_out"].as_table() != nullptr; }

HeldOut load_held_out(const std::string& path) {
  const toml::table doc = parse(path);
  const auto* t = doc["held_out"].as_table();
  if (!t) throw InputError(path + ": a held-out file needs a [held_out] table (docs/extrapolation.md)");
  for (const auto& [k, v] : doc)
    if (k.str() != "held_out" && k.str() != "title")
      throw InputError(path + ": unknown table or key '" + std::string(k.str()) + "' (a held-out file has [held_out] only)");
  HeldOut h;
  h.path = path;
  h.name = std::filesystem::path(path).stem().string();
  if (!is_plain_name(h.name)) throw InputError(path + ": '" + h.name + "' cannot name a results folder; rename the file");
  for (const auto& [k, v] : *t) {
    const std::string key(k.str());
    auto text = [&] {
      if (auto s = v.value<std::string>()) return *s;
      throw InputError(path + ": [held_out] " + key + ": expected text");
    };
    auto number = [&] {
      if (auto x = v.value<double>()) return *x;
      throw InputError(path + ": [held_out] " + key + ": expected a number");
    };
    if (key == "table") h.table = text();
    else if (key == "C") h.C = text();
    else if (key == "N") h.N = text();
    else if (key == "D") h.D = text();
    else if (key == "loss") h.loss = text();
    else if (key == "held") h.held = number();
    else if (key == "bootstrap") h.bootstrap = number();
    else if (key == "truth_precision") h.precision = number();
    else throw InputError(path + ": [held_out] unknown key '" + key + "' (table, C, N, D, loss, held, bootstrap, truth_precision)");
  }
  if (h.table.empty() || h.C.empty() || h.loss.empty() || h.N.empty() == h.D.empty())
    throw InputError(path + ": [held_out] needs table, C, loss, and one of N or D");
  if (!(h.held >= 1 && h.held <= 100 && h.held == std::floor(h.held)))
    throw InputError(path + fmt::format(": [held_out] held = {:g}: give a whole number of budgets from 1", h.held));
  if (!(h.bootstrap == 0 || (h.bootstrap >= 20 && h.bootstrap <= 100000 && h.bootstrap == std::floor(h.bootstrap))))
    throw InputError(path + fmt::format(": [held_out] bootstrap = {:g}: give 0 or a whole number from 20", h.bootstrap));
  if (!(h.precision > 0 && h.precision < 1)) throw InputError(path + ": [held_out] truth_precision: give a fraction in (0, 1)");
  // The table's path is relative to the file (a path of the file's author, read as untrusted).
  const std::filesystem::path rel(h.table);
  h.table = rel.is_absolute() ? h.table : (std::filesystem::path(path).parent_path() / rel).string();
  return h;
}

WorldRun held_out_run(const HeldOut& h) {
  const DataTable t = read_csv(h.table);
  const std::vector<double> C = t.numbers(h.C), loss = t.numbers(h.loss), x = t.numbers(h.N.empty() ? h.D : h.N);
  std::set<double> budgets;
  for (std::size_t i = 0; i < C.size(); ++i) {
    if (!(C[i] > 0) || !(loss[i] > 0) || !(x[i] > 0) || !std::isfinite(C[i] + loss[i] + x[i]))
      throw InputError(fmt::format("{} line {}: C, loss and {} must be positive numbers", h.table, t.lines[i],
                                   h.N.empty() ? "D" : "N"));
    budgets.insert(C[i]);
  }
  const std::size_t held = static_cast<std::size_t>(h.held);
  if (budgets.size() < held + 3)
    throw InputError(fmt::format("{}: {} budgets; holding out {} leaves fewer than 3 to fit", h.table, budgets.size(), held));
  const std::vector<double> all(budgets.begin(), budgets.end());
  const double last_fit = all[all.size() - held - 1];
  WorldRun run;
  run.name = h.name;
  run.path = h.path;
  run.kind = "held-out";
  run.measure = std::filesystem::path(h.table).filename().string();
  run.deterministic = true;  // one table: one replication
  run.replications = 1;
  DesignInfo d;
  d.name = "table";
  d.knob = "main";
  d.main = true;
  d.runs = 1;
  ProtocolTable fitted;
  std::vector<Slice> slices;
  for (std::size_t i = 0; i < C.size(); ++i) {
    const double N = h.N.empty() ? C[i] / (6 * x[i]) : x[i], D = C[i] / (6 * N);
    if (C[i] <= last_fit) {
      fitted.N.push_back(N), fitted.D.push_back(D), fitted.C.push_back(C[i]), fitted.budget.push_back(C[i]);
      fitted.loss.push_back(loss[i]);
      d.cost += C[i];
      continue;
    }
    auto it = std::find_if(slices.begin(), slices.end(), [&](const Slice& s) { return s.C == C[i]; });
    if (it == slices.end()) slices.push_back({C[i], {}, {}}), it = slices.end() - 1;
    it->logN.push_back(std::log(N)), it->loss.push_back(loss[i]);
  }
  for (double c : all)
    if (c <= last_fit) d.budgets.push_back(c);
  d.per_decade = static_cast<double>(d.budgets.size() - 1) / std::log10(d.budgets.back() / d.budgets.front());
  d.sizes = static_cast<double>(fitted.size()) / static_cast<double>(d.budgets.size());
  run.designs.push_back(d);
  run.tables.push_back({fitted});
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) { return a.C < b.C; });
  std::mt19937_64 rng(1);
  for (const auto& s : slices) {
    Truth truth;
    truth.C = s.C;
    truth.horizon = s.C / last_fit;
    std::vector<std::size_t> order(s.logN.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.logN[a] < s.logN[b]; });
    for (std::size_t i : order) truth.points.push_back({std::exp(s.logN[i]), s.loss[i], 0, 1});
    const std::vector<double> ones(s.logN.size(), 1.0);
    truth.interior = minimum_of(s, ones, truth.parabola);
    if (!truth.interior) {
      truth.note = "the held-out slice has no interior minimum";
      run.truth.push_back(truth);
      continue;
    }
    truth.N = truth.parabola.N_opt, truth.L = truth.parabola.L_opt, truth.D = truth.C / (6 * truth.N);
    truth.window_lo = *std::min_element(s.logN.begin(), s.logN.end());
    truth.window_hi = *std::max_element(s.logN.begin(), s.logN.end());
    truth.max_runs = 1;
    // The truth's interval: the slice's points resampled (a case bootstrap within the slice).
    std::vector<double> ls;
    std::uniform_int_distribution<std::size_t> pick(0, s.logN.size() - 1);
    for (int b = 0; b < std::max(200, static_cast<int>(h.bootstrap)); ++b) {
      std::vector<double> w(s.logN.size(), 0.0);
      for (std::size_t k = 0; k < w.size(); ++k) w[pick(rng)] += 1;
      IsoflopSlice r;
      if (minimum_of(s, w, r) && std::log(r.N_opt) >= truth.window_lo && std::log(r.N_opt) <= truth.window_hi)
        truth.N_draws.push_back(r.N_opt), ls.push_back(r.L_opt);
    }
    if (truth.N_draws.size() >= 150) {
      const Interval in = summarise_sample(truth.N_draws, 0.95), il = summarise_sample(ls, 0.95);
      truth.N_lo = in.lo, truth.N_hi = in.hi, truth.L_lo = il.lo, truth.L_hi = il.hi;
      truth.identified = truth.N_spread() <= h.precision;
    }
    if (!truth.identified)
      truth.note = std::isfinite(truth.N_spread())
                       ? fmt::format("unidentified: the slice's bootstrap 95% interval on N_opt is +-{:.0f}%", 100 * truth.N_spread())
                       : "unidentified: the slice loses its minimum under resampling";
    run.truth.push_back(truth);
  }
  return run;
}

}  // namespace scalinglab::extrapolate
