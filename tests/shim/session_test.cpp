// Load decisions without a driver: rewrite and cache, hits, fallbacks with exactly one log line,
// and loads from many threads and processes sharing one cache directory.
#include "ptx/cfg.hpp"
#include "ptx/cubin.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "runtime/compile.hpp"
#include "runtime/session.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

namespace fs = std::filesystem;
using namespace cfr::runtime;

namespace {

std::string example_ptx(const char* name) {
    std::ifstream in(fmt::format("{}/examples/ptx/{}.O3.ptx", CFRJIT_SOURCE_DIR, name));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Env {
    fs::path dir;
    std::map<std::string, std::string> vars;

    explicit Env(const std::string& name) {
        dir = fs::temp_directory_path() / fmt::format("cfrjit-session-{}-{}", name, getpid());
        fs::remove_all(dir);
        fs::create_directories(dir);
        vars["CFRJIT_CACHE_DIR"] = (dir / "cache").string();
        vars["CFRJIT_LOG_FILE"] = (dir / "log").string();
    }
    ~Env() { fs::remove_all(dir); }
    Getenv getenv() const {
        return [this](const char* n) -> const char* {
            auto it = vars.find(n);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
    }
    int log_lines() const {
        std::ifstream in(dir / "log");
        int n = 0;
        for (std::string line; std::getline(in, line);)
            if (line.starts_with("cfrjit ")) ++n;
        return n;
    }
};

} // namespace

TEST_CASE("session: a module is rewritten, cached, and hit the second time") {
    Env env("hit");
    const std::string ptx = example_ptx("short_circuit");
    REQUIRE_FALSE(ptx.empty());
    {
        Session s(env.getenv());
        const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
        REQUIRE(d.rewrite());
        CHECK(s.modules().at(0).cache == CacheStatus::Miss);
    }
    Session s(env.getenv());
    const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
    REQUIRE(d.rewrite());
    CHECK(s.modules().at(0).cache == CacheStatus::Hit);
    CHECK(env.log_lines() == 0);
    bool found = false;
    for (const auto& k : s.kernels())
        found = found || (k.have_change && k.change.blocks_before > 0);
    CHECK(found);
}

TEST_CASE("session: a module verified less is not served to a run that verifies more") {
    Env env("verify-key");
    const std::string ptx = example_ptx("short_circuit");
    REQUIRE_FALSE(ptx.empty());
    env.vars["CFRJIT_VERIFY"] = "off";
    {
        Session s(env.getenv());
        REQUIRE(s.prepare(ptx.c_str(), 0, 75, "test").rewrite());
        CHECK(s.modules().at(0).cache == CacheStatus::Miss);
    }
    env.vars["CFRJIT_VERIFY"] = "full";
    Session s(env.getenv());
    REQUIRE(s.prepare(ptx.c_str(), 0, 75, "test").rewrite());
    CHECK(s.modules().at(0).cache == CacheStatus::Miss);
    CHECK(env.log_lines() == 0);
}

TEST_CASE("session: the empty pipeline gives back print(parse(x))") {
    Env env("empty");
    env.vars["CFRJIT_PASSES"] = "";
    const std::string ptx = example_ptx("multi_exit_loop");
    Session s(env.getenv());
    const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
    REQUIRE(d.rewrite());
    CHECK(*d.ptx == cfr::ptx::print(cfr::ptx::parse(ptx)));
}

TEST_CASE("session: failures fall back to the original image with one log line") {
    Env env("faults");
    const std::string ptx = example_ptx("short_circuit");
    SECTION("a pass fails") {
        env.vars["CFRJIT_TEST_FAULT"] = "pass";
        Session s(env.getenv());
        CHECK_FALSE(s.prepare(ptx.c_str(), 0, 75, "test").rewrite());
        CHECK(env.log_lines() == 1);
    }
    SECTION("unparsable PTX") {
        Session s(env.getenv());
        const std::string bad = ".version 8.0\n.target sm_75\n.entry k( { bogus";
        CHECK_FALSE(s.prepare(bad.c_str(), 0, 75, "test").rewrite());
        CHECK(env.log_lines() == 1);
    }
    SECTION("the driver refuses") {
        Session s(env.getenv());
        const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
        REQUIRE(d.rewrite());
        CHECK(s.original_image(d.module) != nullptr);
        s.load_refused(d.module, "CUDA_ERROR_INVALID_PTX", Refusal::AtFirstUse);
        CHECK(env.log_lines() == 1);
        CHECK_FALSE(s.modules().at(0).rewritten());
        CHECK(s.modules().at(0).outcome == ModuleOutcome::DriverRefused);
        CHECK_THAT(s.modules().at(0).reason, Catch::Contains("at first use"));
        // The original the shim keeps is a copy: the program may free its own.
        CHECK(std::string(static_cast<const char*>(s.original_image(d.module))) == ptx);
    }
    SECTION("an unusable cache directory") {
        env.vars["CFRJIT_CACHE_DIR"] = "/dev/null/cfrjit";
        Session s(env.getenv());
        CHECK(s.prepare(ptx.c_str(), 0, 75, "a").rewrite());
        CHECK(s.prepare(ptx.c_str(), 0, 75, "b").rewrite());
        CHECK(env.log_lines() == 1);
    }
    SECTION("cubin-only images pass through; why is in the report, and logged at info level") {
        cfr::ptx::cubin::CubinSpec spec;
        spec.sm_arch = 75;
        spec.kernels = {"k"};
        const std::string cubin = cfr::ptx::cubin::write(spec);
        const char* elf = cubin.data();
        {
            Session s(env.getenv());
            CHECK_FALSE(s.prepare(elf, 0, 75, "a").rewrite());
            CHECK(s.modules().at(0).outcome == ModuleOutcome::NoPtx);
            CHECK(env.log_lines() == 0);
        }
        env.vars["CFRJIT_LOG"] = "info";
        Session s(env.getenv());
        CHECK_FALSE(s.prepare(elf, cubin.size(), 75, "a").rewrite());
        CHECK_FALSE(s.prepare(elf, 0, 75, "b").rewrite());
        CHECK(env.log_lines() == 2);
    }
    SECTION("a bad configuration disables the shim") {
        env.vars["CFRJIT_TIMING"] = "bogus";
        Session s(env.getenv());
        CHECK_FALSE(s.enabled());
        CHECK_FALSE(s.prepare(ptx.c_str(), 0, 75, "test").rewrite());
    }
}

TEST_CASE("session: kernels outside CFRJIT_KERNELS keep their body") {
    Env env("select");
    env.vars["CFRJIT_KERNELS"] = "no_such_kernel";
    const std::string ptx = example_ptx("short_circuit");
    {
        Session s(env.getenv());
        const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
        REQUIRE(d.rewrite());
        CHECK(*d.ptx == cfr::ptx::print(cfr::ptx::parse(ptx)));
    }
    // The cached module rewrote none of the kernels: a run that selects them all compiles anew.
    env.vars.erase("CFRJIT_KERNELS");
    Session s(env.getenv());
    const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
    REQUIRE(d.rewrite());
    CHECK(s.modules().at(0).cache == CacheStatus::Miss);
    CHECK(*d.ptx != cfr::ptx::print(cfr::ptx::parse(ptx)));
}

TEST_CASE("session: concurrent loads from threads and processes share one cache") {
    Env env("concurrent");
    const std::vector<std::string> texts = {
        example_ptx("short_circuit"), example_ptx("multi_exit_loop"), example_ptx("nested_loops")};
    std::vector<pid_t> children;
    for (int p = 0; p < 3; ++p) {
        const pid_t pid = fork();
        if (pid == 0) {
            Session s(env.getenv());
            bool ok = true;
            for (int i = 0; i < 6; ++i)
                ok = ok && s.prepare(texts[(i + p) % 3].c_str(), 0, 75, "proc").rewrite();
            _exit(ok ? 0 : 1);
        }
        children.push_back(pid);
    }
    Session s(env.getenv());
    std::vector<std::thread> threads;
    std::atomic<int> rewritten{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 6; ++i)
                if (s.prepare(texts[(i + t) % 3].c_str(), 0, 75, "thread").rewrite()) ++rewritten;
        });
    for (auto& t : threads)
        t.join();
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(rewritten == 24);
    CHECK(env.log_lines() == 0);
    // Every text rewrites the same way whether compiled or read back from the cache.
    Session again(env.getenv());
    for (const auto& t : texts) {
        const auto d = again.prepare(t.c_str(), 0, 75, "check");
        REQUIRE(d.rewrite());
        CompileOptions o;
        o.pipeline = again.config().pipeline;
        CHECK(*d.ptx == compile_module(t, "m", o).ptx);
    }
    for (const auto& m : again.modules())
        CHECK(m.cache == CacheStatus::Hit);
}

namespace {

int instructions_in(const std::vector<cfr::ptx::Statement>& statements) {
    int n = 0;
    for (const auto& s : statements) {
        if (std::holds_alternative<cfr::ptx::Instruction>(s)) ++n;
        if (const auto* scope = std::get_if<cfr::ptx::Scope>(&s))
            n += instructions_in(scope->statements);
    }
    return n;
}

// Each function's blocks (0 without a CFG) and instructions, counted apart from compile_module.
std::map<std::string, std::pair<int, int>> counts_of(const std::string& text) {
    std::map<std::string, std::pair<int, int>> out;
    for (const auto& item : cfr::ptx::parse(text, "counted.ptx").items) {
        const auto* f = std::get_if<cfr::ptx::Function>(&item);
        if (!f || !f->body) continue;
        int blocks = 0;
        try {
            blocks = static_cast<int>(cfr::ptx::build_cfg(*f).blocks.size());
        } catch (const cfr::ptx::CfgError&) {
        }
        out[f->name] = {blocks, instructions_in(*f->body)};
    }
    return out;
}

} // namespace

TEST_CASE("compile: each kernel's blocks and instructions before and after the passes") {
    const std::string text =
        example_ptx("short_circuit") + "\n.visible .entry no_cfg()\n{\n    bra $nowhere;\n}\n";
    CompileOptions o;
    o.pipeline = cfr::passes::parse_pipeline("restructure-branches");
    const auto m = compile_module(text, "m", o);
    const auto before = counts_of(text), after = counts_of(m.ptx);
    REQUIRE(m.kernels.size() == 2);
    for (const auto& k : m.kernels) {
        INFO(k.name);
        CHECK(k.blocks_before == before.at(k.name).first);
        CHECK(k.instructions_before == before.at(k.name).second);
        CHECK(k.blocks_after == after.at(k.name).first);
        CHECK(k.instructions_after == after.at(k.name).second);
    }
    const auto& restructured = m.kernels[0];
    CHECK_FALSE(restructured.changed_by.empty());
    CHECK(restructured.blocks_after > restructured.blocks_before);
    CHECK(m.kernels[1].name == "no_cfg");
    CHECK(m.kernels[1].blocks_before == 0);
    CHECK(m.kernels[1].changed_by.empty());
}

TEST_CASE("compile: metadata survives the cache") {
    CompileOptions o;
    o.pipeline = cfr::passes::parse_pipeline("uniform-branches");
    const auto m = compile_module(example_ptx("nested_if"), "m1", o);
    const auto back = CompiledModule::deserialize(m.serialize());
    CHECK(back.ptx == m.ptx);
    REQUIRE(back.kernels.size() == m.kernels.size());
    CHECK(back.kernels[0].name == m.kernels[0].name);
    CHECK(back.kernels[0].instructions_before == m.kernels[0].instructions_before);
    CHECK_THROWS_AS(CompiledModule::deserialize("no newline"), CompileError);
}
