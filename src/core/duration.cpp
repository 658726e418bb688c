#include "scalinglab/core/duration.hpp"

#include <cmath>
#include <cstdlib>

#include "scalinglab/core/error.hpp"

namespace scalinglab {

double parse_duration(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return InputError(option + " '" + text + "': give a duration such as 600, 30s, 10m, 1.5h or 2d");
  };
  if (text.empty() || text.size() > 64) throw bad();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) throw bad();
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m" || unit == "min") scale = 60;
  else if (unit == "h") scale = 3600;
  else if (unit == "d") scale = 86400;
  else throw bad();
  const double seconds = v * scale;
  if (!(seconds >= 0) || !std::isfinite(seconds)) throw bad();
  return seconds;
}

}  // namespace scalinglab
