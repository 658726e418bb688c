#pragma once
// Help text and JSON generated from a measure's declaration (for `describe`, docs and Python).
#include <nlohmann/json.hpp>
#include <string>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

std::string describe_text(const Measure& m);
nlohmann::json describe_json(const Measure& m);
// Markdown reference of every measure (docs/measures.md is generated from this).
std::string describe_markdown(const Registry& r);

}  // namespace scalinglab
