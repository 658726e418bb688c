#pragma once
// The one place where text and processes meet gnuplot. Any text that reaches a gnuplot script
// (titles, labels, legends, comments) comes from sweep files, parameters or CSV headers and is
// untrusted: gnuplot runs shell commands from backquotes in double-quoted strings and reads a
// newline as the end of a command, so an unescaped title could run `system("...")`. Scripts
// therefore only ever contain text made safe here, and gnuplot is started without a shell.
#include <string>
#include <string_view>

#include "scalinglab/core/utf8.hpp"  // valid_utf8, which every text made safe here passes through

namespace scalinglab {

// A gnuplot string literal holding `text`: single-quoted (gnuplot expands neither backquotes nor
// macros nor backslash escapes there) and holding no quote of its own, so that the first ' gnuplot
// meets is the closing one: ' becomes the typographic ’ (gnuplot's own escape, '', is misread
// when two follow each other: 'a''''b' ends after a'), backquotes become ‘ (inert even if a
// later edit switched to double quotes), control characters (newlines included) become spaces,
// and invalid UTF-8 becomes '?' (gnuplot reads a lead byte such as 0xC3 as the start of a
// character and swallows the byte after it, so "\xC3'" would close the string early).
std::string gp_string(std::string_view text);

// `text` as the body of a one-line `# ...` comment of a script or data file: control characters
// become spaces and a trailing backslash (which continues a gnuplot comment onto the next line) is
// dropped.
std::string gp_comment(std::string_view text);

// Text for an enhanced-mode label with its markup characters (^ _ @ & ~ { }) made literal; pass
// the result through gp_string.
std::string gp_literal_markup(std::string_view text);

// Runs OUT_DIR/NAME.gp with gnuplot inside OUT_DIR (no shell: the directory and name are passed as
// arguments); false (with a warning) when gnuplot is missing, fails, or does not produce all of
// NAME.svg, NAME.png and NAME.pdf. On failure no figure is left behind, so a stale NAME.png never
// sits next to a fresh empty NAME.svg. On success the SVG's bitmaps are sharpened (below).
bool run_gnuplot_script(const std::string& out_dir, const std::string& name);

// Makes the bitmaps gnuplot embeds in an SVG (heat maps drawn `with image`) render as sharp
// cells: a browser otherwise smooths a 10 x 5 matrix scaled to 250 pixels into a blur. Adds
// image-rendering to each <image> element that has none; a missing file is left alone.
void sharpen_svg_images(const std::string& svg_path);

// Prints "scalinglab: warning: WHAT" on stderr: a figure that cannot be drawn never stops a run.
void plot_warning(const std::string& what);

// True when a gnuplot executable is on PATH (plots are skipped, with a warning, otherwise).
bool gnuplot_available();

}  // namespace scalinglab
