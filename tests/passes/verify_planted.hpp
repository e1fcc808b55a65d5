// Passes planted in tests, each breaking one check of the verifier (passes/verify.hpp) in the
// function named by its `kernel` option (default: the first with a conditional branch), a module
// of two kernels to plant them in, and a kernel with an mma for those of the convergence check.
#pragma once

#include "passes/module_unit.hpp"
#include "passes/registry.hpp"
#include "passes/verify.hpp"
#include "ptx/cfg.hpp"
#include "ptx/operand_builders.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cfr::test {

// short_circuit (unstructured: `if (a || b)`) and guarded_store (an if-then, tail-structured).
inline const char* kTwoKernels = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry short_circuit(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, 0;
    setp.lt.u32 %p1, %r1, 8;
    @%p1 bra $L__then;
    setp.gt.u32 %p2, %r1, 24;
    @%p2 bra $L__then;
    bra.uni $L__join;
$L__then:
    mov.u32 %r2, 1;
$L__join:
    st.global.u32 [%rd3], %r2;
    ret;
}

.visible .entry guarded_store(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra $L__skip;
    st.global.u32 [%rd3], %r1;
$L__skip:
    ret;
}
)";

// One mma.sync that every lane of a warp runs together: the tensor core reads the lanes'
// fragments as one.
inline const char* kTensorKernel = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry tensor(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %laneid;
    mov.f32 %f1, 0f00000000;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.f32 [%rd3], %f2;
    ret;
}
)";

namespace planted {

using Mutation = std::function<void(passes::FunctionUnit&)>;

// The last instruction of a block, to change in place.
inline ptx::Instruction* last_instruction(ptx::BasicBlock& block) {
    for (auto it = block.statements.rbegin(); it != block.statements.rend(); ++it)
        if (auto* in = std::get_if<ptx::Instruction>(&*it)) return in;
    return nullptr;
}

// The first block ending in a guarded bra.
inline ptx::Instruction* first_conditional_branch(ptx::Cfg& cfg) {
    for (auto& block : cfg.blocks)
        if (auto* in = last_instruction(block);
            in && in->guard && in->control() == ptx::ControlKind::Branch)
            return in;
    return nullptr;
}

// The register `name` with the number the function's declaration gives it (none where no .reg
// declaration in its blocks declares the name).
inline ptx::Register declared_register(const passes::FunctionUnit& f, const std::string& name) {
    for (const auto& block : f.cfg().blocks)
        for (const auto& statement : block.statements) {
            const auto* v = ptx::variable_of(statement);
            if (!v || v->space != ptx::StateSpace::Reg) continue;
            if (!v->range && v->name == name) return {name, v->number};
            if (!v->range || !name.starts_with(v->name)) continue;
            if (const auto index =
                    ptx::range_index(std::string_view(name).substr(v->name.size()), *v->range))
                return {name, v->number + *index};
        }
    return {name};
}

// The first conditional branch guarded by `name`, numbered as the function declares it.
inline void guard_first_branch_by(passes::FunctionUnit& f, const std::string& name) {
    const ptx::Register predicate = declared_register(f, name);
    ptx::Guard& guard = *first_conditional_branch(f.mutable_cfg())->guard;
    guard = ptx::guard_on(predicate, guard.negated);
}

inline bool has_conditional_branch(const ptx::Cfg& cfg) {
    for (const auto& block : cfg.blocks)
        if (const auto* t = block.terminator(); t && t->guard) return true;
    return false;
}

// bra to a label that no block has.
inline void branch_to_nowhere(passes::FunctionUnit& f) {
    first_conditional_branch(f.mutable_cfg())->operands.front().text = "$L__planted_nowhere";
}

// mov into a register that nothing declares.
inline void write_undeclared_register(passes::FunctionUnit& f) {
    ptx::Instruction mov;
    mov.opcode = ptx::Opcode::Mov;
    mov.modifiers = {ptx::Type::U32};
    mov.operands = {ptx::Operand(ptx::Operand::Kind::Register, "%planted_undeclared"),
                    ptx::Operand(ptx::Operand::Kind::Immediate, "0")};
    auto& statements = f.mutable_cfg().blocks.front().statements;
    statements.insert(statements.begin(), std::move(mov));
}

// A branch guarded by a .b32 register.
inline void guard_with_b32(passes::FunctionUnit& f) {
    const ptx::Register word = f.new_register(ptx::Type::B32, "planted");
    ptx::Guard& guard = *first_conditional_branch(f.mutable_cfg())->guard;
    guard = ptx::guard_on(word, guard.negated);
}

// A register operand marked as a symbol: it prints the same and parses back as a register.
inline void register_as_symbol(passes::FunctionUnit& f) {
    for (auto& block : f.mutable_cfg().blocks)
        for (auto& statement : block.statements)
            if (auto* in = std::get_if<ptx::Instruction>(&statement))
                for (auto& op : in->operands)
                    if (op.kind == ptx::Operand::Kind::Register) {
                        op.kind = ptx::Operand::Kind::Symbol;
                        return;
                    }
}

// A register operand renamed in place to another register of the function, keeping the number of
// the register it named: it prints as the other register, and the IR still numbers it as its own.
inline void rename_register_in_place(passes::FunctionUnit& f) {
    std::vector<ptx::Operand*> registers;
    for (auto& block : f.mutable_cfg().blocks)
        for (auto& statement : block.statements)
            if (auto* in = std::get_if<ptx::Instruction>(&statement))
                for (auto& op : in->operands)
                    if (op.kind == ptx::Operand::Kind::Register) registers.push_back(&op);
    for (auto* a : registers)
        for (auto* b : registers)
            if (a->text != b->text && a->reg != b->reg) {
                a->text = b->text;
                return;
            }
}

// The function's body laid out, `edit` applied at its first mma, as its new CFG.
inline void edit_at_mma(passes::FunctionUnit& f,
                        const std::function<void(std::vector<ptx::Statement>&, size_t)>& edit) {
    std::vector<ptx::Statement> body = ptx::layout(f.cfg());
    for (size_t i = 0; i < body.size(); ++i)
        if (const auto* in = std::get_if<ptx::Instruction>(&body[i]);
            in && in->opcode == cfr::ptx::Opcode::Mma) {
            edit(body, i);
            break;
        }
    ptx::Function rebuilt = f.function();
    rebuilt.body = std::move(body);
    f.mutable_cfg() = ptx::build_cfg(rebuilt);
}

// The mma under a new branch on the low bit of a special register: %laneid makes lanes of a
// warp run it apart, %ctaid.x does not.
inline Mutation mma_under_branch_on(const std::string& special) {
    return [special](passes::FunctionUnit& f) {
        const ptx::Register value = f.new_register(ptx::Type::B32, "planted");
        const ptx::Register odd = f.new_register(ptx::Type::Pred, "planted");
        const std::string skip = f.new_label("planted_skip");
        edit_at_mma(f, [&](std::vector<ptx::Statement>& body, size_t i) {
            body.insert(body.begin() + long(i) + 1, ptx::Label{skip, {}});
            const std::vector<ptx::Statement> branch = {
                ptx::make_instruction(cfr::ptx::Opcode::Mov, {cfr::ptx::Type::U32},
                                      {ptx::reg(value), ptx::special_reg(special)}),
                ptx::make_instruction(cfr::ptx::Opcode::And, {cfr::ptx::Type::B32},
                                      {ptx::reg(value), ptx::reg(value), ptx::imm(1)}),
                ptx::make_instruction(cfr::ptx::Opcode::Setp,
                                      {cfr::ptx::Comparison::Ne, cfr::ptx::Type::U32},
                                      {ptx::reg(odd), ptx::reg(value), ptx::imm(0)}),
                ptx::guarded(
                    ptx::make_instruction(cfr::ptx::Opcode::Bra, {}, {ptx::label_ref(skip)}), odd)};
            body.insert(body.begin() + long(i), branch.begin(), branch.end());
        });
    };
}

// A second copy of the mma after the first.
inline void copy_mma(passes::FunctionUnit& f) {
    edit_at_mma(f, [](std::vector<ptx::Statement>& body, size_t i) {
        const ptx::Statement copy = body[i];
        body.insert(body.begin() + long(i) + 1, copy);
    });
}

class PlantedPass : public passes::Pass {
public:
    PlantedPass(Mutation mutate, std::string kernel)
        : mutate_(std::move(mutate)), kernel_(std::move(kernel)) {}

    passes::PassReport run(passes::ModuleUnit& unit) override {
        passes::PassReport report;
        for (auto& f : unit.functions()) {
            const bool chosen =
                kernel_.empty() ? has_conditional_branch(f.cfg()) : f.function().name == kernel_;
            if (!chosen) continue;
            mutate_(f);
            report.changed = true;
            break;
        }
        return report;
    }

private:
    Mutation mutate_;
    std::string kernel_;
};

struct Plant {
    const char* name;
    passes::Check check; // the check it breaks
    passes::Promise promise;
    Mutation mutate;
    const char* kernel; // where the tests plant it (the `kernel` option)

    std::string pipeline() const { return std::string(name) + "<kernel=" + kernel + ">"; }
};

// Rewrites the function from its CFG without changing it.
inline void relayout(passes::FunctionUnit& f) {
    f.mutable_cfg();
}

// A pass promising a tail-structured CFG that rewrites short_circuit without restructuring it
// breaks its promise.
inline const std::vector<Plant>& plants() {
    static const std::vector<Plant> all = {
        {"planted-branch-to-nowhere", passes::Check::BranchTargets, passes::Promise::Nothing,
         branch_to_nowhere, "guarded_store"},
        {"planted-undeclared-register", passes::Check::Declarations, passes::Promise::Nothing,
         write_undeclared_register, "guarded_store"},
        {"planted-guard-not-predicate", passes::Check::Predicates, passes::Promise::Nothing,
         guard_with_b32, "guarded_store"},
        {"planted-broken-promise", passes::Check::PromisedClass, passes::Promise::TailStructured,
         relayout, "short_circuit"},
        {"planted-register-as-symbol", passes::Check::RoundTrip, passes::Promise::Nothing,
         register_as_symbol, "guarded_store"},
        {"planted-register-renamed", passes::Check::RegisterNumbers, passes::Promise::Nothing,
         rename_register_in_place, "guarded_store"},
    };
    return all;
}

// Passes that break or keep the convergence check in kTensorKernel's `tensor`.
inline const std::vector<Plant>& convergence_plants() {
    static const std::vector<Plant> all = {
        {"planted-mma-under-lane-guard", passes::Check::Convergence, passes::Promise::Nothing,
         mma_under_branch_on("%laneid"), "tensor"},
        {"planted-mma-copied", passes::Check::Convergence, passes::Promise::Nothing, copy_mma,
         "tensor"},
        {"planted-mma-under-uniform-guard", passes::Check::Convergence, passes::Promise::Nothing,
         mma_under_branch_on("%ctaid.x"), "tensor"},
    };
    return all;
}

struct PlantOptions {
    std::string kernel;
};

inline passes::PassInfo pass_info(const Plant& plant) {
    const Mutation mutate = plant.mutate;
    const passes::Promise promise = plant.promise;
    return passes::declare<PlantOptions>(
        {.name = plant.name,
         .description = "planted in tests: breaks one check of the verifier",
         .options = {passes::text(
             "kernel", "the function to break (default: the first with a conditional branch)",
             &PlantOptions::kernel)},
         .create = [mutate](const PlantOptions& options) -> std::unique_ptr<passes::Pass> {
             return std::make_unique<PlantedPass>(mutate, options.kernel);
         },
         .contract = [promise](const PlantOptions&) -> passes::Contract {
             return {.promise = promise};
         }});
}

// Registers every planted pass once.
inline bool register_all() {
    static const bool registered = [] {
        for (const auto& plant : plants())
            passes::register_pass(pass_info(plant));
        for (const auto& plant : convergence_plants())
            passes::register_pass(pass_info(plant));
        return true;
    }();
    return registered;
}

} // namespace planted
} // namespace cfr::test
