// The measures' memory estimates (Measure::memory) against the peak resident memory of real runs
// of the command line, the memory limit that refuses oversized work before it starts, and the
// skills world's 32-bit graph counts.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"
#include "scalinglab/lab/measure.hpp"

namespace scalinglab {
namespace {

struct ChildRun {
  int status = -1;         // exit status; 128 + signal when killed by one
  double peak_bytes = 0;   // peak resident memory (ru_maxrss)
  double seconds = 0;
  std::string out;         // stdout and stderr together
};

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w, n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r, n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool write_string(int fd, const std::string& s) {
  const uint64_t n = s.size();
  return write_all(fd, &n, sizeof n) && write_all(fd, s.data(), s.size());
}

bool read_string(int fd, std::string& s) {
  uint64_t n = 0;
  if (!read_all(fd, &n, sizeof n)) return false;
  s.resize(n);
  return read_all(fd, s.data(), n);
}

// A process forked when the test program starts, while it is small, that starts every command-line
// run: a forked child's peak resident memory counts the pages it shares with its parent, so runs
// forked from the test program itself (larger after other tests) would report its size instead.
class Spawner {
 public:
  Spawner() {
    int request[2], reply[2];
    if (::pipe(request) != 0 || ::pipe(reply) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(request[1]);
      ::close(reply[0]);
      serve(request[0], reply[1]);
      ::_exit(0);
    }
    ::close(request[0]);
    ::close(reply[1]);
    to_ = request[1], from_ = reply[0];
  }
  ~Spawner() {
    ::close(to_);
    ::close(from_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }

  ChildRun run(const std::vector<std::string>& args) {
    ChildRun r;
    const uint64_t n = args.size();
    if (!write_all(to_, &n, sizeof n)) return r;
    for (const auto& a : args) write_string(to_, a);
    read_all(from_, &r.status, sizeof r.status);
    read_all(from_, &r.peak_bytes, sizeof r.peak_bytes);
    read_all(from_, &r.seconds, sizeof r.seconds);
    read_string(from_, r.out);
    return r;
  }

 private:
  // Runs SCALINGLAB_CLI with each request's arguments, its output in a temporary file, until the
  // test program closes the pipe.
  static void serve(int in, int out) {
    for (uint64_t n = 0; read_all(in, &n, sizeof n);) {
      std::vector<std::string> all = {SCALINGLAB_CLI};
      for (uint64_t i = 0; i < n; ++i) {
        std::string a;
        if (!read_string(in, a)) return;
        all.push_back(std::move(a));
      }
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      char path[] = "/tmp/scalinglab-memory-XXXXXX";
      const int fd = ::mkstemp(path);
      const auto start = std::chrono::steady_clock::now();
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execv(argv[0], argv.data());
        ::_exit(127);
      }
      int raw = 0, status = -1;
      struct rusage ru {};
      double peak = 0, seconds = 0;
      if (pid > 0 && ::wait4(pid, &raw, 0, &ru) == pid) {
        status = WIFEXITED(raw) ? WEXITSTATUS(raw) : WIFSIGNALED(raw) ? 128 + WTERMSIG(raw) : -1;
        peak = 1024.0 * static_cast<double>(ru.ru_maxrss);  // kB
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      std::string text;
      char buf[4096];
      ::lseek(fd, 0, SEEK_SET);
      for (ssize_t k; (k = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(k));
      ::close(fd);
      ::unlink(path);
      if (!write_all(out, &status, sizeof status) || !write_all(out, &peak, sizeof peak) ||
          !write_all(out, &seconds, sizeof seconds) || !write_string(out, text))
        return;
    }
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

Spawner& spawner() {
  static Spawner s;
  return s;
}
// Started during static initialisation, before any test allocates.
const bool kSpawnerStarted = (spawner(), true);

// Runs the command line with `args` and reports its peak resident memory.
ChildRun run_cli(const std::vector<std::string>& args) { return spawner().run(args); }

// Peak resident memory of a trivial evaluation: the program itself.
double baseline_bytes() {
  static const double base = [] {
    const ChildRun r = run_cli({"eval", "skills.threshold", "--threads", "1"});
    EXPECT_EQ(r.status, 0) << r.out;
    std::printf("  baseline (eval skills.threshold) %.1f MB\n", r.peak_bytes / 1e6);
    return r.peak_bytes;
  }();
  return base;
}

std::map<std::string, std::string> assignments(const std::vector<std::string>& args) {
  std::map<std::string, std::string> given;
  for (const auto& a : args) given.insert(split_assignment(a));
  return given;
}

// The measure's estimate at `args` (k=v), resolved as the command line resolves them.
double estimate(const std::string& measure, const std::vector<std::string>& args) {
  const Measure& m = world_registry().get(measure);
  if (!m.memory) throw std::logic_error(measure + " has no memory estimate");
  return m.memory(resolve_params(m.params, assignments(args), measure));
}

struct Case {
  std::string measure;
  std::vector<std::string> args;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.measure;
  for (const auto& a : c.args) *os << ' ' << a;
}

// Sizes where a run's extra peak is 80-500 MB and takes under about 2 s; each path of an
// estimate (streamed or not, the states of memory.train, regular or random graphs) once.
const std::vector<Case> kCases = {
    {"memory.error", {"N=1000000", "d=32", "T=inf"}},
    {"memory.error", {"N=3000000", "d=16", "T=100000"}},  // streamed: E never held
    {"memory.matrix", {"N=200000", "d=64", "M=10"}},
    {"memory.train", {"N=2000", "d=1500", "optimizer=adam", "beta1=0.9", "beta2=0.999", "T=20"}},  // dense, Adam
    {"memory.train", {"N=2000", "M=1000", "d=100", "T=300"}},                   // span state
    {"memory.train", {"N=2000", "d=1000", "layernorm=true", "T=300"}},          // feature state
    {"memory.train", {"N=1000", "d=200", "M=1000", "batch=inf", "steps=2", "snapshot=1"}},  // population
    {"memory.infinite_memory_error", {"N=20000000"}},
    {"memory.coherence", {"d=2000", "P=4000"}},
    {"memory.class_embeddings", {"N=2000000", "M=20000", "f=block", "d=4000", "P=3000"}},
    {"memory.sgd_approx", {"N=2000000", "d=16", "T=100000"}},
    {"memory.sgd_approx_iterates", {"n_max=2000000"}},
    {"memory.sgd_approx_scheme", {"N=1000000", "alpha=1"}},
    {"factor.train", {"input_factors=2x19", "output_factors=2x5", "d=32", "h=32", "epochs=1", "evals=1"}},
    {"factor.train", {"input_factors=2x12", "output_factors=4000", "parents=12", "d=4", "h=4", "epochs=1", "evals=1"}},
    {"teacher.train", {"d=200", "K=2", "n=16", "T=100000", "test=10000"}},
    {"teacher.moments", {"d=1000", "K=1000", "draws=20000", "samples=1"}},
    {"teacher.misspecification", {"d=1000", "n=10000", "samples=1", "eps=0.1"}},
    {"skills.peel", {"R=3000000", "T=3000000"}},
    {"skills.peel", {"ensemble=regular", "R=6000000", "l=3", "r=6"}},
    {"skills.pipeline", {"R=100000", "T=500000", "S=5000", "L=3"}},
    {"skills.gcc", {"S=10000000", "c=0.5"}},
};

class MemoryEstimate : public ::testing::TestWithParam<Case> {};

TEST_P(MemoryEstimate, BoundsThePeakOfARealRun) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory and quarantine change the peak resident memory";
#endif
  const Case& c = GetParam();
  const double est = estimate(c.measure, c.args);
  std::vector<std::string> args = {"eval", c.measure};
  args.insert(args.end(), c.args.begin(), c.args.end());
  args.insert(args.end(), {"--threads", "1"});
  const ChildRun r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.out;
  const double extra = r.peak_bytes - baseline_bytes();
  std::printf("  %-30s estimate %7.1f MB  measured %7.1f MB  (%.2fx, %.2f s)\n", c.measure.c_str(), est / 1e6,
              extra / 1e6, est / extra, r.seconds);
  EXPECT_GT(extra, 64e6) << "the size must be large enough to test the estimate";
  EXPECT_GE(est, 0.8 * extra);
  EXPECT_LE(est, 4 * extra + 64e6);
}

INSTANTIATE_TEST_SUITE_P(Measures, MemoryEstimate, ::testing::ValuesIn(kCases));

TEST(MeasureMemory, MeasuresThatGrowWithTheirParametersHaveEstimates) {
  for (const char* name :
       {"memory.error", "memory.matrix", "memory.train", "memory.infinite_memory_error", "memory.sgd_approx",
        "memory.sgd_approx_iterates", "memory.sgd_approx_scheme", "factor.train", "teacher.train", "teacher.moments",
        "teacher.misspecification", "skills.peel", "skills.pipeline", "skills.gcc"})
    EXPECT_TRUE(world_registry().get(name).memory) << name;
}

TEST(MeasureMemory, HugeParametersGiveLargeFiniteEstimates) {
  // Products of large sizes in double: no wrap-around to small or negative numbers.
  struct Huge {
    Case point;
    double at_least;  // bytes of the largest array alone
  };
  const std::vector<Huge> huge = {
      {{"memory.error", {"N=1e8", "d=1e6", "M=1e6"}}, 1.2e13},                    // U, B and C
      {{"memory.matrix", {"N=1e8", "d=1e6", "M=1e6"}}, 8e15},                     // the M x N series
      {{"memory.train", {"N=1e8", "d=1e5", "M=1e6", "batch=inf", "T=inf"}}, 1.6e15},  // M x N logits
      {{"memory.infinite_memory_error", {"N=1e9"}}, 8e9},
      {{"memory.sgd_approx", {"N=1e8", "d=1e6", "M=1e6", "T=1e18", "batch=1e18"}}, 1.2e13},  // U, B and C
      {{"memory.sgd_approx_iterates", {"n_max=1e8"}}, 2.4e9},
      {{"factor.train", {"input_factors=2x24", "output_factors=1024", "parents=24", "d=65536"}}, 1.3e11},
      {{"teacher.train", {"d=1e6", "K=1e15", "n=1e8", "T=1e9", "test=1e9"}}, 1.6e23},  // atoms
      {{"teacher.moments", {"d=1e6", "K=1e15", "draws=1e9"}}, 1.6e23},
      {{"skills.gcc", {"S=2e9"}}, 1.6e10},
  };
  for (const auto& [c, at_least] : huge) {
    const double est = estimate(c.measure, c.args);
    EXPECT_TRUE(std::isfinite(est)) << c.measure;
    EXPECT_GE(est, at_least) << c.measure;
  }
}

TEST(MeasureMemory, InfiniteCountsAreHandled) {
  // T = inf: the population, no sample buffers; batch = inf: one batch of every input.
  const double population = estimate("memory.error", {"N=1000000", "T=inf"});
  EXPECT_TRUE(std::isfinite(population));
  EXPECT_GT(population, 50e6);
  const double train = estimate("memory.train", {"N=10000", "d=100", "batch=inf", "T=inf"});
  EXPECT_TRUE(std::isfinite(train));
  EXPECT_GT(train, 8.0 * 10000 * 100);
  // memory.sgd_approx refuses T = inf when it runs; the estimate stays finite meanwhile.
  EXPECT_TRUE(std::isfinite(estimate("memory.sgd_approx", {"T=inf", "batch=inf"})));
}

TEST(MeasureMemory, OversizedEvalIsRefusedAtOnce) {
  // About 11 GB: p, q and Theorem 1's sorted copies of 1e8 inputs, and a 1024 x 1e6 block of E.
  const ChildRun r = run_cli({"--max-memory", "8e9", "eval", "memory.error", "N=1e8", "d=1e6"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_LT(r.seconds, 2.0);
  EXPECT_NE(r.out.find("limit of 8 GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--max-memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory.error"), std::string::npos) << r.out;
  // The same point fits a larger limit: the estimate (not the limit) decides.
  const double est = estimate("memory.error", {"N=1e8", "d=1e6"});
  EXPECT_GT(est, 8e9);
  EXPECT_LT(est, 30e9);
}

TEST(MeasureMemory, ConcurrentRunsCountTogether) {
  // About 220 MB per run: one fits 300 MB, two at once do not.
  const std::vector<std::string> point = {"eval", "memory.error", "N=1000000", "d=32"};
  std::vector<std::string> one = {"--max-memory", "3e8"}, two = one;
  one.insert(one.end(), point.begin(), point.end());
  one.insert(one.end(), {"runs=2", "--threads", "1"});
  two.insert(two.end(), point.begin(), point.end());
  two.insert(two.end(), {"runs=2", "--threads", "2"});
  const ChildRun a = run_cli(one);
  EXPECT_EQ(a.status, 0) << a.out;
  const ChildRun b = run_cli(two);
  EXPECT_EQ(b.status, 2) << b.out;
  EXPECT_NE(b.out.find("2 at once"), std::string::npos) << b.out;
}

// The skills graphs count concepts, texts and edges in 32 bits.
constexpr const char* kMaxCount = "4294967295";
constexpr const char* kMaxEdges = "4294967294";

void expect_refused(const std::vector<std::string>& args, const std::string& names, const std::string& maximum) {
  std::vector<std::string> all = {"eval"};
  all.insert(all.end(), args.begin(), args.end());
  const ChildRun r = run_cli(all);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_LT(r.seconds, 2.0) << r.out;
  EXPECT_NE(r.out.find(names), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(maximum), std::string::npos) << r.out;
}

TEST(SkillsCounts, TextsPastThirtyTwoBitsAreRefused) {
  // round(4.294967296 * 1e9) = 2^32 texts would wrap to 0.
  expect_refused({"skills.peel", "R=1000000000", "texts_per_concept=4.294967296", "d_t=0.5"}, "texts_per_concept",
                 kMaxCount);
  expect_refused({"skills.pipeline", "R=3000000000", "texts_per_concept=2"}, "texts_per_concept", kMaxCount);
  expect_refused({"skills.peel", "ensemble=poisson", "R=1000", "texts_per_concept=5e6", "d_t=0.5"}, "texts_per_concept",
                 kMaxCount);
}

TEST(SkillsCounts, EdgesPastThirtyTwoBitsAreRefused) {
  expect_refused({"skills.peel", "ensemble=regular", "R=2000000000", "l=3", "r=6"}, "R*l", kMaxEdges);
  expect_refused({"skills.peel", "R=1000000000", "T=4000000000", "d_t=2"}, "d_t*T", kMaxEdges);
  expect_refused({"skills.pipeline", "R=1000000000", "T=4000000000", "d_t=2"}, "d_t*T", kMaxEdges);
}

TEST(SkillsCounts, TheRefusalComesFromTheEstimateBeforeAnyRun) {
  // In process: the estimate refuses (so the check before a run does), naming the parameter.
  try {
    estimate("skills.peel", {"R=1000000000", "texts_per_concept=4.294967296", "d_t=0.5"});
    ADD_FAILURE() << "no refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("texts_per_concept"), std::string::npos) << e.what();
  }
  EXPECT_THROW(estimate("skills.pipeline", {"R=3000000000", "texts_per_concept=2"}), InputError);
}

TEST(SkillsCounts, ValuesJustUnderTheLimitsAreAccepted) {
  // T = 4294967295 texts, R l = 4294967292 and d_t T = 4e9 edges all fit: validation passes and the
  // estimate reports the (large) memory instead.
  EXPECT_GT(estimate("skills.peel", {"R=1000000000", "texts_per_concept=4.294967295", "d_t=0.5"}), 8.0 * 4294967295);
  EXPECT_GT(estimate("skills.peel", {"ensemble=regular", "R=1431655764", "l=3", "r=6"}), 8.0 * 4294967292);
  EXPECT_GT(estimate("skills.peel", {"R=1000000000", "T=4000000000", "d_t=1"}), 8.0 * 4e9);
  EXPECT_GT(estimate("skills.pipeline", {"R=1000000000", "texts_per_concept=4.294967295", "d_t=0.5"}),
            8.0 * 4294967295);
  // On the command line such a point gets past validation to the memory limit.
  const ChildRun r = run_cli(
      {"--max-memory", "1e9", "eval", "skills.peel", "R=1000000000", "texts_per_concept=4.294967295", "d_t=0.5"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("more than the limit of"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kMaxCount), std::string::npos) << r.out;
}

}  // namespace
}  // namespace scalinglab
