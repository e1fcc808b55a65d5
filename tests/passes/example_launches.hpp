// Every example of examples/ as an emulator launch with its real inputs (from the example's
// problem.hpp), and its PTX at -O3 or -O0 from the build tree or the checked-in copies.
#pragma once

#include "emulator_oracle.hpp"
#include "examples/bitonic_sort/problem.hpp"
#include "examples/goto_state_machine/problem.hpp"
#include "examples/irreducible/problem.hpp"
#include "examples/loop_goto_exit/problem.hpp"
#include "examples/loop_jump_in/problem.hpp"
#include "examples/loop_nest3/problem.hpp"
#include "examples/multi_exit_loop/problem.hpp"
#include "examples/nested_if/problem.hpp"
#include "examples/nested_loops/problem.hpp"
#include "examples/nested_loops_heavy/problem.hpp"
#include "examples/nested_loops_light/problem.hpp"
#include "examples/nqueens/problem.hpp"
#include "examples/reduction/problem.hpp"
#include "examples/short_circuit/problem.hpp"
#include "examples/short_circuit_and_or/problem.hpp"
#include "examples/stencil/problem.hpp"
#include "examples/switch_return/problem.hpp"
#include "examples/tree_walk/problem.hpp"
#include "examples/vector_add/problem.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace cfr::test {

struct Example {
    std::string name;
    std::function<OracleLaunch()> launch;
};

template <class P>
Example example() {
    return {P::name, [] {
                P problem;
                OracleLaunch launch;
                launch.kernel = P::name;
                const auto shape = problem.launch();
                launch.grid = {shape.grid, 1, 1};
                launch.block = {shape.block, 1, 1};
                for (const auto& buffer : problem.buffers()) {
                    const auto* bytes = static_cast<const uint8_t*>(buffer.host);
                    launch.buffers.emplace_back(bytes, bytes + buffer.bytes);
                }
                for (int v : problem.scalars())
                    launch.scalars.push_back(static_cast<uint32_t>(v));
                return launch;
            }};
}

inline std::vector<Example> examples_list() {
    return {example<BitonicSort>(),      example<Irreducible>(),       example<LoopGotoExit>(),
            example<LoopJumpIn>(),       example<MultiExitLoop>(),     example<NestedIf>(),
            example<NestedLoops>(),      example<NQueens>(),           example<Reduction>(),
            example<ShortCircuit>(),     example<ShortCircuitAndOr>(), example<Stencil>(),
            example<SwitchReturn>(),     example<TreeWalk>(),          example<VectorAdd>(),
            example<NestedLoopsHeavy>(), example<NestedLoopsLight>(),  example<LoopNest3>(),
            example<GotoStateMachine>()};
}

inline std::string example_ptx(const std::string& name, const std::string& level) {
    const std::string file = name + "." + level + ".ptx";
    std::filesystem::path path = std::filesystem::path(CFRJIT_BINARY_DIR) / "examples/ptx" / file;
    if (!std::filesystem::exists(path))
        path = std::filesystem::path(CFRJIT_SOURCE_DIR) / "examples/ptx" / file;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace cfr::test
