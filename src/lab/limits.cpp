#include "scalinglab/lab/limits.hpp"

#include <unistd.h>

#include <cmath>
#include <fmt/format.h>
#include <mutex>

#include "scalinglab/core/error.hpp"

namespace scalinglab {

namespace {
Limits g_limits;
std::mutex g_mutex;
}  // namespace

double Limits::memory_bytes() const {
  if (max_memory > 0) return max_memory;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? 0.9 * static_cast<double>(pages) * static_cast<double>(page) : 8e9;
}

double Limits::work_ops() const { return max_work > 0 ? max_work : INFINITY; }

Limits limits() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_limits;
}

void set_limits(const Limits& l) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_limits = l;
}

std::string bytes_text(double b) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1000 && u < 6) b /= 1000, ++u;
  return u == 0 ? fmt::format("{:.0f} bytes", b) : fmt::format("{:.3g} {}", b, units[u]);
}

void check_limit(double count, double limit, const std::string& what, const std::string& unit,
                 const std::string& flag) {
  if (count <= limit) return;
  throw InputError(fmt::format("{} has {:.4g} {}, more than the limit of {:.4g}; reduce it, or raise the limit with {}",
                               what, count, unit, limit, flag));
}

}  // namespace scalinglab
