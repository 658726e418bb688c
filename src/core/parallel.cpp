#include "scalinglab/core/parallel.hpp"

#include "scalinglab/core/error.hpp"

#include <atomic>
#include <exception>
#include <cstdio>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace scalinglab {

int resolve_threads(int threads) {
  if (threads < 0) throw InputError("threads: " + std::to_string(threads) + " (expected >= 0; 0: all cores)");
  if (threads > 0) return threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t, int)>& fn) {
  threads = resolve_threads(threads);
  if (threads == 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](int worker) {
    for (;;) {
      if (failed.load()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        fn(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), n));
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work, w);
    } catch (const std::system_error& e) {
      // Out of threads (or of memory for their stacks): the workers started so far, and this
      // thread, do all the tasks. Reported once per process; results do not depend on the count.
      static std::atomic<bool> reported{false};
      if (!reported.exchange(true))
        std::fprintf(stderr, "scalinglab: warning: could start only %d of %d worker threads (%s); going on with %d\n",
                     w, workers, e.what(), w);
      break;
    }
  }
  work(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

namespace {
std::atomic<int> g_task_threads{0};
}

int task_threads() { return resolve_threads(g_task_threads.load()); }
void set_task_threads(int n) { g_task_threads.store(n); }

void set_blas_threads(int n) {
  if (openblas_set_num_threads) openblas_set_num_threads(n);
}

}  // namespace scalinglab
