// The PTX linker: renames clashing internal symbols per input, renumbers .file directives, picks
// one definition per symbol, and lays the items out so that every symbol is declared before use:
// a variable's definition moves to its first declaration, a function gets a prototype there.
#include "ptx/link.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace cfr::ptx {
namespace {

enum class Linkage { Internal, Extern, Weak, Visible };

bool has(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

Linkage linkage_of(const std::vector<std::string>& linkage) {
    if (has(linkage, ".extern")) return Linkage::Extern;
    if (has(linkage, ".visible")) return Linkage::Visible;
    if (has(linkage, ".weak") || has(linkage, ".common")) return Linkage::Weak;
    return Linkage::Internal;
}

struct Named {
    std::string name;
    bool function = false;
    bool definition = false;
    Linkage linkage = Linkage::Internal;
    bool dynamic_shared = false; // `.extern .shared x[]`: the launch's dynamic shared memory
};

std::optional<Named> named(const TopLevel& item) {
    if (const auto* f = std::get_if<Function>(&item))
        return Named{f->name, true, f->body.has_value(), linkage_of(f->linkage)};
    if (const auto* v = std::get_if<Variable>(&item)) {
        const Linkage l = linkage_of(v->linkage);
        return Named{v->name, false, l != Linkage::Extern, l,
                     l == Linkage::Extern && v->space == StateSpace::Shared};
    }
    return std::nullopt;
}

// ---- renaming ---------------------------------------------------------------------------------

using Renames = std::map<std::string, std::string, std::less<>>;

bool identifier_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Renames whole identifiers in free text (initializers, directives), leaving strings alone.
std::string rename_in_text(const std::string& text, const Renames& renames) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (text[i] == '"') {
            const size_t close = text.find('"', i + 1);
            const size_t end = close == std::string::npos ? text.size() : close + 1;
            out.append(text, i, end - i);
            i = end;
        } else if (identifier_start(text[i]) && (i == 0 || !identifier_char(text[i - 1]))) {
            size_t end = i + 1;
            while (end < text.size() && identifier_char(text[end]))
                ++end;
            const std::string_view word(text.data() + i, end - i);
            const auto it = renames.find(word);
            out.append(it == renames.end() ? word : std::string_view(it->second));
            i = end;
        } else {
            out.push_back(text[i++]);
        }
    }
    return out;
}

struct BodyRenamer {
    const Renames& renames;
    std::set<std::string, std::less<>> locals; // declared in the function: never renamed

    void operand(Operand& op) const {
        if (op.kind == Operand::Kind::Symbol) {
            const size_t dot = op.text.find('.');
            const std::string_view base = std::string_view(op.text).substr(0, dot);
            const auto it = renames.find(base);
            if (it != renames.end() && !locals.count(base))
                op.text = it->second + (dot == std::string::npos ? "" : op.text.substr(dot));
        }
        for (Operand& e : op.elements)
            operand(e);
    }

    void statements(std::vector<Statement>& body) const {
        for (Statement& s : body) {
            if (auto* ins = std::get_if<Instruction>(&s))
                for (Operand& op : ins->operands)
                    operand(op);
            else if (auto* d = std::get_if<Directive>(&s))
                d->text = rename_in_text(d->text, renames);
            else if (auto* scope = std::get_if<Scope>(&s))
                statements(scope->statements);
        }
    }
};

void collect_locals(const std::vector<Statement>& body, std::set<std::string, std::less<>>& out) {
    for (const Statement& s : body) {
        if (const auto* v = variable_of(s))
            out.insert(v->name);
        else if (const auto* scope = std::get_if<Scope>(&s))
            collect_locals(scope->statements, out);
    }
}

void rename_function(Function& f, const Renames& renames) {
    if (auto it = renames.find(f.name); it != renames.end()) f.name = it->second;
    if (!f.body) return;
    BodyRenamer renamer{renames, {}};
    for (const auto* list : {&f.params, &f.returns})
        for (const Variable& p : *list)
            renamer.locals.insert(p.name);
    collect_locals(*f.body, renamer.locals);
    renamer.statements(*f.body);
}

void rename_module(Module& m, const Renames& renames) {
    if (renames.empty()) return;
    for (TopLevel& item : m.items) {
        if (auto* f = std::get_if<Function>(&item)) {
            rename_function(*f, renames);
        } else if (auto* v = std::get_if<Variable>(&item)) {
            if (auto it = renames.find(v->name); it != renames.end()) v->name = it->second;
            if (v->initializer) v->initializer = rename_in_text(*v->initializer, renames);
        } else if (auto* d = std::get_if<Directive>(&item)) {
            d->text = rename_in_text(d->text, renames);
        }
    }
}

// Internal symbols that clash with any global name or an earlier input's internal one get a
// fresh name: `$str` of the second input becomes `$str$1`.
void rename_internal_symbols(std::vector<LinkInput>& inputs) {
    std::set<std::string, std::less<>> global, taken;
    for (const LinkInput& in : inputs)
        for (const TopLevel& item : in.module.items)
            if (auto n = named(item); n && n->linkage != Linkage::Internal) global.insert(n->name);
    for (size_t i = 0; i < inputs.size(); ++i) {
        Renames renames;
        std::set<std::string, std::less<>> own;
        for (const TopLevel& item : inputs[i].module.items)
            if (auto n = named(item); n && n->linkage == Linkage::Internal) own.insert(n->name);
        for (const std::string& name : own) {
            if (!global.count(name) && !taken.count(name)) {
                taken.insert(name);
                continue;
            }
            std::string fresh = name + "$" + std::to_string(i);
            while (global.count(fresh) || taken.count(fresh) || own.count(fresh))
                fresh += "_";
            taken.insert(fresh);
            renames.emplace(name, std::move(fresh));
        }
        rename_module(inputs[i].module, renames);
    }
}

// ---- libraries --------------------------------------------------------------------------------

struct Interface {
    std::set<std::string> defines;    // visible and weak definitions
    std::set<std::string> references; // extern and visible declarations
};

Interface interface_of(const Module& m) {
    Interface out;
    for (const TopLevel& item : m.items) {
        const auto n = named(item);
        if (!n || n->linkage == Linkage::Internal || n->dynamic_shared) continue;
        (n->definition ? out.defines : out.references).insert(n->name);
    }
    return out;
}

// The inputs that are not libraries, and the libraries that define something they (or libraries
// pulled in before) reference but nothing linked so far defines.
std::vector<LinkInput> needed_inputs(std::vector<LinkInput> inputs) {
    std::vector<Interface> interfaces;
    std::vector<bool> linked;
    std::set<std::string> defined, wanted;
    auto take = [&](size_t i) {
        linked[i] = true;
        defined.insert(interfaces[i].defines.begin(), interfaces[i].defines.end());
        wanted.insert(interfaces[i].references.begin(), interfaces[i].references.end());
    };
    for (const LinkInput& in : inputs) {
        interfaces.push_back(interface_of(in.module));
        linked.push_back(false);
    }
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!inputs[i].library) take(i);
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (linked[i]) continue;
            for (const std::string& name : interfaces[i].defines) {
                if (wanted.count(name) && !defined.count(name)) {
                    take(i);
                    grew = true;
                    break;
                }
            }
        }
    }
    std::vector<LinkInput> out;
    for (size_t i = 0; i < inputs.size(); ++i)
        if (linked[i]) out.push_back(std::move(inputs[i]));
    return out;
}

// ---- debug file numbers -----------------------------------------------------------------------

std::string renumber_first_word(const std::string& text, const std::map<std::string, int>& map) {
    const size_t start = text.find_first_not_of(" \t");
    if (start == std::string::npos) return text;
    const size_t end = std::min(text.find_first_of(" \t", start), text.size());
    const auto it = map.find(text.substr(start, end - start));
    if (it == map.end()) return text;
    return text.substr(0, start) + std::to_string(it->second) + text.substr(end);
}

void renumber_locs(std::vector<Statement>& body, const std::map<std::string, int>& map) {
    for (Statement& s : body) {
        if (auto* d = std::get_if<Directive>(&s); d && d->name == ".loc")
            d->text = renumber_first_word(d->text, map);
        else if (auto* scope = std::get_if<Scope>(&s))
            renumber_locs(scope->statements, map);
    }
}

// Each input numbers its .file directives from 1; the linked module numbers them in sequence.
void renumber_files(std::vector<LinkInput>& inputs) {
    int next = 1;
    for (LinkInput& in : inputs) {
        std::map<std::string, int> map;
        for (TopLevel& item : in.module.items) {
            auto* d = std::get_if<Directive>(&item);
            if (!d || d->name != ".file") continue;
            const size_t start = d->text.find_first_not_of(" \t");
            if (start == std::string::npos) continue;
            const size_t end = std::min(d->text.find_first_of(" \t", start), d->text.size());
            map.emplace(d->text.substr(start, end - start), next++);
            d->text = renumber_first_word(d->text, map);
        }
        for (TopLevel& item : in.module.items)
            if (auto* f = std::get_if<Function>(&item); f && f->body) renumber_locs(*f->body, map);
    }
}

// ---- resolution -------------------------------------------------------------------------------

struct Place {
    size_t input = 0;
    size_t item = 0;
    friend bool operator==(const Place&, const Place&) = default;
};

struct Symbol {
    bool function = false;
    bool dynamic_shared = false;
    std::optional<Place> kept; // the definition that stays
    Linkage kept_linkage = Linkage::Internal;
    std::vector<size_t> referencing_inputs;
};

class Resolver {
public:
    explicit Resolver(const std::vector<LinkInput>& inputs) : inputs_(inputs) {}

    void add(const Named& n, Place at) {
        auto [it, fresh] = symbols_.try_emplace(n.name);
        Symbol& s = it->second;
        if (fresh) {
            s.function = n.function;
            s.dynamic_shared = n.dynamic_shared;
        }
        if (s.function != n.function)
            error("'" + n.name + "' is a function in one input and a variable in another (" +
                  inputs_[at.input].name + ")");
        if (!n.definition) {
            s.referencing_inputs.push_back(at.input);
            return;
        }
        if (!s.kept) {
            s.kept = at;
            s.kept_linkage = n.linkage;
        } else if (n.linkage == Linkage::Visible && s.kept_linkage == Linkage::Visible) {
            error("duplicate definition of '" + n.name + "' in " + inputs_[s.kept->input].name +
                  " and " + inputs_[at.input].name);
        } else if (n.linkage == Linkage::Visible) {
            s.kept = at;
            s.kept_linkage = n.linkage;
        }
    }

    void check_resolved() {
        for (const auto& [name, s] : symbols_) {
            if (s.kept || s.dynamic_shared || is_system_function(name)) continue;
            std::string where;
            for (size_t input : s.referencing_inputs)
                if (where.find(inputs_[input].name) == std::string::npos)
                    where += (where.empty() ? "" : ", ") + inputs_[input].name;
            error("unresolved reference to '" + name + "' in " + where);
        }
        if (!errors_.empty()) throw LinkError("ptx link: " + errors_);
    }

    const Symbol& at(const std::string& name) const { return symbols_.at(name); }

private:
    void error(const std::string& message) { errors_ += (errors_.empty() ? "" : "; ") + message; }

    const std::vector<LinkInput>& inputs_;
    std::map<std::string, Symbol> symbols_;
    std::string errors_;
};

// ---- the linked module's header ---------------------------------------------------------------

std::pair<int, int> version_number(const std::string& v) {
    const size_t dot = v.find('.');
    try {
        return {std::stoi(v.substr(0, dot)),
                dot == std::string::npos ? 0 : std::stoi(v.substr(dot + 1))};
    } catch (const std::exception&) {
        return {0, 0};
    }
}

int sm_number(const std::string& target) {
    try {
        return std::stoi(target.substr(3));
    } catch (const std::exception&) {
        return 0;
    }
}

Module linked_header(const std::vector<LinkInput>& inputs) {
    Module out;
    std::string sm;
    std::vector<std::string> options;
    for (const LinkInput& in : inputs) {
        const Module& m = in.module;
        if (out.version.empty() || version_number(m.version) > version_number(out.version))
            out.version = m.version;
        for (const std::string& t : m.target) {
            if (t.starts_with("sm_")) {
                if (sm.empty() || sm_number(t) > sm_number(sm)) sm = t;
            } else if (!has(options, t)) {
                options.push_back(t);
            }
        }
        if (m.address_size && out.address_size && *m.address_size != *out.address_size)
            throw LinkError("ptx link: " + in.name + " has .address_size " +
                            std::to_string(*m.address_size) + ", other inputs " +
                            std::to_string(*out.address_size));
        if (m.address_size) out.address_size = m.address_size;
    }
    if (!sm.empty()) out.target.push_back(sm);
    out.target.insert(out.target.end(), options.begin(), options.end());
    return out;
}

std::vector<std::string> linkage_words(Linkage l) {
    switch (l) {
    case Linkage::Visible:
        return {".visible"};
    case Linkage::Weak:
        return {".weak"};
    default:
        return {};
    }
}

Function prototype_of(const Function& definition, Linkage linkage) {
    Function p;
    p.is_entry = definition.is_entry;
    p.linkage = linkage_words(linkage);
    p.returns = definition.returns;
    p.params = definition.params;
    p.name = definition.name;
    p.performance = definition.performance;
    p.loc = definition.loc;
    return p;
}

} // namespace

bool is_system_function(std::string_view name) {
    return name == "vprintf" || name == "malloc" || name == "free" || name == "__assertfail" ||
           name == "cudaGraphSetConditional";
}

Module link_modules(std::vector<LinkInput> inputs) {
    inputs = needed_inputs(std::move(inputs));
    if (inputs.empty()) throw LinkError("ptx link: no inputs");
    rename_internal_symbols(inputs);
    renumber_files(inputs);
    std::vector<std::vector<std::optional<Named>>> names(inputs.size());
    Resolver resolver(inputs);
    for (size_t i = 0; i < inputs.size(); ++i) {
        for (size_t j = 0; j < inputs[i].module.items.size(); ++j) {
            names[i].push_back(named(inputs[i].module.items[j]));
            if (names[i][j]) resolver.add(*names[i][j], {i, j});
        }
    }
    resolver.check_resolved();

    // Items move out of the inputs as they are laid out; a variable's definition can move
    // before its own place, so the names were taken above.
    Module out = linked_header(inputs);
    std::set<std::string> declared;
    for (size_t i = 0; i < inputs.size(); ++i) {
        for (size_t j = 0; j < inputs[i].module.items.size(); ++j) {
            TopLevel& item = inputs[i].module.items[j];
            if (!names[i][j]) {
                out.items.push_back(std::move(item));
                continue;
            }
            const Symbol& s = resolver.at(names[i][j]->name);
            const bool first = declared.insert(names[i][j]->name).second;
            if (!s.kept) {
                if (first) out.items.push_back(std::move(item)); // system function, dynamic smem
                continue;
            }
            TopLevel& kept = inputs[s.kept->input].module.items[s.kept->item];
            if (!s.function) {
                if (first) out.items.push_back(std::move(kept));
            } else if (*s.kept == Place{i, j}) {
                out.items.push_back(std::move(item));
            } else if (first) {
                out.items.push_back(prototype_of(std::get<Function>(kept), s.kept_linkage));
            }
        }
    }
    return out;
}

} // namespace cfr::ptx
