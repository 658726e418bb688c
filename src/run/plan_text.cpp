// The plan as text, the --wall duration and the array size that fits it.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/run/plan.hpp"

namespace scalinglab {

double parse_wall(const std::string& text) {
  const double s = parse_duration(text, "--wall");
  if (!(s > 0)) throw InputError("--wall '" + text + "': a wall time must be above 0 (e.g. 90m, 24h, 2d)");
  return s;
}

std::size_t array_size(double cpu_seconds, double wall_seconds, int cores, std::size_t tasks) {
  const double nodes = std::ceil(cpu_seconds / (wall_seconds * std::max(cores, 1)));
  const double most = static_cast<double>(std::max<std::size_t>(tasks, 1));
  return static_cast<std::size_t>(std::clamp(nodes, 1.0, most));
}

namespace {

// "0.8 s", "12.5 min", "3.4 h", "2.1 d".
std::string human_time(double s) {
  if (s < 60) return fmt::format("{:.2g} s", s);
  if (s < 3600) return fmt::format("{:.3g} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.3g} h", s / 3600);
  return fmt::format("{:.3g} d", s / 86400);
}

std::string cpu_hours(double s, bool lower_bound) {
  return (lower_bound ? ">" : "") + fmt::format("{:.3g}", s / 3600);
}

}  // namespace

std::string plan_text(const std::vector<SweepPlan>& plans, const PlanOptions& options) {
  const int cores = resolve_threads(options.threads);
  const bool wall = options.wall_seconds > 0;
  const auto label = [](const MeasureEstimate& m) { return m.part.empty() ? m.measure : m.measure + " [" + m.part + "]"; };
  std::size_t w1 = 18, w2 = 8;  // column widths: the longest sweep and measure names
  for (const auto& p : plans) {
    w1 = std::max(w1, p.name.size());
    for (const auto& m : p.measures) w2 = std::max(w2, label(m).size());
  }
  const auto row = [&](const std::string& sweep, const std::string& measure, const std::string& tasks,
                       const std::string& cpu, const std::string& longest, const std::string& mem,
                       const std::string& array, const std::string& method) {
    return fmt::format("{:<{}}  {:<{}} {:>9} {:>9} {:>10} {:>9}{}{}\n", sweep, w1, measure, w2, tasks, cpu, longest, mem,
                       wall ? fmt::format(" {:>6}", array) : "", method.empty() ? "" : "  " + method);
  };
  std::string out = row("sweep", "measure", "tasks", "CPU-h", "longest", "mem/task", "array",
                        "estimate (probes: the sweep's cheapest tasks, timed)");
  std::size_t tasks = 0;
  double cpu = 0, longest = 0, peak = 0, here = 0, probing = 0, load = 0;
  bool lower = false;
  std::string warnings;
  for (const auto& p : plans) {
    for (std::size_t i = 0; i < p.measures.size(); ++i) {
      const auto& m = p.measures[i];
      out += row(i ? "" : p.name, label(m), std::to_string(m.tasks), cpu_hours(m.cpu_seconds, m.lower_bound),
                 (m.lower_bound ? ">" : "") + human_time(m.longest_seconds), m.peak_bytes > 0 ? bytes_text(m.peak_bytes) : "few MB",
                 i || !wall ? "" : std::to_string(array_size(p.cpu_seconds(), options.wall_seconds, cores, p.tasks)),
                 m.method);
      if (!m.failure.empty())
        warnings += fmt::format("warning: {} ({}): a probe failed, so the run would too: {}\n", p.name, label(m), m.failure);
    }
    if (!p.refused.empty()) warnings += fmt::format("warning: {}: run would refuse it here: {}\n", p.name, p.refused);
    if (wall && p.longest_seconds() > options.wall_seconds)
      warnings += fmt::format("warning: {}: one task takes {}about {}, longer than the wall time {}: it needs "
                              "checkpoints (--checkpoint-every), or a longer wall time\n",
                              p.name, p.lower_bound() ? "more than " : "", human_time(p.longest_seconds()),
                              human_time(options.wall_seconds));
    tasks += p.tasks;
    cpu += p.cpu_seconds();
    longest = std::max(longest, p.longest_seconds());
    peak = std::max(peak, p.peak_bytes());
    here += p.wall_seconds(cores);
    probing += p.probe_seconds;
    if (std::isfinite(p.load_average)) load = std::max(load, p.load_average);
    lower = lower || p.lower_bound();
  }
  if (plans.size() > 1)
    out += row(fmt::format("total ({} sweeps)", plans.size()), "", std::to_string(tasks), cpu_hours(cpu, lower),
               (lower ? ">" : "") + human_time(longest), peak > 0 ? bytes_text(peak) : "few MB",
               wall ? std::to_string(array_size(cpu, options.wall_seconds, cores, tasks)) : "", "");
  out += fmt::format("\nCPU time {}{} ({:.3g} CPU-hours, one core per task); on this machine with {} thread{}: "
                     "{}about {} (each sweep: its CPU time / {}, or its longest task where longer)\n",
                     lower ? "more than " : "", human_time(cpu), cpu / 3600, cores, cores == 1 ? "" : "s",
                     lower ? "more than " : "", human_time(here), cores);
  if (wall)
    out += fmt::format("--wall {}: `array` is the Slurm array size (`slurm --array N --cpus {}`, or `mpirun -np N` "
                       "with {} threads a rank) that runs each sweep within it on nodes of {} cores{}\n",
                       human_time(options.wall_seconds), cores, cores, cores,
                       plans.size() > 1 ? "; the total line, all sweeps of the paper as one job" : "");
  out += fmt::format("probing took {}; nothing was written\n", human_time(probing));
  if (lower)
    out += fmt::format("'>': no probe of that part finished within --probe-seconds ({}), so its times are lower "
                       "bounds; a larger --probe-seconds measures them\n",
                       human_time(options.probe_seconds));
  if (load > cores)  // the probes time CPU, so the estimate holds; a run now would share the cores
    out += fmt::format("note: the load average was {:.1f} on {} cores while probing: other programs are running, and "
                       "a run now would take longer than the time above\n",
                       load, cores);
  return out + warnings;
}

}  // namespace scalinglab
