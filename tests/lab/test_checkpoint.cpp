// Checkpoint files: what a task saved is what it loads; a file of another task, a damaged or cut
// file is a sentence; the random stream and the byte format round-trip; durations parse.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "scalinglab/core/duration.hpp"
#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/core/state_blob.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/lab/checkpoint_key.hpp"
#include "support/config_home.hpp"

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
  ScopedConfigHome config;
  const fs::path path = scratch("a") / "x.state";  // the folder is made by the first save
  fs::remove_all(path.parent_path());
  std::string state(1000, '\0');
  for (std::size_t i = 0; i < state.size(); ++i) state[i] = static_cast<char>(i * 7);
  TaskCheckpoint(path.string(), "factor.train d=8 seed=1 run=0", 0, false).save(state);
  TaskCheckpoint again(path.string(), "factor.train d=8 seed=1 run=0", 0, true);
  EXPECT_EQ(again.load(1 << 20), state);
  EXPECT_TRUE(again.restored());
  // A fresh run (no --resume) starts from zero whatever is there.
  EXPECT_FALSE(TaskCheckpoint(path.string(), "factor.train d=8 seed=1 run=0", 0, false).load(1 << 20));
  // Nothing saved: nothing to load.
  EXPECT_FALSE(TaskCheckpoint((path.parent_path() / "none.state").string(), "t", 0, true).load(1 << 20));
}

TEST(TaskCheckpoint, AnotherTasksOrADamagedFileIsASentence) {
  ScopedConfigHome config;
  const fs::path path = scratch("b.state");
  TaskCheckpoint(path.string(), "task one", 0, false).save(std::string(64, 'x'));
  EXPECT_THROW(
      {
        try {
          TaskCheckpoint(path.string(), "task two", 0, true).load(1 << 20);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("belongs to another task"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  const std::string good = slurp_bytes(path);
  for (std::size_t cut : {std::size_t{0}, std::size_t{10}, good.size() / 2, good.size() - 1}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << good.substr(0, cut);
    EXPECT_THROW(TaskCheckpoint(path.string(), "task one", 0, true).load(1 << 20), InputError) << "cut at " << cut;
  }
}

// B1: a file edited in the folder does not carry the MAC of the user's key, which is kept outside
// the folder: it is set aside (the task starts afresh), whatever byte was changed, and so is
// another task's file with its identity rewritten.
TEST(TaskCheckpoint, AnEditedFileIsNotRestored) {
  ScopedConfigHome config;
  const fs::path path = scratch("edited.state");
  TaskCheckpoint(path.string(), "task one", 0, false).save(std::string(64, 'x'));
  const std::string good = slurp_bytes(path);
  // Bytes of the state (twice) and of the MAC.
  for (std::size_t at : {std::size_t{50}, good.size() - 40, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] ^= 1;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << flipped;
    TaskCheckpoint c(path.string(), "task one", 0, true);
    EXPECT_FALSE(c.load(1 << 20)) << "byte " << at;
    EXPECT_FALSE(c.restored());
  }
  // Task two's state, its identity rewritten as task one's ("two" and "one" have the same length).
  TaskCheckpoint(path.string(), "task two", 0, false).save(std::string(64, 'y'));
  std::string other = slurp_bytes(path);
  other.replace(other.find("task two"), 8, "task one");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << other;
  EXPECT_FALSE(TaskCheckpoint(path.string(), "task one", 0, true).load(1 << 20));
  // The untouched file is restored: what is refused above is the edit.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << good;
  EXPECT_EQ(TaskCheckpoint(path.string(), "task one", 0, true).load(1 << 20), std::string(64, 'x'));
}

// A folder carried to another machine resumes only where the key was carried too.
TEST(TaskCheckpoint, AStateResumesOnlyWhereItsKeyIs) {
  const fs::path path = scratch("carried.state");
  std::string key;
  {
    ScopedConfigHome here("here");
    TaskCheckpoint(path.string(), "task", 0, false).save("the state");
    key = slurp_bytes(checkpoint_key_path());
    EXPECT_EQ(key.size(), 32u);
    EXPECT_EQ(fs::status(checkpoint_key_path()).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  }
  ScopedConfigHome there("there");
  EXPECT_FALSE(TaskCheckpoint(path.string(), "task", 0, true).load(1 << 20)) << "another machine's key";
  EXPECT_NE(slurp_bytes(checkpoint_key_path()), key) << "each machine draws its own key";
  {
    std::ofstream(checkpoint_key_path(), std::ios::binary | std::ios::trunc) << key;  // the key carried over
  }
  EXPECT_EQ(TaskCheckpoint(path.string(), "task", 0, true).load(1 << 20), "the state");
  // A key others may read is refused, as ssh refuses such a private key.
  fs::permissions(checkpoint_key_path(), fs::perms::group_read, fs::perm_options::add);
  EXPECT_THROW(TaskCheckpoint(path.string(), "task", 0, true).load(1 << 20), InputError);
}

// B2: checkpoints/ planted as a link to another folder is never read through, and the file of the
// same name in that folder is never deleted.
TEST(TaskCheckpoint, ALinkedFolderIsNeitherReadNorDeletedThrough) {
  ScopedConfigHome config;
  const fs::path root = scratch("linked");
  fs::remove_all(root);
  fs::create_directories(root / "elsewhere");
  const std::string name = "0123456789abcdef.state";
  TaskCheckpoint((root / "elsewhere" / name).string(), "task", 0, false).save("theirs");
  fs::create_directory_symlink("elsewhere", root / "checkpoints");
  TaskCheckpoint through((root / "checkpoints" / name).string(), "task", 0, true);
  EXPECT_THROW(through.load(1 << 20), InputError);
  EXPECT_FALSE(through.restored());
  through.remove();
  EXPECT_TRUE(fs::exists(root / "elsewhere" / name)) << "deleted through a link";
  // A link as the file itself: refused too, its target kept.
  fs::remove(root / "checkpoints");
  fs::create_directory(root / "checkpoints");
  fs::create_symlink("../elsewhere/" + name, root / "checkpoints" / name);
  EXPECT_THROW(TaskCheckpoint((root / "checkpoints" / name).string(), "task", 0, true).load(1 << 20), InputError);
  TaskCheckpoint((root / "checkpoints" / name).string(), "task", 0, true).remove();
  EXPECT_TRUE(fs::exists(root / "elsewhere" / name));
  EXPECT_FALSE(fs::exists(fs::symlink_status(root / "checkpoints" / name))) << "the link itself goes";
}

// B3: a file larger than the task's state can be is refused on its size, before a byte is read
// (a 3 GB sparse file), and a pipe is refused without blocking.
TEST(TaskCheckpoint, AFileLargerThanTheStateIsRefusedBeforeReading) {
  ScopedConfigHome config;
  const fs::path path = scratch("huge.state");
  fs::remove(path);
  { std::ofstream(path, std::ios::binary) << "scalinglab checkpoint 2\n"; }
  fs::resize_file(path, 3'000'000'000ull);
  const auto start = std::chrono::steady_clock::now();
  try {
    TaskCheckpoint(path.string(), "task", 0, true).load(1 << 20);
    ADD_FAILURE() << "a 3 GB file was accepted for a 1 MB state";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("3000000000 bytes"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_THROW(TaskCheckpoint(path.string(), "task", 0, true).load(1 << 20), InputError);
  fs::remove(path);
}

TEST(TaskCheckpoint, ASaveIsDueWithTimeOrASignal) {
  ScopedConfigHome config;
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
