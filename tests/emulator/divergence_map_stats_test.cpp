// The emulator's own divergence map (LaunchStats::branches, the `divergence_map` list that
// cfr-run --json writes per kernel): visits and divergent visits of every conditional branch,
// added up over launches branch by branch, also when launches of one kernel name come from
// different modules.
#include "emulator/device.hpp"
#include "emulator/stats.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace {

// Lanes below `limit` take the branch: with 40 threads, warp 0 splits (limit < 32), warp 1 not.
std::string kernel(int limit, bool extra_branch) {
    std::string text = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry D(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
)";
    if (extra_branch)
        text += "    setp.eq.u32 %p2, %r1, 3;\n    @%p2 add.u32 %r1, %r1, 1;\n"
                "    @%p2 bra SKIP;\n    add.u32 %r1, %r1, 2;\nSKIP:\n";
    text += "    setp.lt.u32 %p1, %r1, " + std::to_string(limit) + R"(;
    @%p1 bra DONE;
    add.u32 %r1, %r1, 100;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
)";
    return text;
}

cfr::emu::LaunchStats launch(cfr::emu::Device& device, const std::string& ptx) {
    cfr::emu::Module* module = nullptr;
    REQUIRE_FALSE(device.load_module(ptx, "d.ptx", &module));
    cfr::emu::Kernel* k = nullptr;
    REQUIRE_FALSE(device.get_kernel(module, "D", &k));
    cfr::emu::DevicePtr out = 0;
    REQUIRE_FALSE(device.malloc(256 * 4, &out));
    void* params[] = {&out};
    cfr::emu::LaunchStats stats;
    REQUIRE_FALSE(device.launch(k, {{1, 1, 1}, {40, 1, 1}, 0}, params, &stats));
    return stats;
}

} // namespace

TEST_CASE("the emulator's divergence map counts warp visits and splits per branch",
          "[emulator][divergence-map]") {
    cfr::emu::Device device;
    const auto one = launch(device, kernel(5, false));
    REQUIRE(one.branches.size() == 1);
    CHECK(one.branches[0].function == "D");
    CHECK(one.branches[0].line == 13);
    CHECK(one.branches[0].visits == 2);
    CHECK(one.branches[0].divergent == 1);

    auto total = one;
    total.accumulate(launch(device, kernel(5, false)));
    CHECK(total.branches[0].visits == 4);
    CHECK(total.branches[0].divergent == 2);

    // Another module's kernel of the same name: its branches are its own.
    total.accumulate(launch(device, kernel(5, true)));
    REQUIRE(total.branches.size() == 3);
    CHECK(total.branches[0].visits == 4);
    uint64_t visits = 0, divergent = 0;
    for (const auto& b : total.branches) {
        visits += b.visits;
        divergent += b.divergent;
    }
    CHECK(visits == 8);
    CHECK(divergent == 4); // tid == 3 splits warp 0 once more

    const auto json = cfr::emu::to_json(total);
    REQUIRE(json["divergence_map"].size() == 3);
    const auto& first = json["divergence_map"][0];
    CHECK(first["function"] == "D");
    CHECK(first["line"] == 13);
    CHECK(first["visits"] == 4);
    CHECK(first["divergent"] == 2);
}
