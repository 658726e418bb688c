#pragma once
// Text from files and parameters that reaches a script, a page or a path must be well-formed UTF-8:
// a stray lead byte swallows the byte after it in gnuplot, and a folder name must print as it is.
#include <string>
#include <string_view>

namespace scalinglab {

// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by '?'.
std::string valid_utf8(std::string_view text);

}  // namespace scalinglab
