#include "scalinglab/lab/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/limits.hpp"

namespace scalinglab {

void Record::set(const std::string& name, double value) {
  for (auto& [n, v] : scalars)
    if (n == name) {
      v = value;
      return;
    }
  scalars.emplace_back(name, value);
}

void Record::set_series(const std::string& name, std::vector<double> values) {
  for (auto& [n, v] : series)
    if (n == name) {
      v = std::move(values);
      return;
    }
  series.emplace_back(name, std::move(values));
}

double Record::get(const std::string& name) const {
  for (const auto& [n, v] : scalars)
    if (n == name) return v;
  throw std::out_of_range("record has no metric " + name);
}

const ParamSpec* Measure::param(const std::string& name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

void Registry::add(Measure m) {
  for (const auto& existing : measures_)
    if (existing.name == m.name) throw std::logic_error("measure registered twice: " + m.name);
  m.params.push_back(int_param("runs", "1", "number of independent runs (seeds) to average", 1, 1e9));
  m.params.push_back(int_param("seed", "0", "base seed; run r uses the stream keyed by (seed, params, r)", 0, 1.8e19));
  measures_.push_back(std::move(m));
}

const Measure& Registry::get(const std::string& name) const {
  for (const auto& m : measures_)
    if (m.name == name) return m;
  std::string names;
  for (const auto& m : measures_) names += (names.empty() ? "" : ", ") + m.name;
  throw InputError("unknown measure '" + name + "' (known: " + names + ")");
}

double series_bytes(const Params& prm, double values) {
  const double runs = prm.has("runs") ? std::min(prm.real("runs"), 4096.0) : 1.0;
  return values * (80 + 8 * runs);
}

void check_memory(const Measure& m, const Params& params, int concurrent) {
  if (!m.memory) return;
  const double each = m.memory(params), limit = limits().memory_bytes();
  const double total = each * std::max(concurrent, 1);
  if (total <= limit) return;
  throw InputError(m.name + " at " + params.canonical() + " needs about " + bytes_text(each) + " per run" +
                   (concurrent > 1 ? " (" + std::to_string(concurrent) + " at once: " + bytes_text(total) + ")" : "") +
                   ", more than the limit of " + bytes_text(limit) +
                   "; reduce the sizes" + (concurrent > 1 ? " or --threads" : "") + ", or raise the limit with --max-memory");
}

void check_work(const Measure& m, const Params& params) {
  if (!m.work) return;
  const double ops = m.work(params), limit = limits().work_ops();
  if (ops <= limit) return;
  const std::string amount = std::isfinite(ops) ? "about " + fmt::format("{:.3g}", ops) : "more than 1e308";
  throw InputError(m.name + " at " + params.canonical() + " takes " + amount +
                   " operations per run, more than the limit of " + fmt::format("{:.3g}", limit) +
                   "; reduce the sizes, or raise the limit with --max-work");
}

void check_task(const Measure& m, const Params& params, int concurrent) {
  if (m.check) m.check(params);
  check_memory(m, params, concurrent);
  check_work(m, params);
}

std::vector<const Measure*> Registry::all() const {
  std::vector<const Measure*> out;
  for (const auto& m : measures_) out.push_back(&m);
  return out;
}

}  // namespace scalinglab
