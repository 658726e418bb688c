// Margins of verdicts: comparisons measured in standard errors, decades or plain differences.
#include "scalinglab/claims/margin.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace scalinglab {

std::string margin_unit(const std::vector<Gap>& gaps) {
  bool positive = !gaps.empty();
  for (const auto& g : gaps) {
    if (std::isfinite(g.se) && g.se > 0) return "sem";
    positive = positive && g.lhs > 0 && g.rhs > 0;
  }
  return positive ? "decades" : "abs";
}

double gap_margin(const Gap& g, const std::string& unit) {
  const double diff = g.rhs - g.lhs;
  if (std::isnan(diff)) return -std::numeric_limits<double>::infinity();  // NaN never passes
  if (unit == "sem") {
    if (std::isfinite(g.se) && g.se > 0) return diff / g.se + g.offset;
    if (diff == 0) return g.offset < 0 ? g.offset : 0.0;  // a tie: no margin (fails a required significance)
    return diff > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  if (unit == "decades") return std::log10(g.rhs / g.lhs);
  return diff;
}

Margin worst_margin(const std::vector<Gap>& gaps) {
  if (gaps.empty()) return {std::numeric_limits<double>::quiet_NaN(), ""};
  Margin m{std::numeric_limits<double>::infinity(), margin_unit(gaps)};
  for (const auto& g : gaps) m.value = std::min(m.value, gap_margin(g, m.unit));
  return m;
}

Margin slope_margin(double slope, double se, double lo, double hi) {
  const double d = std::min(slope - lo, hi - slope);  // > 0 inside [lo, hi]
  if (std::isnan(slope)) return {std::numeric_limits<double>::quiet_NaN(), ""};
  if (std::isfinite(se) && se > 0) return {d / se, "sem"};
  return {d, "slope"};
}

std::string margin_text(double value, const std::string& unit) {
  if (std::isnan(value) || unit.empty()) return "";
  if (std::isinf(value)) return std::string(value > 0 ? "+inf " : "-inf ") + unit;
  return fmt::format("{:+.3g} {}", value, unit);
}

}  // namespace scalinglab
