#pragma once
// A results directory held by one process for the length of a run (or a merge, or a reproduce).
//
// Two runs on one folder would otherwise both run every task, interleave their records and, on a
// failed set-up, remove each other's work. So the directory is locked (flock on DIR/.lock) from the
// moment it is created until the run ends; a second process is refused at once with the holder's
// pid (exit status 2). A set-up that fails before anything useful was written removes exactly what
// this process created: its own files, and the directories it made itself (only if empty).
#include <filesystem>
#include <string>
#include <vector>

namespace scalinglab {

class ResultsDir {
 public:
  enum class Mode { Exclusive, Shared };
  // Creates `dir` (and missing parents) when needed and locks it. InputError when it cannot be
  // created, or when another process holds the lock (naming its pid).
  explicit ResultsDir(const std::filesystem::path& dir, Mode mode = Mode::Exclusive);
  ~ResultsDir();
  ResultsDir(const ResultsDir&) = delete;
  ResultsDir& operator=(const ResultsDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }

  // Refuses (InputError) a directory holding another sweep's outputs: its run.json names another
  // sweep or other measures, or it has outputs of a run (summary.csv, plot.*, ...) but no run.json.
  void check_owner(const std::string& sweep_name, const std::string& measures) const;

  // Call before a file is created here, so a failed set-up removes it again.
  void note(const std::string& name);
  // Writes DIR/name whole (temporary + rename), noting it first.
  void write(const std::string& name, const std::string& text);
  // The set-up succeeded: nothing is removed at the end (the lock is still held until destruction).
  void keep() { keep_ = true; }

 private:
  void release();  // the destructor's work: clean up unless kept, unlock

  std::filesystem::path dir_;
  std::vector<std::filesystem::path> created_dirs_;  // deepest last
  std::vector<std::filesystem::path> created_files_;
  std::filesystem::path lock_path_;  // held exclusively: removed on release
  int lock_fd_ = -1;
  bool keep_ = false;
};

// True for a plain file name: valid UTF-8, not empty, not "." or "..", no '/', '\\' or control
// characters. Names of
// sweeps and papers become folder names under results/, so anything else could write elsewhere.
bool is_plain_name(const std::string& name);

// The name of the lock file inside a results directory.
inline constexpr const char* kLockFile = ".lock";

}  // namespace scalinglab
