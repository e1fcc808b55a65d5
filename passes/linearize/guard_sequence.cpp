// Algorithm 1 of seed 002 with back-edge guards, loop merging and the optimizations O1-O3 of
// section 4.2: see guard_sequence.hpp.
#include "passes/linearize/guard_sequence.hpp"

#include "passes/linearize/redirect_targets.hpp"

#include <algorithm>
#include <optional>

namespace cfr::linearize {
namespace {

// Whether an edge carries values, and every one of them is among `test`'s.
bool only_from(const ValueSet& values, const ValueSet& test) {
    return !values.empty() && values.subset_of(test);
}

bool contains(const std::vector<uint32_t>& list, uint32_t v) {
    return std::find(list.begin(), list.end(), v) != list.end();
}

} // namespace

GuardSequence::GuardSequence(std::vector<UnitExit> unit_exits,
                             const std::vector<std::vector<size_t>>& successors,
                             std::vector<std::vector<uint32_t>> entry_sets,
                             const std::vector<std::vector<size_t>>& merge_groups)
    : exits_(std::move(unit_exits)) {
    const auto back = retreats(successors, merge_groups);
    for (auto& sets : entry_sets) {
        SNode entry;
        entry.kind = SKind::Entry;
        entry.unit = nodes_.size();
        entry.sets = std::move(sets);
        nodes_.push_back(std::move(entry));
    }
    build(back, nodes_.size());
}

std::vector<Retreat> GuardSequence::retreats(const std::vector<std::vector<size_t>>& successors,
                                             const std::vector<std::vector<size_t>>& groups) {
    std::vector<Retreat> back;
    for (size_t u = 0; u < successors.size(); ++u)
        for (size_t t : successors[u]) {
            if (t == kNoSlot || t > u) continue;
            const bool known = std::any_of(back.begin(), back.end(), [&](const Retreat& r) {
                return r.source == u && r.target == t;
            });
            if (!known) back.push_back({u, t, {value_of(t)}});
        }
    // Loop merging: one back-edge guard for the whole group, after its last latch.
    for (const auto& group : groups) {
        if (group.size() < 2) continue;
        Retreat merged{0, group.front(), {}};
        size_t removed = 0;
        std::erase_if(back, [&](const Retreat& r) {
            if (!std::count(group.begin(), group.end(), r.target)) return false;
            merged.source = std::max(merged.source, r.source);
            for (uint32_t v : r.values)
                if (!contains(merged.values, v)) merged.values.push_back(v);
            ++removed;
            return true;
        });
        if (!removed) continue;
        back.push_back(std::move(merged));
        stats_.loops_merged += group.size() - 1;
    }
    // Move targets up so that loops nest (seed 002 section 3.2).
    std::sort(back.begin(), back.end(), [](const Retreat& a, const Retreat& b) {
        return a.source != b.source ? a.source < b.source : a.target > b.target;
    });
    for (size_t i = 0; i < back.size(); ++i) {
        for (bool moved = true; moved;) {
            moved = false;
            for (size_t j = 0; j < i; ++j) {
                const Retreat& o = back[j];
                if (o.target < back[i].target && back[i].target <= o.source &&
                    o.source < back[i].source) {
                    back[i].target = o.target;
                    moved = true;
                    ++stats_.targets_moved_up;
                }
            }
        }
    }
    // Back-edge guards at one source with one target become one guard.
    std::vector<Retreat> unique;
    for (auto& r : back) {
        auto it = std::find_if(unique.begin(), unique.end(), [&](const Retreat& u) {
            return u.source == r.source && u.target == r.target;
        });
        if (it == unique.end()) {
            unique.push_back(std::move(r));
            continue;
        }
        for (uint32_t v : r.values)
            if (!contains(it->values, v)) it->values.push_back(v);
    }
    std::sort(unique.begin(), unique.end(), [](const Retreat& a, const Retreat& b) {
        return a.source != b.source ? a.source < b.source : a.target > b.target;
    });
    return unique;
}

void GuardSequence::build(const std::vector<Retreat>& back, size_t entries) {
    guard_of_unit_.assign(exits_.size(), kNoSlot);
    std::vector<std::pair<size_t, const Retreat*>> back_nodes;
    for (size_t u = 0; u < exits_.size(); ++u) {
        SNode guard;
        guard.kind = SKind::Guard;
        guard.unit = u;
        guard.test = {value_of(u)};
        guard_of_unit_[u] = nodes_.size();
        guard.match = nodes_.size() + 1;
        nodes_.push_back(std::move(guard));
        SNode body;
        body.kind = SKind::Body;
        body.unit = u;
        nodes_.push_back(std::move(body));
        for (const Retreat& r : back) {
            if (r.source != u) continue;
            SNode guard_back;
            guard_back.kind = SKind::BackGuard;
            guard_back.unit = u;
            guard_back.test = r.values;
            back_nodes.emplace_back(nodes_.size(), &r);
            nodes_.push_back(std::move(guard_back));
        }
    }
    for (const auto& [node, r] : back_nodes)
        nodes_[node].match = guard_of_unit_[r->target];
    const size_t end = nodes_.size();
    auto next = [&](size_t n) { return n + 1 < end ? n + 1 : kRegionExit; };
    for (size_t n = 0; n < end; ++n) {
        SNode& node = nodes_[n];
        switch (node.kind) {
        case SKind::Entry:
            node.out = entries < end ? entries : kRegionExit;
            break;
        case SKind::Body:
            node.out = next(n);
            break;
        case SKind::Guard:
            node.miss = next(n + 1); // past its body
            break;
        case SKind::BackGuard:
            node.miss = next(n);
            break;
        }
    }
}

GuardSequence::Flow GuardSequence::propagate() const {
    Flow flow;
    flow.in.assign(nodes_.size(), ValueSet(value_count()));
    ValueSet values(value_count());
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t n = 0; n < nodes_.size(); ++n) {
            if (nodes_[n].dead) continue;
            for (int slot = 0; slot < 2; ++slot) {
                const size_t to = nodes_[n].edge(slot);
                if (to == kNoSlot || to == kRegionExit) continue;
                edge_values(flow, n, slot, values);
                changed = flow.in[to].insert_all(values) || changed;
            }
        }
    }
    return flow;
}

void GuardSequence::edge_values(const Flow& flow, size_t n, int slot, ValueSet& out) const {
    const SNode& node = nodes_[n];
    switch (node.kind) {
    case SKind::Entry:
        out.clear();
        for (uint32_t v : node.sets)
            out.insert(v);
        return;
    case SKind::Body:
        out.clear();
        for (uint32_t v : exits_[node.unit].values)
            out.insert(v);
        return;
    case SKind::Guard:
    case SKind::BackGuard:
        out.assign_meet(flow.in[n], tests_[n], slot != 0);
        return;
    }
}

ValueSet GuardSequence::edge_values(const Flow& flow, size_t n, int slot) const {
    ValueSet out(value_count());
    edge_values(flow, n, slot, out);
    return out;
}

bool GuardSequence::redirect_pass(bool from_units, bool from_guards) {
    const Flow flow = propagate();
    RedirectTargets allowed(nodes_);
    bool changed = false;
    for (size_t n = 0; n < nodes_.size(); ++n) {
        SNode& node = nodes_[n];
        if (node.dead) continue;
        const bool unit_edge = node.kind == SKind::Entry || node.kind == SKind::Body;
        if ((unit_edge && !from_units) || (!unit_edge && !from_guards)) continue;
        size_t& target = unit_edge ? node.out : node.miss;
        if (node.kind == SKind::Guard && node.folded) continue;
        const ValueSet values = edge_values(flow, n, unit_edge ? 0 : 1);
        allowed.start(n);
        // Follow the guards this edge cannot match; go to the farthest one that keeps the
        // sequence nested.
        size_t t = target;
        for (size_t probe = target;
             probe != kRegionExit && probe != kNoSlot && !nodes_[probe].dead &&
             !nodes_[probe].folded &&
             (nodes_[probe].kind == SKind::Guard || nodes_[probe].kind == SKind::BackGuard) &&
             !values.intersects(tests_[probe]);) {
            probe = nodes_[probe].miss;
            if (allowed.allowed(probe)) t = probe;
        }
        if (t != target) {
            target = t;
            changed = true;
            ++stats_.edges_redirected;
        }
    }
    return changed;
}

analysis::Groups GuardSequence::incoming_edges() const {
    std::vector<std::pair<uint32_t, uint32_t>> edges; // (target, 2 * source + slot)
    for (size_t n = 0; n < nodes_.size(); ++n) {
        if (nodes_[n].dead) continue;
        for (int slot = 0; slot < 2; ++slot)
            if (const size_t to = nodes_[n].edge(slot); to < nodes_.size())
                edges.emplace_back(static_cast<uint32_t>(to), static_cast<uint32_t>(2 * n + slot));
    }
    analysis::Groups into;
    into.build(nodes_.size(), edges);
    return into;
}

bool GuardSequence::drop_always_taken() {
    const Flow flow = propagate();
    const analysis::Groups into = incoming_edges();
    ValueSet values(value_count());
    for (size_t g = 0; g < nodes_.size(); ++g) {
        SNode& guard = nodes_[g];
        if (guard.dead || guard.folded || guard.kind != SKind::Guard) continue;
        const std::span<const uint32_t> incoming = into[g];
        const bool all_match = std::all_of(incoming.begin(), incoming.end(), [&](uint32_t edge) {
            edge_values(flow, edge / 2, static_cast<int>(edge % 2), values);
            return only_from(values, tests_[g]);
        });
        if (incoming.empty() || !all_match) continue;
        for (const uint32_t edge : incoming)
            nodes_[edge / 2].edge(static_cast<int>(edge % 2)) = guard.match;
        guard.dead = true;
        ++stats_.guards_removed;
        return true;
    }
    return false;
}

// Whether every jump and loop of the sequence nests properly (the rule in redirect_targets.hpp).
bool GuardSequence::nested_properly() const {
    const size_t end = nodes_.size();
    std::vector<std::pair<size_t, size_t>> jumps, loops;
    for (size_t n = 0; n < end; ++n) {
        const SNode& node = nodes_[n];
        if (node.dead) continue;
        for_each_forward_jump(node, n, end, [&](size_t d) { jumps.emplace_back(n, d); });
        if (node.kind == SKind::BackGuard) loops.emplace_back(node.match, n);
    }
    for (const auto& [a, b] : jumps) {
        for (const auto& [c, d] : jumps)
            if (a < c && c < b && b < d) return false;
        for (const auto& [t, i] : loops)
            if ((a < t && t < b && b <= i) || (t <= a && a < i && b > i)) return false;
    }
    for (const auto& [t1, i1] : loops)
        for (const auto& [t2, i2] : loops)
            if (t1 < t2 && t2 <= i1 && i1 < i2) return false;
    return true;
}

bool GuardSequence::rotate_loops() {
    std::optional<Flow> flow; // made for the first loop whose header may move
    for (size_t b = 0; b < nodes_.size(); ++b) {
        SNode& back = nodes_[b];
        if (back.dead || back.kind != SKind::BackGuard) continue;
        const size_t g = back.match;
        SNode& guard = nodes_[g];
        if (guard.kind != SKind::Guard || guard.dead || guard.folded) continue;
        if (!flow) flow = propagate();
        if (!only_from(edge_values(*flow, b, 0), tests_[g])) continue;
        const ValueSet away = edge_values(*flow, g, 1);
        // The lanes the header's guard turns away must need no block of the loop.
        bool clear = !away.intersects(tests_[b]);
        for (size_t n = g + 1; n < b && clear; ++n)
            if (nodes_[n].kind == SKind::Guard || nodes_[n].kind == SKind::Body)
                clear = !away.contains(value_of(nodes_[n].unit));
        if (!clear) continue;
        const size_t old_match = back.match, old_miss = guard.miss;
        back.match = guard.match;
        if (old_miss != kRegionExit && old_miss <= b) guard.miss = back.miss;
        if (nested_properly()) {
            ++stats_.loops_rotated;
            return true;
        }
        back.match = old_match;
        guard.miss = old_miss;
    }
    return false;
}

void GuardSequence::fold_guards() {
    for (size_t g = 0; g < nodes_.size(); ++g) {
        SNode& guard = nodes_[g];
        if (guard.dead || guard.kind != SKind::Guard || guard.test.size() != 1) continue;
        size_t from = kNoSlot, count = 0;
        for (size_t n = 0; n < nodes_.size(); ++n) {
            const SNode& node = nodes_[n];
            if (node.dead) continue;
            for (size_t to :
                 {node.out, node.miss, node.kind == SKind::Guard ? kNoSlot : node.match})
                if (to == g) {
                    from = n;
                    ++count;
                }
        }
        if (count != 1 || nodes_[from].kind != SKind::Body) continue;
        const UnitExit& exit = exits_[nodes_[from].unit];
        const uint32_t v = guard.test.front();
        if (!exit.two_way || (exit.taken == v) == (exit.fallthrough == v)) continue;
        guard.folded = true;
        ++stats_.guards_folded;
    }
}

void GuardSequence::optimize(int level) {
    tests_.clear();
    for (const SNode& node : nodes_)
        tests_.push_back(ValueSet::of(value_count(), node.test));
    for (bool changed = level >= 1; changed;) {
        changed = redirect_pass(true, level >= 2);
        changed = drop_always_taken() || changed;
        changed = rotate_loops() || changed;
        // Nodes nothing reaches any more.
        std::vector<bool> reached(nodes_.size(), false);
        std::vector<size_t> stack;
        for (size_t n = 0; n < nodes_.size(); ++n)
            if (nodes_[n].kind == SKind::Entry) {
                reached[n] = true;
                stack.push_back(n);
            }
        while (!stack.empty()) {
            const SNode& node = nodes_[stack.back()];
            stack.pop_back();
            for (size_t to : {node.out, node.match, node.miss})
                if (to != kNoSlot && to != kRegionExit && !reached[to]) {
                    reached[to] = true;
                    stack.push_back(to);
                }
        }
        for (size_t n = 0; n < nodes_.size(); ++n)
            if (!reached[n]) nodes_[n].dead = true;
    }
    if (level >= 3) fold_guards();
    count();
}

void GuardSequence::count() {
    stats_.guards = stats_.back_guards = 0;
    stats_.control_instructions = 0;
    for (const SNode& node : nodes_) {
        if (node.dead) continue;
        if (node.kind == SKind::Guard) {
            ++stats_.guards;
            stats_.control_instructions += node.folded ? 1.0 : double(node.test.size() + 1);
        } else if (node.kind == SKind::BackGuard) {
            ++stats_.back_guards;
            stats_.control_instructions += double(node.test.size() + 1);
        }
    }
}

} // namespace cfr::linearize
