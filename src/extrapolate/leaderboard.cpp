// Scores and the leaderboard's files.
#include "leaderboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/core/utf8.hpp"
#include "scalinglab/extrapolate/extrapolation_score.hpp"

namespace scalinglab::extrapolate {

using namespace fit;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.8g}", v) : ""; }
nlohmann::json jnum(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
double jval(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : kNaN; }

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

// The interval's implied spread against the real one: the median half-width of the 95% intervals
// on log N_opt over 1.96 standard deviations of log N_opt across replications. Near 1: calibrated
// widths; above 1: intervals wider than the predictions' own scatter. NaN below 3 predictions.
double width_over_spread(const std::vector<Estimate>& e) {
  std::vector<double> logs, half;
  for (const auto& x : e) {
    if (!(x.value > 0)) continue;
    logs.push_back(std::log(x.value));
    if (x.has_interval() && x.lo > 0) half.push_back(std::log(x.hi / x.lo) / 2);
  }
  if (logs.size() < 3 || half.empty()) return kNaN;
  double mean = 0, var = 0;
  for (double v : logs) mean += v;
  mean /= static_cast<double>(logs.size());
  for (double v : logs) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(logs.size() - 1));
  return sd > 0 ? spread(half).median / (1.959963984540054 * sd) : kNaN;
}

// Coverage against the truth's own redraws: the fraction of intervals holding each redrawn N_opt,
// averaged over the redraws (the truth's noise carried into the coverage).
double coverage_over_draws(const std::vector<Estimate>& e, const std::vector<double>& draws) {
  if (draws.empty()) return kNaN;
  double sum = 0;
  int n = 0;
  for (double t : draws) {
    const Coverage c = coverage(e, t);
    if (c.total == 0) return kNaN;
    sum += c.fraction, ++n;
  }
  return sum / n;
}

std::string most_common(const std::vector<std::string>& notes) {
  std::map<std::string, int> count;
  for (const auto& n : notes)
    if (!n.empty()) ++count[n];
  std::string best;
  int most = 0;
  for (const auto& [n, c] : count)
    if (c > most) most = c, best = n;
  return best;
}

}  // namespace

void score_regret(WorldRun& run) {
  // The true frontier's local slope d log L_opt / d log C, between neighbouring horizons.
  for (std::size_t h = 0; h < run.truth.size(); ++h) {
    auto& t = run.truth[h];
    const std::size_t a = h + 1 < run.truth.size() ? h : (h > 0 ? h - 1 : h), b = a + 1;
    if (b < run.truth.size() && run.truth[a].interior && run.truth[b].interior && run.truth[a].L > 0 && run.truth[b].L > 0)
      t.frontier_slope = std::log(run.truth[b].L / run.truth[a].L) / std::log(run.truth[b].C / run.truth[a].C);
  }
  for (auto& s : run.scored)
    for (const auto& t : run.truth) {
      if (t.horizon != s.horizon || !t.interior || !std::isfinite(s.p.N.value)) continue;
      const double loss = t.loss_at(s.p.N.value);
      s.regret = loss / t.L - 1;
      // The budget C' at which the true frontier reaches this loss: L_opt(C') = loss with L_opt ~ C^slope
      // near C, so C / C' = (loss / L_opt)^(-1/slope); the regret in compute is C / C' - 1.
      if (std::isfinite(s.regret) && t.frontier_slope < 0)
        s.compute_regret = std::pow(std::max(1.0, loss / t.L), -1 / t.frontier_slope) - 1;
    }
}

nlohmann::json world_json(const WorldRun& run) {
  nlohmann::json wj = {{"name", run.name},           {"file", valid_utf8(run.path)},
                       {"kind", run.kind},           {"measure", run.measure},
                       {"deterministic", run.deterministic}, {"replications", run.replications},
                       {"small_seconds", run.small_seconds}, {"truth_seconds", run.truth_seconds},
                       {"fit_seconds", run.fit_seconds},     {"reach_points", run.reach_points}};
  wj["designs"] = nlohmann::json::array();
  for (const auto& d : run.designs)
    wj["designs"].push_back({{"name", d.name}, {"knob", d.knob}, {"main", d.main}, {"per_decade", d.per_decade},
                             {"sizes", d.sizes}, {"runs", d.runs}, {"budgets", d.budgets}, {"cost", d.cost}});
  wj["truth"] = nlohmann::json::array();
  for (const auto& t : run.truth)
    wj["truth"].push_back({{"horizon", t.horizon}, {"C", t.C}, {"N_opt", jnum(t.N)}, {"N_lo", jnum(t.N_lo)},
                           {"N_hi", jnum(t.N_hi)}, {"D_opt", jnum(t.D)}, {"L_opt", jnum(t.L)}, {"L_lo", jnum(t.L_lo)},
                           {"L_hi", jnum(t.L_hi)}, {"points", t.points.size()}, {"runs_per_point", t.max_runs},
                           {"identified", t.identified}, {"N_spread", jnum(t.N_spread())},
                           {"frontier_slope", jnum(t.frontier_slope)}, {"note", t.note}});
  return wj;
}

nlohmann::json leaderboard_rows(const WorldRun& run, const std::vector<std::string>& methods) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& d : run.designs)
    for (const auto& mname : methods)
      for (const auto& t : run.truth) {
        std::vector<Estimate> en, ed, el;
        std::vector<double> regret, cregret, secs;
        std::vector<std::string> why, L_why;
        int failed = 0, count = 0, bounded = 0, unscored = 0, boot_failed = 0, boot_total = 0;
        std::string not_applicable;
        for (const auto& s : run.scored) {
          if (s.design != d.name || s.method != mname || s.horizon != t.horizon) continue;
          ++count;
          if (!s.not_applicable.empty()) {
            not_applicable = s.not_applicable;
            continue;
          }
          if (!s.ok) {
            ++failed;
            why.push_back(s.note);
            continue;
          }
          en.push_back(s.p.N), ed.push_back(s.p.D), el.push_back(s.p.L);
          regret.push_back(s.regret), cregret.push_back(s.compute_regret), secs.push_back(s.seconds);
          bounded += s.p.bounded ? 1 : 0;
          if (std::isfinite(s.p.N.value) && !std::isfinite(s.regret)) ++unscored;
          boot_failed += s.bootstrap_failed, boot_total += s.bootstrap_total;
          if (!std::isfinite(s.p.L.value)) L_why.push_back(s.L_note);
        }
        if (count == 0) continue;
        const Spread nE = spread(relative_errors(en, t.N)), dE = spread(relative_errors(ed, t.D)),
                     lE = spread(relative_errors(el, t.L)), nA = spread(abs_of(relative_errors(en, t.N))),
                     lA = spread(abs_of(relative_errors(el, t.L))), rg = spread(regret), cr = spread(cregret);
        const Coverage cN = coverage(en, t.N), cL = coverage(el, t.L);
        const std::string status = !not_applicable.empty() ? "not applicable" : failed == count ? "failed" : "ok";
        nlohmann::json row = {
            {"world", run.name}, {"kind", run.kind}, {"design", d.name}, {"knob", d.knob}, {"design_cost", d.cost},
            {"main", d.main}, {"method", mname}, {"horizon", t.horizon}, {"replications", count}, {"status", status},
            {"why", !not_applicable.empty() ? not_applicable : most_common(why)}, {"failed", failed},
            {"N_error", spread_json(nE)}, {"N_abs_error", spread_json(nA)}, {"D_error", spread_json(dE)},
            {"L_error", spread_json(lE)}, {"L_abs_error", spread_json(lA)}, {"L_missing", L_why.size()},
            {"L_note", most_common(L_why)}, {"regret", spread_json(rg)}, {"regret_unscored", unscored},
            {"compute_regret", spread_json(cr)}, {"N_coverage", coverage_json(cN)},
            {"N_coverage_truth_draws", jnum(coverage_over_draws(en, t.N_draws))}, {"N_width", jnum(median_width_ratio(en))},
            {"N_width_over_spread", jnum(width_over_spread(en))}, {"L_coverage", coverage_json(cL)},
            {"L_width", jnum(median_width_ratio(el))}, {"bounded", bounded}, {"bootstrap_failed", boot_failed},
            {"bootstrap_total", boot_total}, {"truth_N", jnum(t.N)}, {"truth_L", jnum(t.L)},
            {"truth_identified", t.identified}, {"truth_N_spread", jnum(t.N_spread())},
            // The truth's own 95% half-width exceeds the method's median error: the cell cannot rank.
            {"truth_noise_dominates", std::isfinite(t.N_spread()) && std::isfinite(nA.median) && t.N_spread() > nA.median},
            {"seconds", jnum(spread(secs).median)}};
        rows.push_back(row);
      }
  return rows;
}

void write_leaderboard(const std::string& out, const std::vector<WorldRun>& runs, const nlohmann::json& report) {
  std::string tables = "world,design,replication,N,D,C,budget,loss\n";
  std::string truth = "world,horizon,C,N_opt,N_lo,N_hi,D_opt,L_opt,L_lo,L_hi,points,runs_per_point,identified,note\n";
  std::string curves = "world,horizon,N,loss,sem,runs\n";
  std::string preds =
      "world,design,method,replication,horizon,C,ok,not_applicable,N_opt,N_lo,N_hi,bounded,D_opt,D_lo,D_hi,L_opt,L_lo,L_hi,"
      "regret,compute_regret,bootstrap_failed,bootstrap_total,seconds,note\n";
  for (const auto& run : runs) {
    for (std::size_t j = 0; j < run.designs.size(); ++j)
      for (std::size_t r = 0; r < run.tables[j].size(); ++r) {
        const auto& t = run.tables[j][r];
        for (std::size_t i = 0; i < t.size(); ++i)
          tables += fmt::format("{},{},{},{},{},{},{},{}\n", csv_cell(run.name), csv_cell(run.designs[j].name), r + 1,
                                num(t.N[i]), num(t.D[i]), num(t.C[i]), num(t.budget[i]), num(t.loss[i]));
      }
    for (const auto& t : run.truth) {
      truth += fmt::format("{},{:g},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_cell(run.name), t.horizon, num(t.C),
                           num(t.N), num(t.N_lo), num(t.N_hi), num(t.D), num(t.L), num(t.L_lo), num(t.L_hi),
                           t.points.size(), num(t.max_runs), t.identified ? 1 : 0, csv_cell(t.note));
      for (const auto& p : t.points)
        curves += fmt::format("{},{:g},{},{},{},{}\n", csv_cell(run.name), t.horizon, num(p.N), num(p.loss), num(p.sem),
                              num(p.runs));
    }
    for (const auto& s : run.scored)
      preds += fmt::format("{},{},{},{},{:g},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{}\n",
                           csv_cell(run.name), csv_cell(s.design), csv_cell(s.method), s.replication, s.horizon,
                           num(s.C), s.ok ? 1 : 0, csv_cell(s.not_applicable), num(s.p.N.value), num(s.p.N.lo),
                           num(s.p.N.hi), s.p.bounded ? 1 : 0, num(s.p.D.value), num(s.p.D.lo), num(s.p.D.hi),
                           num(s.p.L.value), num(s.p.L.lo), num(s.p.L.hi), num(s.regret), num(s.compute_regret),
                           s.bootstrap_failed, s.bootstrap_total, s.seconds, csv_cell(s.note));
  }
  std::string lb =
      "world,kind,design,knob,main,design_cost,method,horizon,replications,status,why,failed,N_err_median,N_err_q25,"
      "N_err_q75,N_abs_err_median,D_err_median,L_err_median,L_err_q25,L_err_q75,L_abs_err_median,L_missing,regret_median,"
      "regret_q75,regret_unscored,compute_regret_median,N_coverage,N_covered,N_intervals,N_coverage_lo,N_coverage_hi,"
      "N_coverage_truth_draws,N_width,N_width_over_spread,L_coverage,L_covered,L_intervals,L_width,bounded,bootstrap_failed,"
      "bootstrap_total,truth_N,truth_L,truth_identified,truth_N_spread,truth_noise_dominates,seconds\n";
  for (const auto& r : report["rows"]) {
    const auto& cN = r["N_coverage"];
    const auto& cL = r["L_coverage"];
    lb += fmt::format(
        "{},{},{},{},{},{},{},{:g},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
        "{},{},{},{},{}\n",
        csv_cell(r["world"].get<std::string>()), csv_cell(r["kind"].get<std::string>()),
        csv_cell(r["design"].get<std::string>()), csv_cell(r["knob"].get<std::string>()), r["main"].get<bool>() ? 1 : 0,
        num(jval(r["design_cost"])),
        csv_cell(r["method"].get<std::string>()), r["horizon"].get<double>(), r["replications"].get<int>(),
        csv_cell(r["status"].get<std::string>()), csv_cell(r["why"].get<std::string>()), r["failed"].get<int>(),
        num(jval(r["N_error"]["median"])), num(jval(r["N_error"]["q25"])), num(jval(r["N_error"]["q75"])),
        num(jval(r["N_abs_error"]["median"])), num(jval(r["D_error"]["median"])), num(jval(r["L_error"]["median"])),
        num(jval(r["L_error"]["q25"])), num(jval(r["L_error"]["q75"])), num(jval(r["L_abs_error"]["median"])),
        r["L_missing"].get<int>(), num(jval(r["regret"]["median"])), num(jval(r["regret"]["q75"])),
        r["regret_unscored"].get<int>(), num(jval(r["compute_regret"]["median"])), num(jval(cN["fraction"])),
        cN["covered"].get<int>(), cN["total"].get<int>(), num(jval(cN["lo"])), num(jval(cN["hi"])),
        num(jval(r["N_coverage_truth_draws"])), num(jval(r["N_width"])), num(jval(r["N_width_over_spread"])),
        num(jval(cL["fraction"])), cL["covered"].get<int>(), cL["total"].get<int>(), num(jval(r["L_width"])),
        r["bounded"].get<int>(), r["bootstrap_failed"].get<int>(), r["bootstrap_total"].get<int>(),
        num(jval(r["truth_N"])), num(jval(r["truth_L"])), r["truth_identified"].get<bool>() ? 1 : 0,
        num(jval(r["truth_N_spread"])), r["truth_noise_dominates"].get<bool>() ? 1 : 0, num(jval(r["seconds"])));
  }
  write_file(out + "/tables.csv", tables);
  write_file(out + "/truth.csv", truth);
  write_file(out + "/truth-curves.csv", curves);
  write_file(out + "/predictions.csv", preds);
  write_file(out + "/leaderboard.csv", lb);
  // Every name in the report was checked before the runs; a byte of a path that is not UTF-8 is
  // replaced rather than allowed to cost the runs.
  write_file(out + "/leaderboard.json", report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  write_file(out + "/leaderboard.md", markdown(report));
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
  return fmt::format("{}/{} ({:.2f}-{:.2f})", c["covered"].get<int>(), c["total"].get<int>(), c["lo"].get<double>(),
                     c["hi"].get<double>());
}
// ok / not applicable (why) / failed k of R (why), with what else a reader must know.
std::string status_cell(const nlohmann::json& r) {
  const std::string status = r["status"].get<std::string>(), why = markdown_text(r["why"].get<std::string>());
  if (status == "not applicable") return "not applicable (" + why + ")";
  const int failed = r["failed"].get<int>(), reps = r["replications"].get<int>();
  std::string s = failed == 0 ? "ok" : fmt::format("failed {} of {} ({})", failed, reps, why);
  if (status == "ok" && failed > 0) s = "ok; " + s;
  std::vector<std::string> extra;
  if (r["bounded"].get<int>() > 0) extra.push_back(fmt::format("{} held to [1, C/6]", r["bounded"].get<int>()));
  if (r["regret_unscored"].get<int>() > 0)
    extra.push_back(fmt::format("{} beyond the truth's reach, no regret", r["regret_unscored"].get<int>()));
  if (r["bootstrap_failed"].get<int>() > 0)
    extra.push_back(fmt::format("{} of {} bootstrap refits without a frontier", r["bootstrap_failed"].get<int>(),
                                r["bootstrap_total"].get<int>()));
  if (r["L_missing"].get<int>() > 0 && status == "ok")
    extra.push_back(
        fmt::format("no L_opt in {}: {}", r["L_missing"].get<int>(), markdown_text(r["L_note"].get<std::string>())));
  if (!r["truth_identified"].get<bool>()) extra.push_back("truth unidentified");
  else if (r["truth_noise_dominates"].get<bool>()) extra.push_back("error within the truth's own noise");
  for (const auto& e : extra) s += "; " + e;
  return s;
}
}  // namespace

std::string markdown(const nlohmann::json& j) {
  std::string s = "# Extrapolation leaderboard\n\n";
  s += fmt::format("Profile: {}. {} world(s), {} method(s); {:.0f} s in all.\n\n",
                   j["profile"].get<std::string>().empty() ? "default" : markdown_text(j["profile"].get<std::string>()),
                   j["worlds"].size(), j["methods"].size(), j["seconds"].get<double>());
  s += "Errors are prediction / truth - 1: the median over replications and, in brackets, the quartiles. "
       "Regret: the true loss at the predicted N_opt over the true optimum, minus 1 (median); in compute: the extra "
       "budget the true frontier needs to reach that loss (median). Coverage: replications whose 95% interval "
       "contains the truth, with its Wilson 95% interval; width/spread: the intervals' median half-width over 1.96 "
       "standard deviations of the predictions across replications (above 1: wider than the scatter).\n\n";
  for (const auto& w : j["worlds"]) {
    s += fmt::format("## {} ({}, {} replication{})\n\n", markdown_text(w["name"].get<std::string>()),
                     markdown_text(w["measure"].get<std::string>()), w["replications"].get<int>(),
                     w["replications"].get<int>() == 1 ? "" : "s");
    for (const auto& t : w["truth"]) {
      s += fmt::format("- truth at {:g}x (C = {:.3g}): N_opt = {}, L_opt = {}", t["horizon"].get<double>(),
                       t["C"].get<double>(), t["N_opt"].is_number() ? fmt::format("{:.4g}", t["N_opt"].get<double>()) : "—",
                       t["L_opt"].is_number() ? fmt::format("{:.4g}", t["L_opt"].get<double>()) : "—");
      if (t["N_lo"].is_number() && t["N_lo"] != t["N_hi"])
        s += fmt::format(" (its own 95% interval on N_opt: {:.4g} to {:.4g}, +-{:.0f}%, {:g} runs per point)",
                         t["N_lo"].get<double>(), t["N_hi"].get<double>(), 100 * t["N_spread"].get<double>(),
                         t["runs_per_point"].get<double>());
      if (!t["note"].get<std::string>().empty()) s += "; " + markdown_text(t["note"].get<std::string>());
      s += "\n";
    }
    s += fmt::format("- times: small runs {:.0f} s, truth {:.0f} s, fits {:.0f} s\n\n", w["small_seconds"].get<double>(),
                     w["truth_seconds"].get<double>(), w["fit_seconds"].get<double>());
    s += "| design | method | horizon | outcome | N_opt error | L_opt error | regret | in compute | N cover (Wilson) | "
         "width/spread |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : j["rows"]) {
      if (r["world"] != w["name"] || !r["main"].get<bool>()) continue;
      const auto& ws = r["N_width_over_spread"];
      s += fmt::format("| {} | {} | {:g}x | {} | {} | {} | {} | {} | {} | {} |\n",
                       markdown_text(r["design"].get<std::string>()), markdown_text(r["method"].get<std::string>()),
                       r["horizon"].get<double>(), status_cell(r),
                       spread_cell(r["N_error"]), spread_cell(r["L_error"]), pct_abs(r["regret"]["median"]),
                       pct_abs(r["compute_regret"]["median"]), coverage_cell(r["N_coverage"]),
                       ws.is_number() ? fmt::format("{:.2f}", ws.get<double>()) : "—");
    }
    s += "\n";
  }
  s += "## Design cost, one knob at a time\n\nMedian |N_opt error| and median regret at the largest horizon against the "
       "compute one replication's small runs spend; each design differs from the main one in the knob named.\n\n";
  s += "| world | knob | design | cost (FLOPs) | method | median abs. N_opt error | median regret |\n|---|---|---|---|---|---|---|\n";
  for (const auto& w : j["worlds"]) {
    double hmax = 0;
    for (const auto& t : w["truth"]) hmax = std::max(hmax, t["horizon"].get<double>());
    for (const auto& r : j["rows"])
      if (r["world"] == w["name"] && r["horizon"].get<double>() == hmax && r["status"] == "ok")
        s += fmt::format("| {} | {} | {} | {:.3g} | {} | {} | {} |\n", markdown_text(r["world"].get<std::string>()),
                         r["knob"].get<std::string>(), markdown_text(r["design"].get<std::string>()),
                         r["design_cost"].get<double>(), markdown_text(r["method"].get<std::string>()),
                         pct_abs(r["N_abs_error"]["median"]), pct_abs(r["regret"]["median"]));
  }
  return s;
}

}  // namespace scalinglab::extrapolate
