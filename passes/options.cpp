#include "passes/options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

namespace cfr::passes {

size_t named_value(const std::vector<std::string>& values, std::string_view text) {
    const auto it = std::find(values.begin(), values.end(), text);
    if (it == values.end())
        throw OptionValueError(fmt::format("takes one of: {}", fmt::join(values, ", ")));
    return size_t(it - values.begin());
}

int64_t integer_value(std::string_view text, int64_t minimum) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && !text.empty() &&
        value >= minimum)
        return value;
    if (minimum == kAnyInteger) throw OptionValueError("takes an integer");
    if (minimum == 0) throw OptionValueError("takes a non-negative number");
    throw OptionValueError(fmt::format("takes a number of at least {}", minimum));
}

void apply_option(std::string_view pass, const std::vector<OptionInfo>& options,
                  const std::string& name, const std::string& value,
                  const std::function<void(size_t option, std::string_view value)>& set) {
    for (size_t k = 0; k < options.size(); ++k) {
        if (options[k].name != name) continue;
        try {
            set(k, value);
        } catch (const OptionValueError& e) {
            const bool none = options[k].kind == OptionKind::IntegerOrNone;
            throw PipelineError(fmt::format("option '{}' of pass '{}' {}{} (got '{}')", name, pass,
                                            e.what(), none ? " or none" : "", value));
        }
        return;
    }
    std::vector<std::string> names;
    for (const auto& option : options)
        names.push_back(option.name);
    throw PipelineError(
        fmt::format("pass '{}' has no option '{}'; its options: {}", pass, name,
                    names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", "))));
}

} // namespace cfr::passes
