#pragma once
// The append-only results file (results.jsonl): one JSON object per finished task,
//   {"point": <grid index>, "key": "<canonical params>", "run": r, "params": {...},
//    "metrics": {...}, "series": {...}, "seconds": t}
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
};

nlohmann::json task_to_json(const TaskResult& t);
TaskResult task_from_json(const nlohmann::json& j);  // throws InputError on a malformed object

// Reads every complete line of `path` (missing file: empty). A malformed final line (cut by a
// kill) is skipped; a malformed line elsewhere is an InputError naming file and line.
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
  int fd_ = -1;
  std::mutex mutex_;
  std::string path_;
};

}  // namespace scalinglab
