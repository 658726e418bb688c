#pragma once
// Durations as people write them on a command line: "90", "90s", "10m", "1.5h", "2d" (a bare
// number is seconds).
#include <string>

namespace scalinglab {

// Seconds; InputError naming `option` for anything else (negative, not finite, an unknown unit).
double parse_duration(const std::string& text, const std::string& option);

}  // namespace scalinglab
