// A pass's options as typed data: each option names its kind, its accepted values and the member
// of the pass's option struct it sets; the struct's initializers are the defaults. A pipeline's
// text is parsed into that struct once (parse_options), with errors naming the pass and option.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cfr::passes {

class PipelineError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The options of one pass as a pipeline writes them: name -> value.
using PassOptions = std::map<std::string, std::string>;

enum class OptionKind {
    Bool,          // true or false
    Enum,          // one of its named values
    Integer,       // a whole number, at least a minimum
    IntegerOrNone, // a whole number, at least a minimum, or none
    Text,          // any text
};

struct OptionInfo {
    std::string name;
    std::string description;
    OptionKind kind = OptionKind::Text;
    std::vector<std::string> values; // the accepted values of a Bool or Enum; empty otherwise
    std::string default_value;
};

// What a value failed to be ("takes one of: true, false"); parse_options adds pass and option.
class OptionValueError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

template <class T>
struct Option {
    OptionInfo info;
    std::function<void(T&, std::string_view)> set; // throws OptionValueError
};

// The value of a Bool or Enum option's text: the index of `text` in `values`.
size_t named_value(const std::vector<std::string>& values, std::string_view text);
inline constexpr int64_t kAnyInteger = std::numeric_limits<int64_t>::min();

// The value of an Integer option's text, at least `minimum`.
int64_t integer_value(std::string_view text, int64_t minimum);
// Applies one written option, turning an OptionValueError or an unknown name into a PipelineError
// that names the pass and the option.
void apply_option(std::string_view pass, const std::vector<OptionInfo>& options,
                  const std::string& name, const std::string& value,
                  const std::function<void(size_t option, std::string_view value)>& set);

template <class T>
Option<T> flag(std::string name, std::string description, bool T::*member) {
    const bool initial = T{}.*member;
    return {{std::move(name),
             std::move(description),
             OptionKind::Bool,
             {"true", "false"},
             initial ? "true" : "false"},
            [member](T& options, std::string_view text) {
                options.*member = named_value({"true", "false"}, text) == 0;
            }};
}

// An option of named values, in the order they are listed.
template <class T, class E>
Option<T> choice(std::string name, std::string description, E T::*member,
                 std::vector<std::pair<std::string, E>> values) {
    OptionInfo info{std::move(name), std::move(description), OptionKind::Enum, {}, {}};
    for (const auto& [text, value] : values) {
        info.values.push_back(text);
        if (value == T{}.*member) info.default_value = text;
    }
    auto set = [member, values, names = info.values](T& options, std::string_view text) {
        options.*member = values[named_value(names, text)].second;
    };
    return {std::move(info), std::move(set)};
}

template <class T, class N>
Option<T> integer(std::string name, std::string description, N T::*member, int64_t minimum) {
    return {{std::move(name),
             std::move(description),
             OptionKind::Integer,
             {},
             std::to_string(T{}.*member)},
            [member, minimum](T& options, std::string_view text) {
                options.*member = static_cast<N>(integer_value(text, minimum));
            }};
}

template <class T, class N>
Option<T> integer_or_none(std::string name, std::string description, std::optional<N> T::*member,
                          int64_t minimum) {
    const auto initial = T{}.*member;
    return {{std::move(name),
             std::move(description),
             OptionKind::IntegerOrNone,
             {},
             initial ? std::to_string(*initial) : "none"},
            [member, minimum](T& options, std::string_view text) {
                if (text == "none")
                    options.*member = std::nullopt;
                else
                    options.*member = static_cast<N>(integer_value(text, minimum));
            }};
}

template <class T>
Option<T> text(std::string name, std::string description, std::string T::*member) {
    return {{std::move(name), std::move(description), OptionKind::Text, {}, T{}.*member},
            [member](T& options, std::string_view text) { options.*member = std::string(text); }};
}

template <class T>
std::vector<OptionInfo> option_infos(const std::vector<Option<T>>& options) {
    std::vector<OptionInfo> out;
    for (const auto& option : options)
        out.push_back(option.info);
    return out;
}

// The typed options of a pass from those a pipeline wrote; the struct's defaults for the others.
template <class T>
T parse_options(std::string_view pass, const std::vector<Option<T>>& options,
                const PassOptions& written) {
    T parsed{};
    const auto infos = option_infos(options);
    for (const auto& [name, value] : written)
        apply_option(pass, infos, name, value,
                     [&](size_t k, std::string_view v) { options[k].set(parsed, v); });
    return parsed;
}

} // namespace cfr::passes
