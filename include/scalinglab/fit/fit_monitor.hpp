#pragma once
// How a long fit speaks while it runs, and how it is stopped. A fit's stages (the starts of a
// grid, the polishing, the bootstrap refits, the cross-validation folds, an IsoFLOP or envelope
// bootstrap) each count what they have done: on stderr (the command line, whatever the output
// format: stdout keeps the result) and to a callback (Python's progress bar, and its Ctrl-C).
// A callback that returns false stops the fit: the stage's pool finishes the items it holds and
// FitInterrupted is thrown, so nothing half-made is returned or written.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace scalinglab {
class Progress;
}

namespace scalinglab::fit {

struct FitMonitor {
  // Progress lines on stderr once a stage has run 3 s (a bar on a terminal, else plain lines), and
  // the fit's notes (stages, warnings) as they happen.
  bool stderr_lines = false;
  // After each item of a stage, one call at a time: (stage, done, total). false: stop.
  std::function<bool(const std::string& stage, std::size_t done, std::size_t total)> on_progress;
  // A note for the user (a stage begins, a warning): stderr when stderr_lines.
  void note(const std::string& text) const;
};

class FitInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One stage's count. advance() is thread-safe and throws FitInterrupted when the callback asks to
// stop (a parallel_for then skips its remaining items and rethrows).
class StageProgress {
 public:
  StageProgress(const FitMonitor* monitor, std::size_t total, std::string label, std::string unit = "starts");
  ~StageProgress();
  void advance();

 private:
  const FitMonitor* monitor_;
  std::size_t total_, done_ = 0;
  std::string label_, unit_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::unique_ptr<Progress> shown_;
  bool stopped_ = false;
  std::mutex mutex_;
};

}  // namespace scalinglab::fit
