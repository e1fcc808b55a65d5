// Soundness of the divergence analysis on every example, at -O3 and -O0: no branch that the
// emulator sees diverge is classified uniform. Prints the precision.
#include "divergence_soundness.hpp"
#include "example_launches.hpp"

#include <catch2/catch.hpp>

#include <iostream>

using namespace cfr::test;

TEST_CASE("no branch that diverges on the emulator is classified uniform (examples)",
          "[divergence][soundness]") {
    DivergenceTally total;
    for (const auto& example : examples_list()) {
        const auto launch = example.launch();
        for (const std::string level : {"O3", "O0"}) {
            const std::string ptx = example_ptx(example.name, level);
            REQUIRE_FALSE(ptx.empty());
            const auto run = run_on_emulator(ptx, launch);
            INFO(example.name << " -" << level << ": " << run.message);
            REQUIRE(run.error == cfr::emu::ErrorCode::Success);
            const auto tally = check_divergence(ptx, example.name + "." + level, run.stats);
            CHECK(tally.unsound.empty());
            for (const auto& branch : tally.unsound)
                UNSCOPED_INFO("unsound: " << branch);
            total.add(tally);
        }
    }
    // Every example has divergent branches, so the check is not vacuous.
    CHECK(total.diverged > 30);
    std::cout << "divergence analysis on the examples: " << total.branches_seen
              << " branches executed, " << total.diverged << " diverged; " << total.static_divergent
              << " classified divergent, of which " << total.static_divergent_never
              << " never diverged in the run\n";
}
