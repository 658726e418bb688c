#pragma once
// Limits checked before any work starts, so that a typo (runs=1e9, a 10^9-point grid, N=1e8 with
// d=1e6) ends at once with a sentence and exit status 2 instead of a machine swapping for minutes
// and a bad_alloc. Each limit can be raised (command line: --max-points, --max-tasks, --max-memory;
// docs/reliability.md).
#include <cstdint>
#include <string>

namespace scalinglab {

struct Limits {
  // Grid points of one sweep (every point is resolved and held in memory while it runs; about
  // 1.5 kB and 40 us each).
  double max_points = 1e5;
  // Tasks (grid points x runs) of one sweep or one `eval`.
  double max_tasks = 1e7;
  // Bytes the tasks running at once may allocate together, by the measures' own estimates.
  // 0: 90% of the machine's physical memory.
  double max_memory = 0;

  // Elementary operations one run may take, by the measures' own estimates (Measure::work); 0: no
  // limit. A typo such as steps=1e9 then ends at once instead of running for days.
  double max_work = 0;

  double memory_bytes() const;  // max_memory resolved
  double work_ops() const;      // max_work resolved (infinity when 0)
};

Limits limits();
void set_limits(const Limits& l);

// "3.2 GB", "512 MB": a byte count for messages.
std::string bytes_text(double bytes);

// InputError unless `count` <= `limit`: "`what` has N grid points, more than the limit of L
// (raise it with `flag`)".
void check_limit(double count, double limit, const std::string& what, const std::string& unit,
                 const std::string& flag);

}  // namespace scalinglab
