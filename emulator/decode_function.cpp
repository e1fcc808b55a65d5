// Decoding one function: parameters and declarations laid out in the kernel's parameter buffer or
// the per-thread frame, registers numbered per function in nested scopes, instructions appended to
// the module's code, the synthetic end instruction, and branch targets resolved at the end.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"
#include "ptx/branch_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace cfr::emu {

uint32_t align_up(uint32_t v, uint32_t a) {
    return a ? (v + a - 1) / a * a : v;
}

uint64_t var_bytes(const ptx::Variable& v) {
    uint64_t n = ptx::type_bytes(v.type.type());
    if (n == 0) n = 8; // .texref etc.
    if (v.vector) n *= v.vector;
    for (auto& d : v.dims)
        n *= d.value_or(0);
    return n;
}

uint32_t var_align(const ptx::Variable& v) {
    if (v.align) return *v.align;
    uint32_t n = ptx::type_bytes(v.type.type());
    if (v.vector == 2 || v.vector == 4) n *= v.vector;
    return n ? n : 1;
}

void FunctionDecoder::fail(uint32_t line, Error e) {
    if (f().error.ok()) f().error = {e.code, "line " + std::to_string(line) + ": " + e.message};
}

std::optional<uint32_t> FunctionDecoder::find_reg(ptx::RegisterId number) const {
    const auto& bits = p_.functions[fidx_].reg_bits;
    if (number >= bits.size() || bits[number] == 0) return std::nullopt;
    return number;
}

const Sym* FunctionDecoder::find_sym(const std::string& name) const {
    for (auto it = syms_.rbegin(); it != syms_.rend(); ++it) {
        auto found = it->find(name);
        if (found != it->end()) return &found->second;
    }
    auto m = module_.symbols.find(name);
    return m == module_.symbols.end() ? nullptr : &m->second;
}

void FunctionDecoder::note_shared(const Sym& sym) const {
    if (sym.kind != SymKind::Shared || sym.size == 0) return;
    auto& vars = p_.functions[fidx_].shared_vars;
    const std::pair<uint32_t, uint32_t> var{uint32_t(sym.value), sym.size};
    if (std::find(vars.begin(), vars.end(), var) == vars.end()) vars.push_back(var);
}

void FunctionDecoder::declare(const ptx::Variable& v) {
    if (v.space == ptx::StateSpace::Reg) {
        Ty t = v.type.type();
        uint8_t bits = t == Ty::Pred ? 1 : uint8_t(ptx::type_bytes(t) * 8);
        if (v.vector == 2) bits = uint8_t(std::min(64, bits * 2));
        if (bits == 0) {
            fail(v.loc.line, unsupported("register " + v.name + " of type " +
                                         std::string(v.type.spelling()) + ", which has no width"));
            return;
        }
        if (v.number == ptx::kNoRegister) {
            fail(v.loc.line, invalid("register " + v.name + " is declared without a number"));
            return;
        }
        auto& slots = f().reg_bits;
        const uint32_t count = v.range.value_or(1);
        if (v.number > slots.size() || count > slots.size() - v.number) {
            fail(v.loc.line, invalid("register " + v.name + " is numbered past the function's " +
                                     std::to_string(slots.size()) + " registers"));
            return;
        }
        std::fill_n(slots.begin() + v.number, count, bits);
        return;
    }
    if (v.space == ptx::StateSpace::Local || v.space == ptx::StateSpace::Param) {
        uint32_t a = var_align(v);
        uint32_t off = align_up(f().frame_bytes, a);
        uint32_t n = uint32_t(var_bytes(v));
        f().frame_bytes = off + n;
        syms_.back()[v.name] = Sym{SymKind::Frame, off, n};
        return;
    }
    if (v.space == ptx::StateSpace::Shared) {
        auto it = module_.local_shared.find(&v);
        uint32_t n = uint32_t(var_bytes(v));
        if (it != module_.local_shared.end())
            syms_.back()[v.name] = Sym{SymKind::Shared, it->second, n};
        return;
    }
    // .global / .const inside a function body: not produced by nvcc for kernels.
    fail(v.loc.line, unsupported("unsupported declaration of '" + v.name + "' in " +
                                 std::string(ptx::spelling(v.space)) + " space"));
}

// Kernel parameters in the launch's parameter buffer; a .func's parameters and return values in
// its frame.
void FunctionDecoder::parameters(const ptx::Function& fn) {
    DFunction& fd = f();
    if (fn.is_entry) {
        uint32_t off = 0;
        for (auto& v : fn.params) {
            uint32_t a = var_align(v);
            off = align_up(off, a);
            uint32_t n = uint32_t(var_bytes(v));
            fd.params.push_back({v.name, off, n, a});
            syms_.back()[v.name] = Sym{SymKind::KernelParam, off, n};
            off += n;
        }
        fd.param_bytes = off;
        return;
    }
    for (auto& v : fn.params) {
        uint32_t a = var_align(v), n = uint32_t(var_bytes(v));
        uint32_t off = align_up(fd.frame_bytes, a);
        fd.frame_bytes = off + n;
        fd.params.push_back({v.name, off, n, a});
        if (v.space == ptx::StateSpace::Reg)
            fail(v.loc.line, unsupported("register parameters are not supported"));
        syms_.back()[v.name] = Sym{SymKind::Frame, off, n};
    }
    for (auto& v : fn.returns) {
        uint32_t a = var_align(v), n = uint32_t(var_bytes(v));
        uint32_t off = align_up(fd.frame_bytes, a);
        fd.frame_bytes = off + n;
        fd.returns.push_back({v.name, off, n, a});
        syms_.back()[v.name] = Sym{SymKind::Frame, off, n};
    }
}

namespace {

// The numbers of a directive's text ("16, 8, 1"); a missing dimension is 1.
Dim3 dimensions(const std::string& text) {
    uint64_t values[3] = {1, 1, 1};
    unsigned n = 0;
    uint64_t value = 0;
    for (char c : text + ",") {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            value = std::min<uint64_t>(value * 10 + uint64_t(c - '0'), UINT32_MAX);
        } else if (c == ',') {
            if (n < 3) values[n++] = value;
            value = 0;
        }
    }
    return Dim3{uint32_t(values[0]), uint32_t(values[1]), uint32_t(values[2])};
}

// The threads per block .maxntid and .reqntid allow (the product of the dimensions), 0 without.
uint32_t thread_limit(const std::vector<ptx::Directive>& performance) {
    uint64_t limit = 0;
    for (const ptx::Directive& d : performance) {
        if (d.name != ".maxntid" && d.name != ".reqntid") continue;
        const uint64_t product = std::min<uint64_t>(dimensions(d.text).count(), UINT32_MAX);
        limit = limit ? std::min(limit, product) : product;
    }
    return uint32_t(limit);
}

void read_cluster_directives(const std::vector<ptx::Directive>& performance, DFunction& f) {
    for (const ptx::Directive& d : performance) {
        if (d.name == ".reqnctapercluster") f.required_cluster = dimensions(d.text);
        if (d.name == ".explicitcluster") f.explicit_cluster = true;
    }
}

} // namespace

void FunctionDecoder::run(const ptx::Function& fn) {
    f().begin_pc = uint32_t(p_.code.size());
    f().reg_bits.assign(fn.register_count, 0);
    f().max_threads = thread_limit(fn.performance);
    read_cluster_directives(fn.performance, f());
    parameters(fn);
    if (fn.body) statements(*fn.body);
    for (uint32_t pc = f().begin_pc; pc < p_.code.size(); ++pc)
        if (p_.code[pc].op == ptx::Opcode::Alloca) f().uses_alloca = true;
    end_of_function(fn);
    resolve_branches();
    find_blocks_and_reconvergence(p_, fidx_, labels_at_pc_);
}

void FunctionDecoder::end_of_function(const ptx::Function& fn) {
    Inst end;
    end.function = fidx_;
    end.line = fn.loc.line;
    end.fn = select_function_end(end);
    f().end_pc = uint32_t(p_.code.size());
    p_.code.push_back(end);
    labels_at_pc_.push_back(pending_label_);
}

void FunctionDecoder::resolve_branches() {
    for (auto& [pc, label] : fixups_) {
        auto it = labels_.find(label);
        if (it == labels_.end()) {
            fail(p_.code[pc].line, invalid("branch to unknown label '" + label + "'"));
            continue;
        }
        p_.code[pc].target = it->second;
    }
    for (auto& [pc, table] : table_fixups_) {
        auto t = branch_tables_.find(table);
        if (t == branch_tables_.end()) {
            fail(p_.code[pc].line, invalid("unknown branch target list '" + table + "'"));
            continue;
        }
        std::vector<uint32_t> pcs;
        for (auto& l : t->second) {
            auto it = labels_.find(l);
            if (it == labels_.end()) {
                fail(p_.code[pc].line, invalid("branch to unknown label '" + l + "'"));
                pcs.push_back(f().end_pc);
            } else {
                pcs.push_back(it->second);
            }
        }
        p_.code[pc].aux = uint32_t(p_.jump_tables.size());
        p_.jump_tables.push_back(std::move(pcs));
    }
}

void FunctionDecoder::statements(const std::vector<ptx::Statement>& body) {
    std::string last_label;
    for (auto& st : body) {
        if (auto* v = ptx::variable_of(st)) {
            declare(*v);
        } else if (auto* l = std::get_if<ptx::Label>(&st)) {
            labels_[l->name] = uint32_t(p_.code.size());
            if (pending_label_.empty()) pending_label_ = l->name;
            last_label = l->name;
        } else if (auto* d = std::get_if<ptx::Directive>(&st)) {
            if (d->name == ".branchtargets" && !last_label.empty())
                branch_tables_[last_label] = ptx::parse_branch_targets(d->text);
        } else if (auto* s = std::get_if<ptx::Scope>(&st)) {
            syms_.emplace_back();
            statements(s->statements);
            syms_.pop_back();
        } else if (auto* ins = std::get_if<ptx::Instruction>(&st)) {
            instruction(*ins);
        }
    }
}

} // namespace cfr::emu
