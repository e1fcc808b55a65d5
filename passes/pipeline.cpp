#include "passes/pipeline.hpp"

#include "passes/module_unit.hpp"
#include "passes/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cfr::passes {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string known_passes() {
    std::vector<std::string> names;
    for (const auto& info : registered_passes())
        names.push_back(info.name);
    return names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", "));
}

// Splits on commas that are not inside <...>.
std::vector<std::string_view> split_top_level(std::string_view text) {
    std::vector<std::string_view> parts;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '<') ++depth;
        if (text[i] == '>') --depth;
        if (depth < 0) throw PipelineError(fmt::format("unbalanced '>' in pipeline '{}'", text));
        if (text[i] == ',' && depth == 0) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0) throw PipelineError(fmt::format("unclosed '<' in pipeline '{}'", text));
    parts.push_back(text.substr(start));
    return parts;
}

const PassInfo& pass_named(const std::string& name) {
    const PassInfo* info = find_pass(name);
    if (!info)
        throw PipelineError(
            fmt::format("unknown pass '{}'; known passes: {}", name, known_passes()));
    return *info;
}

// The spec's typed options; parsed here only for a spec the parser did not make.
std::any typed_options(const PassInfo& info, const PassSpec& spec) {
    return spec.parsed.has_value() ? spec.parsed : info.parse(spec.options);
}

PassSpec parsed(PassSpec spec) {
    spec.parsed = pass_named(spec.name).parse(spec.options);
    return spec;
}

PassSpec parse_pass(std::string_view text) {
    text = trim(text);
    PassSpec spec;
    const size_t open = text.find('<');
    spec.name = std::string(trim(text.substr(0, open)));
    pass_named(spec.name);
    if (open == std::string_view::npos) return parsed(std::move(spec));
    if (text.back() != '>')
        throw PipelineError(fmt::format("expected '>' at the end of '{}'", text));
    const auto body = text.substr(open + 1, text.size() - open - 2);
    for (auto item : split_top_level(body)) {
        item = trim(item);
        const size_t eq = item.find('=');
        if (item.empty() || eq == std::string_view::npos)
            throw PipelineError(fmt::format("options of pass '{}' are written key=value, got '{}'",
                                            spec.name, item));
        spec.options[std::string(trim(item.substr(0, eq)))] =
            std::string(trim(item.substr(eq + 1)));
    }
    return parsed(std::move(spec));
}

// What the pass manager compares to tell which functions a pass changed.
struct FunctionMark {
    unsigned version;
    bool changed;
    size_t declarations;

    explicit FunctionMark(const FunctionUnit& f)
        : version(f.version()), changed(f.changed()), declarations(f.new_declarations().size()) {}
    bool operator==(const FunctionMark&) const = default;
};

std::vector<FunctionMark> marks(ModuleUnit& unit) {
    std::vector<FunctionMark> out;
    for (const auto& function : unit.functions())
        out.emplace_back(function);
    return out;
}

std::vector<std::string> functions_changed(ModuleUnit& unit,
                                           const std::vector<FunctionMark>& before) {
    std::vector<std::string> out;
    const auto& functions = unit.functions();
    for (size_t i = 0; i < functions.size(); ++i)
        if (i >= before.size() || !(FunctionMark(functions[i]) == before[i]))
            out.push_back(functions[i].function().name);
    return out;
}

} // namespace

std::string PassSpec::spelling() const {
    if (options.empty()) return name;
    std::vector<std::string> items;
    for (const auto& [key, value] : options)
        items.push_back(key + "=" + value);
    return fmt::format("{}<{}>", name, fmt::join(items, ","));
}

std::string spelling(const std::vector<PassSpec>& pipeline) {
    std::vector<std::string> parts;
    for (const auto& spec : pipeline)
        parts.push_back(spec.spelling());
    return fmt::format("{}", fmt::join(parts, ","));
}

std::vector<PassSpec> parse_pipeline(std::string_view text) {
    std::vector<PassSpec> pipeline;
    if (trim(text).empty()) return pipeline;
    for (const auto part : split_top_level(text)) {
        if (trim(part).empty())
            throw PipelineError(fmt::format("empty pass name in pipeline '{}'", text));
        pipeline.push_back(parse_pass(part));
    }
    check_requirements(pipeline);
    return pipeline;
}

PassSpec with_option(const PassSpec& spec, const std::string& option, const std::string& value) {
    PassSpec out = spec;
    out.options[option] = value;
    return parsed(std::move(out));
}

Contract contract_of(const PassSpec& spec) {
    const PassInfo& info = pass_named(spec.name);
    return info.contract(typed_options(info, spec));
}

std::vector<PassReport> run_pipeline(ptx::Module& module, const std::vector<PassSpec>& pipeline,
                                     VerifyLevel verify, const FunctionSelection& only,
                                     std::vector<ptx::CfgPlan> plans) {
    std::vector<PassReport> reports;
    if (pipeline.empty()) return reports;
    check_requirements(pipeline);
    ModuleUnit unit(module, std::move(plans), only);
    Verifier verifier(verify);
    for (const auto& spec : pipeline) {
        const PassInfo& info = pass_named(spec.name);
        const std::any options = typed_options(info, spec);
        const Contract contract = info.contract(options);
        auto pass = info.create(options);
        verifier.required(unit, spec.spelling(), contract.requirements);
        verifier.before(unit, contract.promise);
        const std::vector<FunctionMark> before = marks(unit);
        PassReport report = pass->run(unit);
        report.pass = spec.spelling();
        report.functions_changed = functions_changed(unit, before);
        verifier.after(unit, report.pass, contract.promise);
        reports.push_back(std::move(report));
    }
    unit.write_back();
    return reports;
}

} // namespace cfr::passes
