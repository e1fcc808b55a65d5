// Emitting a restructured graph (restructure::emit) whose replaced code the caller drops moves each
// block's statements into the last node emitted from it instead of copying them: the function
// comes out the same as from the copying emission, on every example at both optimization levels
// (copied blocks, which lose their labels, switches, fresh labels and registers included).
#include "example_launches.hpp"
#include "passes/module_unit.hpp"
#include "passes/restructure/loop_restructurer.hpp"
#include "passes/restructure/restructure_branches.hpp"
#include "passes/restructure/rgraph.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>

using namespace cfr;

namespace {

// The module with every function's loops restructured (head-controlled ones by copying their
// condition, seed 000 IV-C) and then its branches (all taken as divergent), and emitted.
std::string restructured(const std::string& ptx, restructure::Replaced replaced) {
    ptx::Module module = ptx::parse(ptx, "example.ptx");
    {
        passes::ModuleUnit unit(module);
        for (auto& function : unit.functions()) {
            auto graph = restructure::RGraph::from_function(function);
            const auto fresh = [&](const std::string& stem) {
                return function.new_register(ptx::Type::B32, stem).name;
            };
            const auto loops =
                restructure::restructure_loops(graph, restructure::LoopMode::Copy, fresh);
            const auto branches = restructure::restructure_branches(
                graph, {}, [](NodeId) { return true; }, fresh);
            if (loops.loops_restructured == 0 && !branches.changed()) continue;
            const ptx::Cfg before = function.cfg();
            const ptx::Cfg replaced_cfg = restructure::emit(graph, function, replaced);
            if (replaced != restructure::Replaced::Kept) continue;
            REQUIRE(replaced_cfg.blocks.size() == before.blocks.size()); // handed back whole
            for (size_t b = 0; b < before.blocks.size(); ++b)
                CHECK(replaced_cfg.blocks[b].statements == before.blocks[b].statements);
        }
    }
    return ptx::print(module);
}

} // namespace

TEST_CASE("rgraph emit: moving the replaced code gives the function copying it gives") {
    size_t restructured_modules = 0;
    for (const auto& example : test::examples_list())
        for (const char* level : {"O0", "O3"}) {
            const std::string ptx = test::example_ptx(example.name, level);
            REQUIRE_FALSE(ptx.empty());
            INFO(example.name << "." << level);
            const std::string copied = restructured(ptx, restructure::Replaced::Kept);
            const std::string moved = restructured(ptx, restructure::Replaced::Dropped);
            CHECK(moved == copied);
            if (copied != ptx::print(ptx::parse(ptx, "example.ptx"))) ++restructured_modules;
        }
    CHECK(restructured_modules >= 10); // the comparison covers real rewrites
}
