// The task cache: one file per task record, named by a hash of the task's key, written by rename.
#include "scalinglab/results/task_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/keyed_mac.hpp"
#include "scalinglab_source_digest.h"  // generated at build time: SCALINGLAB_SOURCE_DIGEST

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

constexpr const char* kCacheLock = ".lock";
constexpr const char* kTemporary = ".tmp.";  // a write in progress (or cut by a kill)

struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool is_hex(const std::string& s, std::size_t n) {
  if (s.size() != n) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// CACHE/<2 hex>/<64 hex>.json
bool is_entry_name(const std::string& name) {
  return name.size() == 69 && name.compare(64, 5, ".json") == 0 && is_hex(name.substr(0, 64), 64);
}

// `runs` (how many tasks the sweep has) is no task's business, and the seed is keyed on its own.
nlohmann::json task_key(const Measure& m, const nlohmann::json& params, uint64_t seed, uint64_t run) {
  nlohmann::json own = params;
  own.erase("runs");
  own.erase("seed");
  return {{"build", lab_build_id()}, {"measure", m.name}, {"code", m.code}, {"params", std::move(own)}, {"seed", seed},
          {"run", run}};
}

// The folder `dir` opened without following a link (created first when `create`).
int open_cache_folder(const fs::path& dir, bool create) {
  std::error_code ec;
  if (create) fs::create_directories(dir, ec);  // a link named as the folder is refused below
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == ELOOP || err == ENOTDIR) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      throw InputError("task cache " + dir.string() + ": a symbolic link; it is never followed (name the real folder "
                       "with --cache, or pass --no-cache)");
    throw InputError("task cache " + dir.string() + ": not a folder");
  }
  if (err == ENOENT && !create) throw InputError("task cache " + dir.string() + ": no such folder");
  throw InputError("cannot open the task cache " + dir.string() + ": " + system_error_text(err));
}

// The cache's lock, as a regular file of its own inside the folder.
int open_lock(int dir_fd, const fs::path& dir) {
  const int fd = ::openat(dir_fd, kCacheLock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError("cannot open the lock of the task cache " + dir.string() + ": " + system_error_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
    ::close(fd);
    throw InputError("task cache " + dir.string() + ": its .lock is not a regular file of its own; it is never used");
  }
  return fd;
}

// Reads a whole entry opened without following a link: nullopt when absent; InputError (the reason)
// when it is not a regular file or larger than a record can be.
std::optional<std::string> read_entry_at(int folder, const std::string& name) {
  const Fd f(::openat(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (f.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw InputError(errno == ELOOP ? "a symbolic link" : system_error_text(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw InputError("not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxRecordBytes) throw InputError("larger than any record");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(system_error_text(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

struct EntryInfo {
  bool readable = false;
  std::string build, measure;
};

EntryInfo entry_info(int folder, const std::string& name) {
  EntryInfo info;
  try {
    const auto text = read_entry_at(folder, name);
    if (!text) return info;
    const auto j = parse_json(*text, name);
    const auto& key = j.at("cache");
    info.build = key.at("build").get<std::string>();
    info.measure = key.at("measure").get<std::string>();
    task_from_json(j);
    info.readable = true;
  } catch (const std::exception&) {
  }
  return info;
}

// Every entry of the cache (and temporary) with its folder: calls f(folder fd, name, lstat).
template <class F>
void for_each_entry(int dir_fd, F&& f) {
  std::vector<std::string> shards;
  {
    const int dup = ::dup(dir_fd);
    DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
    if (!d) return;
    while (const dirent* e = ::readdir(d))
      if (is_hex(e->d_name, 2)) shards.emplace_back(e->d_name);
    ::closedir(d);
  }
  for (const auto& shard : shards) {
    const Fd folder(::openat(dir_fd, shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (folder.fd < 0) continue;  // a link or a file named like a shard: not ours, left alone
    std::vector<std::string> names;
    {
      const int dup = ::dup(folder.fd);
      DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
      if (!d) continue;
      while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (is_entry_name(n) || n.rfind(kTemporary, 0) == 0) names.push_back(n);
      }
      ::closedir(d);
    }
    for (const auto& n : names) {
      struct stat st {};
      if (::fstatat(folder.fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      f(folder.fd, n, st);
    }
  }
}

double mtime_of(const struct stat& st) {
  return static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
}

}  // namespace

std::string lab_build_id() { return std::string(SCALINGLAB_VERSION) + "+" + std::string(SCALINGLAB_SOURCE_DIGEST).substr(0, 16); }

std::string default_cache_dir(const std::string& out_dir) {
  fs::path out = fs::path(out_dir).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();  // "results/fig1/"
  const fs::path parent = out.parent_path();
  return (parent.empty() ? fs::path(".cache") : parent / ".cache").string();
}

TaskCache::TaskCache(const fs::path& dir) : dir_(dir) {
  dir_fd_ = open_cache_folder(dir, true);
  try {
    lock_fd_ = open_lock(dir_fd_, dir);
  } catch (...) {
    ::close(dir_fd_);
    throw;
  }
  // A prune holds the lock exclusively for a moment: wait for it (a few seconds at most).
  for (int attempt = 0;; ++attempt) {
    if (::flock(lock_fd_, LOCK_SH | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK || attempt >= 100) {
      ::close(lock_fd_);
      ::close(dir_fd_);
      throw InputError("task cache " + dir.string() + " is being pruned; run again when that has finished, or pass --no-cache");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

TaskCache::~TaskCache() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

namespace {
std::mutex g_refusal_mutex;
std::atomic<uint64_t> g_temporary_counter{0};

std::pair<std::string, std::string> entry_place(const nlohmann::json& key) {
  const std::string hex = digest_hex(key.dump());
  return {hex.substr(0, 2), hex + ".json"};
}
}  // namespace

std::optional<TaskResult> TaskCache::find(const Measure& m, const nlohmann::json& params, uint64_t seed, uint64_t run) {
  const auto key = task_key(m, params, seed, run);
  const auto [shard, name] = entry_place(key);
  const Fd folder(::openat(dir_fd_, shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (folder.fd < 0 && errno == ENOENT) return std::nullopt;
  std::string why;
  try {
    if (folder.fd < 0) throw InputError(errno == ELOOP || errno == ENOTDIR ? "its folder is not a folder" : system_error_text(errno));
    const auto text = read_entry_at(folder.fd, name);
    if (!text) return std::nullopt;
    const auto j = parse_json(*text, name);
    if (!j.is_object() || !j.contains("cache") || j.at("cache") != key) throw InputError("it holds another task");
    TaskResult t = task_from_json(j);
    return t;
  } catch (const std::exception& e) {
    why = e.what();
  }
  std::lock_guard<std::mutex> lock(g_refusal_mutex);
  if (refused_++ == 0) first_refusal_ = (dir_ / shard / name).string() + ": " + why;
  return std::nullopt;
}

void TaskCache::store(const Measure& m, const nlohmann::json& params, uint64_t seed, uint64_t run,
                      const TaskResult& result) {
  const auto key = task_key(m, params, seed, run);
  const auto [shard, name] = entry_place(key);
  nlohmann::json j = task_to_json(result);
  j["params"] = params;  // the record's own (a run's task adds `part`); a reader takes only the metrics
  j["cache"] = key;
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const auto failed = [&] {
    std::lock_guard<std::mutex> lock(g_refusal_mutex);
    ++store_failures_;
  };
  if (::mkdirat(dir_fd_, shard.c_str(), 0777) != 0 && errno != EEXIST) return failed();
  const Fd folder(::openat(dir_fd_, shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (folder.fd < 0) return failed();
  // No fsync: an entry cut by a crash does not parse, and is refused and recomputed.
  const std::string temporary = std::string(kTemporary) + std::to_string(::getpid()) + "." +
                                std::to_string(g_temporary_counter.fetch_add(1));
  {
    const Fd out(::openat(folder.fd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (out.fd < 0) return failed();
    std::size_t put = 0;
    while (put < text.size()) {
      const ssize_t n = ::write(out.fd, text.data() + put, text.size() - put);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::unlinkat(folder.fd, temporary.c_str(), 0);
        return failed();
      }
      put += static_cast<std::size_t>(n);
    }
  }
  if (::renameat(folder.fd, temporary.c_str(), folder.fd, name.c_str()) != 0) {
    ::unlinkat(folder.fd, temporary.c_str(), 0);
    failed();
  }
}

CacheStats cache_stats(const fs::path& dir) {
  const Fd root(open_cache_folder(dir, false));
  CacheStats s;
  const std::string build = lab_build_id();
  for_each_entry(root.fd, [&](int folder, const std::string& name, const struct stat& st) {
    if (name.rfind(kTemporary, 0) == 0) {
      ++s.temporaries;
      return;
    }
    ++s.entries;
    s.bytes += static_cast<std::size_t>(st.st_size);
    const double t = mtime_of(st);
    s.oldest = s.oldest == 0 ? t : std::min(s.oldest, t);
    s.newest = std::max(s.newest, t);
    const EntryInfo info = entry_info(folder, name);
    if (!info.readable) {
      ++s.unreadable;
      return;
    }
    ++s.by_measure[info.measure];
    ++s.by_build[info.build];
    s.this_build += info.build == build;
  });
  return s;
}

PruneOutcome prune_cache(const fs::path& dir, const PruneOptions& options, double now_seconds) {
  const Fd root(open_cache_folder(dir, false));
  const Fd lock(open_lock(root.fd, dir));
  if (::flock(lock.fd, LOCK_EX | LOCK_NB) != 0)
    throw InputError("task cache " + dir.string() + " is in use by a running sweep; prune it when no run is using it");
  PruneOutcome out;
  const std::string build = lab_build_id();
  for_each_entry(root.fd, [&](int folder, const std::string& name, const struct stat& st) {
    const double age = now_seconds - mtime_of(st);
    bool remove;
    if (name.rfind(kTemporary, 0) == 0) {
      remove = true;  // no run is writing (the lock): a write cut by a kill
    } else {
      const EntryInfo info = entry_info(folder, name);
      remove = options.all || !info.readable || info.build != build || (options.older_than >= 0 && age > options.older_than);
    }
    if (remove && ::unlinkat(folder, name.c_str(), 0) == 0) {  // a link goes as a link
      ++out.removed;
      out.bytes += static_cast<std::size_t>(st.st_size);
    } else {
      ++out.kept;
    }
  });
  return out;
}

}  // namespace scalinglab
