// gnuplot text and processes: literals that gnuplot reads back exactly as documented and that
// nothing can break out of, one-line comments, and a failed script that leaves no half figure.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "scalinglab/plot/gnuplot.hpp"

namespace fs = std::filesystem;

namespace {

TEST(GnuplotText, CommentsStayOnOneLine) {
  using scalinglab::gp_comment;
  EXPECT_EQ(gp_comment("a\nb\rc"), "a b c");
  EXPECT_EQ(gp_comment("ends with \\"), "ends with");
  EXPECT_EQ(gp_comment("two \\\\ "), "two");
}

// gnuplot reads back exactly the neutralised text: a property over random strings, including every
// byte gnuplot treats specially. Run by gnuplot itself, so the test fails if a literal could break
// out of its quotes (a marker) or if text were mangled beyond the documented replacements.
TEST(GnuplotText, LiteralsAreInertAndFaithful) {
  if (!scalinglab::gnuplot_available()) GTEST_SKIP() << "gnuplot not on PATH";
  const fs::path dir = fs::temp_directory_path() / ("scalinglab_test_gptext_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path marker = dir / "marker";
  std::mt19937 rng(7);
  // Tokens, so that the expected reading is known without the code under test: valid UTF-8 is
  // kept, a lone lead byte (invalid: here never followed by its continuation) reads as '?'.
  const std::vector<std::string> tokens = {"a", "b", " ", ";", "'", "\"", "`", "\\", "$", "@", "#", "{", "}", "^",
                                           "_", "&", "~", "(", ")", ",", ".", "\n", "\r", "\t", std::string(1, '\0'),
                                           "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xf0"};
  std::string script, expected;
  for (int i = 0; i < 300; ++i) {
    std::string s, want;
    const int len = static_cast<int>(rng() % 24);
    for (int k = 0; k < len; ++k) {
      const std::string& t = tokens[rng() % tokens.size()];
      s += t;
      if (t == "\xc3" || t == "\xf0") want += '?';
      else if (t.size() == 1 && (static_cast<unsigned char>(t[0]) < 0x20 || t[0] == 0x7f)) want += ' ';
      else if (t == "`") want += "\u2018";
      else if (t == "'") want += "\u2019";
      else want += t;
    }
    const std::string m = marker.string();
    if (i % 10 == 0) s += "`touch " + m + "`", want += "\u2018touch " + m + "\u2018";
    if (i % 10 == 1) s += "\nsystem('touch " + m + "')\n", want += " system(\u2019touch " + m + "\u2019) ";
    if (i % 10 == 2) {  // a lone lead byte swallows the quote after it in gnuplot's reading
      s += "\xc3' . system(\"touch " + m + "\") . '";
      want += "?\u2019 . system(\"touch " + m + "\") . \u2019";
    }
    if (i % 10 == 3) {  // gnuplot's own '' escape breaks when two follow each other
      s += "'' . system(\"touch " + m + "\") . ''";
      want += "\u2019\u2019 . system(\"touch " + m + "\") . \u2019\u2019";
    }
    script += "print " + scalinglab::gp_string(s) + "\n";
    expected += want + "\n";
  }
  // Comments: a trailing backslash must not swallow the next line.
  script += "# " + scalinglab::gp_comment("note \\") + "\nprint 'after comment'\n";
  expected += "after comment\n";
  std::ofstream(dir / "t.gp") << script;
  std::ofstream(dir / "run.gp") << "set print '-'\nload 't.gp'\n";
  FILE* p = ::popen(("cd '" + dir.string() + "' && gnuplot run.gp 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string got;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) got += buf;
  EXPECT_EQ(::pclose(p), 0) << got;
  EXPECT_EQ(got, expected);
  EXPECT_FALSE(fs::exists(marker));
  fs::remove_all(dir);
}


// A gnuplot that fails after writing an empty SVG: neither figure is left, not even an older PNG.
TEST(GnuplotRun, AFailedScriptLeavesNoHalfFigure) {
  const fs::path dir = fs::temp_directory_path() / ("scalinglab_test_gprun_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  std::ofstream(dir / "bin" / "gnuplot") << "#!/bin/sh\n: > plot.svg\necho 'line 3: boom' >&2\nexit 1\n";
  fs::permissions(dir / "bin" / "gnuplot", fs::perms::owner_all);
  std::ofstream(dir / "plot.png") << "an older figure";
  std::ofstream(dir / "plot.gp") << "plot x\n";
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (dir / "bin").c_str(), 1);
  ::testing::internal::CaptureStderr();
  const bool drawn = scalinglab::run_gnuplot_script(dir.string(), "plot");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_FALSE(drawn);
  EXPECT_NE(err.find("boom"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "plot.svg"));
  EXPECT_FALSE(fs::exists(dir / "plot.png"));
  EXPECT_TRUE(fs::exists(dir / "plot.gp"));  // the script stays, to be fixed and rerun
  fs::remove_all(dir);
}

// A gnuplot that writes the SVG and the PNG but not the PDF has failed too: no figure is kept.
TEST(GnuplotRun, AMissingPdfCountsAsAFailure) {
  const fs::path dir = fs::temp_directory_path() / ("scalinglab_test_gppdf_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  std::ofstream(dir / "bin" / "gnuplot") << "#!/bin/sh\necho '<svg/>' > plot.svg\necho png > plot.png\nexit 0\n";
  fs::permissions(dir / "bin" / "gnuplot", fs::perms::owner_all);
  std::ofstream(dir / "plot.gp") << "plot x\n";
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (dir / "bin").c_str(), 1);
  ::testing::internal::CaptureStderr();
  const bool drawn = scalinglab::run_gnuplot_script(dir.string(), "plot");
  ::testing::internal::GetCapturedStderr();
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_FALSE(drawn);
  EXPECT_FALSE(fs::exists(dir / "plot.svg"));
  EXPECT_FALSE(fs::exists(dir / "plot.png"));
  fs::remove_all(dir);
}

TEST(SharpenSvgImages, EveryBitmapRendersAsSharpCellsOnce) {
  const fs::path path = fs::temp_directory_path() / ("scalinglab_test_sharp_" + std::to_string(::getpid()) + ".svg");
  const std::string svg =
      "<svg><image x='1' width='2' xlink:href='data:image/png;base64,AA'/><rect/>"
      "<image style='image-rendering:auto' x='3'/></svg>";
  std::ofstream(path) << svg;
  scalinglab::sharpen_svg_images(path.string());
  auto read = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string once = read();
  EXPECT_EQ(once,
            "<svg><image image-rendering='optimizeSpeed' style='image-rendering:pixelated' x='1' width='2' "
            "xlink:href='data:image/png;base64,AA'/><rect/><image style='image-rendering:auto' x='3'/></svg>");
  scalinglab::sharpen_svg_images(path.string());  // already sharp: unchanged
  EXPECT_EQ(read(), once);
  fs::remove(path);
  scalinglab::sharpen_svg_images(path.string());  // a missing file is left alone
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
