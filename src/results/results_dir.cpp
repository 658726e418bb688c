// Results directories: creation that remembers what it made, an flock for the length of a run, and
// the check that a folder holds this sweep's outputs and no other's.
#include "scalinglab/results/results_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/utf8.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos ? "unknown" : pid;
}

bool same_file(int fd, const fs::path& path) {
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

bool is_plain_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || valid_utf8(name) != name) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

ResultsDir::ResultsDir(const fs::path& dir, Mode mode) : dir_(dir) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  if (ec) throw InputError("cannot use output directory " + dir.string() + ": " + ec.message());
  if (mode == Mode::Exclusive) {
    // One mkdir per missing level: a directory counts as ours only when our own mkdir made it, so a
    // process that loses the race to create it never removes the winner's folder.
    fs::path at;
    for (const auto& part : absolute) {
      at /= part;
      if (::mkdir(at.c_str(), 0777) == 0) created_dirs_.push_back(at);
      else if (errno != EEXIST)
        throw InputError("cannot create output directory " + dir.string() + ": " + system_error_text(errno));
    }
  }
  if (!fs::is_directory(absolute, ec)) {
    release();
    throw InputError((mode == Mode::Exclusive ? "cannot create output directory " : "not a directory: ") +
                     dir.string() + (mode == Mode::Exclusive ? ": it exists and is not a directory" : ""));
  }
  const fs::path lock = absolute / kLockFile;
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = -1;
    // The lock file is opened without following a link and only as a regular file of its own: a
    // received folder could hold `.lock -> ../victim`, which truncating would destroy.
    try {
      if (mode == Mode::Shared) {
        struct stat st {};
        if (::lstat(lock.c_str(), &st) != 0 && errno == ENOENT) return;  // never written by a run: nothing to wait for
      }
      fd = open_own_file(lock.string(), mode == Mode::Exclusive ? O_RDWR | O_CREAT : O_RDONLY, "lock file");
    } catch (const InputError&) {
      release();
      throw;
    }
    if (::flock(fd, (mode == Mode::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = holder_pid(fd);
      ::close(fd);
      // Nothing is removed: the holder may be using what is here.
      created_dirs_.clear();
      if (err == EWOULDBLOCK && mode == Mode::Shared)
        throw InputError(dir.string() + " is still being written by a scalinglab run (pid " + pid +
                         "); use it when that run has finished");
      if (err == EWOULDBLOCK)
        throw InputError(dir.string() + " is in use by another scalinglab process (pid " + pid +
                         "); wait for it to finish, or choose another --out");
      throw InputError("cannot lock " + lock.string() + ": " + system_error_text(err));
    }
    // A holder that failed its set-up removes the lock file: a lock taken on the removed file is void.
    if (!same_file(fd, lock)) {
      ::close(fd);
      continue;
    }
    lock_fd_ = fd;
    if (mode == Mode::Exclusive) {
      lock_path_ = lock;
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
      }  // the pid is only informative
    }
    return;
  }
  release();
  throw InputError("cannot lock " + lock.string() + ": it keeps being replaced");
}

ResultsDir::~ResultsDir() { release(); }

void ResultsDir::release() {
  std::error_code ec;
  if (!keep_) {
    for (auto it = created_files_.rbegin(); it != created_files_.rend(); ++it) fs::remove(*it, ec);
    if (!lock_path_.empty() && same_file(lock_fd_, lock_path_)) ::unlink(lock_path_.c_str());
    for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it) ::rmdir(it->c_str());  // only if empty
  }
  created_files_.clear();
  created_dirs_.clear();
  if (lock_fd_ >= 0) {
    // The lock file goes with the lock (a process that opened it meanwhile sees it replaced and
    // retries), so a finished run leaves no trace of it.
    if (!lock_path_.empty() && same_file(lock_fd_, lock_path_)) ::unlink(lock_path_.c_str());
    ::close(lock_fd_);  // releases the lock
    lock_fd_ = -1;
  }
  lock_path_.clear();
}

void ResultsDir::check_owner(const std::string& sweep_name, const std::string& measures) const {
  std::error_code ec;
  const fs::path run_json = dir_ / "run.json";
  if (fs::exists(run_json, ec)) {
    std::string name, theirs;
    try {
      const auto text = read_entry(dir_.string(), "run.json", kMaxSweepFileBytes, "run.json");
      const auto j = parse_json(text.value_or(""), run_json.string());
      name = j.value("name", "");
      theirs = j.value("measures", "");
    } catch (const std::exception&) {
      throw InputError(run_json.string() + ": malformed; choose another --out");
    }
    if (name != sweep_name || (!theirs.empty() && theirs != measures))
      throw InputError(dir_.string() + " holds the outputs of sweep '" + name + "' (" + theirs + "), not of '" +
                       sweep_name + "' (" + measures + "): choose another --out");
    return;
  }
  std::string found;
  for (const char* f : {"results.jsonl", "summary.csv", "sweep.toml", "checks.json", "plot.gp", "plot.dat",
                        "plot.svg", "plot.png", "plot.pdf"})
    if (fs::exists(fs::symlink_status(dir_ / f, ec))) found += (found.empty() ? "" : ", ") + std::string(f);
  if (!found.empty())
    throw InputError(dir_.string() + " holds " + found + " of another run (no run.json): choose another --out");
}

void ResultsDir::note(const std::string& name) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir_ / name, ec))) created_files_.push_back(fs::absolute(dir_ / name, ec));
}

void ResultsDir::write(const std::string& name, const std::string& text) {
  note(name);
  write_file((dir_ / name).string(), text);
}

}  // namespace scalinglab
