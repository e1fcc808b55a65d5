// The passes' liveness analysis (passes/analysis/liveness.hpp) on hand-made graphs, against the
// fixed point computed by hand: a loop keeps a variable live around its back edge, an unguarded
// definition kills, a guarded one (not a kill fact) does not; and branch fusion's register
// liveness over a parsed function agrees.
#include "passes/analysis/liveness.hpp"
#include "passes/fusion/liveness.hpp"
#include "ptx/cfg.hpp"
#include "ptx/invariant.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using cfr::Digraph;
using cfr::analysis::live_in;
using cfr::analysis::LivenessFacts;

namespace {

using Pairs = std::set<std::pair<uint32_t, uint32_t>>;

Pairs as_set(const std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
    return Pairs(pairs.begin(), pairs.end());
}

} // namespace

TEST_CASE("liveness: loops, kills, and a use below its definition") {
    // 0 -> 1 -> 2 -> 1 (a loop), 2 -> 3.
    Digraph g(4);
    g.add_edge(0, 1);
    g.add_edge(1, 2);
    g.add_edge(2, 1);
    g.add_edge(2, 3);
    LivenessFacts facts;
    facts.variables = 3;
    facts.exposed = {{0, 3}, {1, 2}, {2, 1}}; // v0 read in 3, v1 in 2, v2 in 1
    facts.killed = {{0, 0}, {1, 1}, {2, 1}};  // v0 defined in 0, v1 in 1, v2 in 1 (after its use)
    const auto live = live_in(g, facts);
    // v0: live into 3, 2, 1 (around the loop), killed in 0. v1: into 2 only (1 defines it).
    // v2: into 1, and 2 and 0 that reach it (1's own definition comes after the read).
    CHECK(as_set(live) == Pairs{{1, 0}, {2, 0}, {3, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}});
    CHECK(live.size() == as_set(live).size()); // each pair once
    CHECK(std::is_sorted(live.begin(), live.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; }));
}

TEST_CASE(
    "liveness: branch fusion's register liveness keeps a guarded definition's register live") {
    const char* text = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    ld.param.u32 %r1, [n];
    setp.gt.u32 %p1, %r1, 3;
    @%p1 mov.u32 %r2, 9;
    @%p1 bra A;
    add.u32 %r3, %r2, 1;
    bra.uni B;
A:
    mov.u32 %r2, 5;
    add.u32 %r3, %r2, 2;
B:
    st.param.u32 [n], %r3;
    ret;
}
)";
    const cfr::ptx::Module m = cfr::ptx::parse(text, "liveness.ptx");
    const cfr::ptx::Function* f = nullptr;
    for (const cfr::ptx::TopLevel& item : m.items)
        if (const auto* g = std::get_if<cfr::ptx::Function>(&item)) f = g;
    REQUIRE(f);
    const cfr::ptx::Cfg cfg = cfr::ptx::build_cfg(*f);
    const cfr::fusion::Liveness live = cfr::fusion::register_liveness(cfg);
    // Blocks: 0 (entry, through @%p1 bra), 1 (the fall-through), 2 (A), 3 (B).
    REQUIRE(cfg.blocks.size() == 4);
    CHECK(live.live_at(1, "%r2"));       // read before any definition
    CHECK_FALSE(live.live_at(2, "%r2")); // A defines it first
    CHECK(live.live_at(3, "%r3"));
    CHECK_FALSE(live.live_at(0, "%r3"));
    CHECK(live.live_at(0, "%r2")); // block 0 defines it only under a guard, which may not happen
    CHECK_FALSE(live.live_at(0, "%r1")); // loaded first
}

TEST_CASE("liveness: a fact naming a node that does not exist breaks an internal invariant") {
    Digraph g(2);
    g.add_edge(0, 1);
    LivenessFacts facts;
    facts.variables = 1;
    facts.exposed = {{0, 5}};
    try {
        live_in(g, facts);
        FAIL("no InternalError");
    } catch (const cfr::InternalError& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("internal error at analysis/liveness.cpp:") &&
                                 Catch::Contains("a liveness fact names a variable and a node "
                                                 "that exist"));
    }
}
