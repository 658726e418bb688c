// A check judged on its counterfactual at several seeds: its line, its summary over the seeds (a
// rejection counts only when every seed rejects), and its record in counterfactuals.json.
#include "scalinglab/claims/counterfactual.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "scalinglab/claims/margin.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/text_escape.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

nlohmann::json number_json(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double number_from(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  return std::nan("");
}

}  // namespace

std::string CounterfactualResult::set_text() const {
  std::string out;
  for (const auto& s : set) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::size_t CounterfactualResult::seeds_rejecting() const {
  return static_cast<std::size_t>(
      std::count_if(seeds.begin(), seeds.end(), [](const SeedVerdict& s) { return s.rejected && s.error.empty(); }));
}

void CounterfactualResult::summarise() {
  error.clear();
  for (const auto& s : seeds)
    if (!s.error.empty() && error.empty()) error = s.error;
  rejected = !seeds.empty() && error.empty() && seeds_rejecting() == seeds.size();
  // The seed closest to accepting the wrong model speaks for all (the first such, in seed order).
  const SeedVerdict* worst = nullptr;
  for (const auto& s : seeds) {
    if (!s.error.empty()) continue;
    const double m = std::isnan(s.margin) ? -INFINITY : s.margin;
    const double w = worst ? (std::isnan(worst->margin) ? -INFINITY : worst->margin) : INFINITY;
    if (!worst || (!s.rejected && worst->rejected) || (s.rejected == worst->rejected && m < w)) worst = &s;
  }
  if (worst) {
    measured = worst->measured;
    expected = worst->expected;
    margin = worst->margin;
    margin_unit = worst->margin_unit;
  }
}

std::string CounterfactualResult::verdict_text() const {
  if (!error.empty()) return "error: " + error;
  const std::string m = margin_text(margin, margin_unit);
  std::string out;
  if (deterministic) {
    out = "deterministic (one run stands for every seed)";
  } else {
    const std::size_t k = seeds_rejecting(), n = seeds.size();
    out = rejected ? fmt::format("rejected at {}/{} seeds", k, n) : fmt::format("accepted at {}/{} seeds", n - k, n);
  }
  if (!m.empty()) out += (deterministic ? ", margin " : rejected ? ", smallest margin " : ", margin at the worst ") + m;
  return out;
}

std::string CounterfactualResult::line() const {
  const char* status = !error.empty() ? "ERROR  " : rejected ? "REJECTS" : "ACCEPTS";
  std::string out = std::string(status) + "  " + name() + " with " + set_text() + ", " + verdict_text();
  if (!error.empty()) return terminal_text(out);
  out += ": " + measured + " (expected " + expected + ")";
  if (!rejected)
    out += not_evidence.empty() ? " [the check passes on a model without its mechanism: " + why + "]"
                                : " [declared no evidence: " + not_evidence + "]";
  return terminal_text(out);
}

nlohmann::json CounterfactualResult::to_json() const {
  nlohmann::json seeds_json = nlohmann::json::array();
  for (const auto& s : seeds) {
    nlohmann::json j = {{"seed", s.seed},         {"rejected", s.rejected},         {"measured", s.measured},
                        {"expected", s.expected}, {"margin", number_json(s.margin)}, {"margin_unit", s.margin_unit}};
    if (!s.error.empty()) j["error"] = s.error;
    seeds_json.push_back(std::move(j));
  }
  nlohmann::json j = {{"sweep", sweep},       {"index", index},       {"claim", claim},
                      {"set", set},           {"why", why},           {"profile", profile},
                      {"rejected", rejected}, {"measured", measured}, {"expected", expected},
                      {"margin", number_json(margin)}, {"margin_unit", margin_unit},
                      {"deterministic", deterministic}, {"seeds", seeds_json}};
  if (!not_evidence.empty()) j["not_evidence"] = not_evidence;
  if (!error.empty()) j["error"] = error;
  return j;
}

CounterfactualResult CounterfactualResult::from_json(const nlohmann::json& j) {
  try {
    CounterfactualResult r;
    r.sweep = j.at("sweep").get<std::string>();
    r.index = j.at("index").get<std::size_t>();
    r.claim = j.value("claim", "");
    r.set = j.at("set").get<std::vector<std::string>>();
    r.why = j.value("why", "");
    r.profile = j.value("profile", "");
    r.not_evidence = j.value("not_evidence", "");
    r.rejected = j.at("rejected").get<bool>();
    r.measured = j.value("measured", "");
    r.expected = j.value("expected", "");
    r.margin = j.contains("margin") ? number_from(j.at("margin")) : std::nan("");
    r.margin_unit = j.value("margin_unit", "");
    r.deterministic = j.value("deterministic", false);
    r.error = j.value("error", "");
    if (j.contains("seeds"))
      for (const auto& s : j.at("seeds")) {
        SeedVerdict v;
        v.seed = s.at("seed").get<uint64_t>();
        v.rejected = s.at("rejected").get<bool>();
        v.measured = s.value("measured", "");
        v.expected = s.value("expected", "");
        v.margin = s.contains("margin") ? number_from(s.at("margin")) : std::nan("");
        v.margin_unit = s.value("margin_unit", "");
        v.error = s.value("error", "");
        r.seeds.push_back(std::move(v));
      }
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("not a counterfactual result: " + json_error_text(e));
  }
}

std::vector<CounterfactualResult> read_counterfactuals(const std::string& dir) {
  const fs::path file = fs::path(dir) / "counterfactuals.json";
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return {};
  nlohmann::json j;
  try {
    j = parse_json(read_entry(dir, "counterfactuals.json", 64 << 20, "counterfactuals file").value_or(""), file.string());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file.string() + ": not a counterfactuals file (" + json_error_text(e) + ")");
  }
  if (!j.is_array()) throw InputError(file.string() + ": not a counterfactuals file (expected a list)");
  std::vector<CounterfactualResult> out;
  for (const auto& r : j) {
    try {
      out.push_back(CounterfactualResult::from_json(r));
    } catch (const InputError& e) {
      throw InputError(file.string() + ": " + e.what());
    }
  }
  return out;
}

}  // namespace scalinglab
