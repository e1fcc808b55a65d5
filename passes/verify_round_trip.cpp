// The verifier's round trip (ARCHITECTURE.md invariant 1): the module as write_back() would
// leave it is printed, parsed again and compared with itself; the first difference is reported.
#include "passes/module_unit.hpp"
#include "passes/verify.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace cfr::passes {
namespace {

ptx::Function* defined_function(ptx::Module& module, const std::string& name) {
    for (auto& item : module.items)
        if (auto* f = std::get_if<ptx::Function>(&item); f && f->body && f->name == name) return f;
    return nullptr;
}

// A copy of the module with every function's body (which the unit holds meanwhile) and the new
// module variables in place, as ModuleUnit::write_back() would write them.
ptx::Module current_module(ModuleUnit& unit) {
    ptx::Module module = unit.module();
    for (const auto& function : unit.functions()) {
        ptx::Function* f = defined_function(module, function.function().name);
        if (!f) continue;
        std::vector<ptx::Statement> body(function.new_declarations().begin(),
                                         function.new_declarations().end());
        auto laid_out = ptx::layout(function.cfg());
        body.insert(body.end(), std::make_move_iterator(laid_out.begin()),
                    std::make_move_iterator(laid_out.end()));
        f->body = std::move(body);
    }
    const auto first_function =
        std::find_if(module.items.begin(), module.items.end(), [](const ptx::TopLevel& item) {
            return std::holds_alternative<ptx::Function>(item);
        });
    module.items.insert(first_function, unit.module_variables().begin(),
                        unit.module_variables().end());
    return module;
}

std::string describe(const ptx::Statement& s) {
    std::string text;
    if (const auto* in = std::get_if<ptx::Instruction>(&s)) text = ptx::print(*in);
    if (const auto* label = std::get_if<ptx::Label>(&s)) text = label->name + ":";
    if (const auto* v = ptx::variable_of(s))
        text = fmt::format("{} {} {}", ptx::spelling(v->space), v->type.spelling(), v->name);
    if (const auto* d = std::get_if<ptx::Directive>(&s)) text = d->name + " " + d->text;
    if (std::holds_alternative<ptx::Scope>(s)) text = "{ ... }";
    std::replace(text.begin(), text.end(), '\t', ' ');
    return "'" + text + "'";
}

std::string operand_kinds(const ptx::Instruction& in) {
    std::string out;
    for (const auto& op : in.operands)
        out += fmt::format("{}{}", out.empty() ? "" : " ", static_cast<int>(op.kind));
    return out;
}

// Where two versions of a function differ.
std::string function_difference(const ptx::Function& printed, const ptx::Function& parsed) {
    if (!printed.body || !parsed.body || printed.params != parsed.params ||
        printed.returns != parsed.returns || printed.performance != parsed.performance ||
        printed.linkage != parsed.linkage || printed.is_entry != parsed.is_entry)
        return "its header reads back differently";
    const auto& a = *printed.body;
    const auto& b = *parsed.body;
    const auto [x, y] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (x == a.end())
        return fmt::format("{} more statements read back after its last", b.end() - y);
    if (y == b.end()) return fmt::format("statement {} {} is lost", x - a.begin(), describe(*x));
    std::string detail =
        fmt::format("statement {} {} reads back as {}", x - a.begin(), describe(*x), describe(*y));
    const auto* i = std::get_if<ptx::Instruction>(&*x);
    const auto* j = std::get_if<ptx::Instruction>(&*y);
    if (i && j && describe(*x) == describe(*y))
        detail += fmt::format(" (operand kinds {} read back as {})", operand_kinds(*i),
                              operand_kinds(*j));
    return detail;
}

Violation difference(const ptx::Module& printed, const ptx::Module& parsed) {
    if (printed.version != parsed.version || printed.target != parsed.target ||
        printed.address_size != parsed.address_size)
        return {Check::RoundTrip, "", true, "the module header reads back differently"};
    const auto& a = printed.items;
    const auto& b = parsed.items;
    const auto [x, y] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (x == a.end() || y == b.end())
        return {Check::RoundTrip, "", true,
                fmt::format("{} top-level items printed, {} read back", a.size(), b.size())};
    const auto* f = std::get_if<ptx::Function>(&*x);
    const auto* g = std::get_if<ptx::Function>(&*y);
    if (f && g && f->name == g->name)
        return {Check::RoundTrip, f->name, f->is_entry, function_difference(*f, *g)};
    return {Check::RoundTrip, f ? f->name : "", !f || f->is_entry,
            fmt::format("top-level item {} reads back differently", x - a.begin())};
}

// The function a parse error's line falls in: the last one that begins before it.
std::string function_at_line(const std::string& text, uint32_t line, const ptx::Module& module) {
    std::string found;
    uint32_t at = 1;
    size_t pos = 0;
    std::vector<std::string_view> names;
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<ptx::Function>(&item); f && f->body)
            names.push_back(f->name);
    size_t next = 0;
    while (pos < text.size() && at <= line && next < names.size()) {
        const size_t end = std::min(text.find('\n', pos), text.size());
        const std::string_view row(text.data() + pos, end - pos);
        if ((row.find(".entry") != std::string_view::npos ||
             row.find(".func") != std::string_view::npos) &&
            row.find(names[next]) != std::string_view::npos)
            found = names[next++];
        pos = end + 1;
        ++at;
    }
    return found;
}

} // namespace

std::optional<Violation> check_round_trip(ModuleUnit& unit) {
    const ptx::Module module = current_module(unit);
    const std::string text = ptx::print(module);
    ptx::Module parsed;
    try {
        parsed = ptx::parse(text, "printed.ptx");
    } catch (const ptx::ParseError& e) {
        const std::string function = function_at_line(text, e.line(), module);
        bool entry = true;
        for (const auto& item : module.items)
            if (const auto* f = std::get_if<ptx::Function>(&item); f && f->name == function)
                entry = f->is_entry;
        return Violation{Check::RoundTrip, function, entry,
                         fmt::format("the printed module does not parse: {}", e.what())};
    }
    if (parsed == module) return std::nullopt;
    return difference(module, parsed);
}

} // namespace cfr::passes
