// Decoding a parsed PTX module into the flat executable Program: functions are laid out one after
// another, each followed by a synthetic end instruction; registers are numbered per function;
// .local and call-site .param variables get offsets in the per-thread frame; module variables
// are allocated in device memory and initialised.
#include "emulator/decode.hpp"

#include "emulator/engine.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace cfr::emu {

namespace {

using ptx::Operand;
using OK = ptx::Operand::Kind;

enum class SymKind { Global, Shared, KernelParam, Frame, Function };

struct Sym {
    SymKind kind = SymKind::Global;
    uint64_t value = 0;
    uint32_t size = 0;
};

uint32_t align_up(uint32_t v, uint32_t a) {
    return a ? (v + a - 1) / a * a : v;
}

uint64_t var_bytes(const ptx::Variable& v) {
    uint64_t n = ty_bytes(type_of(v.type));
    if (n == 0) n = 8; // .texref etc.
    if (v.vector == ".v2") n *= 2;
    if (v.vector == ".v4") n *= 4;
    if (v.vector == ".v8") n *= 8;
    for (auto& d : v.dims)
        n *= d.value_or(0);
    return n;
}

uint32_t var_align(const ptx::Variable& v) {
    if (v.align) return *v.align;
    uint32_t n = ty_bytes(type_of(v.type));
    if (v.vector == ".v2") n *= 2;
    if (v.vector == ".v4") n *= 4;
    return n ? n : 1;
}

// Special registers: ids used by the mov handler (ops_warp.cpp).
int special_id(std::string_view s) {
    static const char* names[] = {"%tid.x",           "%tid.y",          "%tid.z",
                                  "%ntid.x",          "%ntid.y",         "%ntid.z",
                                  "%ctaid.x",         "%ctaid.y",        "%ctaid.z",
                                  "%nctaid.x",        "%nctaid.y",       "%nctaid.z",
                                  "%laneid",          "%warpid",         "%nwarpid",
                                  "%lanemask_eq",     "%lanemask_le",    "%lanemask_lt",
                                  "%lanemask_ge",     "%lanemask_gt",    "%clock",
                                  "%clock64",         "%globaltimer",    "%smid",
                                  "%nsmid",           "%gridid",         "%dynamic_smem_size",
                                  "%total_smem_size", "%globaltimer_lo", "%globaltimer_hi",
                                  "%clock_hi",        "%warpsize",       "%aggr_smem_size"};
    for (int i = 0; i < int(std::size(names)); ++i)
        if (s == names[i]) return i;
    return -1;
}

class FunctionDecoder {
public:
    FunctionDecoder(Program& p, uint32_t fidx, const std::unordered_map<std::string, Sym>& module,
                    const std::unordered_map<std::string, uint32_t>& functions,
                    const std::unordered_map<const ptx::Variable*, uint32_t>& shared)
        : p_(p), fidx_(fidx), module_(module), functions_(functions), shared_(shared) {}

    void run(const ptx::Function& fn);

private:
    Program& p_;
    uint32_t fidx_;
    const std::unordered_map<std::string, Sym>& module_;
    const std::unordered_map<std::string, uint32_t>& functions_;
    const std::unordered_map<const ptx::Variable*, uint32_t>& shared_;
    std::vector<std::unordered_map<std::string, uint32_t>> regs_{1};
    std::vector<std::unordered_map<std::string, Sym>> syms_{1};
    std::unordered_map<std::string, uint32_t> labels_;
    std::unordered_map<std::string, std::vector<std::string>> branch_tables_;
    std::vector<std::pair<uint32_t, std::string>> fixups_; // pc, label
    std::vector<std::pair<uint32_t, std::string>> table_fixups_;
    std::vector<std::string> labels_at_pc_;
    std::string pending_label_;

    DFunction& f() { return p_.functions[fidx_]; }

    void fail(uint32_t line, const std::string& msg) {
        if (f().error.empty()) f().error = "line " + std::to_string(line) + ": " + msg;
    }
    uint32_t add_reg(const std::string& name, uint8_t bits) {
        uint32_t idx = f().nregs++;
        f().reg_bits.push_back(bits);
        f().reg_names.push_back(name);
        regs_.back()[name] = idx;
        return idx;
    }
    const uint32_t* find_reg(const std::string& name) const {
        for (auto it = regs_.rbegin(); it != regs_.rend(); ++it) {
            auto f = it->find(name);
            if (f != it->end()) return &f->second;
        }
        return nullptr;
    }
    const Sym* find_sym(const std::string& name) const {
        for (auto it = syms_.rbegin(); it != syms_.rend(); ++it) {
            auto f = it->find(name);
            if (f != it->end()) return &f->second;
        }
        auto m = module_.find(name);
        return m == module_.end() ? nullptr : &m->second;
    }
    void declare(const ptx::Variable& v);
    void statements(const std::vector<ptx::Statement>& body);
    void instruction(const ptx::Instruction& ins);
    bool source(const Operand& op, Ty t, Src& out, std::string& why);
    bool dest(const Operand& op, uint32_t& out, std::string& why);
    bool address(const Operand& op, Addr& out, std::string& why);
};

void FunctionDecoder::declare(const ptx::Variable& v) {
    if (v.space == ".reg") {
        Ty t = type_of(v.type);
        uint8_t bits = t == Ty::Pred ? 1 : uint8_t(ty_bytes(t) * 8);
        if (v.vector == ".v2") bits = uint8_t(std::min(64, bits * 2));
        if (v.range) {
            for (uint32_t i = 0; i < *v.range; ++i)
                add_reg(v.name + std::to_string(i), bits);
        } else {
            add_reg(v.name, bits);
        }
        return;
    }
    if (v.space == ".local" || v.space == ".param") {
        uint32_t a = var_align(v);
        uint32_t off = align_up(f().frame_bytes, a);
        uint32_t n = uint32_t(var_bytes(v));
        f().frame_bytes = off + n;
        syms_.back()[v.name] = Sym{SymKind::Frame, off, n};
        return;
    }
    if (v.space == ".shared") {
        auto it = shared_.find(&v);
        uint32_t n = uint32_t(var_bytes(v));
        if (it != shared_.end()) syms_.back()[v.name] = Sym{SymKind::Shared, it->second, n};
        return;
    }
    // .global / .const inside a function body: not produced by nvcc for kernels.
    fail(v.loc.line, "unsupported declaration of '" + v.name + "' in " + v.space + " space");
}

void FunctionDecoder::run(const ptx::Function& fn) {
    DFunction& fd = f();
    fd.begin_pc = uint32_t(p_.code.size());
    // Parameters.
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
    } else {
        for (auto& v : fn.params) {
            uint32_t a = var_align(v), n = uint32_t(var_bytes(v));
            uint32_t off = align_up(fd.frame_bytes, a);
            fd.frame_bytes = off + n;
            fd.params.push_back({v.name, off, n, a});
            if (v.space == ".reg") {
                fail(v.loc.line, "register parameters are not supported");
            }
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
    if (fn.body) statements(*fn.body);
    // Synthetic end of function.
    Inst end;
    end.name = "ret";
    end.function = fidx_;
    end.line = fn.loc.line;
    end.control = true;
    end.fn = select_control(DecodeRequest{"$end", {}}, end);
    fd.end_pc = uint32_t(p_.code.size());
    p_.code.push_back(end);
    labels_at_pc_.push_back(pending_label_);
    // Resolve branch targets.
    for (auto& [pc, label] : fixups_) {
        auto it = labels_.find(label);
        if (it == labels_.end()) {
            fail(p_.code[pc].line, "branch to unknown label '" + label + "'");
            continue;
        }
        p_.code[pc].target = it->second;
    }
    for (auto& [pc, table] : table_fixups_) {
        auto t = branch_tables_.find(table);
        if (t == branch_tables_.end()) {
            fail(p_.code[pc].line, "unknown branch target list '" + table + "'");
            continue;
        }
        std::vector<uint32_t> pcs;
        for (auto& l : t->second) {
            auto it = labels_.find(l);
            if (it == labels_.end()) {
                fail(p_.code[pc].line, "branch to unknown label '" + l + "'");
                pcs.push_back(fd.end_pc);
            } else {
                pcs.push_back(it->second);
            }
        }
        p_.code[pc].aux = uint32_t(p_.jump_tables.size());
        p_.jump_tables.push_back(std::move(pcs));
    }
    find_blocks_and_reconvergence(p_, fidx_, labels_at_pc_);
}

void FunctionDecoder::statements(const std::vector<ptx::Statement>& body) {
    std::string last_label;
    for (auto& st : body) {
        if (auto* v = std::get_if<ptx::Variable>(&st)) {
            declare(*v);
        } else if (auto* l = std::get_if<ptx::Label>(&st)) {
            labels_[l->name] = uint32_t(p_.code.size());
            if (pending_label_.empty()) pending_label_ = l->name;
            last_label = l->name;
        } else if (auto* d = std::get_if<ptx::Directive>(&st)) {
            if (d->name == ".branchtargets" && !last_label.empty()) {
                std::vector<std::string> names;
                std::string cur;
                for (char c : d->text) {
                    if (c == ',' || c == ' ' || c == '\t' || c == '\n') {
                        if (!cur.empty()) names.push_back(cur);
                        cur.clear();
                    } else {
                        cur += c;
                    }
                }
                if (!cur.empty()) names.push_back(cur);
                branch_tables_[last_label] = names;
            }
        } else if (auto* s = std::get_if<ptx::Scope>(&st)) {
            regs_.emplace_back();
            syms_.emplace_back();
            statements(s->statements);
            regs_.pop_back();
            syms_.pop_back();
        } else if (auto* ins = std::get_if<ptx::Instruction>(&st)) {
            instruction(*ins);
        }
    }
}

bool FunctionDecoder::dest(const Operand& op, uint32_t& out, std::string& why) {
    if (op.kind == OK::Sink) {
        out = kNone;
        return true;
    }
    if (op.kind != OK::Register) {
        why = "destination must be a register";
        return false;
    }
    auto* r = find_reg(op.text);
    if (!r) {
        why = "undeclared register " + op.text;
        return false;
    }
    out = *r;
    return true;
}

bool FunctionDecoder::source(const Operand& op, Ty t, Src& out, std::string& why) {
    switch (op.kind) {
    case OK::Register: {
        auto* r = find_reg(op.text);
        if (!r) {
            why = "undeclared register " + op.text;
            return false;
        }
        if (op.offset != 0) {
            why = "register with offset as an operand";
            return false;
        }
        out.imm = false;
        out.reg = *r;
        return true;
    }
    case OK::Immediate:
        out.imm = true;
        if (op.text == "WARP_SZ") {
            out.bits = 32;
            return true;
        }
        if (!immediate_bits(op.text, t, out.bits)) {
            why = "bad immediate '" + op.text + "'";
            return false;
        }
        return true;
    case OK::Symbol: {
        auto* s = find_sym(op.text);
        if (!s || s->kind == SymKind::Frame || s->kind == SymKind::Function) {
            why = "symbol '" + op.text + "' has no constant address";
            return false;
        }
        out.imm = true;
        out.bits = s->value + uint64_t(op.offset);
        return true;
    }
    default:
        why = "unsupported operand";
        return false;
    }
}

bool FunctionDecoder::address(const Operand& op, Addr& out, std::string& why) {
    if (op.kind != OK::Address || op.elements.empty()) {
        why = "expected an address";
        return false;
    }
    const Operand& base = op.elements[0];
    out.offset = op.offset + base.offset;
    if (base.kind == OK::Register) {
        auto* r = find_reg(base.text);
        if (!r) {
            why = "undeclared register " + base.text;
            return false;
        }
        out.has_reg = true;
        out.reg = *r;
        return true;
    }
    if (base.kind == OK::Immediate) {
        uint64_t v = 0;
        if (!immediate_bits(base.text, Ty::U64, v)) {
            why = "bad address";
            return false;
        }
        out.offset += int64_t(v);
        return true;
    }
    if (base.kind == OK::Symbol || base.kind == OK::Label) {
        auto* s = find_sym(base.text);
        if (!s) {
            why = "unknown symbol '" + base.text + "'";
            return false;
        }
        switch (s->kind) {
        case SymKind::Global:
            out.space = Space::Global;
            break;
        case SymKind::Shared:
            out.space = Space::Shared;
            break;
        case SymKind::KernelParam:
            out.space = Space::KernelParam;
            break;
        case SymKind::Frame:
            out.space = Space::Local;
            out.frame_relative = true;
            break;
        case SymKind::Function:
            why = "address of a function";
            return false;
        }
        out.offset += int64_t(s->value);
        return true;
    }
    why = "unsupported address";
    return false;
}

Ty source_type(const DecodeRequest& r, const Inst& in, size_t pos) {
    const std::string& op = r.op;
    if (op == "cvt" || op == "cvta") return in.t2 != Ty::None ? in.t2 : in.t;
    if (op == "setp" || op == "set") return pos == 2 ? Ty::Pred : in.t2;
    if (op == "selp") return pos == 2 ? Ty::Pred : in.t;
    if (op == "slct") return pos == 2 ? in.t2 : in.t;
    if (op == "shl" || op == "shr") return pos == 1 ? Ty::U32 : in.t;
    if (op == "shf") return pos == 2 ? Ty::U32 : Ty::B32;
    if (op == "bfe") return pos == 0 ? in.t : Ty::U32;
    if (op == "bfi") return pos >= 2 ? Ty::U32 : in.t;
    if (op == "prmt" || op == "shfl" || op == "vote" || op == "activemask") return Ty::B32;
    if (op == "mad" && in.mode == 3 && pos == 2) { // mad.wide: c is double width
        switch (in.t) {
        case Ty::S32:
            return Ty::S64;
        case Ty::U32:
            return Ty::U64;
        case Ty::S16:
            return Ty::S32;
        case Ty::U16:
            return Ty::U32;
        default:
            return in.t;
        }
    }
    if ((op == "sad") && pos == 2) return in.t;
    if (op == "dp4a" || op == "dp2a") return Ty::B32;
    if (op == "match") return pos == 0 ? in.t : Ty::B32;
    if (op == "bar" || op == "barrier") return Ty::U32;
    return in.t;
}

void FunctionDecoder::instruction(const ptx::Instruction& ins) {
    Inst in;
    in.function = fidx_;
    in.line = ins.loc.line;
    uint32_t pc = uint32_t(p_.code.size());
    labels_at_pc_.push_back(pending_label_);
    pending_label_.clear();
    DecodeRequest r{ins.opcode, ins.modifiers};
    static thread_local std::vector<std::string> spellings; // keeps names alive
    std::string full = ins.opcode;
    for (auto& m : ins.modifiers)
        full += m;
    in.name = nullptr;
    std::string why;
    bool ok = true;

    if (ins.guard) {
        auto* g = find_reg(ins.guard->predicate);
        if (!g) {
            ok = false;
            why = "undeclared predicate " + ins.guard->predicate;
        } else {
            in.guard = *g;
            in.guard_neg = ins.guard->negated;
        }
    }
    // Types, comparison, rounding, flags from the modifiers.
    std::vector<Ty> types;
    for (auto& m : ins.modifiers) {
        Ty t = type_of(m);
        if (t != Ty::None) {
            types.push_back(t);
            continue;
        }
        static const std::pair<const char*, Cmp> cmps[] = {
            {".eq", Cmp::Eq},   {".ne", Cmp::Ne},   {".lt", Cmp::Lt},   {".le", Cmp::Le},
            {".gt", Cmp::Gt},   {".ge", Cmp::Ge},   {".lo", Cmp::Lo},   {".ls", Cmp::Ls},
            {".hi", Cmp::Hi},   {".hs", Cmp::Hs},   {".equ", Cmp::Equ}, {".neu", Cmp::Neu},
            {".ltu", Cmp::Ltu}, {".leu", Cmp::Leu}, {".gtu", Cmp::Gtu}, {".geu", Cmp::Geu},
            {".num", Cmp::Num}, {".nan", Cmp::Nan}};
        if (ins.opcode == "setp" || ins.opcode == "set") {
            for (auto& [n, c] : cmps)
                if (m == n) in.cmp = c;
            if (m == ".and") in.boolop = BoolOp::And;
            if (m == ".or") in.boolop = BoolOp::Or;
            if (m == ".xor") in.boolop = BoolOp::Xor;
        }
        static const std::pair<const char*, Rnd> rnds[] = {
            {".rn", Rnd::Rn},   {".rz", Rnd::Rz},   {".rm", Rnd::Rm},
            {".rp", Rnd::Rp},   {".rni", Rnd::Rni}, {".rzi", Rnd::Rzi},
            {".rmi", Rnd::Rmi}, {".rpi", Rnd::Rpi}, {".rna", Rnd::Rna}};
        for (auto& [n, rr] : rnds)
            if (m == n) in.rnd = rr;
        if (m == ".ftz") in.ftz = true;
        if (m == ".sat" || m == ".satfinite") in.sat = true;
        if (m == ".approx") in.approx = true;
        if (m == ".v2") in.vec = 2;
        if (m == ".v4") in.vec = 4;
        if (m == ".v8") in.vec = 8;
        if (m == ".global") in.addr.space = Space::Global;
        if (m == ".shared" || m == ".shared::cta") in.addr.space = Space::Shared;
        if (m == ".local") in.addr.space = Space::Local;
        if (m == ".const") in.addr.space = Space::Const;
        if (m == ".param" || m == ".param::entry" || m == ".param::func")
            in.addr.space = Space::KernelParam;
    }
    if (!types.empty()) in.t = types[0];
    if (types.size() > 1) in.t2 = types[1];
    if ((ins.opcode == "setp" || ins.opcode == "set") && types.size() == 1) in.t2 = types[0];
    if (ins.opcode == "set" && types.size() == 2) {
        in.t = types[0];
        in.t2 = types[1];
    }
    if (ins.opcode == "mul" || ins.opcode == "mad" || ins.opcode == "mul24" ||
        ins.opcode == "mad24") {
        in.mode = r.has(".hi") ? 2 : r.has(".wide") ? 3 : 1;
    }

    // Operands.
    auto& ops = ins.operands;
    auto do_sources = [&](size_t first) {
        for (size_t i = first; i < ops.size() && ok; ++i) {
            size_t pos = i - first;
            if (pos >= 4) {
                ok = false;
                why = "too many operands";
                break;
            }
            const Operand& o = ops[i];
            if (o.negated && o.kind == OK::Register &&
                (((r.op == "setp" || r.op == "set") && pos == 2) || (r.op == "vote" && pos == 0) ||
                 ((r.op == "bar" || r.op == "barrier") && r.has(".red") && i + 1 == ops.size())))
                in.neg_src2 = true;
            else if (o.negated) {
                ok = false;
                why = "negated operand";
                break;
            }
            ok = source(o, source_type(r, in, pos), in.s[pos], why);
            in.ns = uint8_t(pos + 1);
        }
    };
    const std::string& op = r.op;
    bool is_control = op == "bra" || op == "brx" || op == "call" || op == "ret" || op == "exit" ||
                      op == "trap" || op == "bar" || op == "barrier" || op == "membar" ||
                      op == "fence" || op == "nanosleep" || op == "pmevent" || op == "brkpt";
    if (!ok) {
    } else if (op == "bra") {
        if (ops.size() != 1 || (ops[0].kind != OK::Label && ops[0].kind != OK::Symbol)) {
            ok = false;
            why = "bra needs a label";
        } else {
            fixups_.push_back({pc, ops[0].text});
        }
    } else if (op == "brx") {
        if (ops.size() < 2 || ops[0].kind != OK::Register) {
            ok = false;
            why = "brx.idx needs an index register and a target list";
        } else {
            ok = source(ops[0], Ty::U32, in.s[0], why);
            in.ns = 1;
            table_fixups_.push_back({pc, ops[1].text});
        }
    } else if (op == "call") {
        CallSite cs;
        size_t i = 0;
        std::vector<const Operand*> rets, args;
        if (i < ops.size() && ops[i].kind == OK::List) {
            for (auto& e : ops[i].elements)
                rets.push_back(&e);
            ++i;
        }
        if (i >= ops.size() || ops[i].kind != OK::Symbol) {
            ok = false;
            why = "indirect calls are not supported";
        } else {
            auto fit = functions_.find(ops[i].text);
            if (fit == functions_.end()) {
                ok = false;
                why = "call to unknown function '" + ops[i].text + "'";
            } else {
                cs.callee = fit->second;
            }
            ++i;
        }
        if (ok && i < ops.size() && ops[i].kind == OK::List) {
            for (auto& e : ops[i].elements)
                args.push_back(&e);
        }
        for (auto* a : args) {
            if (!ok) break;
            CallSite::Arg arg;
            if (a->kind == OK::Symbol) {
                auto* s = find_sym(a->text);
                if (!s || s->kind != SymKind::Frame) {
                    ok = false;
                    why = "call argument '" + a->text + "' is not a .param variable";
                    break;
                }
                arg.from_frame = true;
                arg.frame_offset = uint32_t(s->value);
                arg.size = s->size;
            } else {
                arg.from_frame = false;
                ok = source(*a, Ty::B64, arg.value, why);
                arg.size = 8;
            }
            cs.args.push_back(arg);
        }
        for (auto* rv : rets) {
            if (!ok) break;
            auto* s = rv->kind == OK::Symbol ? find_sym(rv->text) : nullptr;
            if (!s || s->kind != SymKind::Frame) {
                ok = false;
                why = "call return '" + rv->text + "' is not a .param variable";
                break;
            }
            cs.ret_frame_offsets.push_back(uint32_t(s->value));
        }
        if (ok) {
            in.target = cs.callee;
            in.aux = uint32_t(p_.calls.size());
            p_.calls.push_back(std::move(cs));
            f().callees.push_back(in.target);
        }
    } else if (op == "mov" && ops.size() == 2 && ops[1].kind == OK::SpecialRegister) {
        int id = special_id(ops[1].text);
        if (id < 0) {
            ok = false;
            why = "unsupported special register " + ops[1].text;
        } else {
            in.mode = uint8_t(id);
            in.nd = 1;
            ok = dest(ops[0], in.d[0], why);
            r.op = "mov.special";
        }
    } else if (op == "mov" && ops.size() == 2 && ops[1].kind == OK::Symbol &&
               find_sym(ops[1].text) && find_sym(ops[1].text)->kind == SymKind::Frame) {
        in.addr.frame_relative = true;
        in.addr.offset = int64_t(find_sym(ops[1].text)->value) + ops[1].offset;
        in.nd = 1;
        ok = dest(ops[0], in.d[0], why);
        r.op = "mov.frame";
    } else if (op == "mov" && ops.size() == 2 &&
               (ops[0].kind == OK::Vector || ops[1].kind == OK::Vector)) {
        // Pack {a,b,..} -> d or unpack d -> {a,b,..}.
        if (ops[1].kind == OK::Vector) {
            in.mode = 1; // pack
            ok = dest(ops[0], in.d[0], why);
            in.nd = 1;
            in.vec = uint8_t(ops[1].elements.size());
            for (size_t k = 0; k < ops[1].elements.size() && ok && k < 4; ++k)
                ok = source(ops[1].elements[k], Ty::B64, in.s[k], why);
            in.ns = in.vec;
        } else {
            in.mode = 2; // unpack
            in.vec = uint8_t(ops[0].elements.size());
            for (size_t k = 0; k < ops[0].elements.size() && ok && k < 4; ++k)
                ok = dest(ops[0].elements[k], in.d[k], why);
            in.nd = in.vec;
            ok = ok && source(ops[1], in.t, in.s[0], why);
            in.ns = 1;
        }
        if (in.vec > 4) {
            ok = false;
            why = "vector too wide";
        }
        r.op = "mov.vector";
    } else if (op == "ld" || op == "ldu" || op == "st" || op == "atom" || op == "red" ||
               op == "prefetch" || op == "prefetchu" || op == "cvta" || op == "isspacep" ||
               op == "discard" || op == "applypriority" || op == "createpolicy") {
        // Memory forms: find the address operand, the rest are data.
        size_t ai = ops.size();
        for (size_t k = 0; k < ops.size(); ++k)
            if (ops[k].kind == OK::Address) {
                ai = k;
                break;
            }
        if (op == "cvta" || op == "isspacep" || op == "createpolicy") {
            if (ops.size() >= 1) ok = dest(ops[0], in.d[0], why);
            in.nd = 1;
            do_sources(1);
        } else if (ai == ops.size()) {
            ok = false;
            why = "missing address";
        } else {
            ok = address(ops[ai], in.addr, why);
            if (ok && in.addr.space == Space::Generic && !in.addr.has_reg && ai < ops.size()) {
                // [symbol] without a space: use the symbol's own space.
            }
            if (in.addr.space == Space::Local && in.addr.frame_relative == false &&
                r.has(".param")) {
            }
            // Data operands.
            auto data = [&](const Operand& o, bool is_dest) {
                if (o.kind == OK::Vector) {
                    in.vec = uint8_t(o.elements.size());
                    for (size_t k = 0; k < o.elements.size() && ok && k < 4; ++k) {
                        if (is_dest)
                            ok = dest(o.elements[k], in.d[k], why);
                        else
                            ok = source(o.elements[k], in.t, in.s[k], why);
                    }
                    if (is_dest)
                        in.nd = in.vec;
                    else
                        in.ns = in.vec;
                } else if (is_dest) {
                    ok = dest(o, in.d[0], why);
                    in.nd = 1;
                } else {
                    ok = source(o, in.t, in.s[in.ns], why);
                    in.ns++;
                }
            };
            if (op == "ld" || op == "ldu") {
                if (ai != 1) {
                    ok = false;
                    why = "ld needs a destination";
                } else {
                    data(ops[0], true);
                }
            } else if (op == "st") {
                for (size_t k = ai + 1; k < ops.size() && ok; ++k)
                    data(ops[k], false);
            } else if (op == "atom") {
                if (ai == 1) data(ops[0], true);
                for (size_t k = ai + 1; k < ops.size() && ok; ++k)
                    data(ops[k], false);
            } else if (op == "red") {
                for (size_t k = ai + 1; k < ops.size() && ok; ++k)
                    data(ops[k], false);
            }
        }
    } else if (op == "tex" || op == "tld4" || op == "suld" || op == "sust" || op == "txq" ||
               op == "suq") {
        // Object handles only: [%rd, {coordinates}] to addr.reg and s[]; the results (sust: the
        // data registers) to d[]. tex.level's level of detail is read as 0 (no mipmaps).
        const size_t ai = op == "sust" ? 0 : 1, di = op == "sust" ? 1 : 0;
        const size_t level = op == "tex" && r.has(".level") ? 1 : 0;
        if (ops.size() != 2 + level || ops[ai].kind != OK::Address || ops[ai].elements.empty() ||
            ops[ai].elements[0].kind != OK::Register) {
            ok = false;
            why = "only texture and surface objects in registers are supported";
        } else {
            ok = address(ops[ai], in.addr, why);
            auto put_all = [&](const Operand& o, auto&& f) {
                if (o.kind != OK::Vector) return f(o, 0);
                for (size_t k = 0; k < o.elements.size() && k < 4 && ok; ++k)
                    f(o.elements[k], k);
            };
            if (ops[ai].elements.size() > 1)
                put_all(ops[ai].elements[1], [&](const Operand& o, size_t k) {
                    ok = ok && source(o, in.t2 != Ty::None ? in.t2 : Ty::S32, in.s[k], why);
                    in.ns = uint8_t(k + 1);
                });
            put_all(ops[di], [&](const Operand& o, size_t k) {
                ok = ok && dest(o, in.d[k], why);
                in.nd = uint8_t(k + 1);
            });
        }
    } else if ((op == "bar" || op == "barrier") && r.has(".red") && !ops.empty()) {
        ok = dest(ops[0], in.d[0], why);
        in.nd = 1;
        do_sources(1);
    } else if (is_control) {
        // bar/barrier/membar/... operands are sources.
        do_sources(0);
    } else if (op == "setp" || op == "shfl" || op == "match" || op == "mov" || !ops.empty()) {
        // Generic: destination(s) first, then sources.
        if (!ops.empty()) {
            const Operand& d0 = ops[0];
            if (d0.kind == OK::Pair) {
                ok = dest(d0.elements[0], in.d[0], why) && dest(d0.elements[1], in.d[1], why);
                in.nd = 2;
            } else if (d0.kind == OK::Vector) {
                ok = false;
                why = "vector destination";
            } else {
                ok = dest(d0, in.d[0], why);
                in.nd = 1;
            }
            do_sources(1);
        }
    }

    Handler h = nullptr;
    if (ok) {
        if (!(h = select_control(r, in)) && !(h = select_texture(r, in)) &&
            !(h = select_memory(r, in)) && !(h = select_warp(r, in)) &&
            !(h = select_convert(r, in)) && !(h = select_float(r, in)) &&
            !(h = select_int(r, in))) {
            ok = false;
            why = "unsupported instruction '" + full + "'";
        }
        // select_* get the modifiers through the request stored alongside.
    }
    if (!ok)
        fail(in.line, why.find("unsupported instruction") == 0 ? why : "'" + full + "': " + why);
    in.fn = h;
    // Keep the opcode spelling for diagnostics.
    static std::mutex names_mutex;
    static std::unordered_map<std::string, std::unique_ptr<std::string>> names;
    {
        std::lock_guard lock(names_mutex);
        auto& slot = names[full];
        if (!slot) slot = std::make_unique<std::string>(full);
        in.name = slot->c_str();
    }
    p_.code.push_back(in);
    (void)spellings;
}

} // namespace

// ---------------------------------------------------------------------------------------------

DecodedModule decode_module(const ptx::Module& module, GlobalMemory& memory) {
    DecodedModule dm;
    Program& p = dm.program;
    std::unordered_map<std::string, Sym> syms;
    std::unordered_map<std::string, uint32_t> functions;

    // Pass 1: allocate module variables, number functions.
    std::vector<const ptx::Variable*> to_init;
    for (auto& item : module.items) {
        if (auto* v = std::get_if<ptx::Variable>(&item)) {
            if (v->space == ".global" || v->space == ".const") {
                uint64_t n = var_bytes(*v);
                bool is_extern =
                    std::find(v->linkage.begin(), v->linkage.end(), ".extern") != v->linkage.end();
                if (is_extern && n == 0) continue;
                uint64_t a = memory.allocate(n ? n : 1);
                if (!a) {
                    dm.error = "out of device memory for '" + v->name + "'";
                    return dm;
                }
                dm.allocations.push_back(a);
                syms[v->name] = Sym{SymKind::Global, a, uint32_t(n)};
                dm.globals[v->name] = ModuleGlobal{a, n};
                to_init.push_back(v);
            } else if (v->space == ".shared") {
                bool is_extern =
                    std::find(v->linkage.begin(), v->linkage.end(), ".extern") != v->linkage.end();
                if (is_extern) {
                    syms[v->name] = Sym{SymKind::Shared, 0, 0}; // patched below
                } else {
                    uint32_t a = var_align(*v);
                    uint32_t off = align_up(p.static_shared_bytes, a);
                    p.static_shared_bytes = off + uint32_t(var_bytes(*v));
                    syms[v->name] = Sym{SymKind::Shared, off, uint32_t(var_bytes(*v))};
                }
            }
        } else if (auto* fn = std::get_if<ptx::Function>(&item)) {
            auto it = functions.find(fn->name);
            if (it == functions.end()) {
                functions[fn->name] = uint32_t(p.functions.size());
                DFunction d;
                d.name = fn->name;
                d.is_entry = fn->is_entry;
                p.functions.push_back(d);
                syms[fn->name] = Sym{SymKind::Function, functions[fn->name], 0};
            }
        }
    }
    // Initialisers (after all addresses are known).
    for (auto* v : to_init) {
        if (!v->initializer) continue;
        std::vector<uint8_t> bytes;
        uint32_t elem = ty_bytes(type_of(v->type));
        std::string err =
            parse_initializer(*v->initializer, v->type, elem ? elem : 1, bytes, dm.globals);
        if (!err.empty()) {
            dm.error = "line " + std::to_string(v->loc.line) + ": initialiser of '" + v->name +
                       "': " + err;
            return dm;
        }
        auto& g = dm.globals[v->name];
        Allocation* a = memory.find(g.address, 1);
        std::memcpy(a->data(), bytes.data(), std::min<uint64_t>(bytes.size(), g.bytes));
    }

    // Function-local .shared variables join the static area before the dynamic part.
    std::unordered_map<const ptx::Variable*, uint32_t> local_shared;
    auto scan = [&](auto&& self, const std::vector<ptx::Statement>& body) -> void {
        for (auto& st : body) {
            if (auto* v = std::get_if<ptx::Variable>(&st); v && v->space == ".shared") {
                uint32_t off = align_up(p.static_shared_bytes, var_align(*v));
                p.static_shared_bytes = off + uint32_t(var_bytes(*v));
                local_shared[v] = off;
            } else if (auto* sc = std::get_if<ptx::Scope>(&st)) {
                self(self, sc->statements);
            }
        }
    };
    for (auto& item : module.items)
        if (auto* fn = std::get_if<ptx::Function>(&item); fn && fn->body) scan(scan, *fn->body);
    // Dynamic (extern) shared arrays all start after the static shared data.
    p.dynamic_shared_offset = align_up(p.static_shared_bytes, 16);
    uint32_t static_module_shared = p.static_shared_bytes;
    bool has_extern_shared = false;
    for (auto& [name, s] : syms)
        if (s.kind == SymKind::Shared && s.size == 0) {
            s.value = p.dynamic_shared_offset;
            has_extern_shared = true;
        }

    // Pass 2: decode the functions (shared declarations inside bodies extend the static area).
    std::vector<const ptx::Function*> bodies(p.functions.size(), nullptr);
    for (auto& item : module.items)
        if (auto* fn = std::get_if<ptx::Function>(&item))
            if (fn->body) bodies[functions[fn->name]] = fn;
    for (uint32_t i = 0; i < p.functions.size(); ++i) {
        DFunction& fd = p.functions[i];
        if (!bodies[i]) {
            fd.has_body = false;
            if (fd.name == "vprintf")
                fd.builtin = Builtin::Vprintf;
            else if (fd.name == "__assertfail")
                fd.builtin = Builtin::AssertFail;
            else if (fd.name == "malloc")
                fd.builtin = Builtin::Malloc;
            else if (fd.name == "free")
                fd.builtin = Builtin::Free;
            else
                fd.error = "function '" + fd.name + "' has no body";
            // Parameter layout for builtins (frame offsets) from the prototype.
            for (auto& item : module.items)
                if (auto* fn = std::get_if<ptx::Function>(&item); fn && fn->name == fd.name) {
                    fd.params.clear();
                    fd.returns.clear();
                    fd.frame_bytes = 0;
                    for (auto& v : fn->params) {
                        uint32_t a = var_align(v), n = uint32_t(var_bytes(v));
                        uint32_t off = align_up(fd.frame_bytes, a);
                        fd.frame_bytes = off + n;
                        fd.params.push_back({v.name, off, n, a});
                    }
                    for (auto& v : fn->returns) {
                        uint32_t a = var_align(v), n = uint32_t(var_bytes(v));
                        uint32_t off = align_up(fd.frame_bytes, a);
                        fd.frame_bytes = off + n;
                        fd.returns.push_back({v.name, off, n, a});
                    }
                    break;
                }
            // A body-less function still gets a begin/end pc: its end instruction.
            fd.begin_pc = uint32_t(p.code.size());
            Inst end;
            end.name = "ret";
            end.function = i;
            end.control = true;
            end.fn = select_control(DecodeRequest{"$end", {}}, end);
            end.leader = true;
            end.block = uint32_t(p.blocks.size());
            fd.end_pc = fd.begin_pc;
            fd.first_block = uint32_t(p.blocks.size());
            fd.block_count = 1;
            p.blocks.push_back(BlockInfo{i, fd.begin_pc, 0, 0, ""});
            p.code.push_back(end);
            continue;
        }
        fd.has_body = true;
        FunctionDecoder dec(p, i, syms, functions, local_shared);
        dec.run(*bodies[i]);
    }
    (void)static_module_shared;
    (void)has_extern_shared;
    return dm;
}

} // namespace cfr::emu
