// The verifier's class checks: what each Promise (pass.hpp) asks of the functions a pass leaves,
// on the structural classifier (analysis/structure.hpp), the loop nest and the linear shapes of
// linearize/linear_shape.hpp, against what before() recorded.
#include "passes/analysis/convergence.hpp"
#include "passes/analysis/divergence.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/linearize/linear_shape.hpp"
#include "passes/linearize/regions.hpp"
#include "passes/module_unit.hpp"
#include "passes/restructure/rgraph.hpp"
#include "passes/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace cfr::passes {
namespace {

using analysis::StructuralClass;

// Tail-controlled (rgraph.hpp): one entry node, one repetition edge, and one exit edge, which
// leaves from the repetition edge's source. "" when the loop is.
std::string loop_shape_problem(const analysis::Loop& loop) {
    if (loop.entries.size() != 1) return "has several entry nodes";
    if (loop.back_edges.size() != 1) return "has several repetition edges";
    if (loop.exits.size() != 1) return fmt::format("has {} exit edges", loop.exits.size());
    if (loop.exits.front().first != loop.back_edges.front().first)
        return "is left from another node than its repetition edge's source";
    return {};
}

// The first loop that is not tail-controlled in the restructuring's view of the function, where
// a jump block is no node (rgraph.hpp: `L: ... @p bra X; bra L;` is a self-loop of L).
std::string restructuring_loops_problem(FunctionUnit& function) {
    const auto graph = restructure::RGraph::shape_of(function.cfg());
    for (const auto& loop : analysis::loop_nest(graph.digraph(), graph.entry).loops)
        if (auto problem = loop_shape_problem(loop); !problem.empty()) {
            const auto& header = graph.nodes[loop.header];
            return header.kind == restructure::NodeKind::Original
                       ? fmt::format("the loop headed by block {} {}", header.block, problem)
                       : fmt::format("a loop {}", problem);
        }
    return {};
}

// The first loop of the function that is not tail-controlled, as a message; "" when none. The
// CFG's cached loop nest answers for most functions; where it finds a loop that is not, the
// restructuring's view decides.
std::string loops_problem(FunctionUnit& function) {
    for (const auto& loop : function.loops().loops)
        if (!loop_shape_problem(loop).empty()) return restructuring_loops_problem(function);
    return {};
}

StructuralClass structural_class(FunctionUnit& function) {
    return analysis::structural_class(function.graph(), function.cfg().entry(),
                                      function.cfg().exit());
}

bool has_uniform_branch(const analysis::ModuleDivergence& divergence, const std::string& name) {
    const auto* verdicts = divergence.find(name);
    return verdicts && std::any_of(verdicts->branches.begin(), verdicts->branches.end(),
                                   [](const auto& branch) { return !branch.divergent; });
}

// What linearize leaves as it is: functions with trap, brx.idx, or exit in a .func (linearize.cpp).
bool linearize_leaves_alone(const FunctionUnit& function) {
    for (const auto& block : function.cfg().blocks) {
        const ptx::Instruction* t = block.terminator();
        if (!t) continue;
        const auto kind = t->control();
        if (kind == ptx::ControlKind::Trap || kind == ptx::ControlKind::IndirectBranch ||
            (kind == ptx::ControlKind::Exit && !function.function().is_entry))
            return true;
    }
    return false;
}

// The unstructured edges left in a function that linearize promised to leave none in, but for those
// in regions that hold a convergent operation (which linearize leaves alone).
std::vector<analysis::Edge> unstructured_edges_left(FunctionUnit& f,
                                                    const analysis::ConvergentCode& convergent) {
    auto edges = linearize::unstructured_edges(f.cfg());
    if (edges.empty()) return edges;
    const linearize::RegionContext context(f.graph(), f.cfg().entry(), f.cfg().exit(),
                                           f.dominators(), f.post_dominators());
    std::vector<linearize::Region> seeds;
    for (const auto& [u, v] : edges)
        seeds.push_back(linearize::close_region(context, {u, v}));
    const auto regions = linearize::disjoint_regions(context, std::move(seeds));
    std::erase_if(edges, [&](const analysis::Edge& edge) {
        return std::any_of(regions.begin(), regions.end(), [&](const linearize::Region& r) {
            return r.contains(edge.first) && convergent.first(f.cfg(), r.blocks);
        });
    });
    return edges;
}

std::vector<std::tuple<ptx::BlockId, ptx::BlockId, ptx::EdgeKind>>
sorted_edges(const std::vector<ptx::CfgEdge>& edges) {
    std::vector<std::tuple<ptx::BlockId, ptx::BlockId, ptx::EdgeKind>> out;
    out.reserve(edges.size());
    for (const auto& e : edges)
        out.emplace_back(e.from, e.to, e.kind);
    std::sort(out.begin(), out.end());
    return out;
}

std::string edge_list(const std::vector<analysis::Edge>& edges) {
    std::string out;
    for (size_t k = 0; k < edges.size() && k < 4; ++k)
        out += fmt::format("{}{} -> {}", k ? ", " : "", edges[k].first, edges[k].second);
    if (edges.size() > 4) out += fmt::format(" and {} more", edges.size() - 4);
    return out;
}

} // namespace

std::string tail_control_problem(FunctionUnit& function) {
    return loops_problem(function);
}

bool unsupported_control(const FunctionUnit& function) {
    return linearize_leaves_alone(function);
}

void Verifier::before(ModuleUnit& unit, Promise promise) {
    before_.clear();
    if (level_ == VerifyLevel::Off) return;
    for (auto& function : unit.functions()) {
        FunctionState state;
        state.version = function.version();
        state.changed = function.changed();
        state.declarations = function.new_declarations().size();
        switch (promise) {
        case Promise::TailStructuredWhereDivergent:
        case Promise::TailStructured:
            state.loops_tail_controlled = loops_problem(function).empty();
            break;
        case Promise::ClassKept:
            state.klass = structural_class(function);
            break;
        case Promise::SameCfg:
            state.blocks = function.cfg().blocks.size();
            state.edges = function.cfg().edges;
            break;
        default:
            break;
        }
        before_.push_back(std::move(state));
    }
    if (promise == Promise::TailStructuredWhereDivergent) record_uniform_branches(unit);
    record_convergent(unit);
}

// Whether a function had a uniform branch matters only where it is not tail-structured and its
// loops are tail-controlled (promise_problem); the divergence analysis runs only if one is.
void Verifier::record_uniform_branches(ModuleUnit& unit) {
    auto& functions = unit.functions();
    const auto asks = [&](size_t i) {
        return before_[i].loops_tail_controlled && !functions[i].tail_structured();
    };
    const analysis::ModuleDivergence* divergence = nullptr;
    for (size_t i = 0; i < functions.size(); ++i) {
        if (!asks(i)) continue;
        if (!divergence) divergence = &unit.divergence();
        before_[i].uniform_branch = has_uniform_branch(*divergence, functions[i].function().name);
    }
}

std::optional<Violation> Verifier::promise_broken(ModuleUnit& unit, Promise promise) {
    if (promise == Promise::Nothing) return std::nullopt;
    auto& functions = unit.functions();
    const analysis::ConvergentCode* convergent = nullptr;
    for (size_t i = 0; i < functions.size(); ++i) {
        FunctionUnit& f = functions[i];
        const FunctionState* state = i < before_.size() ? &before_[i] : nullptr;
        const bool rewritten = !state || this->rewritten(f, *state);
        // Cheap checks what the pass rewrote; full also what it left as it was.
        if (!rewritten && level_ == VerifyLevel::Cheap) continue;
        if (!convergent && (promise == Promise::NoUnstructuredEdge || !rewritten))
            convergent = &unit.convergent_code();
        if (auto problem = promise_problem(f, promise, rewritten, state, convergent);
            !problem.empty())
            return Violation{Check::PromisedClass, f.function().name, f.function().is_entry,
                             std::move(problem)};
    }
    return std::nullopt;
}

std::string Verifier::promise_problem(FunctionUnit& f, Promise promise, bool rewritten,
                                      const FunctionState* state,
                                      const analysis::ConvergentCode* convergent) const {
    switch (promise) {
    case Promise::Nothing:
        return {};
    case Promise::Unchanged:
        return rewritten ? "an analysis changed the function" : "";
    case Promise::SameCfg:
        if (!rewritten || !state) return {};
        if (f.cfg().blocks.size() != state->blocks || f.cfg().edges.size() != state->edges.size())
            return fmt::format("promised the same CFG: {} blocks and {} edges before, {} and {} "
                               "after",
                               state->blocks, state->edges.size(), f.cfg().blocks.size(),
                               f.cfg().edges.size());
        if (sorted_edges(f.cfg().edges) != sorted_edges(state->edges))
            return "promised the same CFG: its edges changed";
        return {};
    case Promise::ClassKept: {
        if (!rewritten || !state) return {};
        const StructuralClass now = structural_class(f);
        if (now <= state->klass) return {};
        return fmt::format("promised to keep the structural class: {} before, {} after",
                           analysis::to_string(state->klass), analysis::to_string(now));
    }
    case Promise::LoopsTailControlled:
        // A function the pass left as it was may hold what its convergence guard kept it from
        // rewriting (convergence_guard.hpp).
        if (!rewritten && holds_convergent(f, *convergent)) return {};
        if (auto loops = loops_problem(f); !loops.empty())
            return "promised tail-controlled loops: " + loops;
        return {};
    case Promise::TailStructured:
    case Promise::TailStructuredWhereDivergent:
        if (!state || !state->loops_tail_controlled || state->uniform_branch || f.tail_structured())
            return {};
        if (!rewritten && holds_convergent(f, *convergent)) return {};
        return fmt::format("promised a tail-structured CFG (its loops were tail-controlled); the "
                           "classifier says {}, unstructured edges {}",
                           analysis::to_string(f.structure().klass),
                           edge_list(f.structure().unstructured_edges));
    case Promise::NoUnstructuredEdge:
        if (linearize_leaves_alone(f)) return {};
        if (const auto edges = unstructured_edges_left(f, *convergent); !edges.empty())
            return "promised no unstructured edge; left " + edge_list(edges);
        return {};
    case Promise::GuardedSequence:
        if (!rewritten) return {};
        if (auto shape = linearize::guarded_sequence_problem(f.cfg()); !shape.empty())
            return "promised a guarded sequence: " + shape;
        return {};
    }
    return {};
}

} // namespace cfr::passes
