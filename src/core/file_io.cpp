#include "scalinglab/core/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "scalinglab/core/error.hpp"

namespace scalinglab {

std::string system_error_text(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

namespace {

// Reads the open `fd` whole after checking that it is a regular file of at most `max_bytes`.
std::string read_open_file(int fd, const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(path + ": cannot read the " + what + ": " + system_error_text(errno));
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": not a regular file (a " + what + " is expected, not a directory, device or pipe)");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw InputError(path + ": " + std::to_string(st.st_size) + " bytes is more than the " + std::to_string(max_bytes) +
                     " a " + what + " may have");
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read the " + what + ": " + system_error_text(errno));
    if (n == 0) break;  // shrank while reading: keep what is there
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// The folder `dir`, opened without following a link: -1 when it does not exist.
int open_folder(const std::string& dir, const std::string& what) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 || errno == ENOENT) return fd;
  if (errno == ELOOP || errno == ENOTDIR)
    throw InputError(dir + ", the folder of the " + what + ", is a link or a file: it is never followed; remove it");
  throw InputError("cannot open " + dir + " (the folder of the " + what + "): " + system_error_text(errno));
}

}  // namespace

std::string read_file(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path + ": cannot read the " + what + ": " + system_error_text(errno));
  return read_open_file(fd, path, max_bytes, what);
}

std::optional<std::string> read_entry(const std::string& dir, const std::string& name, std::uint64_t max_bytes,
                                      const std::string& what) {
  const FdCloser folder{open_folder(dir, what)};
  if (folder.fd < 0) return std::nullopt;
  const std::string path = dir + "/" + name;
  const int fd = ::openat(folder.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0 && errno == ELOOP) throw InputError(path + ": the " + what + " is a symbolic link; it is never followed");
  if (fd < 0) throw InputError(path + ": cannot read the " + what + ": " + system_error_text(errno));
  return read_open_file(fd, path, max_bytes, what);
}

void remove_entry(const std::string& dir, const std::string& name) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;  // missing, or a link: nothing of ours to remove
  ::unlinkat(fd, name.c_str(), 0);
  ::close(fd);
}

void write_file(const std::string& path, const std::string& text, unsigned mode) {
  // A device, pipe or directory at the target is refused: renaming over /dev/full would replace the
  // device node itself. A link there is replaced by the new file, never written through.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
    throw InputError("cannot write " + path + ": not a regular file (a directory, device or pipe is in the way)");
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) throw InputError("cannot write " + path + ": " + system_error_text(errno));
  int err = 0;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  // The data reach the disk before the name does: after a crash the file is the old one or the new.
  if (!err && ::fsync(fd) != 0 && errno != EINVAL) err = errno;
  // The error is read right after the call that failed: close() may report a delayed ENOSPC.
  if (!err && ::fchmod(fd, static_cast<mode_t>(mode)) != 0) err = errno;  // whatever the umask
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    throw InputError("cannot write " + path + ": " + system_error_text(err));
  }
}

int open_own_file(const std::string& path, int flags, const std::string& what) {
  // Non-blocking for the open only: a pipe planted in the file's place would block it forever.
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) throw InputError(path + ": the " + what + " is a symbolic link; it is never written through");
    throw InputError("cannot open " + path + " (the " + what + "): " + system_error_text(err));
  }
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink <= 1;
  if (!ok) {
    ::close(fd);
    throw InputError(path + ": the " + what + " is not a regular file of its own (a device, a pipe, or a hard " +
                     "link to another file); it is never written through");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace scalinglab
