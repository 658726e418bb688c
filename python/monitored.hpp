#pragma once
// A long fit run from Python: the work on a thread of its own (the interpreter's lock released),
// while the calling thread (the one Python delivers signals to) relays its progress to a Python
// callable every 0.2 s and watches for Ctrl-C. Ctrl-C or an exception from the callable asks the
// fit to stop at its next start, refit or resample (fit::FitMonitor); the thread is joined, and
// KeyboardInterrupt or that exception is raised: nothing half-made is returned.
#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "scalinglab/fit/fit_monitor.hpp"

namespace scalinglab {

namespace py = pybind11;

template <class T>
T run_monitored(const py::object& progress, const std::function<T(const fit::FitMonitor&)>& work) {
  struct Shared {
    std::mutex mutex;
    std::condition_variable changed;
    std::string stage;
    std::size_t done = 0, total = 0;
    bool fresh = false, finished = false, stop = false;
  } s;
  fit::FitMonitor monitor;
  monitor.on_progress = [&s](const std::string& stage, std::size_t done, std::size_t total) {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stage = stage, s.done = done, s.total = total, s.fresh = true;
    return !s.stop;
  };
  std::optional<T> result;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      result.emplace(work(monitor));
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(s.mutex);
    s.finished = true;
    s.changed.notify_all();
  });
  auto stop_and_join = [&] {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.stop = true;
    }
    py::gil_scoped_release nogil;
    worker.join();
  };
  for (;;) {
    bool finished = false, fresh = false;
    std::string stage;
    std::size_t done = 0, total = 0;
    {
      py::gil_scoped_release nogil;
      std::unique_lock<std::mutex> lock(s.mutex);
      s.changed.wait_for(lock, std::chrono::milliseconds(200), [&] { return s.finished; });
      finished = s.finished, fresh = s.fresh, stage = s.stage, done = s.done, total = s.total;
      s.fresh = false;
    }
    if (PyErr_CheckSignals() != 0) {  // Ctrl-C: KeyboardInterrupt is set; stop the fit, then raise it
      py::error_already_set interrupt;
      stop_and_join();
      throw interrupt;
    }
    if (fresh && !progress.is_none()) {
      try {
        progress(stage, done, total);
      } catch (py::error_already_set&) {
        stop_and_join();
        throw;
      }
    }
    if (finished) break;
  }
  worker.join();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace scalinglab
