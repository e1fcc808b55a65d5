// The PTX printer: canonical text close to nvcc's layout (tab-indented statements, labels at
// column 0), in the IR's order.
#include "ptx/printer.hpp"

namespace cfr::ptx {

namespace {

bool is_line_directive(const std::string& name) {
    return name == ".loc" || name == ".file" || name == ".section";
}

void print_operand(std::string& out, const Operand& op);

void print_elements(std::string& out, const Operand& op, const char* sep) {
    for (size_t i = 0; i < op.elements.size(); ++i) {
        if (i) out += sep;
        print_operand(out, op.elements[i]);
    }
}

void print_offset(std::string& out, int64_t offset) {
    if (offset == 0) return;
    out += '+';
    out += std::to_string(offset);
}

void print_operand(std::string& out, const Operand& op) {
    if (op.negated) out += '!';
    switch (op.kind) {
    case Operand::Kind::Address:
        out += '[';
        if (!op.elements.empty()) {
            print_operand(out, op.elements[0]);
            print_offset(out, op.offset);
            for (size_t i = 1; i < op.elements.size(); ++i) {
                out += ", ";
                print_operand(out, op.elements[i]);
            }
        }
        out += ']';
        break;
    case Operand::Kind::Vector:
        out += '{';
        print_elements(out, op, ", ");
        out += '}';
        break;
    case Operand::Kind::List:
        out += '(';
        print_elements(out, op, ", ");
        out += ')';
        break;
    case Operand::Kind::Pair:
        print_elements(out, op, "|");
        break;
    case Operand::Kind::Sink:
        out += '_';
        break;
    default:
        out += op.text;
        print_offset(out, op.offset);
        break;
    }
}

void print_instruction(std::string& out, const Instruction& ins) {
    if (ins.guard) {
        out += '@';
        if (ins.guard->negated) out += '!';
        out += ins.guard->predicate;
        out += ' ';
    }
    out += ins.mnemonic();
    for (const Word m : ins.modifiers)
        out += m.spelling();
    for (size_t i = 0; i < ins.operands.size(); ++i) {
        out += i ? ", " : " \t";
        print_operand(out, ins.operands[i]);
    }
    out += ';';
}

void print_directive(std::string& out, const Directive& d) {
    out += d.name;
    if (!d.text.empty()) {
        out += is_line_directive(d.name) ? '\t' : ' ';
        out += d.text;
    }
    if (!is_line_directive(d.name)) out += ';';
}

void print_variable(std::string& out, const Variable& v) {
    for (const auto& l : v.linkage) {
        out += l;
        out += ' ';
    }
    out += spelling(v.space);
    for (const auto& a : v.attributes) {
        out += ' ';
        out += a;
    }
    if (v.align) {
        out += " .align ";
        out += std::to_string(*v.align);
    }
    if (v.vector) {
        out += " .v";
        out += std::to_string(v.vector);
    }
    out += ' ';
    out += v.type.spelling();
    if (v.ptr_space) {
        out += " .ptr";
        if (*v.ptr_space != StateSpace::None) {
            out += ' ';
            out += spelling(*v.ptr_space);
        }
        if (v.ptr_align) {
            out += " .align ";
            out += std::to_string(*v.ptr_align);
        }
    }
    out += ' ';
    out += v.name;
    if (v.range) {
        out += '<';
        out += std::to_string(*v.range);
        out += '>';
    }
    for (const auto& d : v.dims) {
        out += '[';
        if (d) out += std::to_string(*d);
        out += ']';
    }
    if (v.initializer) {
        out += " = ";
        out += *v.initializer;
    }
}

void print_statements(std::string& out, const std::vector<Statement>& body, int indent) {
    for (const auto& s : body) {
        if (auto* l = std::get_if<Label>(&s)) {
            out += l->name;
            out += ":\n";
            continue;
        }
        out.append(static_cast<size_t>(indent), '\t');
        if (auto* ins = std::get_if<Instruction>(&s)) {
            print_instruction(out, *ins);
        } else if (auto* v = variable_of(s)) {
            print_variable(out, *v);
            out += ';';
        } else if (auto* d = std::get_if<Directive>(&s)) {
            print_directive(out, *d);
        } else if (auto* sc = std::get_if<Scope>(&s)) {
            out += "{\n";
            print_statements(out, sc->statements, indent + 1);
            out.append(static_cast<size_t>(indent), '\t');
            out += '}';
        }
        out += '\n';
    }
}

void print_parameters(std::string& out, const std::vector<Variable>& params) {
    out += "(\n";
    for (size_t i = 0; i < params.size(); ++i) {
        out += '\t';
        print_variable(out, params[i]);
        out += i + 1 < params.size() ? ",\n" : "\n";
    }
    out += ')';
}

void print_function(std::string& out, const Function& f) {
    for (const auto& l : f.linkage) {
        out += l;
        out += ' ';
    }
    out += f.is_entry ? ".entry " : ".func ";
    if (!f.returns.empty()) {
        print_parameters(out, f.returns);
        out += ' ';
    }
    out += f.name;
    if (!f.params.empty()) print_parameters(out, f.params);
    out += '\n';
    for (const auto& d : f.performance) {
        out += d.name;
        if (!d.text.empty()) {
            out += ' ';
            out += d.text;
        }
        out += d.name == ".pragma" ? ";\n" : "\n";
    }
    if (!f.body) {
        out += ";\n";
        return;
    }
    out += "{\n";
    print_statements(out, *f.body, 1);
    out += "}\n";
}

} // namespace

std::string print(const Module& module) {
    std::string out;
    out += "//\n// Generated by cfrjit\n//\n\n";
    if (!module.version.empty()) out += ".version " + module.version + "\n";
    if (!module.target.empty()) {
        out += ".target ";
        for (size_t i = 0; i < module.target.size(); ++i) {
            if (i) out += ", ";
            out += module.target[i];
        }
        out += '\n';
    }
    if (module.address_size) out += ".address_size " + std::to_string(*module.address_size) + "\n";
    out += '\n';
    for (const auto& item : module.items) {
        if (auto* d = std::get_if<Directive>(&item)) {
            print_directive(out, *d);
            out += '\n';
        } else if (auto* v = std::get_if<Variable>(&item)) {
            print_variable(out, *v);
            out += ";\n";
        } else if (auto* f = std::get_if<Function>(&item)) {
            out += '\n';
            print_function(out, *f);
        }
    }
    return out;
}

std::string print(const Instruction& instruction) {
    std::string out;
    print_instruction(out, instruction);
    return out;
}

std::string print(const Operand& operand) {
    std::string out;
    print_operand(out, operand);
    return out;
}

} // namespace cfr::ptx
