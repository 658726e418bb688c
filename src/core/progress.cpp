#include "scalinglab/core/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "scalinglab/core/cost_model.hpp"
#include "scalinglab/core/text_escape.hpp"

namespace scalinglab {

Progress::Progress(std::size_t total, std::size_t done, std::string label, bool quiet, std::string unit)
    : Progress(total, done, std::move(label), quiet ? Mode::Off : (::isatty(STDERR_FILENO) ? Mode::Bar : Mode::Lines),
               std::move(unit)) {}

// The label names a sweep or a file: printed through terminal_text, so it cannot move the cursor.
Progress::Progress(std::size_t total, std::size_t done, std::string label, Mode mode, std::string unit)
    : total_(total), done_(done), resumed_(done), label_(terminal_text(label)), unit_(std::move(unit)), mode_(mode) {
  start_ = last_draw_ = Clock::now();
  last_decile_ = total_ ? done_ * 10 / total_ : 10;
  if (mode_ == Mode::Lines) {
    std::fprintf(stderr, "%s: %zu %s%s\n", label_.c_str(), total_ - done_, unit_.c_str(),
                 done_ ? (" to run (" + std::to_string(done_) + " already done)").c_str() : " to run");
  } else if (mode_ == Mode::Bar) {
    draw(false);
  }
}

Progress::~Progress() { finish(); }

std::string Progress::duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long t = std::lround(s);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

void Progress::set_tasks(std::vector<std::vector<double>> features, int workers) {
  std::lock_guard<std::mutex> lock(mutex_);
  features_ = std::move(features);
  task_done_.assign(features_.size(), 0);
  task_seconds_.assign(features_.size(), 0.0);
  workers_ = std::max(1, workers);
}

void Progress::advance(std::size_t task, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (task < task_done_.size() && !task_done_[task]) {
      task_done_[task] = 1;
      task_seconds_[task] = seconds;
    }
  }
  advance();
}

double Progress::eta(double elapsed) const {
  const std::size_t ran = done_ - resumed_;
  if (ran == 0) return NAN;
  // The rate of this run only: resumed tasks took no time here.
  const double by_rate = elapsed / static_cast<double>(ran) * static_cast<double>(total_ - done_);
  std::vector<std::size_t> seen, pending;
  for (std::size_t i = 0; i < task_done_.size(); ++i) (task_done_[i] ? seen : pending).push_back(i);
  if (seen.size() > 2000) {  // a redraw stays cheap on huge sweeps: fit on every k-th finished task
    std::vector<std::size_t> every;
    for (std::size_t j = 0; j < seen.size(); j += seen.size() / 2000 + 1) every.push_back(seen[j]);
    seen = std::move(every);
  }
  if (seen.size() < 3 || features_.empty()) return by_rate;
  CostModel model(features_);
  std::vector<double> seconds;
  for (std::size_t task : seen) seconds.push_back(task_seconds_[task]);
  if (!model.fit(seen, seconds)) return by_rate;
  double work = 0, longest = 0;
  for (std::size_t task : pending) {
    const double t = model.predict(task);
    work += t;
    longest = std::max(longest, t);
  }
  // Workers share the work, but no faster than the longest task left.
  return std::max(work / workers_, longest);
}

std::size_t Progress::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

double Progress::seconds_left() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return eta(std::chrono::duration<double>(Clock::now() - start_).count());
}

std::string Progress::status(double elapsed) const {
  const double eta = this->eta(elapsed);
  const int pct = total_ ? static_cast<int>(100 * done_ / total_) : 100;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu/%zu %s %3d%%  elapsed %s  ETA %s", done_, total_, unit_.c_str(), pct,
                duration(elapsed).c_str(), done_ == total_ ? "0s" : duration(eta).c_str());
  return buf;
}

void Progress::draw(bool final) {
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (mode_ == Mode::Bar) {
    constexpr int width = 30;
    const int filled = total_ ? static_cast<int>(width * done_ / total_) : width;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r%s [%s] %s\033[K%s", label_.c_str(), bar.c_str(), status(elapsed).c_str(),
                 final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s: %s\n", label_.c_str(), status(elapsed).c_str());
  }
  std::fflush(stderr);
  last_draw_ = now;
}

void Progress::advance() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  if (mode_ == Mode::Off || done_ >= total_) return;  // the last state is drawn by finish()
  const auto since = Clock::now() - last_draw_;
  if (mode_ == Mode::Bar) {
    if (since > std::chrono::milliseconds(100)) draw(false);
    return;
  }
  const std::size_t decile = done_ * 10 / total_;
  if (decile > last_decile_ || since > std::chrono::seconds(30)) {
    last_decile_ = decile;
    draw(false);
  }
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_ || mode_ == Mode::Off) return;
  finished_ = true;
  draw(true);
}

}  // namespace scalinglab
