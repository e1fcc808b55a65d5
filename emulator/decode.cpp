// Decoding a parsed PTX module into the flat executable Program: module variables are allocated
// in device memory and initialised, .shared variables laid out, and the functions decoded one
// after another (function_decoder.hpp), each followed by a synthetic end instruction; functions
// without a body are the device runtime's builtins or an error.
#include "emulator/decode.hpp"

#include "emulator/function_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace cfr::emu {

namespace {

bool is_extern(const ptx::Variable& v) {
    return std::find(v.linkage.begin(), v.linkage.end(), ".extern") != v.linkage.end();
}

Builtin builtin_named(const std::string& name) {
    if (name == "vprintf") return Builtin::Vprintf;
    if (name == "__assertfail") return Builtin::AssertFail;
    if (name == "malloc") return Builtin::Malloc;
    if (name == "free") return Builtin::Free;
    return Builtin::None;
}

// Frame offsets of the parameters and return values of a function without a body.
void lay_out_prototype(const ptx::Function& fn, DFunction& fd) {
    auto place = [&](const ptx::Variable& v, std::vector<ParamSlot>& slots) {
        uint32_t a = var_align(v), n = uint32_t(var_bytes(v));
        uint32_t off = align_up(fd.frame_bytes, a);
        fd.frame_bytes = off + n;
        slots.push_back({v.name, off, n, a});
    };
    for (auto& v : fn.params)
        place(v, fd.params);
    for (auto& v : fn.returns)
        place(v, fd.returns);
}

class ModuleDecoder {
public:
    ModuleDecoder(const ptx::Module& module, GlobalMemory& memory, DecodedModule& out)
        : module_(module), memory_(memory), out_(out), p_(out.program) {}

    void run() {
        p_.target_sm = module_.target_sm();
        if (!number_functions_and_allocate_variables()) return;
        if (!initialise_variables()) return;
        lay_out_local_shared();
        for (uint32_t i = 0; i < p_.functions.size(); ++i) {
            if (bodies_[i])
                decode_body(i);
            else
                decode_bodyless(i);
        }
    }

private:
    const ptx::Module& module_;
    GlobalMemory& memory_;
    DecodedModule& out_;
    Program& p_;
    std::unordered_map<std::string, Sym> syms_;
    std::unordered_map<std::string, uint32_t> functions_;
    std::unordered_map<const ptx::Variable*, uint32_t> local_shared_;
    std::vector<const ptx::Variable*> initialised_;
    std::vector<const ptx::Function*> declarations_; // the first of each function's name
    std::vector<const ptx::Function*> bodies_;

    bool number_functions_and_allocate_variables();
    bool allocate_global(const ptx::Variable& v);
    void lay_out_shared(const ptx::Variable& v);
    bool initialise_variables();
    void lay_out_local_shared();
    void decode_body(uint32_t i);
    void decode_bodyless(uint32_t i);
};

bool ModuleDecoder::number_functions_and_allocate_variables() {
    for (auto& item : module_.items) {
        if (auto* v = std::get_if<ptx::Variable>(&item)) {
            if (v->space == ptx::StateSpace::Global || v->space == ptx::StateSpace::Const) {
                if (!allocate_global(*v)) return false;
            } else if (v->space == ptx::StateSpace::Shared) {
                lay_out_shared(*v);
            }
        } else if (auto* fn = std::get_if<ptx::Function>(&item)) {
            auto [it, added] = functions_.emplace(fn->name, uint32_t(p_.functions.size()));
            if (added) {
                DFunction d;
                d.name = fn->name;
                d.is_entry = fn->is_entry;
                p_.functions.push_back(d);
                declarations_.push_back(fn);
                bodies_.push_back(nullptr);
                syms_[fn->name] = Sym{SymKind::Function, it->second, 0};
            }
            if (fn->body) bodies_[it->second] = fn;
        }
    }
    return true;
}

bool ModuleDecoder::allocate_global(const ptx::Variable& v) {
    uint64_t n = var_bytes(v);
    if (is_extern(v) && n == 0) return true;
    uint64_t a = memory_.allocate(n ? n : 1);
    if (!a) {
        out_.error = {ErrorCode::OutOfMemory, "out of device memory for '" + v.name + "'"};
        return false;
    }
    out_.allocations.push_back(a);
    syms_[v.name] = Sym{SymKind::Global, a, uint32_t(n)};
    out_.globals[v.name] = ModuleGlobal{a, n};
    initialised_.push_back(&v);
    return true;
}

// Module .shared variables join the static area; extern ones are placed after it
// (lay_out_local_shared).
void ModuleDecoder::lay_out_shared(const ptx::Variable& v) {
    if (is_extern(v)) {
        syms_[v.name] = Sym{SymKind::Shared, 0, 0};
        return;
    }
    uint32_t off = align_up(p_.static_shared_bytes, var_align(v));
    p_.static_shared_bytes = off + uint32_t(var_bytes(v));
    syms_[v.name] = Sym{SymKind::Shared, off, uint32_t(var_bytes(v))};
}

// After all addresses are known: initialisers may name other variables.
bool ModuleDecoder::initialise_variables() {
    for (auto* v : initialised_) {
        if (!v->initializer) continue;
        std::vector<uint8_t> bytes;
        uint32_t elem = ptx::type_bytes(v->type.type());
        std::string err = parse_initializer(*v->initializer, v->type.spelling(), elem ? elem : 1,
                                            bytes, out_.globals);
        if (!err.empty()) {
            out_.error = {ErrorCode::InvalidPtx, "line " + std::to_string(v->loc.line) +
                                                     ": initialiser of '" + v->name + "': " + err};
            return false;
        }
        auto& g = out_.globals[v->name];
        Allocation* a = memory_.find(g.address, 1);
        std::memcpy(a->data(), bytes.data(), std::min<uint64_t>(bytes.size(), g.bytes));
    }
    return true;
}

// Function-local .shared variables join the static area; the dynamic (extern) shared arrays all
// start after it.
void ModuleDecoder::lay_out_local_shared() {
    auto scan = [&](auto&& self, const std::vector<ptx::Statement>& body) -> void {
        for (auto& st : body) {
            if (auto* v = ptx::variable_of(st);
                v && v->space == ptx::StateSpace::Shared) {
                uint32_t off = align_up(p_.static_shared_bytes, var_align(*v));
                p_.static_shared_bytes = off + uint32_t(var_bytes(*v));
                local_shared_[v] = off;
            } else if (auto* sc = std::get_if<ptx::Scope>(&st)) {
                self(self, sc->statements);
            }
        }
    };
    for (auto& item : module_.items)
        if (auto* fn = std::get_if<ptx::Function>(&item); fn && fn->body) scan(scan, *fn->body);
    p_.dynamic_shared_offset = align_up(p_.static_shared_bytes, 16);
    for (auto& [name, s] : syms_)
        if (s.kind == SymKind::Shared && s.size == 0) s.value = p_.dynamic_shared_offset;
}

void ModuleDecoder::decode_body(uint32_t i) {
    p_.functions[i].has_body = true;
    const ModuleScope scope{syms_, functions_, local_shared_};
    FunctionDecoder(p_, i, scope).run(*bodies_[i]);
}

// A builtin, or a function that cannot run. It still gets a begin/end pc: its end instruction.
void ModuleDecoder::decode_bodyless(uint32_t i) {
    DFunction& fd = p_.functions[i];
    fd.has_body = false;
    fd.builtin = builtin_named(fd.name);
    if (fd.builtin == Builtin::None)
        fd.error = {ErrorCode::InvalidPtx, "function '" + fd.name + "' has no body"};
    lay_out_prototype(*declarations_[i], fd);
    fd.begin_pc = uint32_t(p_.code.size());
    Inst end;
    end.function = i;
    end.fn = select_function_end(end);
    end.leader = true;
    end.block = uint32_t(p_.blocks.size());
    fd.end_pc = fd.begin_pc;
    fd.first_block = uint32_t(p_.blocks.size());
    fd.block_count = 1;
    p_.blocks.push_back(BlockInfo{i, fd.begin_pc, 0, 0, ""});
    p_.code.push_back(end);
}

} // namespace

DecodedModule decode_module(const ptx::Module& module, GlobalMemory& memory) {
    DecodedModule dm;
    ModuleDecoder(module, memory, dm).run();
    return dm;
}

} // namespace cfr::emu
