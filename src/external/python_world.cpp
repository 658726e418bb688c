// A Python world's measures run by worker processes: each worker imports the world's file once and
// then answers one JSON line per call on a socket (stdin and stdout of the worker; the user's prints
// go to stderr). A socket rather than pipes: a send to a worker that died fails with EPIPE instead of
// ending the lab by SIGPIPE. A call that raises fails its task alone, with the traceback; a worker
// that dies fails its task and is replaced for the next.
#include "scalinglab/external/python_world.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/keyed_mac.hpp"
#include "scalinglab/external/world_declaration.hpp"

extern char** environ;

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace scalinglab::external {

namespace {

// The interpreter the lab was built with (its Python module's), when it still exists; else python3.
#ifdef SCALINGLAB_BUILD_PYTHON
const std::string kBuildPython = std::filesystem::exists(SCALINGLAB_BUILD_PYTHON) ? SCALINGLAB_BUILD_PYTHON : "python3";
#else
const std::string kBuildPython = "python3";
#endif

// A worker's line is at most this long (a record with long series): a runaway world is an error,
// not an exhausted memory.
constexpr std::size_t kMaxLine = std::size_t(1) << 30;

struct WorkerDied : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Launch {
  std::string python, file, package_root;
};

std::string default_package_root() {
  if (const char* v = std::getenv("SCALINGLAB_PYTHONPATH"); v && *v) return v;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path dir = exe.parent_path();
  if (fs::exists(dir / "python" / "scalinglab" / "_world_worker.py", ec)) return (dir / "python").string();  // build tree
  if (fs::exists(dir.parent_path() / "_world_worker.py", ec)) return dir.parent_path().parent_path().string();  // installed: scalinglab/bin
  return "";
}

class Worker {
 public:
  explicit Worker(const Launch& l) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw std::runtime_error(std::string("cannot start a Python worker: socketpair: ") + std::strerror(errno));
    fd_ = fds[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    std::vector<std::string> env;
    std::string pythonpath = l.package_root;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      if (kv.rfind("PYTHONPATH=", 0) == 0) {
        const std::string old = kv.substr(11);
        if (!old.empty()) pythonpath += (pythonpath.empty() ? "" : ":") + old;
      } else if (kv.rfind("SCALINGLAB_WORLD_WORKER=", 0) != 0) {
        env.push_back(kv);
      }
    }
    if (!pythonpath.empty()) env.push_back("PYTHONPATH=" + pythonpath);
    env.push_back("SCALINGLAB_WORLD_WORKER=1");
    std::vector<char*> envp;
    for (auto& kv : env) envp.push_back(kv.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_s{l.python, "-m", "scalinglab._world_worker", l.file};
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, l.python.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fd_);
      throw InputError("cannot start the Python interpreter '" + l.python + "' (" + std::strerror(rc) +
                       "): set SCALINGLAB_PYTHON to one that imports scalinglab");
    }
  }
  ~Worker() {
    ::shutdown(fd_, SHUT_RDWR);  // EOF: an idle worker returns at once
    ::close(fd_);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) != 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void send(const json& j) {
    const std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw WorkerDied(died("its input closed"));
      off += static_cast<std::size_t>(n);
    }
  }
  json receive(const std::string& what) {
    std::string line;
    while (true) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        break;
      }
      if (buffer_.size() > kMaxLine) throw WorkerDied("the Python worker sent more than 1 GiB in one answer");
      char chunk[65536];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw WorkerDied(died("it stopped answering"));
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
    try {
      return json::parse(line);
    } catch (const json::exception&) {
      throw WorkerDied("the Python worker's answer to " + what + " is not JSON (does the world write to file "
                       "descriptor 1 directly?)");
    }
  }

 private:
  std::string died(const std::string& what) {
    int status = 0;
    std::string how;
    for (int i = 0; i < 50 && how.empty(); ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        how = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                  : "exit status " + std::to_string(WEXITSTATUS(status));
        pid_ = -1;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    return "the Python worker died (" + what + (how.empty() ? "" : ", " + how) + ")";
  }
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;
};

// Workers of one world: an idle one serves a call, or a new one is started; one that died is dropped.
class Pool {
 public:
  explicit Pool(Launch l) : launch_(std::move(l)) {}
  void give(std::unique_ptr<Worker> w) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(std::move(w));
  }
  json call(const json& request, const std::string& what) {
    std::unique_ptr<Worker> w;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        w = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!w) {
      w = std::make_unique<Worker>(launch_);
      const json hello = w->receive("its start");
      if (!hello.contains("declarations")) throw WorkerDied("a new Python worker could not import " + launch_.file);
    }
    w->send(request);
    json answer = w->receive(what);
    give(std::move(w));
    return answer;
  }

 private:
  Launch launch_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Worker>> idle_;
};

double number_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  if (v.is_null()) return NAN;
  throw std::runtime_error("a metric value is not a number");
}

// The parameters as the world's function receives them: numbers, words and booleans by name.
json params_json(const Params& p) {
  json j = json::object();
  for (const auto& e : p.entries()) {
    if (e.spec->name == "runs" || e.spec->name == "seed") continue;
    switch (e.spec->type) {
      case ParamType::Int: j[e.spec->name] = static_cast<int64_t>(e.number); break;
      case ParamType::Count:
        if (std::isinf(e.number)) j[e.spec->name] = "inf";
        else j[e.spec->name] = static_cast<int64_t>(e.number);
        break;
      case ParamType::Real:
        if (std::isfinite(e.number)) j[e.spec->name] = e.number;
        else j[e.spec->name] = e.number > 0 ? "inf" : "-inf";
        break;
      case ParamType::Bool: j[e.spec->name] = e.text == "true"; break;
      default: j[e.spec->name] = e.text;
    }
  }
  return j;
}

std::string failure_text(const json& answer) {
  std::string s = answer.value("error", std::string("failed"));
  const std::string tb = answer.value("traceback", std::string());
  if (!tb.empty()) s += "\n" + tb;
  return s;
}

struct Loaded {
  std::vector<std::string> names;
};
std::mutex g_mutex;
std::map<std::string, Loaded> g_loaded;
std::vector<std::string> g_order;
std::vector<std::shared_ptr<Pool>> g_pools;  // alive as long as the registry's functions may call them

}  // namespace

std::vector<std::string> load_python_world(const std::string& file, const PythonWorldSettings& settings) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::error_code ec;
  if (file.empty()) throw InputError("--world: name a Python file (.py)");
  const fs::path p = fs::absolute(file, ec);
  if (ec || !fs::exists(p, ec)) throw InputError("world " + file + ": no such file");
  if (!fs::is_regular_file(p, ec)) throw InputError("world " + file + ": not a regular file");
  if (p.extension() != ".py") throw InputError("world " + file + ": expected a Python file (.py); a C++ world loads with --plugin");
  const std::string key = fs::canonical(p, ec).string();
  if (const auto it = g_loaded.find(key); it != g_loaded.end()) return it->second.names;

  Launch launch;
  launch.file = key;
  launch.python = !settings.python.empty() ? settings.python
                  : (std::getenv("SCALINGLAB_PYTHON") && *std::getenv("SCALINGLAB_PYTHON")) ? std::getenv("SCALINGLAB_PYTHON")
                                                                                            : kBuildPython;
  launch.package_root = !settings.package_root.empty() ? settings.package_root : default_package_root();
  auto pool = std::make_shared<Pool>(launch);
  auto first = std::make_unique<Worker>(launch);
  json hello;
  try {
    hello = first->receive("its start");
  } catch (const WorkerDied& e) {
    throw InputError("world " + file + ": " + e.what() + "; its error is above");
  }
  if (!hello.contains("declarations")) {
    const std::string why = hello.value("error", std::string("no declarations"));
    throw InputError("world " + file + ": cannot be imported: " + why + " (the traceback is above)");
  }
  const json& decls = hello["declarations"];
  if (!decls.is_array() || decls.empty())
    throw InputError("world " + file + ": it declares no measure (decorate a function with @scalinglab.measure(...))");
  if (decls.size() > 1000) throw InputError("world " + file + ": more than 1000 measures");

  const std::string source = "world " + file;
  // The task cache's key: records of an edited file are never reused (modules it imports are not
  // covered; docs/worlds.md).
  const std::string code = "python " + digest_hex(read_file(key, kMaxSweepFileBytes, "world file"));
  std::vector<Measure> measures;
  for (const auto& d : decls) {
    if (!d.is_object() || !d.contains("declaration")) throw InputError(source + ": a malformed declaration from the worker");
    Measure m = measure_from_declaration(d["declaration"], source);
    m.code = code;
    const std::string name = m.name;
    const std::vector<MetricSpec> metrics = m.metrics;
    m.fn = [pool, name, metrics](const Params& prm, Stream& stream) {
      const json answer = pool->call({{"op", "run"}, {"measure", name}, {"params", params_json(prm)}, {"seed", stream.key()}},
                                     name + " at " + prm.canonical());
      if (!answer.value("ok", false)) throw std::runtime_error(name + " at " + prm.canonical() + ": " + failure_text(answer));
      Record r;
      if (answer.contains("scalars"))
        for (const auto& [k, v] : answer["scalars"].items()) r.set(k, number_of(v));
      if (answer.contains("series"))
        for (const auto& [k, v] : answer["series"].items()) {
          std::vector<double> xs;
          for (const auto& x : v) xs.push_back(number_of(x));
          r.set_series(k, std::move(xs));
        }
      Measure shape;
      shape.name = name;
      shape.metrics = metrics;
      check_record(shape, r);
      return r;
    };
    if (d.value("check", false))
      m.check = [pool, name](const Params& prm) {
        json answer;
        try {
          answer = pool->call({{"op", "check"}, {"measure", name}, {"params", params_json(prm)}}, "the check of " + name);
        } catch (const WorkerDied& e) {
          throw InputError(name + " at " + prm.canonical() + ": its check could not run: " + e.what());
        }
        if (!answer.value("ok", false)) throw InputError(name + " at " + prm.canonical() + ": " + answer.value("error", std::string("refused")));
      };
    for (const char* which : {"work", "memory"})
      if (d.value(std::string(which) + "_fn", false)) {
        std::function<double(const Params&)> f = [pool, name, which = std::string(which)](const Params& prm) {
          const json answer = pool->call({{"op", which}, {"measure", name}, {"params", params_json(prm)}}, "the " + which + " estimate of " + name);
          if (!answer.value("ok", false) || !answer.contains("value")) return double(INFINITY);
          const double x = number_of(answer["value"]);
          return std::isnan(x) || x < 0 ? double(INFINITY) : x;
        };
        (std::string(which) == "work" ? m.work : m.memory) = std::move(f);
      }
    check_declaration(m);
    measures.push_back(std::move(m));
  }
  Loaded loaded{register_loaded(std::move(measures), source)};
  pool->give(std::move(first));
  g_pools.push_back(pool);
  g_order.push_back(key);
  return g_loaded.emplace(key, std::move(loaded)).first->second.names;
}

std::vector<std::string> loaded_python_worlds() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_order;
}

}  // namespace scalinglab::external
