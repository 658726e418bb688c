#pragma once
// Checkpoints inside long tasks. A task that can be long (factor.train) asks `current_checkpoint()`
// for its checkpoint, restores the state an earlier attempt saved, and saves its whole state when
// `due()`: every `--checkpoint-every` seconds, and at once on SIGUSR1 (go on) or SIGTERM (save, then
// stop: the run exits with status 3 and `--resume` continues). A restored task ends with the record
// an uninterrupted one gives, bit for bit. Outside sweeps (eval, Python, tests) there is none.
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>

namespace scalinglab {

// Exit status of a run stopped by SIGTERM after saving its checkpoints: as an MPI job stopped
// mid-run, "finish with --resume".
inline constexpr int kExitInterrupted = 3;

class TaskCheckpoint {
 public:
  // `path`: the task's file; `identity`: what the task is (measure, parameters, seed, run), kept in
  // the file and compared on load; `every`: seconds between saves (<= 0: on signals only);
  // `resume`: whether a saved state may be loaded (a fresh run starts from zero).
  TaskCheckpoint(std::string path, std::string identity, double every, bool resume);

  // The state an earlier attempt of this task saved, if any. The file is read without following a
  // link (neither checkpoints/ nor the file), only if it is a regular file no larger than a state of
  // `max_state_bytes` (refused before reading), and only if it carries the MAC of this user's key
  // (lab/checkpoint_key.hpp); a file without it (edited, or from a machine whose key was not
  // carried) is set aside with a warning and the task starts afresh. A file that is damaged or
  // belongs to another task is an InputError naming it. The caller still checks every field's
  // shape and range against the task.
  std::optional<std::string> load(uint64_t max_state_bytes);
  // Whether the task should save now: time, or a signal since its last save.
  bool due() const;
  // Saves atomically; then, when the run is being stopped, throws TaskInterrupted.
  void save(const std::string& state);
  // Removes the file (the task's record is written), never through a link.
  void remove() const;

  bool used() const { return used_.load(); }
  bool restored() const { return restored_; }  // load() gave a saved state
  bool saved_since_stop() const { return saved_stop_.load(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_, identity_;
  double every_;
  bool resume_;
  bool restored_ = false;
  double last_save_;             // seconds on the steady clock
  uint64_t signals_seen_;        // checkpoint signals already answered
  mutable std::atomic<bool> used_{false};
  std::atomic<bool> saved_stop_{false};
};

// A task that saved its state because the run is being stopped.
struct TaskInterrupted : std::exception {
  const char* what() const noexcept override { return "the task was stopped after saving its checkpoint"; }
};

// Where a run keeps its tasks' checkpoints, and how.
struct CheckpointSettings {
  std::string dir;     // OUT/checkpoints (made by the first save)
  double every = 600;  // seconds between saves; <= 0: on signals only
  bool resume = false; // whether saved states are loaded
};

class Params;
// Task (measure, parameters, seed, run)'s checkpoint: the file is named by a hash of the task's
// identity, which the file also holds. The same for a task wherever it runs (thread or MPI rank).
std::unique_ptr<TaskCheckpoint> make_task_checkpoint(const CheckpointSettings& settings, const std::string& measure,
                                                     const Params& params, uint64_t seed, uint64_t run);

// The checkpoint of the task running on this thread, or nullptr.
TaskCheckpoint* current_checkpoint();

// Makes `c` the current checkpoint of this thread, and one of the running ones, while in scope.
class CheckpointScope {
 public:
  explicit CheckpointScope(TaskCheckpoint* c);
  ~CheckpointScope();
  CheckpointScope(const CheckpointScope&) = delete;
  CheckpointScope& operator=(const CheckpointScope&) = delete;

 private:
  TaskCheckpoint* previous_;
};

// Signal handling for runs: SIGUSR1 asks the running tasks to save and go on (taken from the first
// call to the end of the process); with `stop_too`, SIGTERM asks them to save and stop (until
// restore_checkpoint_signals). Idempotent.
void install_checkpoint_signals(bool stop_too);
void restore_checkpoint_signals();
bool stop_requested();
// Whether every running task that keeps checkpoints has saved since the stop was asked.
bool running_tasks_saved();
// For tests: as if the signal had come.
void request_checkpoints(bool stop);

}  // namespace scalinglab
