// results.jsonl: one JSON line per finished task, appended with a single write(2) so a kill can
// only ever cut the last line.
#include "scalinglab/results/results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/file_io.hpp"

namespace scalinglab {

namespace {

// JSON has no inf/NaN: inf is written as the string "inf" (like parameters), NaN as null.
nlohmann::json number_to_json(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double number_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nan("");
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  throw InputError("expected a number, got " + j.dump());
}

std::string errno_text() { return system_error_text(errno); }

// A line is a task when it parses as one; used for the cut-off last line.
bool is_task_line(const std::string& line) {
  try {
    task_from_json(parse_json(line, "a line"));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

nlohmann::json task_to_json(const TaskResult& t) {
  nlohmann::json metrics = nlohmann::json::object(), series = nlohmann::json::object();
  for (const auto& [name, v] : t.record.scalars) metrics[name] = number_to_json(v);
  for (const auto& [name, values] : t.record.series) {
    nlohmann::json arr = nlohmann::json::array();
    for (double v : values) arr.push_back(number_to_json(v));
    series[name] = std::move(arr);
  }
  // nlohmann writes doubles with the shortest round-trip form, so reading back is bit-exact.
  nlohmann::json j = {{"point", t.point},     {"key", t.key},       {"run", t.run},        {"params", t.params},
                      {"metrics", metrics}, {"series", series}, {"seconds", t.seconds}};
  if (t.reused) j["reused"] = true;
  return j;
}

TaskResult task_from_json(const nlohmann::json& j) {
  try {
    TaskResult t;
    t.point = j.at("point").get<std::size_t>();
    t.key = j.at("key").get<std::string>();
    t.run = j.at("run").get<uint64_t>();
    t.params = j.at("params");
    if (!t.params.is_object()) throw InputError("params is not an object");
    // Keep the metric order of the line (nlohmann objects are sorted by name; that is fine: the
    // aggregation looks metrics up by name).
    for (const auto& [name, v] : j.at("metrics").items()) t.record.scalars.emplace_back(name, number_from_json(v));
    if (j.contains("series"))
      for (const auto& [name, arr] : j.at("series").items()) {
        std::vector<double> values;
        for (const auto& v : arr) values.push_back(number_from_json(v));
        t.record.series.emplace_back(name, std::move(values));
      }
    if (j.contains("seconds")) t.seconds = j.at("seconds").get<double>();
    if (j.contains("reused")) t.reused = j.at("reused").get<bool>();
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("malformed task result: " + json_error_text(e));
  } catch (const InputError& e) {
    throw InputError(std::string("malformed task result: ") + e.what());
  }
}

std::vector<TaskResult> read_results(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return {};
  if (fd < 0 && errno == ELOOP) throw InputError(path + ": the results file is a symbolic link; it is never followed");
  if (fd < 0) throw InputError(path + ": cannot read the results file: " + errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(path + ": not a regular file (a results file is expected, not a directory, device or pipe)");
  std::vector<TaskResult> out;
  std::string line;  // the line being read: at most kMaxRecordBytes
  std::size_t line_no = 0;
  auto take = [&](bool complete) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    try {
      out.push_back(task_from_json(parse_json(line, "a task result")));
    } catch (const std::exception& e) {
      if (!complete) return;  // the last line, cut by a kill: that task is simply redone
      throw InputError(path + ":" + std::to_string(line_no) + ": " + e.what());
    }
  };
  std::vector<char> chunk(std::size_t{1} << 20);
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read the results file: " + errno_text());
    if (n == 0) break;
    std::size_t from = 0;
    const auto got = static_cast<std::size_t>(n);
    while (from < got) {
      const char* nl = static_cast<const char*>(std::memchr(chunk.data() + from, '\n', got - from));
      const std::size_t end = nl ? static_cast<std::size_t>(nl - chunk.data()) : got;
      if (line.size() + (end - from) > kMaxRecordBytes)
        throw InputError(path + ":" + std::to_string(line_no + 1) + ": a line longer than " +
                         std::to_string(kMaxRecordBytes >> 20) + " MiB, which no run writes: not a results file of " +
                         "scalinglab (remove or repair it)");
      line.append(chunk.data() + from, end - from);
      from = end;
      if (nl) {
        take(true);
        line.clear();
        ++from;
      }
    }
  }
  if (!line.empty()) take(false);
  return out;
}

ResultsWriter::ResultsWriter(const std::string& path) : path_(path) {
  // Never through a link or a hard link: a received folder's results.jsonl could point anywhere.
  fd_ = open_own_file(path, O_RDWR | O_CREAT | O_APPEND, "results file");
  try {
    repair_tail();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

void ResultsWriter::repair_tail() {
  const std::string& path = path_;
  // Repair a tail cut by a kill: drop an incomplete last line, or end a complete one with '\n'.
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_size == 0) return;
  const off_t size = st.st_size;
  char c = 0;
  if (::pread(fd_, &c, 1, size - 1) == 1 && c == '\n') return;
  // The start of the last line: found by scanning back chunk by chunk (linear in the tail), and
  // never further than a record can be long.
  off_t line_start = 0;
  char chunk[65536];
  for (off_t to = size; to > 0;) {
    if (size - to > static_cast<off_t>(kMaxRecordBytes))
      throw InputError(path + " ends with more than " + std::to_string(kMaxRecordBytes >> 20) +
                       " MiB without a newline, which no run writes: not a results file of scalinglab (remove or " +
                       "repair it)");
    const off_t from = std::max<off_t>(0, to - static_cast<off_t>(sizeof chunk));
    const ssize_t got = ::pread(fd_, chunk, static_cast<std::size_t>(to - from), from);
    if (got != to - from) throw InputError("cannot read " + path + ": " + errno_text());
    const void* nl = memrchr(chunk, '\n', static_cast<std::size_t>(got));
    if (nl) {
      line_start = from + (static_cast<const char*>(nl) - chunk) + 1;
      break;
    }
    to = from;
  }
  if (size - line_start > static_cast<off_t>(kMaxRecordBytes))
    throw InputError(path + " ends with more than " + std::to_string(kMaxRecordBytes >> 20) +
                     " MiB without a newline, which no run writes: not a results file of scalinglab (remove or " +
                     "repair it)");
  std::string tail(static_cast<std::size_t>(size - line_start), '\0');
  if (::pread(fd_, tail.data(), tail.size(), line_start) != static_cast<ssize_t>(tail.size()))
    throw InputError("cannot read " + path + ": " + errno_text());
  if (is_task_line(tail)) {
    if (::write(fd_, "\n", 1) != 1) throw InputError("cannot write " + path + ": " + errno_text());
  } else if (::ftruncate(fd_, line_start) != 0) {
    throw InputError("cannot truncate the cut-off last line of " + path + ": " + errno_text());
  }
}

ResultsWriter::~ResultsWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void ResultsWriter::append(const TaskResult& t) {
  const std::string line = task_to_json(t).dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  // One write(2) of the whole line: with O_APPEND a concurrent or killed writer never interleaves.
  const ssize_t n = ::write(fd_, line.data(), line.size());
  // Read errno at once: a full disk must be reported as such (exit 2: the user can free space).
  if (n != static_cast<ssize_t>(line.size()))
    throw InputError("cannot append to " + path_ + ": " + (n < 0 ? errno_text() : "short write (disk full?)"));
}

}  // namespace scalinglab
