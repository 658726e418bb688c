// The task pool: every index exactly once on any thread count, the first exception rethrown, and
// when the system refuses to start threads the ones started (and the caller) still do every task.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "scalinglab/core/parallel.hpp"

namespace scalinglab {
namespace {

TEST(ParallelFor, EveryIndexOnceOnAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> seen(1000);
    parallel_for(seen.size(), threads, [&](std::size_t i, int worker) {
      EXPECT_GE(worker, 0);
      EXPECT_LT(worker, threads);
      seen[i]++;
    });
    for (const auto& s : seen) EXPECT_EQ(s.load(), 1);
  }
}

TEST(ParallelFor, FirstExceptionIsRethrown) {
  EXPECT_THROW(parallel_for(100, 4, [](std::size_t i, int) {
                 if (i == 17) throw std::runtime_error("task 17");
               }),
               std::runtime_error);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCALINGLAB_NO_ADDRESS_LIMIT 1  // the sanitizers' shadow memory needs the whole address space
#endif

TEST(ParallelFor, ThreadsThatCannotStartDoNotLoseTasks) {
#ifdef SCALINGLAB_NO_ADDRESS_LIMIT
  GTEST_SKIP() << "an address-space limit cannot be combined with a sanitizer";
#else
  // In a child process: cap the address space just above what is mapped, so that thread stacks
  // (8 MB each) cannot be allocated; 64 threads are asked for.
  EXPECT_EXIT(
      {
        rlimit lim{};
        getrlimit(RLIMIT_AS, &lim);
        std::FILE* f = std::fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!f || std::fscanf(f, "%lu", &pages) != 1) std::_Exit(3);
        std::fclose(f);
        lim.rlim_cur = pages * 4096 + (20ul << 20);
        setrlimit(RLIMIT_AS, &lim);
        std::vector<int> seen(5000, 0);
        parallel_for(seen.size(), 64, [&](std::size_t i, int) { seen[i]++; });
        for (int s : seen)
          if (s != 1) std::_Exit(1);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "could start only");
#endif
}

}  // namespace
}  // namespace scalinglab
