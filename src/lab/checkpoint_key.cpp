#include "scalinglab/lab/checkpoint_key.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/keyed_mac.hpp"

namespace scalinglab {

namespace {

constexpr std::size_t kKeyBytes = 32;

std::string parent_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

// Makes the missing folders of `dir`, the last one for the user only.
void make_folders(const std::string& dir) {
  for (std::size_t at = 1; at != std::string::npos;) {
    at = dir.find('/', at + 1);
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), at == std::string::npos ? 0700 : 0755) != 0 && errno != EEXIST)
      throw InputError("cannot make " + part + " for the checkpoint key: " + system_error_text(errno));
  }
}

// Writes a new random key under a temporary name, then links it into place: a concurrent process
// either wins the link or reads the winner's key, and never sees a key half written.
void make_key(const std::string& path) {
  make_folders(parent_of(path));
  char key[kKeyBytes];
  for (std::size_t got = 0; got < sizeof key;) {
    const ssize_t n = ::getrandom(key + got, sizeof key - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError("cannot draw a checkpoint key: " + system_error_text(errno));
    got += static_cast<std::size_t>(n);
  }
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw InputError("cannot make the checkpoint key " + path + ": " + system_error_text(errno));
  int err = 0;
  if (::write(fd, key, sizeof key) != static_cast<ssize_t>(sizeof key)) err = errno ? errno : EIO;
  if (!err && ::fsync(fd) != 0 && errno != EINVAL) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) err = errno;
  ::unlink(tmp.c_str());
  if (err) throw InputError("cannot make the checkpoint key " + path + ": " + system_error_text(err));
}

}  // namespace

std::string checkpoint_key_path() {
  // XDG Base Directory: a relative XDG_CONFIG_HOME is ignored.
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/scalinglab/checkpoint.key";
  std::string home;
  if (const char* h = std::getenv("HOME"); h && h[0] == '/') home = h;
  else if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/') home = pw->pw_dir;
  if (home.empty())
    throw InputError("no folder for the checkpoint key: set HOME or XDG_CONFIG_HOME to an absolute path");
  return home + "/.config/scalinglab/checkpoint.key";
}

std::string checkpoint_key() {
  const std::string path = checkpoint_key_path();
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && attempt == 0) {
      make_key(path);
      continue;
    }
    if (fd < 0) throw InputError("cannot read the checkpoint key " + path + ": " + system_error_text(errno));
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != static_cast<off_t>(kKeyBytes))
      throw InputError("the checkpoint key " + path + " is not a file of " + std::to_string(kKeyBytes) +
                       " bytes: remove it (a new one is made; states saved with the old one start afresh)");
    if ((st.st_mode & 077) != 0 || st.st_uid != ::geteuid())
      throw InputError("the checkpoint key " + path + " may be read by others: chmod 600 it (and make it yours)");
    std::string key(kKeyBytes, '\0');
    if (::pread(fd, key.data(), key.size(), 0) != static_cast<ssize_t>(key.size()))
      throw InputError("cannot read the checkpoint key " + path + ": " + system_error_text(errno ? errno : EIO));
    return key;
  }
}

}  // namespace scalinglab
