// A check judged on its counterfactual: its line, and its record in counterfactuals.json.
#include "scalinglab/claims/counterfactual.hpp"

#include <filesystem>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/file_io.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

std::string CounterfactualResult::set_text() const {
  std::string out;
  for (const auto& s : set) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string CounterfactualResult::line() const {
  const char* status = !error.empty() ? "ERROR  " : rejected ? "REJECTS" : "ACCEPTS";
  std::string out = std::string(status) + "  " + name() + " with " + set_text() + ": ";
  if (!error.empty()) return out + error;
  out += measured + " (expected " + expected + ")";
  if (!rejected) out += " [the check passes on a model without its mechanism: " + why + "]";
  return out;
}

nlohmann::json CounterfactualResult::to_json() const {
  nlohmann::json j = {{"sweep", sweep}, {"index", index},   {"claim", claim},
                      {"set", set},     {"why", why},       {"rejected", rejected},
                      {"measured", measured}, {"expected", expected}};
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
    r.rejected = j.at("rejected").get<bool>();
    r.measured = j.value("measured", "");
    r.expected = j.value("expected", "");
    r.error = j.value("error", "");
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("not a counterfactual result: " + json_error_text(e));
  }
}

std::vector<CounterfactualResult> read_counterfactuals(const std::string& dir) {
  const fs::path file = fs::path(dir) / "counterfactuals.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {};
  nlohmann::json j;
  try {
    j = parse_json(read_file(file.string(), 64 << 20, "counterfactuals file"), file.string());
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
