#include "scalinglab/lab/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace scalinglab {

Progress::Progress(std::size_t total, std::size_t done, std::string label, bool quiet, std::string unit)
    : Progress(total, done, std::move(label), quiet ? Mode::Off : (::isatty(STDERR_FILENO) ? Mode::Bar : Mode::Lines),
               std::move(unit)) {}

Progress::Progress(std::size_t total, std::size_t done, std::string label, Mode mode, std::string unit)
    : total_(total), done_(done), resumed_(done), label_(std::move(label)), unit_(std::move(unit)), mode_(mode) {
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

std::string Progress::status(double elapsed) const {
  const std::size_t ran = done_ - resumed_;
  // The rate of this run only: resumed tasks took no time here.
  const double eta = ran ? elapsed / static_cast<double>(ran) * static_cast<double>(total_ - done_) : NAN;
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
