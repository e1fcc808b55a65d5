#include "ptx/cfg.hpp"
#include "ptx/dot.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cfr::ptx;

namespace {

const std::string kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

Function function_of(const std::string& body) {
    const Module m =
        parse(kHeader + ".visible .entry k(.param .u32 n)\n{\n" + body + "\n}\n", "t.ptx");
    for (const TopLevel& item : m.items)
        if (const auto* f = std::get_if<Function>(&item)) return *f;
    FAIL("no function");
    return {};
}

struct E {
    BlockId from, to;
    EdgeKind kind;
    friend bool operator==(const E&, const E&) = default;
};

std::vector<E> edges_of(const Cfg& cfg) {
    std::vector<E> out;
    for (const CfgEdge& e : cfg.edges)
        out.push_back({e.from, e.to, e.kind});
    return out;
}

std::string kind_name(EdgeKind k) {
    switch (k) {
    case EdgeKind::Taken:
        return "taken";
    case EdgeKind::FallThrough:
        return "fall";
    case EdgeKind::Indirect:
        return "indirect";
    case EdgeKind::Exit:
        return "exit";
    }
    return "?";
}

} // namespace

namespace Catch {
template <>
struct StringMaker<E> {
    static std::string convert(const E& e) {
        return std::to_string(e.from) + "->" + std::to_string(e.to) + " " + kind_name(e.kind);
    }
};
} // namespace Catch

TEST_CASE("cfg: straight-line code is one block that falls off the end into exit") {
    const Function f = function_of(".reg .b32 %r<3>;\nmov.u32 %r1, 1;\nadd.s32 %r2, %r1, 1;");
    const Cfg cfg = build_cfg(f);
    REQUIRE(cfg.blocks.size() == 1);
    CHECK(cfg.exit() == 1);
    CHECK(edges_of(cfg) == std::vector<E>{{0, 1, EdgeKind::FallThrough}});
    CHECK(cfg.blocks[0].terminator() == nullptr);
    CHECK(layout(cfg) == *f.body);
}

TEST_CASE("cfg: branches, predicated ret and the virtual exit") {
    const Function f = function_of(R"(
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [n];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L_else;
    add.s32 %r2, %r1, 1;
    @%p1 ret;
    bra.uni $L_join;
$L_else:
    call.uni foo;
    sub.s32 %r2, %r1, 1;
$L_join:
$L_join2:
    @!%p1 bra $L_join;
    exit;
)");
    const Cfg cfg = build_cfg(f);
    // 0: ... @p bra else | 1: add; @p ret | 2: bra.uni join | 3: else: call; sub |
    // 4: join: join2: @!p bra join | 5: exit
    REQUIRE(cfg.blocks.size() == 6);
    CHECK(cfg.exit() == 6);
    CHECK(cfg.blocks[3].label() == "$L_else");
    CHECK(cfg.blocks[4].label() == "$L_join");
    CHECK(cfg.blocks[2].label().empty());
    CHECK(cfg.blocks[1].terminator()->opcode == cfr::ptx::Opcode::Ret);
    CHECK(cfg.blocks[3].terminator() == nullptr); // call does not end a block
    CHECK(edges_of(cfg) == std::vector<E>{{0, 3, EdgeKind::Taken},
                                          {0, 1, EdgeKind::FallThrough},
                                          {1, 6, EdgeKind::Exit},
                                          {1, 2, EdgeKind::FallThrough},
                                          {2, 4, EdgeKind::Taken},
                                          {3, 4, EdgeKind::FallThrough},
                                          {4, 4, EdgeKind::Taken},
                                          {4, 5, EdgeKind::FallThrough},
                                          {5, 6, EdgeKind::Exit}});
    const auto g = cfg.graph();
    CHECK(g.size() == 7);
    CHECK(g.succ[4] == cfr::NodeList{4, 5});
    CHECK(layout(cfg) == *f.body);
}

TEST_CASE("cfg: brx.idx through a .branchtargets table") {
    const Function f = function_of(R"(
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [n];
$T:
    .branchtargets $L0, $L1, $L0;
    brx.idx %r1, $T;
$L0:
    add.s32 %r2, %r1, 1;
    ret;
$L1:
    sub.s32 %r2, %r1, 1;
)");
    const Cfg cfg = build_cfg(f);
    REQUIRE(cfg.blocks.size() == 3);
    CHECK(cfg.blocks[0].label().empty()); // a table label is data, not a block label
    CHECK(cfg.blocks[0].terminator()->opcode == cfr::ptx::Opcode::Brx);
    CHECK(edges_of(cfg) == std::vector<E>{{0, 1, EdgeKind::Indirect},
                                          {0, 2, EdgeKind::Indirect},
                                          {1, 3, EdgeKind::Exit},
                                          {2, 3, EdgeKind::FallThrough}});
    CHECK(layout(cfg) == *f.body);
}

TEST_CASE("cfg: a table at the start of the body and a table after a ret stay data") {
    const Function f = function_of(R"(
$T:
    .branchtargets $A, $B;
    .reg .b32 %r<2>;
    brx.idx %r1, $T;
$A:
    ret;
$U:
    .branchtargets $A;
$B:
    exit;
)");
    const Cfg cfg = build_cfg(f);
    REQUIRE(cfg.blocks.size() == 3);
    CHECK(cfg.blocks[1].label() == "$A");
    CHECK(cfg.blocks[1].statements.size() == 4); // $A: ret; $U: .branchtargets
    CHECK(cfg.blocks[2].label() == "$B");
    CHECK(layout(cfg) == *f.body);
}

TEST_CASE("cfg: a nested scope without control flow is one statement") {
    const Function f = function_of(R"(
    .reg .b32 %r<2>;
    {
        .reg .b32 %t;
        mov.u32 %t, 1;
        call.uni foo;
    }
    ret;
)");
    const Cfg cfg = build_cfg(f);
    REQUIRE(cfg.blocks.size() == 1);
    CHECK(std::holds_alternative<Scope>(cfg.blocks[0].statements[1]));
    CHECK(layout(cfg) == *f.body);
}

TEST_CASE("cfg: errors") {
    CHECK_THROWS_WITH(build_cfg(function_of("bra $nowhere;")),
                      Catch::Contains("undefined label $nowhere"));
    CHECK_THROWS_WITH(build_cfg(function_of("{\n$L: bra $L;\n}")),
                      Catch::Contains("nested { } scope"));
    CHECK_THROWS_WITH(build_cfg(function_of(".reg .b32 %r;\nbrx.idx %r, $none;\n$A: ret;")),
                      Catch::Contains("$none"));
    Function proto;
    proto.name = "f";
    CHECK_THROWS_AS(build_cfg(proto), CfgError);
}

TEST_CASE("cfg: take_cfg moves the body in, and a function without a CFG keeps its body") {
    for (const std::string body :
         {"bra $nowhere;", "{\n$L: bra $L;\n}", ".reg .b32 %r;\nbrx.idx %r, $none;\n$A: ret;"}) {
        Function f = function_of(body);
        const Function before = f;
        CHECK_THROWS_AS(take_cfg(f), CfgError);
        CHECK(f == before);
    }
    Function f = function_of(".reg .pred %p;\n@%p bra $A;\nret;\n$A: exit;");
    const Function before = f;
    Cfg cfg = take_cfg(f);
    CHECK(f.body->empty());
    CHECK(edges_of(cfg) == edges_of(build_cfg(before)));
    f.body = layout(std::move(cfg));
    CHECK(f == before);
    CHECK(cfg.blocks.empty());
}

TEST_CASE("cfg: the plans made while a module is parsed are plan_cfg's, with its errors") {
    const std::string text = kHeader + R"(.func proto(.param .u32 x);
.global .u32 g;
.visible .entry first()
{
    .reg .pred %p;
    @%p bra $A;
    ret;
$A: exit;
}
.visible .entry broken()
{
    bra $nowhere;
}
.visible .entry last()
{
    ret;
}
)";
    std::vector<CfgPlan> plans;
    const Module m = parse(text, "plans.ptx", plan_while_parsing(plans));
    REQUIRE(plans.size() == 3); // the prototype has no body, so no plan
    const std::vector<std::string> names = {"first", "broken", "last"};
    for (size_t i = 0; i < plans.size(); ++i) {
        const auto& f = std::get<Function>(m.items.at(plans[i].item));
        CHECK(f.name == names[i]);
        CHECK(plans[i].plans(f));
        std::vector<size_t> starts;
        if (f.name == "broken") {
            CHECK_FALSE(plans[i].cfg);
            CHECK_THAT(plans[i].error, Catch::Contains("undefined label $nowhere"));
            CHECK_THROWS_AS(plan_cfg(f, starts), CfgError);
            continue;
        }
        REQUIRE(plans[i].cfg);
        const Cfg again = plan_cfg(f, starts);
        CHECK(edges_of(*plans[i].cfg) == edges_of(again));
        CHECK(plans[i].cfg->blocks.size() == again.blocks.size());
        CHECK(plans[i].starts == starts);
    }
    Function changed = std::get<Function>(m.items.at(plans[0].item));
    changed.body->pop_back();
    CHECK_FALSE(plans[0].plans(changed));
}

TEST_CASE("cfg: an empty body is one empty block") {
    const Function f = function_of("");
    const Cfg cfg = build_cfg(f);
    REQUIRE(cfg.blocks.size() == 1);
    CHECK(edges_of(cfg) == std::vector<E>{{0, 1, EdgeKind::FallThrough}});
    CHECK(layout(cfg).empty());
}

TEST_CASE("layout: moved blocks get explicit branches, with fresh labels where needed") {
    const Function f = function_of(R"(
    .reg .pred %p;
    @%p bra $L__cfr_0;
    mov.u32 %r1, 1;
$L__cfr_0:
    mov.u32 %r1, 2;
    @%p ret;
    mov.u32 %r1, 3;
)");
    Cfg cfg = build_cfg(f);
    // 0: @p bra | 1: mov 1 | 2: L: mov 2; @p ret | 3: mov 3 (falls into exit)
    REQUIRE(cfg.blocks.size() == 4);
    // reverse blocks 1..3: 0, 3, 2, 1, renumbering the edges
    const std::vector<BlockId> position = {0, 3, 2, 1, 4};
    std::vector<BasicBlock> blocks(4);
    for (BlockId b = 0; b < 4; ++b)
        blocks[position[b]] = cfg.blocks[b];
    cfg.blocks = blocks;
    for (CfgEdge& e : cfg.edges)
        e.from = position[e.from], e.to = position[e.to];
    const std::vector<Statement> out = layout(cfg);
    std::string text;
    for (const Statement& s : out) {
        if (const auto* i = std::get_if<Instruction>(&s)) text += print(*i) + "\n";
        if (const auto* l = std::get_if<Label>(&s)) text += l->name + ":\n";
    }
    // old block 1 (now last) gets a fresh label, the taken label $L__cfr_0 being taken; old block
    // 3 no longer ends the body, so its fall into exit becomes a ret
    CHECK(text == "@%p bra \t$L__cfr_0;\n"
                  "bra \t$L__cfr_1;\n"
                  "$L__cfr_2:\n"
                  "mov.u32 \t%r1, 3;\n"
                  "ret;\n"
                  "$L__cfr_0:\n"
                  "mov.u32 \t%r1, 2;\n"
                  "@%p ret;\n"
                  "bra \t$L__cfr_2;\n"
                  "$L__cfr_1:\n"
                  "mov.u32 \t%r1, 1;\n"
                  "bra \t$L__cfr_0;\n");
    // built again, each added bra after a guarded terminator is a block of its own
    const Cfg again = build_cfg([&] {
        Function g = f;
        g.body = out;
        return g;
    }());
    CHECK(again.blocks.size() == 6);
    CHECK(layout(again) == out);
}

TEST_CASE("cfg: round trip over the nvcc corpus") {
    namespace fs = std::filesystem;
    size_t functions = 0;
    for (const auto& entry :
         fs::directory_iterator(fs::path(CFRJIT_SOURCE_DIR) / "tests/data/ptx")) {
        if (entry.path().extension() != ".ptx") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const Module m = parse(text.str(), entry.path().string());
        for (const TopLevel& item : m.items) {
            const auto* f = std::get_if<Function>(&item);
            if (!f || !f->body) continue;
            INFO(entry.path().filename().string() << " " << f->name);
            const Cfg cfg = build_cfg(*f);
            CHECK(layout(cfg) == *f->body);
            CHECK_FALSE(to_dot(cfg, f->name).empty());
            Function taken = *f;
            CHECK(layout(take_cfg(taken)) == *f->body);
            ++functions;
        }
    }
    CHECK(functions > 10);
}

TEST_CASE("dot: blocks with their instructions, edges styled by kind") {
    const Function f = function_of(".reg .pred %p;\n@%p bra $L;\nret;\n$L:\nexit;");
    const std::string dot = to_dot(build_cfg(f), "k");
    CHECK(dot.rfind("digraph \"k\" {", 0) == 0);
    CHECK(dot.find("b0 -> b2 [style=solid]") != std::string::npos);
    CHECK(dot.find("b0 -> b1 [style=dashed]") != std::string::npos);
    CHECK(dot.find("b1 -> b3 [style=dotted]") != std::string::npos);
    CHECK(dot.find("$L:") != std::string::npos);
    CHECK(dot.find("b3 [label=\"exit\"") != std::string::npos);
}
