#include "scalinglab/lab/checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/keyed_mac.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/lab/checkpoint_key.hpp"
#include "scalinglab/lab/limits.hpp"
#include "scalinglab/lab/param.hpp"

namespace scalinglab {

namespace {

// Written by signal handlers: lock-free atomics only.
std::atomic<uint64_t> g_signals{0};
std::atomic<bool> g_stop{false};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void on_checkpoint_signal(int sig) {
  if (sig == SIGTERM) g_stop.store(true);
  g_signals.fetch_add(1);
}

struct sigaction g_old_term {};
bool g_installed = false, g_term_installed = false;

std::mutex g_running_mutex;
std::set<const TaskCheckpoint*> g_running;
thread_local TaskCheckpoint* t_current = nullptr;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// File layout: magic, identity, state, then the HMAC-SHA-256 of everything before it under the
// user's checkpoint key, which is kept outside the results folder (lab/checkpoint_key.hpp): a file
// edited in the folder, or another task's file with its identity rewritten, does not carry it.
constexpr char kMagic[] = "scalinglab checkpoint 2\n";
constexpr char kUnsignedMagic[] = "scalinglab checkpoint 1\n";  // before states were signed

void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
bool get_u64(const std::string& in, std::size_t& pos, uint64_t& v) {
  if (in.size() - pos < sizeof v) return false;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return true;
}

std::string folder_of(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }
std::string name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

TaskCheckpoint::TaskCheckpoint(std::string path, std::string identity, double every, bool resume)
    : path_(std::move(path)), identity_(std::move(identity)), every_(every), resume_(resume),
      last_save_(now_seconds()), signals_seen_(g_signals.load()) {}

std::optional<std::string> TaskCheckpoint::load(uint64_t max_state_bytes) {
  used_ = true;
  if (!resume_) return std::nullopt;
  // The size is refused on fstat, before a byte is read: a task knows how large its state can be.
  const uint64_t max_file = sizeof kMagic - 1 + 2 * sizeof(uint64_t) + identity_.size() + kMacBytes +
                            std::min<uint64_t>(max_state_bytes, uint64_t{1} << 50);
  const auto file = read_entry(folder_of(path_), name_of(path_), max_file, "checkpoint");
  if (!file) return std::nullopt;
  const std::string& text = *file;
  if (text.compare(0, sizeof kUnsignedMagic - 1, kUnsignedMagic) == 0) {
    std::fprintf(stderr, "warning: checkpoint %s was saved by an earlier version, unsigned: the task starts afresh\n",
                 path_.c_str());
    return std::nullopt;
  }
  const std::string damaged = "checkpoint " + path_ + " is damaged or cut short: remove it to start the task afresh";
  std::size_t pos = sizeof kMagic - 1;
  if (text.size() < pos + kMacBytes || text.compare(0, pos, kMagic) != 0) throw InputError(damaged);
  uint64_t n = 0;
  if (!get_u64(text, pos, n) || n > text.size() - pos) throw InputError(damaged);
  if (text.compare(pos, n, identity_) != 0 || n != identity_.size())
    throw InputError("checkpoint " + path_ + " belongs to another task: remove it, or resume the run it came from");
  pos += n;
  if (!get_u64(text, pos, n) || n > text.size() - pos || text.size() - pos - n != kMacBytes) throw InputError(damaged);
  const std::size_t state_at = pos, mac_at = pos + n;
  // Not signed with this user's key: edited in the folder, or saved on a machine whose key was not
  // carried here. Either way the state is not trusted; the task is run from its start.
  const std::string key = checkpoint_key();
  if (!same_mac(keyed_mac(key, std::string_view(text).substr(0, mac_at)), std::string_view(text).substr(mac_at))) {
    std::fprintf(stderr,
                 "warning: checkpoint %s is not signed with this user's key %s (edited, or saved where another key "
                 "is kept): the task starts afresh; to resume it, copy the key of the machine that saved it\n",
                 path_.c_str(), checkpoint_key_path().c_str());
    return std::nullopt;
  }
  restored_ = true;
  return text.substr(state_at, n);
}

bool TaskCheckpoint::due() const {
  used_ = true;
  if (g_signals.load() != signals_seen_) return true;
  return every_ > 0 && now_seconds() - last_save_ >= every_;
}

void TaskCheckpoint::save(const std::string& state) {
  const uint64_t signals = g_signals.load();  // before writing: a signal during the write asks again
  const bool stopping = g_stop.load();
  std::string out(kMagic, sizeof kMagic - 1);
  put_u64(out, identity_.size());
  out += identity_;
  put_u64(out, state.size());
  out += state;
  out += keyed_mac(checkpoint_key(), out);
  // The folder is made by the first save; a link in its place is never followed.
  const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(dir, ec);
  if (std::filesystem::is_symlink(status) || (std::filesystem::exists(status) && !std::filesystem::is_directory(status)))
    throw InputError(dir.string() + " is not a folder of this run (a link or a file): remove it");
  if (!std::filesystem::exists(status)) std::filesystem::create_directory(dir);
  write_file(path_, out);
  last_save_ = now_seconds();
  signals_seen_ = signals;
  if (stopping) {
    saved_stop_ = true;
    throw TaskInterrupted();
  }
}

void TaskCheckpoint::remove() const {
  remove_entry(folder_of(path_), name_of(path_));  // never through a link, folder or file
}

std::unique_ptr<TaskCheckpoint> make_task_checkpoint(const CheckpointSettings& settings, const std::string& measure,
                                                     const Params& params, uint64_t seed, uint64_t run) {
  const std::string identity =
      measure + " " + params.canonical() + " seed=" + std::to_string(seed) + " run=" + std::to_string(run);
  const std::string file = fmt::format("{:016x}.state", stable_hash(identity));
  return std::make_unique<TaskCheckpoint>((std::filesystem::path(settings.dir) / file).string(), identity,
                                          settings.every, settings.resume);
}

TaskCheckpoint* current_checkpoint() { return t_current; }

CheckpointScope::CheckpointScope(TaskCheckpoint* c) : previous_(t_current) {
  t_current = c;
  if (c) {
    std::lock_guard<std::mutex> lock(g_running_mutex);
    g_running.insert(c);
  }
}

CheckpointScope::~CheckpointScope() {
  if (t_current) {
    std::lock_guard<std::mutex> lock(g_running_mutex);
    g_running.erase(t_current);
  }
  t_current = previous_;
}

void install_checkpoint_signals(bool stop_too) {
  struct sigaction action {};
  action.sa_handler = on_checkpoint_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  // SIGUSR1 stays taken until the process ends: Slurm's warning may come while a run starts or
  // draws its figures, and must not end it. Set again at every call: MPI_Init may have taken it.
  sigaction(SIGUSR1, &action, nullptr);
  g_installed = true;
  if (stop_too && !g_term_installed) {
    g_stop = false;
    sigaction(SIGTERM, &action, &g_old_term);
    g_term_installed = true;
  }
}

void restore_checkpoint_signals() {
  if (g_term_installed) sigaction(SIGTERM, &g_old_term, nullptr);
  g_term_installed = false;
}

bool stop_requested() { return g_stop.load(); }

bool running_tasks_saved() {
  std::lock_guard<std::mutex> lock(g_running_mutex);
  for (const TaskCheckpoint* c : g_running)
    if (c->used() && !c->saved_since_stop()) return false;
  return true;
}

void request_checkpoints(bool stop) { on_checkpoint_signal(stop ? SIGTERM : SIGUSR1); }

}  // namespace scalinglab
