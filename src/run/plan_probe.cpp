// A probe: one task of a sweep run in a child process, so that the plan's time stays bounded
// whatever the task costs (the child is killed at the limit) and nothing of the task (its memory, a
// crash) touches the planning process.
#include "plan_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

#include "scalinglab/core/parallel.hpp"
#include "scalinglab/lab/evaluate.hpp"

namespace scalinglab {

namespace {

// Wall seconds since t (named apart from plan.cpp's functions: unity builds compile them together).
double wall_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The CPU time of this process (all its threads): what a probe measures, so that other programs
// sharing the machine do not inflate the estimate (the limit, a bound on the plan's own time, is
// wall time).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// A task shorter than kWarmBelow is run again when the time allows (while the repeats take under
// kRepeatSeconds, at most kRepeats times) and timed warm: the first run of a fresh process pays for
// page faults, cold caches and the BLAS's buffers that a sweep's threads, running task after task,
// do not (10 ms of a 6 ms task; 70 ms of a 70 ms task allocating 90 MB).
constexpr double kWarmBelow = 1.0, kRepeatSeconds = 0.05;
constexpr int kRepeats = 5;

void write_line(int fd, const std::string& line) {
  for (std::size_t at = 0; at < line.size();) {
    const ssize_t n = write(fd, line.data() + at, line.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += static_cast<std::size_t>(n);
  }
}

// The child: runs of the task, one line each ("T seconds"), then "E message" on an error. The
// repeats are the sweep's next runs of the same point (real tasks, each with its own stream).
[[noreturn]] void probe_child(int fd, const Measure& m, const Params& params, uint64_t seed, uint64_t runs,
                              double limit) {
  const auto start = std::chrono::steady_clock::now();
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, STDOUT_FILENO);
  try {
    set_task_threads(1);  // one core per task, as in a sweep of several tasks
    double repeated = 0;
    for (uint64_t r = 0; r < std::max<uint64_t>(runs, 2) && r <= kRepeats; ++r) {
      const double t0 = cpu_seconds();
      run_task(m, params, seed, r % std::max<uint64_t>(runs, 1));
      const double s = cpu_seconds() - t0;
      write_line(fd, fmt::format("T{:.17g}\n", s));
      if (r == 0 && (s >= kWarmBelow || wall_since(start) + 1.5 * s > limit)) break;  // no time for a warm run
      if (r > 0 && (repeated += s) >= kRepeatSeconds) break;
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    write_line(fd, "E" + what + "\n");
  } catch (...) {
    write_line(fd, "Ean unknown error\n");
  }
  _exit(0);  // no destructors, no atexit handlers: the parent's state is the parent's
}

}  // namespace

ProbeOutcome probe_task(const Measure& m, const Params& params, uint64_t seed, uint64_t runs, double limit) {
  int fd[2];
  if (pipe2(fd, O_CLOEXEC) != 0) throw std::runtime_error("plan: cannot make a pipe for a probe");
  std::fflush(nullptr);  // the child must not write the parent's buffered output again
  // One BLAS thread, set here rather than in the child: OpenBLAS asked for it after a fork starts a
  // worker that spins on the other core (and would double the CPU time measured).
  set_blas_threads(1);
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    throw std::runtime_error("plan: cannot start a probe process");
  }
  if (pid == 0) {
    close(fd[0]);
    // Dies with the plan: a plan killed mid-probe must not leave an hours-long task running.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    probe_child(fd[1], m, params, seed, runs, limit);
  }
  close(fd[1]);
  std::string got;
  bool eof = false;
  while (!eof) {
    const double left = limit - wall_since(start);
    if (left <= 0) break;
    pollfd p{fd[0], POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::ceil(std::min(left, 3600.0) * 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    char buf[4096];
    const ssize_t n = read(fd[0], buf, sizeof buf);
    if (n > 0) got.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) eof = true;
  }
  close(fd[0]);
  if (!eof) kill(pid, SIGKILL);
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  ProbeOutcome out;
  // A stopped probe says how much CPU time the task had had: a machine that stalled (a virtual
  // machine paused, memory reclaimed) makes the wall time of a 7 ms task 10 s, not its CPU time.
  out.seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  std::vector<double> times;  // the first run (cold), then the repeats (warm)
  for (std::size_t at = 0, end; (end = got.find('\n', at)) != std::string::npos; at = end + 1) {
    if (got[at] == 'T') times.push_back(std::strtod(got.c_str() + at + 1, nullptr));
    if (got[at] == 'E') out.error = got.substr(at + 1, end - at - 1);
  }
  if (!out.error.empty()) return out;
  if (!times.empty()) {
    out.status = ProbeOutcome::finished;
    out.seconds = times.size() == 1 ? times[0] : median_of({times.begin() + 1, times.end()});
  } else if (!eof) {
    out.status = ProbeOutcome::stopped;
  } else {
    out.error = WIFSIGNALED(status) ? fmt::format("the task ended with signal {}", WTERMSIG(status))
                                    : std::string("the task ended without an answer");
  }
  return out;
}


double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace scalinglab
