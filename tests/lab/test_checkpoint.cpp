// Checkpoint files: what a task saved is what it loads; a file of another task, a damaged or cut
// file is a sentence; the random stream and the byte format round-trip; durations parse.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/core/state_blob.hpp"
#include "scalinglab/lab/checkpoint.hpp"

using namespace scalinglab;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("scalinglab-checkpoint-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::string slurp_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(TaskCheckpoint, WhatATaskSavedIsWhatItLoads) {
  const fs::path path = scratch("a") / "x.state";  // the folder is made by the first save
  fs::remove_all(path.parent_path());
  std::string state(1000, '\0');
  for (std::size_t i = 0; i < state.size(); ++i) state[i] = static_cast<char>(i * 7);
  TaskCheckpoint(path.string(), "factor.train d=8 seed=1 run=0", 0, false).save(state);
  TaskCheckpoint again(path.string(), "factor.train d=8 seed=1 run=0", 0, true);
  EXPECT_EQ(again.load(), state);
  EXPECT_TRUE(again.restored());
  // A fresh run (no --resume) starts from zero whatever is there.
  EXPECT_FALSE(TaskCheckpoint(path.string(), "factor.train d=8 seed=1 run=0", 0, false).load());
  // Nothing saved: nothing to load.
  EXPECT_FALSE(TaskCheckpoint((path.parent_path() / "none.state").string(), "t", 0, true).load());
}

TEST(TaskCheckpoint, AnotherTasksOrADamagedFileIsASentence) {
  const fs::path path = scratch("b.state");
  TaskCheckpoint(path.string(), "task one", 0, false).save(std::string(64, 'x'));
  EXPECT_THROW(
      {
        try {
          TaskCheckpoint(path.string(), "task two", 0, true).load();
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("belongs to another task"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  const std::string good = slurp_bytes(path);
  for (std::size_t cut : {std::size_t{0}, std::size_t{10}, good.size() / 2, good.size() - 1}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << good.substr(0, cut);
    EXPECT_THROW(TaskCheckpoint(path.string(), "task one", 0, true).load(), InputError) << "cut at " << cut;
  }
  std::string flipped = good;
  flipped[flipped.size() - 20] ^= 1;  // inside the state: the hash no longer matches
  std::ofstream(path, std::ios::binary | std::ios::trunc) << flipped;
  EXPECT_THROW(TaskCheckpoint(path.string(), "task one", 0, true).load(), InputError);
}

TEST(TaskCheckpoint, ASaveIsDueWithTimeOrASignal) {
  TaskCheckpoint never(scratch("c.state").string(), "t", 0, false);
  EXPECT_FALSE(never.due());
  request_checkpoints(false);  // as SIGUSR1
  EXPECT_TRUE(never.due());
  never.save("s");  // answered: not due again until the next signal
  EXPECT_FALSE(never.due());
  TaskCheckpoint often(scratch("d.state").string(), "t", 1e-9, false);
  EXPECT_TRUE(often.due());
  EXPECT_FALSE(stop_requested());
}

TEST(StreamState, ARestoredStreamDrawsWhatTheOriginalWould) {
  Stream a(42);
  for (int i = 0; i < 37; ++i) a.next_u32();  // mid-buffer
  a.normal();                                 // a cached second variate
  BlobWriter w;
  a.save(w);
  Stream b(1);
  BlobReader r(w.str(), "stream");
  b.restore(r);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(a.normal(), b.normal());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next_u64(), b.next_u64()) << i;
}

TEST(StateBlob, LengthsAreCheckedBeforeAnythingIsAllocated) {
  BlobWriter w;
  w.floats({1.5f, -2.0f});
  w.doubles({3.25});
  w.u32s({7u, 9u});
  BlobReader r(w.str(), "state");
  EXPECT_EQ(r.floats(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(r.doubles(), (std::vector<double>{3.25}));
  EXPECT_EQ(r.u32s(), (std::vector<uint32_t>{7u, 9u}));
  EXPECT_TRUE(r.done());
  EXPECT_THROW(r.u64(), InputError);
  BlobWriter huge;
  huge.u64(uint64_t{1} << 61);  // a count of 2^61 floats in an 8-byte blob
  BlobReader h(huge.str(), "state");
  EXPECT_THROW(h.floats(), InputError);
}

TEST(Duration, AsWrittenOnACommandLine) {
  EXPECT_EQ(parse_duration("600", "--x"), 600);
  EXPECT_EQ(parse_duration("30s", "--x"), 30);
  EXPECT_EQ(parse_duration("10m", "--x"), 600);
  EXPECT_EQ(parse_duration("1.5h", "--x"), 5400);
  EXPECT_EQ(parse_duration("2d", "--x"), 172800);
  EXPECT_EQ(parse_duration("0", "--x"), 0);
  for (const char* bad : {"", "-1", "10x", "inf", "nan", "m", "1e400s", "5 m"})
    EXPECT_THROW(parse_duration(bad, "--x"), InputError) << bad;
}
