// A fit's progress on stderr and to a callback that may stop it.
#include "scalinglab/fit/fit_monitor.hpp"

#include <cstdio>
#include <cstdlib>

#include "scalinglab/core/progress.hpp"

namespace scalinglab::fit {

namespace {

// Seconds a stage runs before its progress shows: 3, or SCALINGLAB_PROGRESS_DELAY (0: at once).
double progress_delay() {
  static const double delay = [] {
    const char* v = std::getenv("SCALINGLAB_PROGRESS_DELAY");
    if (!v) return 3.0;
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    return end != v && *end == 0 && d >= 0 && d < 1e6 ? d : 3.0;
  }();
  return delay;
}

}  // namespace

void FitMonitor::note(const std::string& text) const {
  if (stderr_lines) std::fprintf(stderr, "%s\n", text.c_str());
}

StageProgress::StageProgress(const FitMonitor* monitor, std::size_t total, std::string label, std::string unit)
    : monitor_(monitor), total_(total), label_(std::move(label)), unit_(std::move(unit)) {
  if (monitor_ && monitor_->on_progress && !monitor_->on_progress(label_, 0, total_)) {
    stopped_ = true;
    throw FitInterrupted("stopped before " + label_);
  }
}

StageProgress::~StageProgress() = default;

void StageProgress::advance() {
  if (!monitor_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) throw FitInterrupted("stopped");  // the pool's other items after a stop
  ++done_;
  if (monitor_->on_progress && !monitor_->on_progress(label_, done_, total_)) {
    stopped_ = true;
    throw FitInterrupted("stopped during " + label_ + " (" + std::to_string(done_) + " of " +
                         std::to_string(total_) + " " + unit_ + ")");
  }
  if (!monitor_->stderr_lines) return;
  // Quiet for the first 3 s: short fits print nothing but their result.
  if (shown_) shown_->advance();
  else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= progress_delay() &&
           done_ < total_)
    shown_ = std::make_unique<Progress>(total_, done_, label_, false, unit_);
}

}  // namespace scalinglab::fit
