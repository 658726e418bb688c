// Counterfactuals: every check counted as evidence run again on a model without the mechanism it
// claims, where it must FAIL. The variants are loaded (and so validated) before any of them runs.
#include "scalinglab/run/counterfactuals.hpp"

#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <map>

#include "scalinglab/claims/claims.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
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

bool CounterfactualOutcome::ok() const { return missing.empty() && rejected() == results.size(); }

namespace {

// One run: a sweep with one counterfactual's overrides, and the checks that must fail there.
struct Variant {
  Sweep sweep;
  std::string stem;
  std::vector<std::string> set;
  std::vector<const CheckSpec*> checks;  // into `original`'s checks
  fs::path out;
};

}  // namespace

CounterfactualOutcome run_counterfactuals(const CounterfactualOptions& o) {
  const fs::path experiments = find_experiments_dir(o.experiments_dir);
  const fs::path paper_dir = paper_folder(experiments.string(), o.paper, o.profile);
  const fs::path out_dir = o.out_dir.empty() ? "results/" + o.paper + "-" + o.profile + "-counterfactuals" : o.out_dir;

  // Every file and every variant loaded first: a typo in the last one costs no time.
  CounterfactualOutcome outcome;
  outcome.out_dir = out_dir.string();
  std::vector<Sweep> originals;
  std::vector<std::string> known_profiles;
  for (const auto& f : paper_sweep_files(paper_dir.string())) {
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
  for (const auto& s : originals) {
    std::map<std::vector<std::string>, std::size_t> variant_of;  // set -> index into variants
    for (const auto& c : s.checks) {
      if (!c.substitute.empty()) continue;
      if (c.counterfactual.empty()) {
        if (c.known_failure.empty()) outcome.missing.push_back(s.name + " #" + std::to_string(c.index));
        continue;
      }
      auto [it, fresh] = variant_of.try_emplace(c.counterfactual, variants.size());
      if (fresh) {
        Variant v{load_sweep(s.path, o.profile, c.counterfactual), s.name, c.counterfactual, {}, {}};
        v.out = out_dir / s.name / ("counterfactual-" + std::to_string(variant_of.size()));
        variants.push_back(std::move(v));
      }
      variants[it->second].checks.push_back(&c);
    }
  }
  if (!o.resume)
    for (const auto& v : variants) {
      std::error_code ec;
      if (fs::file_size(v.out / "results.jsonl", ec) > 0 && !ec)
        throw InputError(v.out.string() + " already holds results: pass --resume to continue, or choose another --out");
    }

  ResultsDir held(out_dir);  // one counterfactuals run per folder at a time
  std::printf("counterfactuals of %s (profile %s): %zu runs into %s\n", o.paper.c_str(), o.profile.c_str(),
              variants.size(), out_dir.c_str());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    std::string set;
    for (const auto& x : v.set) set += (set.empty() ? "" : ", ") + x;
    std::printf("\n[%zu/%zu] %s with %s\n", i + 1, variants.size(), v.stem.c_str(), set.c_str());
    std::fflush(stdout);
    RunOptions run;
    run.out_dir = v.out.string();
    run.threads = o.threads;
    run.resume = o.resume;
    run.quiet = o.quiet;
    run.origin = SweepOrigin{o.profile, v.set};
    RunOutcome ran;
    std::string error;
    try {
      ran = run_sweep(v.sweep, run);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      error = e.what();  // a failed computation: reported, the other variants still run
    }
    for (const CheckSpec* c : v.checks) {
      CounterfactualResult r{v.stem, c->index, c->claim, v.set, c->counterfactual_why, false, "", "", error};
      if (error.empty()) {
        const auto it = std::find_if(ran.checks.begin(), ran.checks.end(),
                                     [&](const CheckResult& x) { return x.index == c->index; });
        if (it == ran.checks.end()) {
          r.error = "the check does not apply to the counterfactual sweep";
        } else if (!it->judged) {
          r.error = "the counterfactual leaves the check nothing to judge (" + it->measured +
                    "): a --set of a parameter its where or x selects";
        } else {
          r.rejected = !it->passed;
          r.measured = it->measured;
          r.expected = it->expected;
        }
      }
      std::printf("%s\n", r.line().c_str());
      outcome.results.push_back(std::move(r));
    }
    std::fflush(stdout);
  }

  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : outcome.results) j.push_back(r.to_json());
  held.write("counterfactuals.json", j.dump(2) + "\n");
  held.keep();

  const std::size_t accepted = outcome.results.size() - outcome.rejected();
  std::printf("\ncounterfactuals: %zu of %zu checks reject their wrong model", outcome.rejected(), outcome.results.size());
  if (accepted) std::printf(", %zu do not", accepted);
  std::printf("\n");
  if (!outcome.missing.empty()) {
    std::string list;
    for (const auto& m : outcome.missing) list += (list.empty() ? "" : ", ") + m;
    std::printf("%zu checks counted as evidence declare no counterfactual: %s\n", outcome.missing.size(), list.c_str());
  }
  return outcome;
}

}  // namespace scalinglab
