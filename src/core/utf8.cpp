// Well-formed UTF-8 (see utf8.hpp).
#include "scalinglab/core/utf8.hpp"

namespace scalinglab {

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  if (at >= text.size()) return 0;
  const auto c = static_cast<unsigned char>(text[at]);
  const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  bool ok = len > 0 && at + len <= text.size() && c != 0xC0 && c != 0xC1 && c < 0xF5;
  for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[at + k]) & 0xC0) == 0x80;
  if (ok && len == 3) {  // no overlong forms, no surrogates
    const auto c1 = static_cast<unsigned char>(text[at + 1]);
    ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
  }
  if (ok && len == 4) {
    const auto c1 = static_cast<unsigned char>(text[at + 1]);
    ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
  }
  return ok ? len : 0;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (const std::size_t len = utf8_sequence_length(text, i)) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

}  // namespace scalinglab
