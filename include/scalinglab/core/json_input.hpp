#pragma once
// JSON read from files the lab did not just write (a results folder received from someone else, a
// saved fit): nesting is bounded before anything is built, so a line of 10^5 nested brackets is an
// error rather than a stack overflow, and errors read as one sentence of ours, without the library's
// "[json.exception.parse_error.101]" prefix.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace scalinglab {

// Nesting allowed in JSON input: records are 3 levels deep, saved fits a few more.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text`; InputError "WHERE: malformed JSON (...)" naming the byte, or "nested deeper than 64".
nlohmann::json parse_json(std::string_view text, const std::string& where);

// The library's message without its bracketed identifier: "cannot use at() with array".
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace scalinglab
