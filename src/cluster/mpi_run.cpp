#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/cluster/mpi_run.hpp"

#include <optional>
#include <mpi.h>
#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/cluster/record_wire.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/lab/evaluate.hpp"

namespace scalinglab {

namespace {

// kFailed: the rank cannot go on (its sweep, its grid): the run ends. kTaskFailed: a task's measure
// threw: that task fails alone, as in one process.
enum Tag : int { kHello = 1, kSweep, kStop, kTask, kResult, kFailed, kTaskFailed };
constexpr uint64_t kNoTask = UINT64_MAX;

// When a rank dies, mpirun sends SIGTERM to the others and SIGKILL right after (it waits only until
// the next child exits), so rank 0 has no time to look anything up: the message naming the tasks
// in flight is rendered ahead into one of two buffers (the other is the one a handler may be
// reading), and the handler only write(2)s the published one and leaves.
constexpr std::size_t kStopTextBytes = 8192;
char g_stop_text[2][kStopTextBytes];
std::size_t g_stop_length[2] = {0, 0};
std::atomic<int> g_stop_published{-1};

extern "C" void on_stop_signal(int) {
  const int k = g_stop_published.load();
  if (k >= 0) {
    const char* p = g_stop_text[k];
    std::size_t left = g_stop_length[k];
    while (left > 0) {
      const ssize_t n = ::write(STDERR_FILENO, p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  ::_exit(3);
}

void publish_stop_text(const std::string& text) {
  const int next = g_stop_published.load() == 0 ? 1 : 0;
  const std::size_t n = std::min(text.size(), kStopTextBytes);
  std::memcpy(g_stop_text[next], text.data(), n);
  g_stop_length[next] = n;
  g_stop_published.store(next);
}

// Signals that stop a job (mpirun's SIGTERM; Ctrl-C).
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// OpenMPI's blocking calls spin a core while they wait, which the tasks need. Every wait here polls
// instead and sleeps between polls: at first 20 us doubling up to 200 us; once tasks have been
// timed, a quarter of the mean task (50 us to 2 ms) every time. A worker holds 2 tasks per thread,
// so an answer within a task's time keeps it busy, and a rank wakes only about 4 times per task
// (each wake-up costs the tasks sharing its core a context switch and some cache).
class Backoff {
 public:
  int next() {
    us_ = paced_ ? cap_ : us_ ? std::min(2 * us_, cap_) : 20;
    return us_;
  }
  void idle() { ::usleep(static_cast<useconds_t>(next())); }
  void busy() { us_ = 0; }
  void pace(double mean_task_seconds) {
    cap_ = static_cast<int>(std::clamp(mean_task_seconds * 1e6 / 4, 50.0, 2000.0));
    paced_ = true;
  }

 private:
  int us_ = 0, cap_ = 200;
  bool paced_ = false;
};

struct Message {
  int source = 0, tag = 0;
  std::string bytes;
};

bool poll(Message& m, int source = MPI_ANY_SOURCE) {
  int flag = 0;
  MPI_Message handle;
  MPI_Status status;
  MPI_Improbe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &handle, &status);
  if (!flag) return false;
  int n = 0;
  MPI_Get_count(&status, MPI_BYTE, &n);
  m.source = status.MPI_SOURCE;
  m.tag = status.MPI_TAG;
  m.bytes.assign(static_cast<std::size_t>(n), '\0');
  MPI_Mrecv(m.bytes.data(), n, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
  return true;
}

void send(const std::string& bytes, int dest, int tag) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error("a task's record of " + std::to_string(bytes.size()) + " bytes is too large to send");
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

using wire::put;
using wire::take;

// Set while rank 0's serving thread takes a task for another rank (see MpiWorkers::attach).
thread_local bool t_feeding = false;

// Rank 0's view of the other ranks.
class MpiWorkers final : public RemoteWorkers {
 public:
  explicit MpiWorkers(int size) : threads_(static_cast<std::size_t>(size), 0), stopped_(static_cast<std::size_t>(size), 0) {
    Backoff wait;
    for (int heard = 1; heard < size;) {
      Message m;
      if (!poll(m)) {
        wait.idle();
        continue;
      }
      wait.busy();
      if (m.tag != kHello) throw std::runtime_error("MPI: rank " + std::to_string(m.source) + " spoke out of turn");
      std::size_t at = 0;
      threads_[static_cast<std::size_t>(m.source)] = std::max(1, take<int>(m.bytes, at));
      ++heard;
    }
  }

  ~MpiWorkers() override { stop_all(); }

  int slots() const override {
    int n = 0;
    for (int t : threads_) n += t;
    return n;
  }

  void set_checkpoints(const CheckpointSettings& settings) override { checkpoints_ = settings; }
  void set_task_failure(Failed failed) override { task_failed_ = std::move(failed); }

  void attach(const std::vector<TaskRef>& tasks, TaskQueue& queue) override {
    tasks_ = &tasks;
    // A task handed out by feed() is rendered once its rank is known, not here as well.
    queue.set_observer([this, &queue] {
      if (!t_feeding) render(queue);
    });
  }

  void serve(const Sweep& sweep, const SweepOrigin& origin, const std::vector<TaskRef>& tasks, TaskQueue& queue,
             const Done& done) override {
    const std::string setup =
        nlohmann::json{{"text", sweep.text}, {"path", sweep.path}, {"profile", origin.profile}, {"sets", origin.sets},
                       {"checkpoints", {{"dir", checkpoints_.dir}, {"every", checkpoints_.every}, {"resume", checkpoints_.resume}}}}
            .dump();
    const int size = static_cast<int>(threads_.size());
    for (int w = 1; w < size; ++w) send(setup, w, kSweep);

    const auto remote_slots = static_cast<std::size_t>(slots());
    std::vector<int> busy(threads_.size(), 0);
    std::size_t outstanding = 0;
    std::string failure;                      // the first failure; the run drains, then throws it
    std::exception_ptr recording_error;       // results.jsonl could not take a result
    // A second task per thread waits at the worker while the first runs, so it never waits for rank
    // 0; near the end (fewer tasks left than twice the slots) one per thread, so that no task waits
    // at one rank while another rank idles.
    const auto feed = [&](int w) {
      std::size_t i;
      const auto depth = [&] { return queue.left() >= 2 * remote_slots ? 2 : 1; };
      const auto take_next = [&] {
        t_feeding = true;
        const bool got = queue.next(i);
        t_feeding = false;
        return got;
      };
      while (busy[static_cast<std::size_t>(w)] < depth() * threads_[static_cast<std::size_t>(w)] && take_next()) {
        const TaskRef& t = tasks[i];
        std::string msg;
        put<uint64_t>(msg, i);
        put<uint64_t>(msg, t.point);
        put<uint64_t>(msg, t.run);
        msg += t.key;
        send(msg, w, kTask);
        {
          std::lock_guard<std::mutex> lock(render_mutex_);
          owner_[i] = w;
        }
        render(queue);
        ++busy[static_cast<std::size_t>(w)];
        ++outstanding;
      }
    };
    for (int w = 1; w < size; ++w) feed(w);

    // While tasks run, this thread alone takes the stop signals (every other thread was started with
    // them blocked), and the message about what they would lose follows every task handed out or
    // finished, here or by rank 0's own threads.
    render(queue);
    const sigset_t stops = stop_signals();
    pthread_sigmask(SIG_UNBLOCK, &stops, nullptr);
    Backoff wait;
    double seconds_sum = 0;
    std::size_t results = 0;
    while (outstanding > 0) {
      Message m;
      if (!poll(m)) {
        wait.idle();
        continue;
      }
      wait.busy();
      std::size_t at = 0;
      const auto task = take<uint64_t>(m.bytes, at);
      if (m.tag != kResult && m.tag != kFailed && m.tag != kTaskFailed)
        throw std::runtime_error("MPI: unexpected message from rank " + std::to_string(m.source));
      if (task != kNoTask) {
        std::size_t erased;
        {
          std::lock_guard<std::mutex> lock(render_mutex_);
          erased = task < tasks.size() ? owner_.erase(task) : 0;
        }
        if (erased == 0)
          throw std::runtime_error("MPI: rank " + std::to_string(m.source) + " returned a task it was not given");
        --busy[static_cast<std::size_t>(m.source)];
        --outstanding;
      }
      if (m.tag == kTaskFailed && task != kNoTask && task_failed_) {
        const double seconds = take<double>(m.bytes, at);
        try {
          task_failed_(task, m.bytes.substr(at), seconds);
        } catch (...) {
          if (!recording_error) recording_error = std::current_exception();
          queue.stop();
        }
        feed(m.source);
        continue;
      }
      if (m.tag == kFailed || m.tag == kTaskFailed) {
        if (failure.empty()) {
          failure = "rank " + std::to_string(m.source) + ": " +
                    (task == kNoTask ? "" : "task " + tasks[task].key + " run " + std::to_string(tasks[task].run) + ": ") +
                    m.bytes.substr(at);
        }
        queue.stop();  // no new tasks; the ones running elsewhere finish and are recorded
        continue;
      }
      const double seconds = take<double>(m.bytes, at);
      seconds_sum += seconds;
      wait.pace(seconds_sum / static_cast<double>(++results));
      Record record = read_record(m.bytes, at);
      try {
        done(task, std::move(record), seconds);
      } catch (...) {
        if (!recording_error) recording_error = std::current_exception();
        queue.stop();
      }
      feed(m.source);
    }
    pthread_sigmask(SIG_BLOCK, &stops, nullptr);
    stop_all();
    if (recording_error) std::rethrow_exception(recording_error);
    if (!failure.empty()) throw std::runtime_error(failure);
  }

  // Ranks still waiting (for the sweep or for tasks) are released.
  void stop_all() {
    for (std::size_t w = 1; w < stopped_.size(); ++w)
      if (!stopped_[w]) {
        send({}, static_cast<int>(w), kStop);
        stopped_[w] = 1;
      }
  }

 private:
  // Publishes what would be lost if the job were torn down now. Any thread.
  void render(const TaskQueue& queue) {
    const std::vector<std::size_t> lost = queue.in_flight();
    std::lock_guard<std::mutex> lock(render_mutex_);
    publish_stop_text(stop_text(lost));
  }

  // What is lost if the job is torn down now (a rank died; a scheduler cancels or preempts).
  std::string stop_text(const std::vector<std::size_t>& lost) const {
    std::string out = "\nscalinglab: error: the MPI job is being stopped (a rank died, or the job was cancelled or "
                      "preempted); " + std::to_string(lost.size()) + (lost.size() == 1 ? " task was" : " tasks were") +
                      " running, not recorded:\n";
    std::size_t shown = 0;
    for (std::size_t i : lost) {
      if (++shown > 20) {
        out += "  ... and " + std::to_string(lost.size() - 20) + " more\n";
        break;
      }
      const auto it = owner_.find(i);
      const TaskRef& t = (*tasks_)[i];
      out += "  " + t.key + " run " + std::to_string(t.run) + " (rank " +
             std::to_string(it == owner_.end() ? 0 : it->second) + ")\n";
    }
    return out + "every finished task is in results.jsonl: run the same command with --resume (any number of "
                 "ranks, or none) to finish\n";
  }

  std::vector<int> threads_;  // per rank; rank 0's entry unused
  CheckpointSettings checkpoints_;
  Failed task_failed_;  // a task whose measure threw on a rank (null: the run ends)
  std::vector<char> stopped_;
  std::map<std::size_t, int> owner_;  // tasks at other ranks
  std::mutex render_mutex_;           // owner_ and the stop message's buffers
  const std::vector<TaskRef>* tasks_ = nullptr;
};

// A worker's tasks between its MPI thread and its compute threads.
struct Mailbox {
  struct Work {
    uint64_t task, point, run;
    std::string key;
  };
  std::mutex mutex;
  std::condition_variable ready;  // a task came in (or the run is closing)
  std::condition_variable sent;   // a result is ready to go out
  std::deque<Work> inbox;
  double seconds_sum = 0;
  std::size_t results = 0;
  std::deque<std::pair<int, std::string>> outbox;  // tag, bytes
  bool closing = false;
};

}  // namespace

MpiJob::MpiJob() {
  // Blocked before MPI starts its threads and before the runner starts its own, which all inherit
  // the mask: only rank 0's main thread, while it serves tasks, takes a stop signal.
  const sigset_t stops = stop_signals();
  pthread_sigmask(SIG_BLOCK, &stops, &saved_mask_);
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (rank_ == 0) {
    publish_stop_text("\nscalinglab: error: the MPI job was stopped before its tasks started\n");
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
  } else {
    pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);  // workers die of a stop as any process
  }
}

MpiJob::~MpiJob() {
  if (workers_) workers_.reset();  // releases ranks still waiting for a sweep or for tasks
  else if (rank_ == 0)
    for (int w = 1; w < size_; ++w) send({}, w, kStop);  // the run ended before it started
  MPI_Finalize();
  if (rank_ == 0) {  // a stop that came after the tasks ends the process as it would have
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  }
}

RemoteWorkers& MpiJob::workers() {
  if (rank_ != 0) throw std::logic_error("MpiJob::workers on a rank other than 0");
  if (!workers_) workers_ = std::make_unique<MpiWorkers>(size_);
  return *workers_;
}

int MpiJob::serve_tasks(int threads) {
  {
    std::string hello;
    put<int>(hello, threads);
    send(hello, 0, kHello);
  }
  Backoff wait;
  Message m;
  while (!poll(m, 0)) wait.idle();
  if (m.tag == kStop) return 0;  // rank 0 stopped before running anything (bad input, nothing to do)
  if (m.tag != kSweep) throw std::runtime_error("MPI: rank 0 spoke out of turn");

  const Registry& registry = world_registry();
  std::unique_ptr<Sweep> sweep;
  std::vector<GridPoint> points;
  std::optional<CheckpointSettings> checkpoints;  // rank 0's OUT/checkpoints (a shared file system)
  std::string setup_error;
  try {
    const auto j = nlohmann::json::parse(m.bytes);
    sweep = std::make_unique<Sweep>(parse_sweep(j.at("text").get<std::string>(), j.at("path").get<std::string>(),
                                                j.at("profile").get<std::string>(),
                                                j.at("sets").get<std::vector<std::string>>(), registry));
    points = expand_grid(*sweep, registry);
    if (j.contains("checkpoints")) {
      const auto& c = j.at("checkpoints");
      checkpoints = CheckpointSettings{c.at("dir").get<std::string>(), c.at("every").get<double>(), c.at("resume").get<bool>()};
    }
  } catch (const std::exception& e) {
    setup_error = std::string("could not rebuild the sweep: ") + e.what();
  }

  // Same rule as the runner: one BLAS thread per task, so records do not depend on where they ran.
  set_blas_threads(1);
  set_task_threads(1);
  install_checkpoint_signals(false);  // SIGUSR1 (mpirun forwards it): long tasks save at once
  Mailbox box;
  const auto compute = [&] {
    for (;;) {
      Mailbox::Work w;
      {
        std::unique_lock<std::mutex> lock(box.mutex);
        box.ready.wait(lock, [&] { return box.closing || !box.inbox.empty(); });
        if (box.closing) return;  // rank 0 stopped the run: tasks not started are dropped
        w = std::move(box.inbox.front());
        box.inbox.pop_front();
      }
      std::string out;
      put<uint64_t>(out, w.task);
      int tag = kResult;
      try {
        if (!setup_error.empty()) throw std::runtime_error(setup_error);
        if (w.point >= points.size() || points[w.point].key != w.key)
          throw std::runtime_error("this rank's grid differs from rank 0's at " + w.key +
                                   " (do all ranks run the same scalinglab build on the same sweep?)");
        const GridPoint& p = points[w.point];
        const auto start = std::chrono::steady_clock::now();
        std::unique_ptr<TaskCheckpoint> checkpoint;
        if (checkpoints) checkpoint = make_task_checkpoint(*checkpoints, p.measure->name, p.params, sweep->seed, w.run);
        Record record;
        std::string task_error;
        {
          CheckpointScope scope(checkpoint.get());
          try {
            record = run_task(*p.measure, p.params, sweep->seed, w.run);
          } catch (const TaskInterrupted&) {
            throw;
          } catch (const std::bad_alloc&) {
            throw;
          } catch (const InputError&) {
            throw;
          } catch (const std::exception& e) {
            task_error = e.what();  // the measure's own failure: this task's alone
          }
        }

        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!task_error.empty()) {
          tag = kTaskFailed;
          put<double>(out, seconds);
          out += task_error;
          std::lock_guard<std::mutex> lock(box.mutex);
          box.outbox.emplace_back(tag, std::move(out));
          box.sent.notify_one();
          continue;
        }
        put<double>(out, seconds);
        append_record(record, out);
        // The result is on its way to rank 0, which writes it: the state goes (a result lost with
        // rank 0 reruns the task from its start).
        if (checkpoint && checkpoint->used()) checkpoint->remove();
        if (checkpoint && checkpoint->restored()) std::fprintf(stderr, "a task went on from its checkpoint\n");
        std::lock_guard<std::mutex> lock(box.mutex);
        box.seconds_sum += seconds;
        ++box.results;
      } catch (const std::exception& e) {
        tag = kFailed;
        out.resize(sizeof(uint64_t));
        out += e.what();
      }
      std::lock_guard<std::mutex> lock(box.mutex);
      box.outbox.emplace_back(tag, std::move(out));
      box.sent.notify_one();
    }
  };
  std::vector<std::thread> pool;
  for (int k = 0; k < std::max(1, threads); ++k) pool.emplace_back(compute);

  // This thread alone talks MPI: tasks in, results out, until rank 0 says stop.
  bool stopping = false;
  while (!stopping) {
    bool active = false;
    while (poll(m, 0)) {
      active = true;
      if (m.tag == kStop) {
        stopping = true;
        break;
      }
      std::size_t at = 0;
      Mailbox::Work w;
      w.task = take<uint64_t>(m.bytes, at);
      w.point = take<uint64_t>(m.bytes, at);
      w.run = take<uint64_t>(m.bytes, at);
      w.key = m.bytes.substr(at);
      std::lock_guard<std::mutex> lock(box.mutex);
      box.inbox.push_back(std::move(w));
      box.ready.notify_one();
    }
    std::deque<std::pair<int, std::string>> out;
    {
      std::unique_lock<std::mutex> lock(box.mutex);
      if (!active && box.outbox.empty()) {
        // Idle: sleep until a result is ready, or for the backoff (a task or stop may come in).
        if (box.results) wait.pace(box.seconds_sum / static_cast<double>(box.results));
        box.sent.wait_for(lock, std::chrono::microseconds(wait.next()), [&] { return !box.outbox.empty(); });
      } else {
        wait.busy();
      }
      out.swap(box.outbox);
    }
    for (const auto& [tag, bytes] : out) send(bytes, 0, tag);
  }
  {
    std::lock_guard<std::mutex> lock(box.mutex);
    box.closing = true;
  }
  box.ready.notify_all();
  for (auto& t : pool) t.join();
  return 0;
}

}  // namespace scalinglab
