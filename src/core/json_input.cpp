#include "scalinglab/core/json_input.hpp"

#include <cctype>

#include "scalinglab/core/error.hpp"

namespace scalinglab {

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0) {
    const auto end = text.find("] ");
    if (end != std::string::npos) text = text.substr(end + 2);
  }
  // "parse error at line 1, column 3: syntax error while parsing value - invalid literal; ..." is kept,
  // lower-cased at its start to read as part of our sentence.
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

nlohmann::json::parser_callback_t json_depth_limit() {
  // The callback sees every value as it starts; refusing at the limit stops the parser before it
  // builds (or recurses through) anything deeper.
  return [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) throw JsonTooDeep{};
    return true;
  };
}

nlohmann::json parse_json(std::string_view text, const std::string& where) {
  try {
    return nlohmann::json::parse(text.begin(), text.end(), json_depth_limit());
  } catch (const JsonTooDeep&) {
    throw InputError(where + ": malformed JSON (nested deeper than " + std::to_string(kMaxJsonDepth) + " levels)");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + ": malformed JSON (" + json_error_text(e) + ")");
  }
}

}  // namespace scalinglab
