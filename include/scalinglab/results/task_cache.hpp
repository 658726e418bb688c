#pragma once
// The task cache: a task's record is determined by its measure, its parameters, the stream it draws
// from (the sweep's seed and the run) and the code that computes it, so a record computed once is
// kept under exactly that key and reused by any sweep that needs the same task (a sweep given more
// runs, one more grid value, a new name). One file per task, CACHE/<2 hex>/<64 hex>.json, named by
// a hash of the key and holding the key itself, which is compared in full when the entry is read.
//
// The code is the lab's version and a digest of the sources records are computed by (core, lab,
// the worlds, external/; made at build time), plus, for a loaded world, a digest of its file: a
// changed lab or world never reads an older record.
//
// Concurrent runs share a cache safely: an entry is written to a temporary and renamed into place,
// so a reader sees a whole entry or none, and two runs storing the same task store the same bytes.
// Runs hold the cache's lock (CACHE/.lock) shared; `prune` holds it exclusively. An entry that does
// not parse, or whose key is not the task's, is refused: the task is run again and its entry
// replaced. Nothing is followed through a symbolic link, and no entry larger than a record can be is
// read.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "scalinglab/lab/measure.hpp"
#include "scalinglab/results/results.hpp"

namespace scalinglab {

// "0.1.0+<16 hex of the source digest>": the build whose records a cache entry holds.
std::string lab_build_id();

// The folder a run's cache defaults to: `.cache` next to its results folder (results/.cache for
// results/<sweep>), so the sweeps of one project share it.
std::string default_cache_dir(const std::string& out_dir);

class TaskCache {
 public:
  // Opens the cache folder (created with its parents when missing) and takes its lock shared.
  // InputError when it is a symbolic link or not a folder, cannot be created, or is being pruned.
  explicit TaskCache(const std::filesystem::path& dir);
  ~TaskCache();
  TaskCache(const TaskCache&) = delete;
  TaskCache& operator=(const TaskCache&) = delete;

  const std::filesystem::path& path() const { return dir_; }

  // The record of this task when the cache holds it (seconds: the time it took when computed).
  // nullopt when absent or refused (counted by refused(); the first refusal is described by
  // first_refusal()).
  std::optional<TaskResult> find(const Measure& m, const nlohmann::json& params, uint64_t seed, uint64_t run);
  // Stores a computed record. Thread-safe. A failure to write (a full disk) is not the run's: it is
  // counted by store_failures() and the run goes on.
  void store(const Measure& m, const nlohmann::json& params, uint64_t seed, uint64_t run, const TaskResult& result);

  std::size_t refused() const { return refused_; }
  std::size_t store_failures() const { return store_failures_; }
  const std::string& first_refusal() const { return first_refusal_; }

 private:
  std::filesystem::path dir_;
  int dir_fd_ = -1, lock_fd_ = -1;
  std::size_t refused_ = 0, store_failures_ = 0;
  std::string first_refusal_;
};

// What a cache holds (`scalinglab cache stats`).
struct CacheStats {
  std::size_t entries = 0, bytes = 0;
  std::size_t this_build = 0;       // entries written by this build of the lab (the ones a run can reuse)
  std::size_t unreadable = 0;       // entries that do not parse (refused by runs)
  std::size_t temporaries = 0;      // leftovers of writes cut by a kill
  std::map<std::string, std::size_t> by_measure, by_build;
  double oldest = 0, newest = 0;    // modification times (seconds since the epoch; 0 when empty)
};
CacheStats cache_stats(const std::filesystem::path& dir);

struct PruneOptions {
  bool all = false;             // every entry
  double older_than = -1;       // entries not written for this many seconds (< 0: no age limit)
  // Always removed: entries of other builds of the lab, entries that do not parse, and temporaries
  // of writes cut by a kill (no run writes while prune holds the lock).
};
struct PruneOutcome {
  std::size_t removed = 0, bytes = 0, kept = 0;
};
// Removes entries under the cache's exclusive lock: InputError while a run uses the cache.
PruneOutcome prune_cache(const std::filesystem::path& dir, const PruneOptions& options, double now_seconds);

}  // namespace scalinglab
