// Well-formed UTF-8: every character kept, every broken byte replaced.
#include <gtest/gtest.h>

#include "scalinglab/core/utf8.hpp"

namespace {

TEST(GnuplotText, ValidUtf8KeepsCharactersAndReplacesEveryBrokenByte) {
  using scalinglab::valid_utf8;
  EXPECT_EQ(valid_utf8("plain \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "plain \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(valid_utf8("\xc3"), "?");            // lead byte at the end
  EXPECT_EQ(valid_utf8("\xc3'"), "?'");          // lead byte before a quote
  EXPECT_EQ(valid_utf8("\xa9x"), "?x");          // lone continuation byte
  EXPECT_EQ(valid_utf8("\xe2\x82'"), "??" "'");  // truncated three-byte sequence (split: as one literal, a trigraph)
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "??");       // overlong '/'
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "???");  // a UTF-16 surrogate
  EXPECT_EQ(valid_utf8("\xf5\x80\x80\x80"), "????");  // past U+10FFFF
}

}  // namespace
