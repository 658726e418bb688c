#include "scalinglab/run/task_queue.hpp"

#include <algorithm>
#include <numeric>

#include "scalinglab/core/cost_model.hpp"

namespace scalinglab {

TaskQueue::TaskQueue(std::vector<std::vector<double>> features, bool cost_order)
    : features_(std::move(features)), cost_order_(cost_order), order_(features_.size()), state_(features_.size(), 0) {
  std::iota(order_.begin(), order_.end(), std::size_t{0});
}

bool TaskQueue::next(std::size_t& task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_ || next_ >= order_.size()) return false;
    task = order_[next_++];
    state_[task] = 1;
    running_.insert(task);
  }
  if (observer_) observer_();
  return true;
}

void TaskQueue::finished(std::size_t task, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (task >= state_.size() || state_[task] == 2) return;
    state_[task] = 2;
    running_.erase(task);
    seen_.push_back(task);
    seconds_.push_back(seconds);
    if (cost_order_ && seen_.size() >= refit_at_) {
      refit_at_ = 2 * seen_.size();
      reorder();
    }
  }
  if (observer_) observer_();
}

void TaskQueue::reorder() {
  if (order_.size() - next_ < 2) return;
  CostModel model(features_);
  if (!model.fit(seen_, seconds_)) return;
  std::vector<std::pair<double, std::size_t>> rest;
  for (std::size_t k = next_; k < order_.size(); ++k) rest.emplace_back(-model.predict(order_[k]), order_[k]);
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 0; k < rest.size(); ++k) order_[next_ + k] = rest[k].second;
}

void TaskQueue::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
}

std::size_t TaskQueue::left() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopped_ ? 0 : order_.size() - next_;
}

std::vector<std::size_t> TaskQueue::in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {running_.begin(), running_.end()};
}

}  // namespace scalinglab
