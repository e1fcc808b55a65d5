// The verifier in the shim: a pass that breaks a check (planted: tests/passes/verify_planted.hpp)
// is a compile failure, the original image is loaded, and one log line names the pass, the kernel
// and the check; CFRJIT_VERIFY picks what is checked.
#include "config_env.hpp"
#include "runtime/session.hpp"
#include "tests/passes/verify_planted.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace cfr;
using namespace cfr::runtime;

namespace {

const bool planted_registered = test::planted::register_all();

// A Session's environment with its own log file and cache directory.
struct Scene {
    fs::path dir;
    testing::Environment env;

    explicit Scene(const std::string& name) {
        dir = fs::temp_directory_path() / fmt::format("cfrjit-verify-{}-{}", name, getpid());
        fs::remove_all(dir);
        fs::create_directories(dir);
        env["CFRJIT_CACHE_DIR"] = (dir / "cache").string();
        env["CFRJIT_LOG_FILE"] = (dir / "log").string();
    }
    ~Scene() { fs::remove_all(dir); }

    std::vector<std::string> log() const {
        std::ifstream in(dir / "log");
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);)
            if (line.starts_with("cfrjit ")) lines.push_back(line);
        return lines;
    }
};

struct Outcome {
    bool rewritten = false;
    ModuleOutcome outcome = ModuleOutcome::NotAnImage;
    std::vector<std::string> log;
};

// The image prepared under `pipeline` on a device of compute capability `sm`.
Outcome prepare(const std::string& pipeline, const char* verify,
                const char* image = test::kTwoKernels, int sm = 75) {
    Scene scene("prepare");
    scene.env["CFRJIT_PASSES"] = pipeline;
    if (verify) scene.env["CFRJIT_VERIFY"] = verify;
    Session session(testing::env_of(scene.env));
    REQUIRE(session.enabled());
    Outcome out;
    out.rewritten = session.prepare(image, 0, sm, "cuModuleLoadData").rewrite();
    out.outcome = session.modules().at(0).outcome;
    out.log = scene.log();
    return out;
}

} // namespace

TEST_CASE("verify: every planted violation falls back to the original image with one log line "
          "naming pass, kernel and check") {
    REQUIRE(planted_registered);
    for (const auto& plant : test::planted::plants()) {
        const std::string pipeline = plant.pipeline();
        const std::string kernel = plant.kernel;
        const std::string check(passes::to_string(plant.check));
        for (const char* level : {"cheap", "full"}) {
            if (plant.check == passes::Check::RoundTrip && std::string(level) == "cheap") continue;
            INFO(pipeline << " at CFRJIT_VERIFY=" << level);
            const Outcome out = prepare(pipeline, level);
            CHECK_FALSE(out.rewritten);
            CHECK(out.outcome == ModuleOutcome::CompileFailed);
            REQUIRE(out.log.size() == 1);
            const std::string& line = out.log.front();
            CHECK_THAT(line, Catch::Contains("warning") &&
                                 Catch::Contains("pass '" + pipeline + "'") &&
                                 Catch::Contains("kernel '" + kernel + "'") &&
                                 Catch::Contains("check " + check) &&
                                 Catch::Contains("loading the original image"));
        }
    }
}

TEST_CASE("verify: a pass that moves an mma under a lane-dependent guard or copies it falls back "
          "to the original image; a uniform guard is kept") {
    REQUIRE(planted_registered);
    for (const auto& plant : test::planted::convergence_plants()) {
        const std::string pipeline = plant.pipeline();
        INFO(pipeline);
        const Outcome out = prepare(pipeline, "cheap", test::kTensorKernel, 90);
        if (std::string(plant.name) == "planted-mma-under-uniform-guard") {
            CHECK(out.rewritten);
            CHECK(out.log.empty());
            continue;
        }
        CHECK_FALSE(out.rewritten);
        CHECK(out.outcome == ModuleOutcome::CompileFailed);
        REQUIRE(out.log.size() == 1);
        CHECK_THAT(out.log.front(), Catch::Contains("pass '" + pipeline + "'") &&
                                        Catch::Contains("kernel 'tensor'") &&
                                        Catch::Contains("check convergence") &&
                                        Catch::Contains("convergent operation mma") &&
                                        Catch::Contains("loading the original image"));
    }
}

TEST_CASE("verify: CFRJIT_VERIFY picks the checks; cheap by default") {
    SECTION("off: nothing is checked, the broken module is loaded") {
        const Outcome out = prepare("planted-branch-to-nowhere", "off");
        CHECK(out.rewritten);
        CHECK(out.log.empty());
    }
    SECTION("cheap: no round trip") {
        const Outcome out = prepare("planted-register-as-symbol", "cheap");
        CHECK(out.rewritten);
        CHECK(out.log.empty());
    }
    SECTION("unset: cheap") {
        CHECK_FALSE(prepare("planted-guard-not-predicate", nullptr).rewritten);
        CHECK(prepare("planted-register-as-symbol", nullptr).rewritten);
    }
    SECTION("real pipelines pass full verification") {
        for (const char* pipeline :
             {"restructure-branches<selective=true>", "restructure-loops,restructure-branches",
              "linearize", "blockip-linearize", "fuse-branches", "divergence-map"}) {
            INFO(pipeline);
            const Outcome out = prepare(pipeline, "full");
            CHECK(out.rewritten);
            CHECK(out.log.empty());
        }
    }
}
