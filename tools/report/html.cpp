// Escaping and JSON field access for the HTML report.
#include "tools/report/html.hpp"

#include "tools/report/divergence_lines.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace cfr::report {

std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string anchor(std::string_view prefix, std::string_view text) {
    std::string out(prefix);
    for (const char c : text)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    return out;
}

std::string text_of(const nlohmann::json& j, const char* key, std::string fallback) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    const auto& v = j[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean() || v.is_number()) return v.dump();
    return fallback;
}

double number_of(const nlohmann::json& j, const char* key, double fallback) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
    return j[key].get<double>();
}

std::string dims_of(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_array() || j[key].size() != 3) return "-";
    const auto& d = j[key];
    return fmt::format("{}x{}x{}", d[0].dump(), d[1].dump(), d[2].dump());
}

std::string ns_text(double ns) {
    return grouped(static_cast<uint64_t>(std::llround(std::max(ns, 0.0))));
}

} // namespace cfr::report
