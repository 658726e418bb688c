// Safe text for gnuplot scripts and a shell-free way to run them (see gnuplot.hpp for why).
#include "scalinglab/plot/gnuplot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/text_escape.hpp"
#include "scalinglab/core/utf8.hpp"

namespace fs = std::filesystem;

namespace scalinglab {

namespace {

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

std::string find_on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + exe;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Runs `gnuplot script` with `dir` as working directory, stdin from /dev/null; collects its output.
// Returns the exit status (or -1 when it could not be started, with the reason in `output`).
int run_in(const std::string& gnuplot, const std::string& dir, const std::string& script, std::string& output) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    output = std::string("cannot create a pipe: ") + std::strerror(errno);
    return -1;
  }
  // Everything the child touches is prepared before fork: after it only async-signal-safe calls.
  std::vector<char> exe(gnuplot.begin(), gnuplot.end()), arg(script.begin(), script.end());
  exe.push_back('\0');
  arg.push_back('\0');
  char* const argv[] = {exe.data(), arg.data(), nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) {
    output = std::string("cannot start gnuplot: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) output.append(buf, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == 126) output += "cannot enter " + dir;
    return WEXITSTATUS(status);
  }
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

std::string gp_string(std::string_view text) {
  std::string out = "'";
  for (char c : valid_utf8(text)) {
    if (is_control(c)) out += ' ';
    else if (c == '\'') out += "\u2019";  // gnuplot misreads runs of doubled quotes ('a''''b')
    else if (c == '`') out += "\u2018";
    else out += c;
  }
  return out + "'";
}

std::string gp_comment(std::string_view text) {
  std::string out;
  for (char c : valid_utf8(text)) out += is_control(c) ? ' ' : c;
  while (!out.empty() && (out.back() == '\\' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string gp_literal_markup(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("^_@&~{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void sharpen_svg_images(const std::string& svg_path) {
  std::string text;
  try {
    text = read_file(svg_path, std::uint64_t{1} << 30, "figure");
  } catch (const std::exception&) {
    return;  // no figure, nothing to sharpen
  }
  const std::string tag = "<image ";
  const std::string crisp = "<image image-rendering='optimizeSpeed' style='image-rendering:pixelated' ";
  std::string out;
  std::size_t from = 0, at = 0;
  bool changed = false;
  while ((at = text.find(tag, from)) != std::string::npos) {
    const std::size_t end = std::min(text.find('>', at), text.size());
    const bool styled = text.substr(at, end - at).find("image-rendering") != std::string::npos;
    out.append(text, from, at - from).append(styled ? tag : crisp);
    changed = changed || !styled;
    from = at + tag.size();
  }
  if (!changed) return;
  out.append(text, from, std::string::npos);
  write_file(svg_path, out);
}

void plot_warning(const std::string& what) {
  std::fprintf(stderr, "scalinglab: warning: %s\n", terminal_text(what).c_str());
}

bool gnuplot_available() { return !find_on_path("gnuplot").empty(); }

bool run_gnuplot_script(const std::string& out_dir, const std::string& name) {
  const std::string gnuplot = find_on_path("gnuplot");
  if (gnuplot.empty()) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) plot_warning("gnuplot not found on PATH: plots are skipped (data and scripts are written)");
    return false;
  }
  const fs::path base = fs::path(out_dir) / name;
  // gnuplot opens its outputs with fopen, which follows links: the previous figures are removed first,
  // so that a planted `plot.png -> ../elsewhere` is never written through (a new figure replaces them).
  {
    std::error_code ec;
    for (const char* ext : {".svg", ".png", ".pdf"}) fs::remove(base.string() + ext, ec);
  }
  std::string output;
  const int status = run_in(gnuplot, out_dir, name + ".gp", output);
  auto nonempty = [&](const char* ext) {
    std::error_code ec;
    const auto size = fs::file_size(base.string() + ext, ec);
    return !ec && size > 0;
  };
  if (status == 0 && nonempty(".svg") && nonempty(".png") && nonempty(".pdf")) {
    sharpen_svg_images(base.string() + ".svg");  // a figure drawn `with image`: one cell, one block
    return true;
  }
  // Part of a figure next to an older one would show a stale picture: remove all three.
  std::error_code ec;
  for (const char* ext : {".svg", ".png", ".pdf"}) fs::remove(base.string() + ext, ec);
  if (output.empty()) output = status < 0 ? "cannot start gnuplot" : "exit status " + std::to_string(status);
  plot_warning("gnuplot failed on " + base.string() + ".gp: " + output);
  return false;
}

}  // namespace scalinglab
