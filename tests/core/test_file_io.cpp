// Whole-file reads and writes: devices, pipes and oversized files are refused with a sentence, a
// full device is reported as "no space left", and a failed write leaves the old file untouched.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/results/results.hpp"

namespace fs = std::filesystem;

namespace scalinglab {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(FileIo, ReadRefusesWhatIsNotARegularFileOrTooLarge) {
  EXPECT_NE(message_of([] { read_file("/dev/zero", 1 << 20, "sweep file"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(message_of([] { read_file("/tmp", 1 << 20); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(message_of([] { read_file("/nonexistent/x", 1 << 20); }).find("no such file"), std::string::npos);
  const fs::path dir = fs::temp_directory_path() / ("scalinglab_test_file_io_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message_of([&] { read_file(fifo.string(), 1 << 20); }).find("not a regular file"), std::string::npos);
  std::ofstream(dir / "big") << std::string(1000, 'x');
  EXPECT_NE(message_of([&] { read_file((dir / "big").string(), 999, "sweep file"); }).find("more than the 999"),
            std::string::npos);
  EXPECT_EQ(read_file((dir / "big").string(), 1000).size(), 1000u);
  fs::remove_all(dir);
}

TEST(FileIo, WriteReplacesWholeAndReportsTheReason) {
  const fs::path dir = fs::temp_directory_path() / ("scalinglab_test_file_io_w_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_file((dir / "a").string(), "old");
  write_file((dir / "a").string(), "new contents");
  EXPECT_EQ(read_file((dir / "a").string(), 100), "new contents");
  // No temporary left behind, successful or not.
  const std::string missing = message_of([&] { write_file((dir / "no" / "a").string(), "x"); });
  EXPECT_NE(missing.find("cannot write"), std::string::npos);
  EXPECT_NE(missing.find("no such file or directory"), std::string::npos) << missing;
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
  fs::remove_all(dir);
}

// A device is never taken for a results file (appending to /dev/full once "worked" until the first
// write); a full disk is tested on a small file system (FolderTrust.AFullDiskIsAnErrorAndTheOldFileStays).
TEST(FileIo, ADeviceIsNeverAResultsFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string msg = message_of([&] { ResultsWriter w("/dev/full"); });
  EXPECT_NE(msg.find("not a regular file of its own"), std::string::npos) << msg;
}

}  // namespace
}  // namespace scalinglab
