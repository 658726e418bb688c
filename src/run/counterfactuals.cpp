// Counterfactuals: every check counted as evidence run again on a model without the mechanism it
// claims, where it must FAIL, at several seeds. The variants are loaded (and so validated) before any
// of them runs; each runs only the grid points its checks select.
#include "scalinglab/run/counterfactuals.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "scalinglab/claims/claims.hpp"
#include "scalinglab/claims/margin.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/results/results_dir.hpp"
#include "scalinglab/run/report.hpp"
#include "scalinglab/run/runner.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

std::size_t CounterfactualOutcome::rejected() const {
  std::size_t n = 0;
  for (const auto& r : results) n += r.rejected && r.error.empty();
  return n;
}

bool CounterfactualOutcome::ok() const {
  if (!missing.empty()) return false;
  for (const auto& r : results) {
    if (!r.error.empty()) return false;
    // A check declared no evidence must accept its wrong model: rejecting it, the declaration is stale.
    if (r.rejected == !r.not_evidence.empty()) return false;
  }
  return true;
}

namespace {

// One wrong model: a sweep with one counterfactual's overrides, the checks that must fail there, and
// the seeds it runs at.
struct Variant {
  std::string stem;
  std::vector<std::string> set;
  std::vector<const CheckSpec*> checks;  // into `originals`' checks
  std::vector<Sweep> sweeps;             // one per seed
  std::vector<fs::path> outs;
  bool deterministic = false;
};

// Whether a check reads the rows of grid point `p`: its where (the part included) and its x range.
bool selects(const CheckSpec& c, const GridPoint& p) {
  std::map<std::string, std::string> where = c.where;
  if (const auto it = where.find("part"); it != where.end()) {
    if (!p.part.empty() && !entry_matches(Params::Entry{&part_param(), p.part, std::nan(""), ""}, it->second)) return false;
    where.erase(it);
  }
  if (!params_match(p.params, where)) return false;
  // An ordering reads only the curves it names.
  if ((c.kind == "ordered" || c.kind == "equal_compute") && !c.series.empty()) {
    const bool part = c.series == "part";
    if (part ? !p.part.empty() : p.params.has(c.series)) {
      const Params::Entry e = part ? Params::Entry{&part_param(), p.part, std::nan(""), ""} : p.params.entry(c.series);
      if (std::none_of(c.order.begin(), c.order.end(), [&](const std::string& v) { return entry_matches(e, v); })) return false;
    }
  }
  if (!c.x.empty() && p.params.has(c.x)) {
    const double x = p.params.entry(c.x).number;
    if (!std::isnan(x) && (x < c.x_min || x > c.x_max)) return false;
  }
  return true;
}

}  // namespace

CounterfactualOutcome run_counterfactuals(const CounterfactualOptions& o) {
  if (o.seeds < 1 || o.seeds > 1000) throw InputError("--seeds " + std::to_string(o.seeds) + ": expected 1 to 1000");
  // A paper's folder, or one sweep file (a world of the user's own: examples/worlds/hutter.toml).
  const bool one_file = fs::path(o.paper).extension() == ".toml";
  std::vector<std::string> files;
  fs::path paper_dir;
  std::string name = o.paper;
  if (one_file) {
    std::error_code ec;
    if (!fs::is_regular_file(o.paper, ec)) throw InputError(o.paper + ": no such sweep file");
    files = {o.paper};
    paper_dir = fs::path(o.paper).parent_path();
    name = fs::path(o.paper).stem().string();
    if (!is_plain_name(name)) throw InputError(o.paper + ": its name cannot name a results folder");
  } else {
    const fs::path experiments = find_experiments_dir(o.experiments_dir);
    paper_dir = paper_folder(experiments.string(), o.paper, o.profile);
    files = paper_sweep_files(paper_dir.string());
  }
  const fs::path out_dir = o.out_dir.empty() ? "results/" + name + "-" + o.profile + "-counterfactuals" : o.out_dir;

  // Every file and every variant loaded first: a typo in the last one costs no time.
  CounterfactualOutcome outcome;
  outcome.out_dir = out_dir.string();
  std::vector<Sweep> originals;
  std::vector<std::string> known_profiles;
  for (const auto& f : files) {
    const std::string stem = fs::path(f).stem().string();
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), stem) == o.only.end()) continue;
    originals.push_back(load_sweep(f, o.profile));
    for (const auto& p : originals.back().profiles) known_profiles.push_back(p);
  }
  for (const auto& stem : o.only)
    if (std::none_of(originals.begin(), originals.end(), [&](const Sweep& s) { return s.name == stem; }))
      throw InputError("--only " + stem + ": no sweep file " + stem + ".toml in " + paper_dir.string());
  if (!o.profile.empty() && !is_standard_profile(o.profile) &&
      std::find(known_profiles.begin(), known_profiles.end(), o.profile) == known_profiles.end())
    throw InputError("unknown profile '" + o.profile + "' for " + o.paper + " (\"quick\" and \"paper\" always apply)");

  std::vector<Variant> variants;
  std::size_t runs = 0;
  for (const auto& s : originals) {
    std::map<std::vector<std::string>, std::size_t> variant_of;  // set -> index into variants
    for (const auto& c : s.checks) {
      if (!c.substitute.empty()) continue;
      if (c.counterfactual.empty()) {
        if (c.known_failure.empty() && c.not_evidence.empty())
          outcome.missing.push_back(s.name + " #" + std::to_string(c.index));
        continue;
      }
      auto [it, fresh] = variant_of.try_emplace(c.counterfactual, variants.size());
      if (fresh) {
        Variant v{s.name, c.counterfactual, {}, {}, {}, false};
        const Sweep first = load_sweep(s.path, o.profile, c.counterfactual);
        const auto points = expand_grid(first, world_registry());
        v.deterministic = std::all_of(points.begin(), points.end(), [](const GridPoint& p) { return p.measure->deterministic; });
        const int n = v.deterministic ? 1 : o.seeds;
        const fs::path base = out_dir / s.name / ("counterfactual-" + std::to_string(variant_of.size()));
        for (int k = 0; k < n; ++k) {
          const uint64_t seed = s.seed + static_cast<uint64_t>(k);
          std::vector<std::string> sets = c.counterfactual;
          sets.push_back("seed=" + std::to_string(seed));
          v.sweeps.push_back(load_sweep(s.path, o.profile, sets));
          v.outs.push_back(base / ("seed-" + std::to_string(seed)));
        }
        runs += v.sweeps.size();
        variants.push_back(std::move(v));
      }
      variants[it->second].checks.push_back(&c);
    }
  }
  if (!o.resume)
    for (const auto& v : variants)
      for (const auto& out : v.outs) {
        std::error_code ec;
        if (fs::file_size(out / "results.jsonl", ec) > 0 && !ec)
          throw InputError(out.string() + " already holds results: pass --resume to continue, or choose another --out");
      }

  ResultsDir held(out_dir);  // one counterfactuals run per folder at a time
  std::printf("counterfactuals of %s (profile %s): %zu wrong models, %zu runs (%d seeds each, 1 when deterministic) into %s\n",
              terminal_text(o.paper).c_str(), terminal_text(o.profile).c_str(), variants.size(), runs, o.seeds,
              terminal_text(out_dir.string()).c_str());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    std::string set;
    for (const auto& x : v.set) set += (set.empty() ? "" : ", ") + x;
    std::printf("\n[%zu/%zu] %s with %s\n", i + 1, variants.size(), terminal_text(v.stem).c_str(),
                terminal_text(set).c_str());
    std::fflush(stdout);
    std::vector<CounterfactualResult> results;
    for (const CheckSpec* c : v.checks) {
      CounterfactualResult r;
      r.sweep = v.stem;
      r.index = c->index;
      r.claim = c->claim;
      r.set = v.set;
      r.why = c->counterfactual_why;
      r.profile = o.profile;
      r.not_evidence = c->not_evidence;
      r.deterministic = v.deterministic;
      results.push_back(std::move(r));
    }
    // A check none of whose rows the wrong model keeps (a --set of the parameter its where selects)
    // has nothing to judge: said once, not run.
    std::vector<bool> empty(v.checks.size(), true);
    for (const auto& p : expand_grid(v.sweeps.front(), world_registry()))
      for (std::size_t j = 0; j < v.checks.size(); ++j) empty[j] = empty[j] && !selects(*v.checks[j], p);
    for (std::size_t k = 0; k < v.sweeps.size(); ++k) {
      const Sweep& sweep = v.sweeps[k];
      RunOptions run;
      run.out_dir = v.outs[k].string();
      run.threads = o.threads;
      run.resume = o.resume;
      run.quiet = o.quiet;
      std::vector<std::string> sets = v.set;
      sets.push_back("seed=" + std::to_string(sweep.seed));
      run.origin = SweepOrigin{o.profile, sets};
      run.plot = false;
      run.keep_point = [&v](const GridPoint& p) {
        return std::any_of(v.checks.begin(), v.checks.end(), [&](const CheckSpec* c) { return selects(*c, p); });
      };
      RunOutcome ran;
      std::string error;
      try {
        ran = run_sweep(sweep, run);
      } catch (const InputError&) {
        throw;
      } catch (const std::exception& e) {
        error = e.what();  // a failed computation: reported, the other variants still run
      }
      for (std::size_t j = 0; j < v.checks.size(); ++j) {
        const CheckSpec* c = v.checks[j];
        SeedVerdict s;
        s.seed = sweep.seed;
        s.error = error;
        if (empty[j]) {
          s.error = "the counterfactual leaves the check nothing to judge (no grid point of the wrong model matches "
                    "its where and x range): a --set of a parameter its where or x selects";
        } else if (error.empty()) {
          const auto it = std::find_if(ran.checks.begin(), ran.checks.end(),
                                       [&](const CheckResult& x) { return x.index == c->index; });
          if (it == ran.checks.end()) {
            s.error = "the check does not apply to the counterfactual sweep";
          } else if (!it->judged) {
            s.error = "the counterfactual leaves the check nothing to judge (" + it->measured +
                      "): a --set of a parameter its where or x selects";
          } else {
            s.rejected = !it->passed;
            s.measured = it->measured;
            s.expected = it->expected;
            s.margin = -it->margin;
            s.margin_unit = it->margin_unit;
          }
        }
        results[j].seeds.push_back(std::move(s));
      }
    }
    for (auto& r : results) {
      r.summarise();
      std::printf("%s\n", r.line().c_str());
      outcome.results.push_back(std::move(r));
    }
    std::fflush(stdout);
  }

  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : outcome.results) j.push_back(r.to_json());
  held.write("counterfactuals.json", j.dump(2) + "\n");
  held.keep();

  std::size_t expected_accepts = 0, accepted = 0, stale = 0;
  for (const auto& r : outcome.results) {
    if (!r.error.empty()) continue;
    if (!r.not_evidence.empty()) (r.rejected ? stale : expected_accepts) += 1;
    else if (!r.rejected) ++accepted;
  }
  std::printf("\ncounterfactuals: %zu of %zu checks reject their wrong model at every seed", outcome.rejected() - stale,
              outcome.results.size() - expected_accepts - stale);
  if (accepted) std::printf(", %zu do not", accepted);
  std::printf("\n");
  if (expected_accepts)
    std::printf("%zu checks declared no evidence accept their wrong model, as declared\n", expected_accepts);
  if (stale)
    std::printf("%zu checks declared no evidence reject their wrong model at every seed: they may be evidence after all "
                "(remove not_evidence)\n", stale);
  if (!outcome.missing.empty()) {
    std::string list;
    for (const auto& m : outcome.missing) list += (list.empty() ? "" : ", ") + m;
    std::printf("%zu checks counted as evidence declare no counterfactual: %s\n", outcome.missing.size(), list.c_str());
  }
  return outcome;
}

}  // namespace scalinglab
