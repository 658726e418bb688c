#pragma once
// The append-only results file (results.jsonl): one JSON object per finished task,
//   {"point": <grid index>, "key": "<canonical params>", "run": r, "params": {...},
//    "metrics": {...}, "series": {...}, "seconds": t}
// plus "reused": true for a record taken from the task cache (results/task_cache.hpp) rather than
// computed by this run (its seconds are those of the run that computed it).
// Each line is written with a single write(2) on a file opened with O_APPEND, so a run killed at any
// moment leaves whole lines plus at most one partial last line, which `read_results` drops (and
// `ResultsWriter` truncates before appending).
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

struct TaskResult {
  std::size_t point = 0;
  std::string key;
  uint64_t run = 0;
  nlohmann::json params;
  Record record;
  double seconds = 0;
  bool reused = false;  // taken from the task cache
};

nlohmann::json task_to_json(const TaskResult& t);
TaskResult task_from_json(const nlohmann::json& j);  // throws InputError on a malformed object

// The longest line a record may take (a task's scalars and series as JSON). A longer line, or a
// tail without a newline longer than this, was not written by a run: it is refused, never held.
inline constexpr std::size_t kMaxRecordBytes = std::size_t{64} << 20;

// Reads every complete line of `path` (missing file: empty). A malformed final line (cut by a
// kill) is skipped; a malformed line elsewhere is an InputError naming file and line. The file is
// opened without following a link, refused unless it is a regular file (a pipe never blocks the
// reader), and streamed: memory holds one line of at most kMaxRecordBytes besides the records.
std::vector<TaskResult> read_results(const std::string& path);

class ResultsWriter {
 public:
  // Opens `path` for appending (creating it); if its last line is incomplete, truncates it away.
  explicit ResultsWriter(const std::string& path);
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;
  void append(const TaskResult& t);  // thread-safe; one write(2) per line

 private:
  void repair_tail();  // drops a cut last line; refuses a tail no run could have written

  int fd_ = -1;
  std::mutex mutex_;
  std::string path_;
};

}  // namespace scalinglab
