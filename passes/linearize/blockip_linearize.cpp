// The `blockip-linearize` pass: linearization with a per-lane block instruction pointer, as the
// Beignet OpenCL compiler does it (seed 003, "Unstructured Branches", solution 2). The blocks are
// laid out in reverse post-order, block k numbered k; every lane keeps in a register (`bip`) the
// number of the block it has to run next. Each block starts with a JOIN check: the lanes whose
// bip is k are active (`setp`), and where no lane is (`vote.any`) the warp jumps to the next
// block (`bra.uni`); the others skip the block's code in a divergent if-then. The block's branch
// becomes an assignment of its successor's number to bip. At the block's end the reconverged warp
// jumps backward to a target when any lane needs it (`vote.any`, smallest target first) and
// forward over blocks when no lane needs the blocks in between (`vote.all` of bip >= target);
// otherwise it falls into the next block. Every return becomes an assignment of the exit block's
// number, and one exit block at the end returns. Any CFG, irreducible included, needs no copies.
//
// Pre: the function has a CFG. Post: the function computes what it did, and it is one linear
// sequence of guarded blocks whose only divergent branches skip a block's code and whose back
// edges are uniform jumps at block ends (see linear_shape.hpp). Functions with `trap`, `brx.idx`
// or `exit` in a non-kernel function are left as they are; so are functions of one block, and
// functions with a convergent operation (analysis/convergence.hpp).
// `selective=true` rewrites only functions with an unstructured edge (seed 002 Definition 1) and
// a divergent branch where the cost model says it pays.
#include "passes/analysis/convergence.hpp"
#include "passes/analysis/divergence.hpp"
#include "passes/linearize/cost_model.hpp"
#include "passes/linearize/linear_shape.hpp"
#include "passes/linearize/node_list.hpp"
#include "passes/linearize/regions.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace cfr::linearize {
namespace {

struct Registers {
    ptx::Register bip, mask, active, any;
};

struct BlockipOptions {
    bool selective = false;
    std::string profile;
};

class FunctionBlockip {
public:
    FunctionBlockip(passes::FunctionUnit& f, const BlockipOptions& options,
                    const analysis::FunctionDivergence* verdicts, const FunctionProfile* profile,
                    const analysis::ConvergentCode& convergent, passes::PassReport& report)
        : f_(f), options_(options), verdicts_(verdicts), profile_(profile), convergent_(convergent),
          report_(report) {}

    void run() {
        const ptx::Cfg& cfg = f_.cfg();
        order_ = loop_contiguous_order(f_.graph(), cfg.entry(), f_.loops());
        std::erase(order_, cfg.exit());
        if (order_.size() < 2) return;
        if (const auto why = unsupported(); !why.empty()) {
            report_.count("functions left (unsupported code)");
            report_.decisions.push_back(
                fmt::format("{}: left as it is ({})", f_.function().name, why));
            return;
        }
        // Every block would run under its JOIN check, lanes apart.
        if (const auto* op = convergent_.first(f_.cfg(), order_)) {
            report_.count("functions left alone (convergent operation)");
            report_.decisions.push_back(
                fmt::format("{}: {}", f_.function().name, analysis::left_alone(*op)));
            return;
        }
        position_.assign(f_.graph().size(), 0);
        for (uint32_t k = 0; k < order_.size(); ++k)
            position_[order_[k]] = k;
        position_[cfg.exit()] = static_cast<uint32_t>(order_.size());
        ends_ = block_ends(cfg);
        if (options_.selective && !pays()) return;
        Registers r{f_.new_register(ptx::Type::B32, "bip"), f_.new_register(ptx::Type::B32, "mask"),
                    f_.new_register(ptx::Type::Pred, "act"),
                    f_.new_register(ptx::Type::Pred, "any")};
        emit(r);
        report_.changed = true;
        report_.count("functions linearized");
        report_.count("blocks guarded", int64_t(order_.size()));
    }

private:
    passes::FunctionUnit& f_;
    const BlockipOptions& options_;
    const analysis::FunctionDivergence* verdicts_;
    const FunctionProfile* profile_;
    const analysis::ConvergentCode& convergent_;
    passes::PassReport& report_;
    std::vector<NodeId> order_;
    std::vector<uint32_t> position_;
    std::vector<BlockEnd> ends_; // per block of the CFG being linearized

    std::string unsupported() const {
        for (NodeId b : order_) {
            const ptx::Instruction* t = f_.cfg().blocks[b].terminator();
            if (!t) continue;
            if (t->control() == ptx::ControlKind::Trap) return "trap";
            if (t->control() == ptx::ControlKind::IndirectBranch) return "brx.idx";
            if (t->control() == ptx::ControlKind::Exit && !f_.function().is_entry)
                return "exit in a function";
        }
        return {};
    }

    std::vector<bool> divergent_blocks() const {
        const ptx::Cfg& cfg = f_.cfg();
        std::vector<bool> out(cfg.exit() + 1, false);
        for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
            const ptx::Instruction* t = cfg.blocks[b].terminator();
            if (!t || !t->guard) continue;
            const auto* verdict = verdicts_ ? verdicts_->branch_in(b) : nullptr;
            out[b] = !verdict || verdict->divergent;
        }
        return out;
    }

    // The control one sweep adds: per block a JOIN check (setp, vote, bra.uni) and the skip
    // branch; per backward or far forward target a check at the block's end.
    double control_per_sweep() const {
        double control = 0;
        for (NodeId b : order_) {
            control += 4 + 3 * double(jump_targets(b).size());
            if (!f_.cfg().blocks[b].terminator()) control += 1; // the assignment
        }
        return control;
    }

    bool pays() {
        const auto divergent = divergent_blocks();
        const bool unstructured = !unstructured_edges(f_.cfg()).empty();
        const bool any_divergent =
            std::any_of(divergent.begin(), divergent.end(), [](bool d) { return d; });
        if (!unstructured || !any_divergent) {
            report_.count(unstructured ? "functions left uniform" : "functions left structured");
            return false;
        }
        FunctionCosts costs(f_.cfg(), f_.graph(), f_.post_dominators().idom, divergent,
                            Weights::Gpu, profile_);
        std::vector<bool> scope(f_.graph().size(), false);
        for (NodeId b : order_)
            scope[b] = true;
        double before = 0, after = 0;
        const auto base = costs.measured_executions(f_.cfg().entry());
        const bool measured = base && *base > 0;
        const auto runs = costs.executions(f_.cfg().entry(), scope, f_.cfg().exit());
        double sweeps = 1;
        for (NodeId b : order_) {
            const double n = measured ? costs.measured_executions(b).value_or(0) / *base : runs[b];
            const double kept =
                measured ? n - costs.measured_redundant(b).value_or(0) / *base : std::min(n, 1.0);
            before += costs.weight(b) * n;
            after += costs.weight(b) * kept;
            sweeps = std::max(sweeps, kept);
        }
        after += control_per_sweep() * (measured ? sweeps : 1.0);
        const bool result = after < before;
        report_.decisions.push_back(fmt::format(
            "{}: {:.0f} -> {:.0f} cycles per run ({}): {}", f_.function().name, before, after,
            measured ? "profile" : "static", result ? "linearized" : "left as it is"));
        if (!result) report_.count("functions left (cost)");
        return result;
    }

    // Targets a block's end checks: backward ones ascending, then forward ones beyond the next
    // block, descending.
    std::vector<uint32_t> jump_targets(NodeId b) const {
        const BlockEnd& end = ends_[b];
        std::vector<uint32_t> back, forward;
        const uint32_t k = position_[b];
        const std::vector<NodeId> successors =
            end.two_way ? std::vector<NodeId>{end.taken, end.fall} : std::vector<NodeId>{end.taken};
        for (NodeId s : successors) {
            const uint32_t t = position_[s];
            auto& list = t <= k ? back : forward;
            if ((t <= k || t > k + 1) && std::find(list.begin(), list.end(), t) == list.end())
                list.push_back(t);
        }
        std::sort(back.begin(), back.end());
        std::sort(forward.rbegin(), forward.rend());
        back.insert(back.end(), forward.begin(), forward.end());
        return back;
    }

    ptx::Instruction assign(NodeId b, const Registers& r) const {
        const BlockEnd& end = ends_[b];
        const uint32_t t = position_[end.taken];
        if (!end.two_way || t == position_[end.fall])
            return make_instruction(ptx::Opcode::Mov, {ptx::Type::U32}, {reg(r.bip), imm(t)});
        const uint32_t f = position_[end.fall];
        const bool neg = end.guard.negated;
        return make_instruction(
            ptx::Opcode::Selp, {ptx::Type::U32},
            {reg(r.bip), imm(neg ? f : t), imm(neg ? t : f), reg(ptx::register_of(end.guard))});
    }

    ptx::Instruction vote(ptx::Modifier mode, const Registers& r,
                          const ptx::Register& source) const {
        return make_instruction(ptx::Opcode::Vote, {ptx::Modifier::Sync, mode, ptx::Type::Pred},
                                {reg(r.any), reg(source), reg(r.mask)});
    }

    void emit(const Registers& r) {
        const ptx::Cfg& cfg = f_.cfg();
        const size_t n = order_.size();
        // Nodes: the prologue, then per block head, skip, body, its jump checks; the exit block.
        std::vector<size_t> head(n + 1), tail(n);
        std::vector<std::vector<uint32_t>> targets(n);
        size_t count = 1;
        for (size_t k = 0; k < n; ++k) {
            targets[k] = jump_targets(order_[k]);
            head[k] = count;
            count += 3; // head, skip, body
            tail[k] = count;
            count += targets[k].size();
        }
        head[n] = count++;
        NodeList list;
        list.nodes.resize(count);
        Node& prologue = list.nodes[0];
        prologue.statements.emplace_back(
            make_instruction(ptx::Opcode::Activemask, {ptx::Type::B32}, {reg(r.mask)}));
        prologue.statements.emplace_back(
            make_instruction(ptx::Opcode::Mov, {ptx::Type::U32}, {reg(r.bip), imm(0)}));
        prologue.end = fall_to(head[0]);
        for (size_t k = 0; k < n; ++k) {
            const NodeId b = order_[k];
            Node& h = list.nodes[head[k]];
            h.statements.emplace_back(
                make_instruction(ptx::Opcode::Setp, {ptx::Comparison::Eq, ptx::Type::U32},
                                 {reg(r.active), reg(r.bip), imm(int64_t(k))}));
            h.statements.emplace_back(vote(ptx::Modifier::Any, r, r.active));
            h.end = branch_on(r.any, true, head[k + 1], head[k] + 1, true);
            Node& skip = list.nodes[head[k] + 1];
            skip.end = branch_on(r.active, true, tail[k], head[k] + 2);
            Node& body = list.nodes[head[k] + 2];
            body.statements = without_terminator(cfg.blocks[b]);
            body.statements.emplace_back(assign(b, r));
            body.end = fall_to(tail[k]);
            for (size_t j = 0; j < targets[k].size(); ++j) {
                const uint32_t t = targets[k][j];
                Node& check = list.nodes[tail[k] + j];
                const bool backward = t <= k;
                check.statements.emplace_back(make_instruction(
                    ptx::Opcode::Setp,
                    {backward ? ptx::Comparison::Eq : ptx::Comparison::Ge, ptx::Type::U32},
                    {reg(r.active), reg(r.bip), imm(t)}));
                check.statements.emplace_back(
                    vote(backward ? ptx::Modifier::Any : ptx::Modifier::All, r, r.active));
                check.end = branch_on(r.any, false, head[t], tail[k] + j + 1, true);
            }
            // Without checks, tail[k] is the next head.
        }
        list.nodes[head[n]].end = ptx::Transfer::jump(kExitNode);
        list.write(f_);
    }
};

class BlockipPass final : public passes::Pass {
public:
    explicit BlockipPass(BlockipOptions options) : options_(std::move(options)) {
        if (!options_.profile.empty()) profile_ = load_profile(options_.profile);
    }

    passes::PassReport run(passes::ModuleUnit& unit) override {
        passes::PassReport report;
        std::vector<analysis::FunctionDivergence> verdicts;
        if (options_.selective) verdicts = unit.divergence().functions;
        const analysis::ConvergentCode convergent(unit);
        for (auto& function : unit.functions()) {
            const analysis::FunctionDivergence* v = nullptr;
            for (const auto& fv : verdicts)
                if (fv.function == function.function().name) v = &fv;
            const FunctionProfile* p =
                profile_ ? profile_->find(function.function().name) : nullptr;
            FunctionBlockip(function, options_, v, p, convergent, report).run();
        }
        return report;
    }

private:
    BlockipOptions options_;
    std::optional<Profile> profile_;
};

} // namespace
} // namespace cfr::linearize

namespace cfr::passes {

PassInfo blockip_linearize_pass() {
    using linearize::BlockipOptions;
    return declare<BlockipOptions>(
        {.name = "blockip-linearize",
         .description = "linearization with a per-lane block IP (seed 003, Beignet): JOIN checks "
                        "at block heads, uniform jumps at block ends; any CFG, irreducible "
                        "included",
         .options = {flag("selective",
                          "rewrite only unstructured functions with a divergent branch where the "
                          "cost model says it pays",
                          &BlockipOptions::selective),
                     text("profile",
                          "emulator counts of the original module (cfr-run --json) for the cost "
                          "model",
                          &BlockipOptions::profile)},
         .create = [](const BlockipOptions& options) -> std::unique_ptr<Pass> {
             return std::make_unique<linearize::BlockipPass>(options);
         },
         .contract = [](const BlockipOptions&) -> Contract {
             return {.requirements = {hard(Condition::Uninstrumented),
                                      soft(Condition::NoConvergentOperation,
                                           "functions left alone (convergent operation)"),
                                      soft(Condition::SupportedControl,
                                           "functions left (unsupported code)")},
                     .preserves = {Condition::Uninstrumented, Condition::SupportedControl},
                     .promise = Promise::GuardedSequence};
         }});
}

} // namespace cfr::passes
