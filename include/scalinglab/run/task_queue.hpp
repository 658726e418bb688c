#pragma once
// The pending tasks of a run, handed out one at a time to whoever runs them (local threads, MPI
// ranks). Grid order at first; with `cost_order`, once 3 tasks have finished, the rest go most
// expensive first by the cost model (core/cost_model.hpp), refitted whenever the finished count
// doubles. Expensive tasks first keeps one long task from running alone at the end of a run
// (longest-processing-time scheduling); records do not depend on the order.
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <vector>

namespace scalinglab {

class TaskQueue {
 public:
  TaskQueue(std::vector<std::vector<double>> features, bool cost_order);

  // The next task to run, or false when none is left or stop() was called. Thread-safe.
  bool next(std::size_t& task);
  // Task finished after `seconds`. Thread-safe.
  void finished(std::size_t task, double seconds);
  // No more tasks are handed out (a task failed; the run is ending).
  void stop();

  // Called (outside the queue's lock, from the calling thread) after every task handed out or
  // finished: e.g. to keep a list of the tasks in flight current. Set before tasks are taken.
  void set_observer(std::function<void()> observer) { observer_ = std::move(observer); }

  // Tasks not handed out yet (0 once stopped).
  std::size_t left() const;
  // Tasks handed out and not finished, in task order.
  std::vector<std::size_t> in_flight() const;
  std::size_t size() const { return features_.size(); }

 private:
  void reorder();  // under the lock

  std::vector<std::vector<double>> features_;
  bool cost_order_;
  std::vector<std::size_t> order_;  // tasks in hand-out order; [next_, end) not handed out yet
  std::size_t next_ = 0;
  std::vector<char> state_;         // 0 pending, 1 running, 2 finished
  std::set<std::size_t> running_;
  std::vector<std::size_t> seen_;   // finished tasks and their seconds
  std::vector<double> seconds_;
  std::size_t refit_at_ = 3;
  bool stopped_ = false;
  std::function<void()> observer_;
  mutable std::mutex mutex_;
};

}  // namespace scalinglab
