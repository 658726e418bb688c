// User text made inert for the reader it is written for (see text_escape.hpp).
#include "scalinglab/core/text_escape.hpp"

#include <cstdio>

#include "scalinglab/core/utf8.hpp"

namespace scalinglab {

namespace {

// One character of a text: a well-formed UTF-8 sequence, or a single byte that is none.
struct TextPiece {
  std::string_view bytes;
  bool invalid = false;  // a byte that starts no well-formed sequence
  bool c0 = false;       // U+0000-U+001F or DEL
  bool c1 = false;       // U+0080-U+009F
};

TextPiece text_piece_at(std::string_view text, std::size_t at) {
  const std::size_t len = utf8_sequence_length(text, at);
  TextPiece p;
  p.bytes = text.substr(at, len ? len : 1);
  const auto c = static_cast<unsigned char>(text[at]);
  p.invalid = len == 0;
  p.c0 = len == 1 && (c < 0x20 || c == 0x7F);
  p.c1 = len == 2 && c == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
  return p;
}

// Calls f(piece) for every character of `text`.
template <typename F>
void for_each_text_piece(std::string_view text, F&& f) {
  for (std::size_t i = 0; i < text.size();) {
    const TextPiece p = text_piece_at(text, i);
    f(p);
    i += p.bytes.size();
  }
}

// \xNN for a control or a byte that is not UTF-8, \u00NN for a C1 control.
std::string escaped_form(const TextPiece& p) {
  char buf[16];
  if (p.c1) std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(static_cast<unsigned char>(p.bytes[1])));
  else std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(p.bytes[0])));
  return buf;
}

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// What markdown_text escapes with a backslash: it would open or close a code span, a link, an image
// or a table cell (and the backslash itself, which would escape what follows).
constexpr std::string_view kMarkdownEscaped = "\\`|[]";

}  // namespace

std::string unprintable_reason(std::string_view text) {
  std::string reason;
  for_each_text_piece(text, [&](const TextPiece& p) {
    if (!reason.empty()) return;
    char buf[64];
    const auto b = static_cast<unsigned>(static_cast<unsigned char>(p.bytes[0]));
    if (p.invalid) std::snprintf(buf, sizeof buf, "a byte 0x%02X that is not UTF-8", b);
    else if (p.c0) std::snprintf(buf, sizeof buf, "the control character 0x%02X", b);
    else if (p.c1)
      std::snprintf(buf, sizeof buf, "the control character U+%04X",
                    static_cast<unsigned>(static_cast<unsigned char>(p.bytes[1])));
    else return;
    reason = buf;
  });
  return reason;
}

bool is_number_text(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  std::string lower;
  for (char c : s) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (lower == "inf" || lower == "infinity" || lower == "nan") return true;
  std::size_t i = 0, digits = 0;
  while (i < s.size() && is_ascii_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && is_ascii_digit(s[i]); ++i) ++digits;
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exponent = 0;
    while (i < s.size() && is_ascii_digit(s[i])) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == s.size();
}

std::string csv_cell(std::string_view text) {
  std::string cell;
  // OWASP's list of the characters that start a formula in Excel, LibreOffice and Google Sheets.
  if (!text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos && !is_number_text(text))
    cell += '\'';
  cell += text;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string markdown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_text_piece(text, [&](const TextPiece& p) {
    const char c = p.bytes[0];
    if (p.c0 && (c == '\n' || c == '\r' || c == '\t')) out += ' ';
    else if (p.invalid || p.c0 || p.c1) out += escaped_form(p);
    else if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (kMarkdownEscaped.find(c) != std::string_view::npos) out += std::string("\\") + c;
    else out += p.bytes;
  });
  return out;
}

std::string markdown_unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = text.substr(i);
    if (text[i] == '\\' && i + 1 < text.size() && kMarkdownEscaped.find(text[i + 1]) != std::string_view::npos) {
      out += text[++i];
    } else if (rest.substr(0, 5) == "&amp;") {
      out += '&', i += 4;
    } else if (rest.substr(0, 4) == "&lt;") {
      out += '<', i += 3;
    } else if (rest.substr(0, 4) == "&gt;") {
      out += '>', i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string markdown_code(std::string_view text, bool table_cell) {
  std::string body;
  std::size_t run = 0, longest = 0;
  for_each_text_piece(text, [&](const TextPiece& p) {
    const char c = p.bytes[0];
    run = c == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
    if (p.c0 && (c == '\n' || c == '\r' || c == '\t')) body += ' ';
    else if (p.invalid || p.c0 || p.c1) body += escaped_form(p);
    else if (c == '|' && table_cell) body += "\\|";
    else body += p.bytes;
  });
  if (body.empty()) return body;
  const std::string fence(longest + 1, '`');
  // CommonMark strips one space from each end of a span that starts and ends with one.
  const bool pad = body.front() == '`' || body.back() == '`' || (body.front() == ' ' && body.back() == ' ');
  const std::string space = pad ? " " : "";
  return fence + space + body + space + fence;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_text_piece(text, [&](const TextPiece& p) {
    const char c = p.bytes[0];
    if ((p.c0 && c != '\n' && c != '\t') || p.invalid || p.c1) out += escaped_form(p);
    else out += p.bytes;
  });
  return out;
}

}  // namespace scalinglab
