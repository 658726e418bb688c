#pragma once
// Progress of a sweep on stderr: a redrawn bar with ETA when stderr is a terminal, otherwise plain
// lines (every ~10% of the tasks or every 30 s, whichever comes first), nothing when quiet.
//
// The ETA: tasks of a sweep differ in cost by orders of magnitude (a width d costs ~d^2, a length T
// ~T), and grid order runs the cheap ones first, so tasks-per-second extrapolates far too low. When
// the tasks' numeric parameters are given, the ETA is the predicted cost of the unfinished tasks
// from a power-law cost model fitted to the finished ones (log seconds regressed on the logs of the
// parameters, ridge-regularised), divided by the workers.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace scalinglab {

class Progress {
 public:
  enum class Mode { Off, Bar, Lines };

  // `total` tasks of which `done` are already finished (resumed); `label` prefixes every line;
  // `unit` names what is counted.
  Progress(std::size_t total, std::size_t done, std::string label, bool quiet, std::string unit = "tasks");
  Progress(std::size_t total, std::size_t done, std::string label, Mode mode,
           std::string unit = "tasks");  // tests: force a mode
  ~Progress();

  void advance();  // one more task finished; thread-safe
  void finish();   // the final state (and a newline after a bar); idempotent

  // The cost model: `features[i]` describes pending task i (e.g. its numeric parameters, positive
  // ones as logs are taken), `workers` run them at once. Then report tasks with advance(i, seconds).
  void set_tasks(std::vector<std::vector<double>> features, int workers);
  void advance(std::size_t task, double seconds);  // thread-safe

  // Seconds left: the cost model's prediction when set and fitted (3 tasks or more), else the
  // finished tasks' mean rate over `elapsed`. NaN before any task finished.
  double eta(double elapsed) const;

  // Tasks done so far (resumed ones included) and eta(now); thread-safe.
  std::size_t done() const;
  double seconds_left() const;

  // "1h02m", "3m05s", "12s".
  static std::string duration(double seconds);

 private:
  std::string status(double elapsed) const;
  void draw(bool final);

  using Clock = std::chrono::steady_clock;
  std::size_t total_, done_, resumed_;
  std::string label_, unit_ = "tasks";
  Mode mode_;
  Clock::time_point start_, last_draw_;
  std::size_t last_decile_ = 0;
  bool finished_ = false;
  // Cost model: per pending task its log features, whether finished, and its seconds.
  std::vector<std::vector<double>> features_;
  std::vector<char> task_done_;
  std::vector<double> task_seconds_;
  int workers_ = 1;
  mutable std::mutex mutex_;
};

}  // namespace scalinglab
