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

// Thrown by json_depth_limit()'s callback when a value starts deeper than kMaxJsonDepth.
struct JsonTooDeep {};

// A callback for nlohmann::json::parse that stops the parser at kMaxJsonDepth, before it builds
// anything deeper (parse_json's bound, for readers with messages of their own).
nlohmann::json::parser_callback_t json_depth_limit();

// Parses `text`; InputError "WHERE: malformed JSON (...)" naming the byte, or "nested deeper than 64".
nlohmann::json parse_json(std::string_view text, const std::string& where);

// The library's message without its bracketed identifier: "cannot use at() with array".
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace scalinglab
