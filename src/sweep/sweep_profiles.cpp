// Profiles: a sweep file's [profile.NAME] tables (a quick run, the paper's own sizes) and the
// command line's --set overrides, applied over the file's own settings.
#include "sweep_reader.hpp"

#include <algorithm>
#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"

namespace scalinglab {

void SweepReader::profiles(const toml::node* n, const std::string& profile, Sweep& s) const {
  for (const auto& [name, node] : ordered(table(n, "[profile]"))) {
    const std::string key = "[profile." + name + "]";
    const auto& t = table(node, key);
    allow_keys(t, {"title", "runs", "seed", "params", "grid", "reduced"}, key);
    Sweep scratch = s;
    Sweep& target = name == profile ? s : scratch;
    if (auto x = t.get("title")) target.title = string(x, key + " title");
    // A quick profile is smaller than the paper's setting by definition.
    if (name == "quick") target.reduced = "quick profile";
    if (auto x = t.get("reduced")) target.reduced = string(x, key + " reduced");
    if (auto x = t.get("runs")) target.runs = integer(x, key + " runs", 1);
    if (auto x = t.get("seed")) target.seed = static_cast<uint64_t>(integer(x, key + " seed", 0));
    if (auto x = t.get("params")) params(x, key + " params", target, true);
    if (auto x = t.get("grid")) grid(x, key + " grid", target, true);
    if (name == profile) s.profile = profile;
    s.profiles.push_back(name);
  }
}

void SweepReader::set_overrides(const std::vector<std::string>& sets, Sweep& s) const {
  for (const auto& set : sets) {
    const auto [k, val] = split_assignment(set);
    const std::string key = "--set " + set;
    if (s.reduced.empty()) s.reduced = "changed by " + key;  // not the setting the file states
    if (k == "runs" || k == "seed") {
      const auto x = parse_number(val);
      if (!x || *x != std::floor(*x) || *x < (k == "runs" ? 1 : 0) || *x > 9.2e18)
        throw InputError(file_ + ": " + key + ": expected an integer >= " + (k == "runs" ? "1" : "0"));
      if (k == "runs") s.runs = static_cast<int64_t>(*x);
      else s.seed = static_cast<uint64_t>(*x);
      continue;
    }
    if (k == "part") throw InputError(file_ + ": " + key + ": 'part' names the parts; it cannot be set");
    param(nullptr, k, key);
    s.fixed[k] = val;
    unset_axis(s, k);
    unset_in_parts(s, k);
  }
}

void require_known_profile(const Sweep& s, const std::string& profile) {
  if (profile.empty() || is_standard_profile(profile)) return;
  if (std::find(s.profiles.begin(), s.profiles.end(), profile) != s.profiles.end()) return;
  throw InputError(s.path + ": unknown profile '" + profile + "' (this file knows: " +
                   (s.profiles.empty() ? std::string("none") : SweepReader::join(s.profiles)) +
                   "; \"quick\" and \"paper\" run it as written when it does not define them)");
}

bool is_standard_profile(const std::string& profile) { return profile == "quick" || profile == "paper";
}

}  // namespace scalinglab
