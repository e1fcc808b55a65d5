// The `linearize` pass: control-flow linearization with a guard variable, Anantpur and
// Govindarajan (seed 002). Section 3, Algorithm 1: the blocks of a region become a sequence of
// if-then statements in reverse post-order, each guarded by a test of the guard variable that
// its predecessors set in place of their branches, with back-edge guards for retreating edges.
// Section 4: the region of each unstructured edge (Definition 1) is the minimal one of Algorithm 2
// (Definition 4, bounded by CIDOM and CIPDOM); structured sub-regions inside it are guarded only
// at their entry (Algorithm 3); guard-value propagation drives O1-O3 (`opt`). Section 5: loop
// merging (`merge-loops`), linearizing only branches nested deeper than a limit (`max-depth`),
// and branch interleaving (`order=interleave`).
//
// Pre: the function has a CFG. Post: the function computes what it did; where every region was
// linearized (not `selective`, no `max-depth`), the CFG has no unstructured edge (Definition 1,
// read through jump blocks: linear_shape.hpp).
// Regions holding `trap`, `brx.idx`, or `exit` in a non-kernel function are left as they are, and
// so are regions and loop merges holding a convergent operation (analysis/convergence.hpp): their
// blocks would run under guards of their own, lanes apart.
// `selective=true` leaves regions whose branches the divergence analysis proves uniform, and
// regions where the cost model (cost_model.hpp) says linearization does not pay; `merge-loops=auto`
// merges a loop into its parent only where the cost model says it pays. The decisions and their
// numbers are in the pass report.
#include "passes/analysis/convergence.hpp"
#include "passes/analysis/divergence.hpp"
#include "passes/linearize/cost_model.hpp"
#include "passes/linearize/linear_shape.hpp"
#include "passes/linearize/region_plan.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace cfr::linearize {
namespace {

enum class MergeMode { Off, On, Auto };
enum class Order { ReversePostOrder, Interleave };

struct Options {
    int opt = 3;
    bool selective = false;
    MergeMode merge = MergeMode::Off;
    std::optional<unsigned> max_depth;
    Order order = Order::ReversePostOrder;
    std::string profile;
    Weights weights = Weights::Gpu;
};

std::vector<bool> flags(size_t n, const std::vector<NodeId>& nodes) {
    std::vector<bool> in(n, false);
    for (NodeId v : nodes)
        in[v] = true;
    return in;
}

int64_t rounded(double x) {
    return static_cast<int64_t>(std::llround(x));
}

class FunctionLinearizer {
public:
    FunctionLinearizer(passes::FunctionUnit& f, const Options& options,
                       const analysis::FunctionDivergence* verdicts, const Profile* profile,
                       const analysis::ConvergentCode& convergent, passes::PassReport& report)
        : f_(f), options_(options), verdicts_(verdicts),
          profile_(profile ? profile->find(f.function().name) : nullptr), convergent_(convergent),
          report_(report) {}

    void run() {
        const ptx::Cfg& cfg = f_.cfg();
        if (cfg.blocks.empty()) return;
        const Digraph& g = f_.graph();
        RegionContext context(g, cfg.entry(), cfg.exit(), f_.dominators(), f_.post_dominators());
        divergent_ = divergent_blocks();
        FunctionCosts costs(cfg, g, f_.post_dominators().idom, divergent_, options_.weights,
                            profile_);
        unstructured_ = unstructured_edges(cfg);

        std::vector<Region> seeds;
        if (options_.max_depth)
            for (const auto& seed : depth_seeds(*options_.max_depth))
                seeds.push_back(close_region(context, seed));
        else
            for (const auto& [u, v] : unstructured_)
                seeds.push_back(close_region(context, {u, v}));
        if (options_.merge != MergeMode::Off) decide_merges(costs);
        for (const auto& group : groups_)
            seeds.push_back(close_region(context, f_.loops().loops[group.front()].body));

        std::vector<RegionPlan> plans;
        for (Region& region : disjoint_regions(context, std::move(seeds)))
            if (auto plan = plan_region(context, costs, std::move(region)))
                plans.push_back(std::move(*plan));
        if (plans.empty()) return;
        const ptx::Register guard = f_.new_register(ptx::Type::B32, "gv");
        const ptx::Register predicate = f_.new_register(ptx::Type::Pred, "lp");
        emit_plans(f_, plans, guard, predicate);
        report_.changed = true;
        report_.count("functions linearized");
    }

private:
    passes::FunctionUnit& f_;
    const Options& options_;
    const analysis::FunctionDivergence* verdicts_;
    const FunctionProfile* profile_;
    const analysis::ConvergentCode& convergent_;
    passes::PassReport& report_;
    std::vector<bool> divergent_;
    std::vector<Edge> unstructured_;
    std::vector<std::vector<int>> groups_; // merged loops, outermost first

    std::string where(NodeId block) const {
        const ptx::Instruction* first = nullptr;
        for (const auto& s : f_.cfg().blocks[block].statements)
            if ((first = std::get_if<ptx::Instruction>(&s))) break;
        return fmt::format("{} line {}", f_.function().name, first ? first->loc.line : 0);
    }

    std::vector<bool> divergent_blocks() const {
        const ptx::Cfg& cfg = f_.cfg();
        std::vector<bool> out(cfg.exit() + 1, false);
        for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
            const ptx::Instruction* t = cfg.blocks[b].terminator();
            if (!t || (!t->guard && t->control() != ptx::ControlKind::IndirectBranch)) continue;
            const auto* verdict = verdicts_ ? verdicts_->branch_in(b) : nullptr;
            out[b] = !verdict || verdict->divergent;
        }
        return out;
    }

    // Seed 002 section 5.3: the divergent branches nested more than `limit` deep, each with the
    // blocks it influences (up to its immediate post-dominator).
    std::vector<std::vector<NodeId>> depth_seeds(unsigned limit) {
        const Digraph& g = f_.graph();
        const auto& ipdom = f_.post_dominators().idom;
        std::vector<NodeId> branches;
        for (NodeId b = 0; b < divergent_.size(); ++b)
            if (divergent_[b] && f_.dominators().in_tree(b)) branches.push_back(b);
        std::vector<std::vector<bool>> influence;
        for (NodeId b : branches) {
            std::vector<bool> seen(g.size(), false);
            std::vector<NodeId> stack(g.succ[b].begin(), g.succ[b].end());
            while (!stack.empty()) {
                const NodeId v = stack.back();
                stack.pop_back();
                if (v == ipdom[b] || v >= seen.size() || seen[v]) continue;
                seen[v] = true;
                for (NodeId s : g.succ[v])
                    stack.push_back(s);
            }
            influence.push_back(std::move(seen));
        }
        std::vector<std::vector<NodeId>> seeds;
        for (size_t i = 0; i < branches.size(); ++i) {
            unsigned depth = 1;
            for (size_t j = 0; j < branches.size(); ++j)
                if (j != i && influence[j][branches[i]]) ++depth;
            if (depth <= limit) continue;
            std::vector<NodeId> seed{branches[i]};
            for (NodeId v = 0; v < g.size(); ++v)
                if (influence[i][v] && v != f_.cfg().exit()) seed.push_back(v);
            seeds.push_back(std::move(seed));
            report_.count("branches below the depth limit");
        }
        return seeds;
    }

    // Seed 002 section 5.2 with the cost model: which loops merge into their parent.
    void decide_merges(const FunctionCosts& costs) {
        const auto& nest = f_.loops();
        std::vector<int> merged_into(nest.loops.size(), -1);
        for (size_t l = 0; l < nest.loops.size(); ++l) {
            const auto& loop = nest.loops[l];
            if (loop.parent < 0) continue;
            const auto& parent = nest.loops[loop.parent];
            if (!loop.reducible() || !parent.reducible()) continue;
            // Merged, the parent's body would run under a guard per lane, its iterations apart.
            if (const auto* op = convergent_.first(f_.cfg(), parent.body)) {
                report_.count("loops not merged (convergent operation)");
                report_.decisions.push_back(
                    fmt::format("merge-loops: loop at {} into loop at {}: {}", where(loop.header),
                                where(parent.header), analysis::left_alone(*op)));
                continue;
            }
            const MergeEstimate e = estimate_merge(costs, loop, parent);
            const bool merge = options_.merge == MergeMode::On || e.pays();
            report_.decisions.push_back(fmt::format(
                "merge-loops: loop at {} into loop at {}: inner {:.0f} cycles/iteration, outer "
                "{:.0f}, control +{:.0f}/sweep, {:.1f} trips, gain {:.2f} ({}): {:.0f} -> {:.0f} "
                "cycles per outer iteration ({:.2f}x): {}",
                where(loop.header), where(parent.header), e.inner, e.outer, e.control, e.trips,
                e.gain, e.measured ? "profile" : "static", e.before, e.after,
                e.before > 0 ? e.after / e.before : 0.0,
                merge ? (e.pays() ? "merged" : "merged (merge-loops=on)") : "not merged"));
            report_.count("estimated cycles per outer iteration before merging", rounded(e.before));
            report_.count(merge ? "estimated cycles per outer iteration after merging"
                                : "estimated cycles per outer iteration left unmerged",
                          rounded(merge ? e.after : e.before));
            if (!merge) {
                report_.count("loops not merged (cost)");
                continue;
            }
            merged_into[l] = loop.parent;
        }
        std::map<int, std::vector<int>> by_root;
        for (size_t l = 0; l < nest.loops.size(); ++l) {
            if (merged_into[l] < 0) continue;
            int root = static_cast<int>(l);
            while (merged_into[root] >= 0)
                root = merged_into[root];
            auto& group = by_root[root];
            if (group.empty()) group.push_back(root);
            group.push_back(static_cast<int>(l));
        }
        for (auto& [root, group] : by_root) {
            std::sort(group.begin() + 1, group.end(),
                      [&](int a, int b) { return nest.loops[a].depth < nest.loops[b].depth; });
            groups_.push_back(group);
        }
    }

    MergeEstimate estimate_merge(const FunctionCosts& costs, const analysis::Loop& loop,
                                 const analysis::Loop& parent) const {
        MergeEstimate e;
        const NodeId exit = f_.cfg().exit();
        const auto inner_flags = flags(f_.graph().size(), loop.body);
        const auto outer_flags = flags(f_.graph().size(), parent.body);
        const auto inner_header = costs.measured_executions(loop.header);
        const auto outer_header = costs.measured_executions(parent.header);
        if (inner_header && outer_header && *outer_header > 0 && *inner_header > 0) {
            e.measured = true;
            for (NodeId b : loop.body)
                e.inner +=
                    costs.weight(b) * costs.measured_executions(b).value_or(0) / *inner_header;
            for (NodeId b : parent.body)
                if (!inner_flags[b])
                    e.outer +=
                        costs.weight(b) * costs.measured_executions(b).value_or(0) / *outer_header;
            e.trips = *inner_header / *outer_header;
            double divergent_exits = 0;
            for (const auto& [from, to] : loop.exits)
                if (auto branch = costs.measured_branch(from)) divergent_exits += branch->divergent;
            e.gain = merge_gain(divergent_exits / *outer_header);
        } else {
            const auto inner = costs.executions(loop.header, inner_flags, exit);
            const auto outer = costs.executions(parent.header, outer_flags, exit);
            for (NodeId b : loop.body)
                e.inner += costs.weight(b) * inner[b];
            for (NodeId b : parent.body)
                if (!inner_flags[b]) e.outer += costs.weight(b) * outer[b];
            e.trips = kStaticTrips;
            const bool exits_diverge =
                std::any_of(loop.exits.begin(), loop.exits.end(),
                            [&](const Edge& edge) { return costs.divergent(edge.first); });
            e.gain = merge_gain(exits_diverge ? kLanes - 1 : 0);
        }
        e.control = 2.0 * double(parent.body.size()) + 2.0;
        e.before = e.outer + e.trips * e.inner;
        e.after = merged_cost(e.inner, e.outer, e.control, e.trips, e.gain);
        return e;
    }

    // Why a region cannot be linearized, or "".
    std::string unsupported(const Region& region) const {
        const ptx::Cfg& cfg = f_.cfg();
        auto bad = [&](NodeId b, bool in_region) -> std::string {
            const ptx::Instruction* t = cfg.blocks[b].terminator();
            if (!t) return {};
            switch (t->control()) {
            case ptx::ControlKind::Trap:
                return "trap";
            case ptx::ControlKind::IndirectBranch:
                return "brx.idx";
            case ptx::ControlKind::Exit:
                return in_region && !f_.function().is_entry ? "exit in a function" : "";
            default:
                return {};
            }
        };
        for (NodeId b : region.blocks)
            if (auto why = bad(b, true); !why.empty()) return why;
        if (region.dominator != kNoNode) return bad(region.dominator, false);
        return {};
    }

    bool has_divergent_branch(const Region& region) const {
        if (region.dominator != kNoNode && divergent_[region.dominator]) return true;
        return std::any_of(region.blocks.begin(), region.blocks.end(),
                           [&](NodeId b) { return divergent_[b]; });
    }

    std::vector<std::vector<size_t>> merge_units(const RegionPlan& plan) const {
        std::vector<std::vector<size_t>> out;
        for (const auto& group : groups_) {
            std::vector<size_t> units;
            for (int l : group) {
                const NodeId header = f_.loops().loops[l].header;
                if (!plan.region.contains(header) || plan.unit_of_block[header] == kNoSlot) break;
                units.push_back(plan.unit_of_block[header]);
            }
            if (units.size() == group.size()) out.push_back(std::move(units));
        }
        return out;
    }

    void order_units(RegionPlan& plan, const std::vector<std::vector<NodeId>>& subregions) const {
        const auto rpo = loop_contiguous_order(f_.graph(), f_.cfg().entry(), f_.loops());
        std::vector<int> subregion_of(f_.graph().size(), -1);
        for (size_t i = 0; i < subregions.size(); ++i)
            for (NodeId b : subregions[i])
                subregion_of[b] = static_cast<int>(i);
        for (NodeId b : rpo) {
            if (!plan.region.contains(b)) continue;
            const int s = subregion_of[b];
            if (s < 0)
                plan.units.push_back({b});
            else if (subregions[s].front() == b)
                plan.units.push_back(subregions[s]);
        }
        if (options_.order == Order::Interleave) interleave(plan);
        plan.unit_of_block.assign(f_.graph().size(), kNoSlot);
        for (size_t u = 0; u < plan.units.size(); ++u)
            plan.unit_of_block[plan.units[u].front()] = u;
    }

    // Seed 002 section 5.1: in an acyclic region, blocks ordered by their longest distance from
    // the region's start, so that the two sides of a branch alternate.
    void interleave(RegionPlan& plan) const {
        std::vector<size_t> position(f_.graph().size(), kNoSlot);
        for (size_t u = 0; u < plan.units.size(); ++u)
            position[plan.units[u].front()] = u;
        std::vector<size_t> level(plan.units.size(), 0);
        for (size_t u = 0; u < plan.units.size(); ++u)
            for (NodeId s : unit_successors(plan.units[u])) {
                if (s >= position.size() || position[s] == kNoSlot) continue;
                if (position[s] <= u) {
                    report_.count("regions ordered by reverse post-order (cyclic)");
                    return;
                }
                level[position[s]] = std::max(level[position[s]], level[u] + 1);
            }
        std::vector<size_t> order(plan.units.size());
        for (size_t u = 0; u < order.size(); ++u)
            order[u] = u;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return level[a] < level[b]; });
        std::vector<std::vector<NodeId>> units;
        for (size_t u : order)
            units.push_back(std::move(plan.units[u]));
        plan.units = std::move(units);
        report_.count("regions interleaved");
    }

    std::vector<NodeId> unit_successors(const std::vector<NodeId>& unit) const {
        if (unit.size() > 1) return {f_.post_dominators().idom[unit.front()]};
        const NodeList& successors = f_.graph().succ[unit.front()];
        return {successors.begin(), successors.end()};
    }

    std::optional<RegionPlan> plan_region(const RegionContext& context, const FunctionCosts& costs,
                                          Region region) {
        if (region.blocks.empty()) return std::nullopt;
        const NodeId at = region.blocks.front();
        if (const auto why = unsupported(region); !why.empty()) {
            report_.count("regions left (unsupported code)");
            report_.decisions.push_back(
                fmt::format("region at {}: left as it is ({})", where(at), why));
            return std::nullopt;
        }
        RegionPlan plan;
        plan.region = std::move(region);
        const auto merges_before = groups_in(plan.region);
        if (options_.selective && !merges_before && !has_divergent_branch(plan.region)) {
            report_.count("regions left uniform");
            return std::nullopt;
        }
        // Linearized, each block of the region would run under a guard of its own.
        if (const auto* op = convergent_.first(f_.cfg(), plan.region.blocks)) {
            report_.count("regions left alone (convergent operation)");
            report_.decisions.push_back(
                fmt::format("region at {}: {}", where(at), analysis::left_alone(*op)));
            return std::nullopt;
        }
        std::vector<bool> keep_out(f_.graph().size(), false);
        for (const auto& group : groups_)
            for (int l : group)
                keep_out[f_.loops().loops[l].header] = true;
        const auto subregions =
            structured_subregions(context, plan.region, unstructured_, keep_out);
        order_units(plan, subregions);
        choose_entry(plan);
        build_sequence(plan);

        const RegionEstimate e = estimate_region(costs, plan);
        const bool linearize = !options_.selective || merges_before || e.pays();
        report_.decisions.push_back(fmt::format(
            "region at {} ({} blocks): {:.0f} -> {:.0f} cycles per pass ({}): {}", where(at),
            plan.region.blocks.size(), e.before, e.after, e.measured ? "profile" : "static",
            linearize ? "linearized" : "left as it is"));
        if (!linearize) {
            report_.count("regions left (cost)");
            return std::nullopt;
        }
        report_.count("estimated cycles per pass before linearization", rounded(e.before));
        report_.count("estimated cycles per pass after linearization", rounded(e.after));
        count(plan, subregions.size());
        return plan;
    }

    bool groups_in(const Region& region) const {
        return std::any_of(groups_.begin(), groups_.end(), [&](const std::vector<int>& group) {
            return region.contains(f_.loops().loops[group.front()].header);
        });
    }

    void choose_entry(RegionPlan& plan) const {
        const Region& r = plan.region;
        if (r.dominator == kNoNode) {
            plan.entry = EntryMode::Prologue;
            return;
        }
        const auto& succ = f_.graph().succ[r.dominator];
        const bool all_inside = std::all_of(succ.begin(), succ.end(), [&](NodeId s) {
            return r.contains(s) || s == r.postdominator;
        });
        plan.entry = all_inside ? EntryMode::Select : EntryMode::Stubs;
        if (plan.entry == EntryMode::Stubs)
            for (NodeId s : succ)
                if (r.contains(s) && std::find(plan.entry_targets.begin(), plan.entry_targets.end(),
                                               s) == plan.entry_targets.end())
                    plan.entry_targets.push_back(s);
    }

    void build_sequence(RegionPlan& plan) const {
        const ptx::Cfg& cfg = f_.cfg();
        std::vector<UnitExit> exits;
        std::vector<std::vector<size_t>> successors;
        for (const auto& unit : plan.units) {
            std::vector<size_t> targets;
            for (NodeId s : unit_successors(unit)) {
                const size_t t = plan.region.contains(s) ? plan.unit_of_block[s] : kNoSlot;
                if (std::find(targets.begin(), targets.end(), t) == targets.end())
                    targets.push_back(t);
            }
            successors.push_back(std::move(targets));
            if (unit.size() == 1) {
                exits.push_back(block_exit(plan, cfg, unit.front()));
            } else {
                UnitExit exit;
                exit.values = {value_for(plan, unit_successors(unit).front())};
                exits.push_back(exit);
            }
        }
        std::vector<std::vector<uint32_t>> entries;
        switch (plan.entry) {
        case EntryMode::Prologue:
            entries.push_back({value_for(plan, cfg.entry())});
            break;
        case EntryMode::Select:
            entries.push_back(block_exit(plan, cfg, plan.region.dominator).values);
            break;
        case EntryMode::Stubs:
            for (NodeId s : plan.entry_targets)
                entries.push_back({value_for(plan, s)});
            break;
        }
        plan.sequence = std::make_unique<GuardSequence>(std::move(exits), successors,
                                                        std::move(entries), merge_units(plan));
        plan.sequence->optimize(options_.opt);
    }

    RegionEstimate estimate_region(const FunctionCosts& costs, const RegionPlan& plan) const {
        const Region& r = plan.region;
        const auto scope = flags(f_.graph().size(), r.blocks);
        const NodeId start = r.dominator == kNoNode ? f_.cfg().entry() : r.dominator;
        const double control = plan.sequence->stats().control_instructions;
        RegionEstimate e;
        if (const auto base = costs.measured_executions(start); base && *base > 0) {
            e.measured = true;
            double sweeps = 1;
            for (NodeId b : r.blocks) {
                const double runs = costs.measured_executions(b).value_or(0) / *base;
                const double kept = runs - costs.measured_redundant(b).value_or(0) / *base;
                e.before += costs.weight(b) * runs;
                e.after += costs.weight(b) * kept + (f_.cfg().blocks[b].terminator() ? 0 : kept);
                sweeps = std::max(sweeps, kept);
            }
            e.after += control * sweeps;
            return e;
        }
        const auto runs = costs.executions(start, scope, r.postdominator);
        for (NodeId b : r.blocks) {
            const double kept = std::min(runs[b], 1.0);
            e.before += costs.weight(b) * runs[b];
            e.after += costs.weight(b) * kept + (f_.cfg().blocks[b].terminator() ? 0 : kept);
        }
        e.after += control;
        add_loops(costs, plan, runs, control, e);
        return e;
    }

    // The loops of a region repeat what one pass estimates. A loop with a divergent branch whose
    // sides both stay in the loop but which reconverges only outside it splits the warp for good:
    // its lane groups run their iterations one after another (kLanes * kSplit groups), where the
    // linearized loop runs every block once per sweep for as many sweeps as the longest lane
    // needs (twice the mean trip count).
    void add_loops(const FunctionCosts& costs, const RegionPlan& plan,
                   const std::vector<double>& runs, double control, RegionEstimate& e) const {
        const auto& nest = f_.loops();
        const auto& ipdom = f_.post_dominators().idom;
        const double per_unit = control / double(std::max<size_t>(1, plan.units.size()));
        for (const auto& loop : nest.loops) {
            if (!plan.region.contains(loop.header)) continue;
            if (loop.parent >= 0 && plan.region.contains(nest.loops[loop.parent].header)) continue;
            double path = 0, all = 0, units = 0;
            bool splits = false;
            for (NodeId b : loop.body) {
                path += costs.weight(b) * runs[b];
                all += costs.weight(b) * std::min(runs[b], 1.0);
                units += plan.unit_of_block[b] != kNoSlot;
                size_t inside = 0;
                for (NodeId s : f_.graph().succ[b])
                    inside += loop.contains(s);
                splits = splits || (costs.divergent(b) && inside >= 2 && !loop.contains(ipdom[b]));
            }
            const double groups = splits ? kLanes * kSplit : 1.0;
            const double sweeps = splits ? 2.0 : 1.0;
            e.before += (groups * kStaticTrips - 1) * path;
            e.after += (sweeps * kStaticTrips - 1) * (all + per_unit * units);
        }
    }

    void count(const RegionPlan& plan, size_t subregions) {
        const auto& s = plan.sequence->stats();
        report_.count("regions linearized");
        report_.count("blocks guarded", int64_t(plan.units.size()));
        if (subregions) report_.count("structured sub-regions kept", int64_t(subregions));
        auto note = [&](const char* what, size_t n) {
            if (n) report_.count(what, int64_t(n));
        };
        note("guards added", s.guards);
        note("back-edge guards added", s.back_guards);
        note("guards removed (O1)", s.guards_removed);
        note("edges redirected (O1, O2)", s.edges_redirected);
        note("guards folded (O3)", s.guards_folded);
        note("back-edge targets moved up", s.targets_moved_up);
        note("loops merged", s.loops_merged);
    }
};

class LinearizePass final : public passes::Pass {
public:
    explicit LinearizePass(Options options) : options_(std::move(options)) {
        if (!options_.profile.empty()) profile_ = load_profile(options_.profile);
    }

    passes::PassReport run(passes::ModuleUnit& unit) override {
        passes::PassReport report;
        // Verdicts of the module as it came in; kept per function before anything changes.
        std::vector<analysis::FunctionDivergence> verdicts;
        if (options_.selective || options_.max_depth || options_.merge == MergeMode::Auto)
            verdicts = unit.divergence().functions;
        const analysis::ConvergentCode convergent(unit);
        for (auto& function : unit.functions()) {
            const analysis::FunctionDivergence* v = nullptr;
            for (const auto& fv : verdicts)
                if (fv.function == function.function().name) v = &fv;
            FunctionLinearizer(function, options_, v, profile_ ? &*profile_ : nullptr, convergent,
                               report)
                .run();
        }
        return report;
    }

private:
    Options options_;
    std::optional<Profile> profile_;
};

std::vector<passes::Option<Options>> declared_options() {
    using passes::choice;
    return {
        choice("opt", "guard optimizations from guard-value propagation (seed 002 4.2: O1-O3)",
               &Options::opt, {{"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}}),
        passes::flag("selective",
                     "leave regions whose branches are uniform, and regions where the cost model "
                     "says linearization does not pay",
                     &Options::selective),
        choice("merge-loops",
               "merge nested loops into one (seed 002 5.2): off, on, or auto (where the cost "
               "model says it pays)",
               &Options::merge,
               {{"off", MergeMode::Off}, {"on", MergeMode::On}, {"auto", MergeMode::Auto}}),
        passes::integer_or_none("max-depth",
                                "linearize only the divergent branches nested deeper than N "
                                "(seed 002 5.3)",
                                &Options::max_depth, 0),
        choice("order",
               "block order: reverse post-order, or interleave the sides of branches (seed 002 "
               "5.1)",
               &Options::order,
               {{"rpo", Order::ReversePostOrder}, {"interleave", Order::Interleave}}),
        passes::text("profile",
                     "emulator counts of the original module (cfr-run --json) for the cost model",
                     &Options::profile),
        choice("weights",
               "instruction weights of the cost model: gpu (issue cost on a GPU) or unit (every "
               "instruction 1, as the emulator counts; for calibration)",
               &Options::weights, {{"gpu", Weights::Gpu}, {"unit", Weights::Unit}}),
    };
}

// Seed 002: no unstructured edge where every region was linearized.
passes::Contract contract(const Options& options) {
    using passes::Condition;
    return {.requirements = {passes::hard(Condition::Uninstrumented),
                             passes::soft(Condition::NoConvergentOperation,
                                          "regions left alone (convergent operation)"),
                             passes::soft(Condition::SupportedControl,
                                          "regions left (unsupported code)")},
            .preserves = {Condition::Uninstrumented, Condition::SupportedControl},
            .promise = !options.selective && !options.max_depth
                           ? passes::Promise::NoUnstructuredEdge
                           : passes::Promise::Nothing};
}

} // namespace
} // namespace cfr::linearize

namespace cfr::passes {

PassInfo linearize_pass() {
    using linearize::Options;
    return declare<Options>(
        {.name = "linearize",
         .description = "control-flow linearization with a guard variable (seed 002): "
                        "unstructured regions become guarded if-then sequences, loops nest; "
                        "optionally merges nested loops",
         .options = linearize::declared_options(),
         .create = [](const Options& options) -> std::unique_ptr<Pass> {
             return std::make_unique<linearize::LinearizePass>(options);
         },
         .contract = linearize::contract});
}

} // namespace cfr::passes
