#pragma once
// Text from files and parameters that reaches a script, a page or a path must be well-formed UTF-8:
// a stray lead byte swallows the byte after it in gnuplot, and a folder name must print as it is.
#include <cstddef>
#include <string>
#include <string_view>

namespace scalinglab {

// The length (1 to 4) of the well-formed UTF-8 sequence starting at text[at], or 0 when the byte
// there starts none (a continuation byte, a truncated sequence, an overlong form, a surrogate, a
// code point past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by '?'.
std::string valid_utf8(std::string_view text);

}  // namespace scalinglab
