// The panels of the fit figures by name (see the header).
#include "scalinglab/fit/fit_panels.hpp"

#include <algorithm>
#include <cctype>

#include "scalinglab/core/error.hpp"

namespace scalinglab::fit {

namespace {

struct Kind {
  const char* kind;
  const char* what;
  std::vector<std::string> panels;
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"law2", "two-input law", {"isoflop", "ratio", "frontier", "residuals", "residuals-N", "residuals-D"}},
      {"law1", "one-input law", {"law", "residuals", "residuals-x"}},
      {"isoflop", "IsoFLOP analysis", {"isoflop", "frontier", "loss"}},
  };
  return k;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::string every_panel() {
  std::string out;
  for (const auto& k : kinds()) {
    std::string names;
    for (const auto& p : k.panels) names += (names.empty() ? "" : ", ") + p;
    out += (out.empty() ? "" : "; ") + names + " (" + k.what + ")";
  }
  return out;
}

const std::vector<std::string>& figure_panels(const std::string& kind) {
  static const std::vector<std::string> none;
  for (const auto& k : kinds())
    if (kind == k.kind) return k.panels;
  return none;
}

std::string panel_name(const std::string& text) {
  const std::string wanted = lower(trimmed(text));
  for (const auto& k : kinds())
    for (const auto& p : k.panels)
      if (lower(p) == wanted) return p;
  throw InputError("'" + text + "' is not a panel of the fit figures; the panels are " + every_panel());
}

std::vector<std::string> choose_panels(const std::vector<std::string>& available, const std::vector<std::string>& asked,
                                       std::vector<std::string>* missing) {
  if (asked.empty()) return available;
  std::vector<std::string> out;
  for (const auto& name : asked) {
    if (std::find(out.begin(), out.end(), name) != out.end()) continue;
    if (std::find(available.begin(), available.end(), name) != available.end())
      out.push_back(name);
    else if (missing && std::find(missing->begin(), missing->end(), name) == missing->end())
      missing->push_back(name);
  }
  return out;
}

std::vector<std::size_t> figure_rows(std::size_t n, std::size_t max) {
  const std::size_t m = max > 0 ? std::min(n, max) : n;
  std::vector<std::size_t> rows(m);
  for (std::size_t i = 0; i < m; ++i) rows[i] = m == n ? i : i * n / m;
  return rows;
}

}  // namespace scalinglab::fit
