#pragma once
// Running the command line from tests without a shell: arguments are passed as they are (file
// names with newlines or quotes included), stdout and stderr are collected together, and a
// process that does not end within the time limit is killed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace scalinglab::testing {

struct CliOutcome {
  int status = -1;       // exit status; 128 + signal when killed by one; -1 when it could not start
  std::string out;       // stdout and stderr together
  double seconds = 0;
  bool timed_out = false;
};

// Starts the CLI with `args` (working directory `cwd` when not empty); returns its pid, the read end
// of its output in `fd`.
inline pid_t start_cli(const std::vector<std::string>& args, int& fd, const std::string& cwd = "") {
  // SCALINGLAB_CLI_UNDER_TEST runs the tests against another build (e.g. an older one).
  const char* other = std::getenv("SCALINGLAB_CLI_UNDER_TEST");
  std::vector<std::string> all = {other && *other ? other : SCALINGLAB_CLI};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  fd = fds[0];
  return pid;
}

// Waits for a started CLI, reading its output, killing it after `timeout_s` seconds.
inline CliOutcome finish_cli(pid_t pid, int fd, double timeout_s = 120) {
  CliOutcome o;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int left_ms = static_cast<int>(1000 * (timeout_s - elapsed()));
    if (left_ms <= 0) {
      ::kill(pid, SIGKILL);
      o.timed_out = true;
      break;
    }
    if (::poll(&p, 1, left_ms) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    o.out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : WIFSIGNALED(raw) ? 128 + WTERMSIG(raw) : -1;
  o.seconds = elapsed();
  return o;
}

inline CliOutcome run_cli_args(const std::vector<std::string>& args, double timeout_s = 120, const std::string& cwd = "") {
  int fd = -1;
  const pid_t pid = start_cli(args, fd, cwd);
  if (pid < 0) return {};
  return finish_cli(pid, fd, timeout_s);
}

// A fixture with a fresh folder per test (removed afterwards), named after the test.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("scalinglab_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  // Writes DIR/name and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
  std::filesystem::path dir;
};

}  // namespace scalinglab::testing
