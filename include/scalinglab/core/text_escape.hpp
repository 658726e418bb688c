#pragma once
// Text from a user (world, design, method and file names, titles, claims) written for another
// reader: a spreadsheet opening a CSV file, a Markdown renderer (GitHub, Jupyter), a terminal. Each
// function makes the text inert for its reader and leaves ordinary text readable: plain ASCII and
// well-formed UTF-8 letters pass unchanged. A control character shown is written as \xNN (C0, DEL,
// a byte that is not UTF-8) or \u00NN (C1).
#include <string>
#include <string_view>

namespace scalinglab {

// Why `text` cannot be written as a name into every output, as a phrase ("a byte 0xFF that is not
// UTF-8", "the control character 0x1B"); empty when it can: well-formed UTF-8 without C0 controls
// (line breaks and tabs included), DEL or C1 controls.
std::string unprintable_reason(std::string_view text);

// Whether `text` is a number as the project writes one: decimal with an optional sign, point and
// exponent (-1.5, 2e+06), or inf, infinity, nan in any case with an optional sign (-inf).
bool is_number_text(std::string_view text);

// One cell of a CSV file (RFC 4180): quoted when it holds a comma, a quote, CR or LF, its quotes
// doubled. A text that a spreadsheet would take for a formula (starting with = + - @, TAB or CR)
// is prefixed with a single quote; a number (is_number_text: -1.5, -inf) is written as it is.
std::string csv_cell(std::string_view text);

// Text inside a Markdown line (a heading, a list item, a table cell): & < > as character
// references, so no HTML tag, comment or entity is formed; \ ` | [ ] escaped with a backslash, so
// no code span, link, image or table cell is opened or closed; line breaks and tabs as spaces.
std::string markdown_text(std::string_view text);

// The text of a cell written by markdown_text, as it was (what a reader of the table needs back).
std::string markdown_unescape(std::string_view text);

// `text` as a Markdown code span: fenced by more backticks than it holds in a row (padded with a
// space when it starts or ends with one), line breaks as spaces; in a table cell, | as \|. HTML is
// not read inside a code span. Empty text gives an empty string.
std::string markdown_code(std::string_view text, bool table_cell = false);

// Text for a terminal: newlines, tabs and printable characters as they are; every other control
// character (C0, DEL, C1: escape sequences that would clear the screen, set the title or the
// clipboard) and every byte that is not UTF-8 shown in the escaped form above.
std::string terminal_text(std::string_view text);

}  // namespace scalinglab
