#pragma once
// A config folder of the test's own while in scope (XDG_CONFIG_HOME): the checkpoint key
// (lab/checkpoint_key.hpp) is made there, never in the user's ~/.config.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

class ScopedConfigHome {
 public:
  explicit ScopedConfigHome(const std::string& tag = "config") {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("scalinglab-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    if (const char* old = std::getenv("XDG_CONFIG_HOME")) old_ = old;
    ::setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
  }
  ~ScopedConfigHome() {
    if (old_) ::setenv("XDG_CONFIG_HOME", old_->c_str(), 1);
    else ::unsetenv("XDG_CONFIG_HOME");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScopedConfigHome(const ScopedConfigHome&) = delete;
  ScopedConfigHome& operator=(const ScopedConfigHome&) = delete;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::optional<std::string> old_;
};
