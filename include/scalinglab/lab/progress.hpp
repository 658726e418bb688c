#pragma once
// Progress of a sweep on stderr: a redrawn bar with ETA when stderr is a terminal, otherwise plain
// lines (every ~10% of the tasks or every 30 s, whichever comes first), nothing when quiet.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

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
  std::mutex mutex_;
};

}  // namespace scalinglab
