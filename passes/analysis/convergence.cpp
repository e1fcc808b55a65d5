// Convergent operations, the functions that execute them, and control dependence: see
// convergence.hpp.
#include "passes/analysis/convergence.hpp"

#include "passes/module_unit.hpp"
#include "ptx/opcode_properties.hpp"
#include "ptx/walk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace cfr::analysis {
namespace {

// What the module's functions do, before calls are followed.
struct Body {
    bool convergent = false;          // holds a convergent operation other than a call
    std::vector<std::string> callees; // "" for an indirect call
};

template <typename Statements>
void read_body(const Statements& statements, Body& body) {
    ptx::for_each_instruction(statements, [&](const ptx::Instruction& in) {
        if (in.control() == ptx::ControlKind::Call)
            body.callees.push_back(callee(in));
        else if (!body.convergent && ptx::properties(in).convergent())
            body.convergent = true;
    });
}

// Every function the module declares; one declared without a body anywhere (external) is
// unknown code.
std::map<std::string, Body> read_module(passes::ModuleUnit& unit) {
    std::map<std::string, Body> bodies;
    std::set<std::string> defined;
    for (auto& item : unit.module().items) {
        const auto* f = std::get_if<ptx::Function>(&item);
        if (!f) continue;
        Body& body = bodies[f->name];
        if (auto* function = unit.find(f->name); function && defined.insert(f->name).second)
            function->for_each_code(
                [&](std::span<const ptx::Statement> code) { read_body(code, body); });
        else if (f->body && defined.insert(f->name).second)
            read_body(*f->body, body);
    }
    for (auto& [name, body] : bodies)
        if (!defined.count(name)) body.convergent = true;
    return bodies;
}

} // namespace

ConvergentCode::ConvergentCode(passes::ModuleUnit& unit) {
    const auto bodies = read_module(unit);
    for (const auto& [name, body] : bodies)
        if (body.convergent) functions_.insert(name);
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& [name, body] : bodies) {
            if (functions_.count(name)) continue;
            const bool calls_convergent =
                std::any_of(body.callees.begin(), body.callees.end(), [&](const std::string& c) {
                    return c.empty() || !bodies.count(c) || functions_.count(c);
                });
            if (calls_convergent) changed = functions_.insert(name).second;
        }
    }
}

bool ConvergentCode::convergent(const ptx::Instruction& instruction) const {
    if (instruction.control() != ptx::ControlKind::Call)
        return ptx::properties(instruction).convergent();
    const std::string name = callee(instruction);
    return name.empty() || functions_.count(name) != 0;
}

const ptx::Instruction* ConvergentCode::first(std::span<const ptx::Statement> statements) const {
    const ptx::Instruction* found = nullptr;
    ptx::for_each_instruction(statements, [&](const ptx::Instruction& in) {
        if (!found && convergent(in)) found = &in;
    });
    return found;
}

const ptx::Instruction* ConvergentCode::first(const ptx::Cfg& cfg,
                                              std::span<const NodeId> blocks) const {
    for (const NodeId b : blocks)
        if (b < cfg.blocks.size())
            if (const auto* found = first(cfg.blocks[b].statements)) return found;
    return nullptr;
}

std::string callee(const ptx::Instruction& call) {
    for (const auto& operand : call.operands) {
        if (operand.kind == ptx::Operand::Kind::List) continue;
        return operand.kind == ptx::Operand::Kind::Symbol ? operand.text : std::string();
    }
    return {};
}

std::string left_alone(const ptx::Instruction& convergent) {
    return fmt::format("left alone: convergent operation {} at line {}", convergent.mnemonic(),
                       convergent.loc.line);
}

ControlDependence::ControlDependence(const Digraph& g, const DominatorTree& post_dominators) {
    const auto& ipdom = post_dominators.idom;
    std::vector<std::pair<NodeId, NodeId>> dependences; // (block, branch), branches ascending
    std::vector<NodeId> last_branch(g.size(), kNoNode); // per block, the last branch recorded
    std::vector<NodeId> successors;
    for (NodeId x = 0; x < g.size(); ++x) {
        successors.assign(g.succ[x].begin(), g.succ[x].end());
        std::sort(successors.begin(), successors.end());
        successors.erase(std::unique(successors.begin(), successors.end()), successors.end());
        if (successors.size() < 2) continue;
        for (NodeId v : successors)
            for (size_t steps = 0; v != kNoNode && v != ipdom[x] && steps < g.size(); ++steps) {
                if (last_branch[v] != x) dependences.emplace_back(v, x);
                last_branch[v] = x;
                v = ipdom[v];
            }
    }
    direct_.build(g.size(), dependences);
}

std::vector<NodeId> ControlDependence::controlling(NodeId block) const {
    std::vector<bool> seen(blocks(), false);
    const auto first = direct_[block];
    std::vector<NodeId> stack(first.begin(), first.end()), out;
    while (!stack.empty()) {
        const NodeId x = stack.back();
        stack.pop_back();
        if (seen[x]) continue;
        seen[x] = true;
        out.push_back(x);
        const auto next = direct_[x];
        stack.insert(stack.end(), next.begin(), next.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace cfr::analysis
