// Small helpers for writing HTML text: escaping, and reading a JSON report's fields with defaults.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace cfr::report {

// Text and attribute values: & < > " ' escaped.
std::string escape(std::string_view text);

// An id attribute's value made of `text`: letters, digits, '-' and '_' kept, others as '_'.
std::string anchor(std::string_view prefix, std::string_view text);

// A field of a JSON object, or `fallback` when it is missing or of another type.
std::string text_of(const nlohmann::json& j, const char* key, std::string fallback = "");
double number_of(const nlohmann::json& j, const char* key, double fallback = 0);

// "128x1x1" from [128,1,1]; "-" when it is not such a list.
std::string dims_of(const nlohmann::json& j, const char* key);

// Nanoseconds rounded, digits grouped: "1,234,567".
std::string ns_text(double ns);

} // namespace cfr::report
