// The passes' view of a module: bodies moved into CFGs and given back without loss, and the
// analyses a change of code keeps (mutable_code) or drops (mutable_cfg).
#include "passes/module_unit.hpp"
#include "passes/verify.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using cfr::passes::ModuleUnit;

namespace {

const char* kModule = R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry k(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [n];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $L_done;
    add.u32 %r2, %r1, 1;
$L_done:
    ret;
}

.visible .entry broken()
{
    bra $nowhere;
}
)";

const cfr::ptx::Function& function_named(const cfr::ptx::Module& module, const std::string& name) {
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<cfr::ptx::Function>(&item); f && f->name == name) return *f;
    FAIL("no function " << name);
    throw;
}

// A module of one kernel `k` whose body (after its register declarations) is `code`: the
// body's first line is line 9.
cfr::ptx::Module kernel_k(const std::string& code) {
    return cfr::ptx::parse(R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry k(.param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
)" + code + "}\n",
                           "k.ptx");
}

} // namespace

TEST_CASE("module unit: bodies move into the CFGs and come back as they were") {
    auto module = cfr::ptx::parse(kModule, "unit.ptx");
    const auto original = module;
    const auto statements_seen = [](const cfr::passes::FunctionUnit& function) {
        size_t n = 0;
        function.for_each_code(
            [&](std::span<const cfr::ptx::Statement> code) { n += code.size(); });
        return n;
    };
    {
        ModuleUnit unit(module);
        REQUIRE(unit.functions().size() == 1);
        CHECK(unit.skipped().size() == 1); // `broken` has no CFG and keeps its body
        CHECK(function_named(module, "broken") == function_named(original, "broken"));
        // The graph analyses need no statements: they stay in the body until read in blocks.
        auto& k = unit.functions().front();
        CHECK(k.graph().size() == 4);
        CHECK(k.loops().loops.empty());
        CHECK(function_named(module, "k") == function_named(original, "k"));
        const size_t in_body = statements_seen(k);
        CHECK(in_body == function_named(original, "k").body->size());
        CHECK(k.cfg().blocks.size() == 3);
        CHECK(function_named(module, "k").body->empty());
        CHECK(statements_seen(k) == in_body);
    } // the destructor gives the bodies back
    CHECK(module == original);

    ModuleUnit unit(module);
    unit.write_back();
    CHECK(module == original);
    unit.write_back(); // nothing left to give back: a second call changes nothing
    CHECK(module == original);
}

TEST_CASE("module unit: CFGs planned while parsing are adopted, and planned again where stale") {
    std::vector<cfr::ptx::CfgPlan> plans;
    auto module = cfr::ptx::parse(kModule, "unit.ptx", cfr::ptx::plan_while_parsing(plans));
    const auto original = module;
    REQUIRE(plans.size() == 2);
    {
        auto adopted = plans;
        adopted.front().cfg->edges.pop_back(); // marks the plan: a unit that adopts it shows it
        ModuleUnit unit(module, adopted);
        REQUIRE(unit.functions().size() == 1);
        CHECK(unit.functions().front().cfg().edges.size() == plans.front().cfg->edges.size() - 1);
        REQUIRE(unit.skipped().size() == 1);
        CHECK_THAT(unit.skipped().front(),
                   Catch::Contains("broken: ") && Catch::Contains("undefined label $nowhere"));
    }
    CHECK(module == original);

    // The body of k loses its label after the parse: the plan no longer describes it, so the
    // unit plans k again and finds the branch to a label that is gone.
    auto& body = *std::get<cfr::ptx::Function>(module.items.at(plans.front().item)).body;
    body.erase(std::find_if(body.begin(), body.end(), [](const cfr::ptx::Statement& s) {
        return std::holds_alternative<cfr::ptx::Label>(s);
    }));
    ModuleUnit unit(module, plans);
    CHECK(unit.functions().empty());
    REQUIRE(unit.skipped().size() == 2);
    CHECK_THAT(unit.skipped().front(), Catch::Contains("k: ") && Catch::Contains("$L_done"));
}

TEST_CASE(
    "module unit: a change of code keeps the graph analyses, a change of the CFG drops them") {
    auto module = cfr::ptx::parse(kModule, "unit.ptx");
    ModuleUnit unit(module);
    auto& function = unit.functions().front();
    const size_t edges = function.cfg().edges.size();
    REQUIRE(function.graph().succ[0].size() == 2);
    const unsigned version = function.version();

    // Breaking the promise of mutable_code() (the edges stay) shows what it keeps: the graph and
    // the analyses built on it are not computed again.
    function.mutable_code().edges.clear();
    CHECK(function.version() > version);
    CHECK(function.changed());
    CHECK(function.graph().succ[0].size() == 2);

    function.mutable_cfg();
    CHECK(function.graph().succ[0].empty());
    CHECK(edges > 0);
}

TEST_CASE("module unit: fresh registers and labels avoid every name of their kind the function "
          "already has") {
    const char* text = R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry k(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b32 %cfr_t<2>;
    .reg .pred %cfr_t2;
    ld.param.u32 %cfr_t0, [n];
    setp.eq.u32 %p1, %cfr_t0, 0;
    @%p1 bra $L__cfr_b6;
    mov.u32 %r2, %cfr_t3;
$L__cfr_b6:
    ret;
}
)";
    auto module = cfr::ptx::parse(text, "fresh.ptx");
    ModuleUnit unit(module);
    auto& f = unit.functions().front();
    // %cfr_t0 and %cfr_t1 by the range, %cfr_t2 declared, %cfr_t3 read (undeclared, but taken).
    // The function declares eight registers (numbers 0 to 7): new ones are numbered after them.
    REQUIRE(f.function().register_count == 8);
    const auto first = f.new_register(cfr::ptx::Type::B32, "t");
    const auto second = f.new_register(cfr::ptx::Type::B32, "t");
    CHECK(first.name == "%cfr_t4");
    CHECK(first.id == 8);
    CHECK(second.name == "%cfr_t5");
    CHECK(second.id == 9);
    CHECK(f.function().register_count == 10);
    // One counter numbers both kinds: the next label would be $L__cfr_b6, which is taken.
    CHECK(f.new_label("b") == "$L__cfr_b7");
}

TEST_CASE("module unit: a function's convergent sites are kept until its code changes") {
    auto module = kernel_k(R"(    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $L_done;
    bar.sync 0;
$L_done:
    ret;
)");
    ModuleUnit unit(module);
    auto& function = unit.functions().at(0);
    const cfr::passes::ConvergentSites& first = unit.convergent_sites(function);
    REQUIRE(first.size() == 1);
    const auto& [key, site] = *first.begin();
    CHECK(key == std::pair<std::string, uint32_t>{"bar", 12});
    CHECK(site.copies == 1);
    CHECK(site.conditions == 1); // the branch on %tid.x decides whether it runs
    CHECK(&unit.convergent_sites(function) == &first); // nothing changed: the same, not again

    // A second copy of the barrier in its block: the sites are counted again.
    auto& statements = function.mutable_code().blocks.at(1).statements;
    statements.insert(statements.begin(), statements.front());
    const cfr::passes::ConvergentSites& after = unit.convergent_sites(function);
    REQUIRE(after.size() == 1);
    CHECK(after.begin()->second.copies == 2);
}

TEST_CASE("module unit: a convergent site's bound counts every condition, uniform or not; the "
          "convergence check decides on the bounds, or on the exact counts where a bound grew") {
    auto module = kernel_k(R"(    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $L_uniform;
    bar.sync 0;
$L_uniform:
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra $L_done;
    bar.sync 1;
$L_done:
    ret;
)");
    ModuleUnit unit(module);
    auto& function = unit.functions().at(0);
    const cfr::passes::ConvergentSites exact = unit.convergent_sites(function);
    const cfr::passes::ConvergentSites bounds = unit.convergent_site_bounds(function);
    const std::pair<std::string, uint32_t> under_uniform{"bar", 13}, under_divergent{"bar", 17};
    REQUIRE(exact.size() == 2);
    REQUIRE(bounds.size() == 2);
    CHECK(exact.at(under_uniform).conditions == 0); // the branch on %ctaid.x is uniform
    CHECK(bounds.at(under_uniform).conditions == 1);
    CHECK(exact.at(under_divergent).conditions == 1);
    CHECK(bounds.at(under_divergent).conditions == 1);
    CHECK(bounds.at(under_uniform).copies == 1);

    // Rewritten without a new condition: the bounds still exceed the uniform barrier's exact
    // count, so the exact count decides, and finds nothing broken.
    function.mutable_cfg();
    CHECK_FALSE(cfr::passes::convergence_broken(unit, function, exact));
    // Against sites recorded as bounds, the bounds decide alone, the same way.
    CHECK_FALSE(cfr::passes::convergence_broken(unit, function, bounds));

    // A copy of the barrier on the divergent path is found whichever count decides.
    auto& statements = function.mutable_code().blocks.at(3).statements;
    statements.insert(statements.begin(), statements.front());
    const auto broken = cfr::passes::convergence_broken(unit, function, exact);
    REQUIRE(broken);
    CHECK_THAT(broken->detail, Catch::Contains("was copied"));
}
