#include "ptx/dot.hpp"

#include "ptx/printer.hpp"

namespace cfr::ptx {

namespace {

std::string escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\l";
            continue;
        }
        out += c;
    }
    return out;
}

std::string line_of(const Statement& s) {
    if (const auto* i = std::get_if<Instruction>(&s)) return "    " + print(*i);
    if (const auto* l = std::get_if<Label>(&s)) return l->name + ":";
    if (const auto* d = std::get_if<Directive>(&s)) {
        if (d->name == ".loc" || d->name == ".pragma") return {};
        return "    " + d->name + " " + d->text;
    }
    if (const auto* scope = std::get_if<Scope>(&s))
        return "    { " + std::to_string(scope->statements.size()) + " statements }";
    return {};
}

const char* style(EdgeKind kind) {
    switch (kind) {
    case EdgeKind::Taken:
        return "style=solid";
    case EdgeKind::FallThrough:
        return "style=dashed";
    case EdgeKind::Indirect:
        return "style=bold, color=blue";
    case EdgeKind::Exit:
        return "style=dotted";
    }
    return "";
}

} // namespace

std::string to_dot(const Cfg& cfg, std::string_view function_name) {
    std::string out = "digraph \"" + escape(function_name) + "\" {\n";
    out += "    node [shape=box, fontname=\"monospace\"];\n";
    for (BlockId b = 0; b < cfg.blocks.size(); ++b) {
        std::string text = "B" + std::to_string(b) + "\n";
        for (const Statement& s : cfg.blocks[b].statements)
            if (std::string line = line_of(s); !line.empty()) text += line + "\n";
        out += "    b" + std::to_string(b) + " [label=\"" + escape(text) + "\"];\n";
    }
    out += "    b" + std::to_string(cfg.exit()) + " [label=\"exit\", shape=oval];\n";
    for (const CfgEdge& e : cfg.edges)
        out += "    b" + std::to_string(e.from) + " -> b" + std::to_string(e.to) + " [" +
               style(e.kind) + "];\n";
    out += "}\n";
    return out;
}

} // namespace cfr::ptx
