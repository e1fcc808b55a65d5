// runtime::Session from many threads at once, as the shim sees it when a program loads modules
// and launches kernels from several threads and streams: 16 threads preparing modules (the same
// texts and different ones), a cache that fails under them, kernel handles registered, aliased and
// looked up while launches are counted, timed, and their contexts retired. Run under TSan in CI.
#include "ptx/parser.hpp"
#include "runtime/session.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <latch>
#include <map>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using namespace cfr::runtime;

namespace {

constexpr int kThreads = 16;
const char* const kExamples[] = {"short_circuit", "multi_exit_loop", "nested_loops",
                                 "loop_jump_in"};

std::vector<std::string> example_texts() {
    std::vector<std::string> texts;
    for (const char* name : kExamples) {
        std::ifstream in(fmt::format("{}/examples/ptx/{}.O3.ptx", CFRJIT_SOURCE_DIR, name));
        texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return texts;
}

struct Env {
    fs::path dir;
    std::map<std::string, std::string> vars;

    explicit Env(const std::string& name) {
        dir = fs::temp_directory_path() /
              fmt::format("cfrjit-session-concurrency-{}-{}", name, getpid());
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
    std::string log_text() const {
        std::ifstream in(dir / "log");
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    int log_lines() const {
        std::ifstream in(dir / "log");
        int n = 0;
        for (std::string line; std::getline(in, line);)
            if (line.starts_with("cfrjit ")) ++n;
        return n;
    }
};

// Runs `body(thread)` on kThreads threads released at once.
template <class Body>
void on_threads(Body body) {
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            start.arrive_and_wait();
            body(t);
        });
    for (auto& t : threads)
        t.join();
}

// Addresses that stand for driver handles: distinct, never dereferenced.
const void* handle(int kind, int thread, int i) {
    static char space[4][kThreads][64];
    return &space[kind][thread][i];
}

struct Prepared {
    uint32_t module = 0;
    std::string text;
};

} // namespace

TEST_CASE("concurrency: 16 threads prepare modules through one session") {
    Env env("prepare");
    const auto texts = example_texts();
    Session s(env.getenv());
    constexpr int kPerThread = 6;
    std::vector<std::vector<Prepared>> got(kThreads);
    on_threads([&](int t) {
        for (int i = 0; i < kPerThread; ++i) {
            const std::string& text = texts[(t + i) % texts.size()];
            const auto d = s.prepare(text.c_str(), 0, 75, "cuModuleLoadData");
            if (!d.rewrite()) continue;
            got[t].push_back({d.module, *d.ptx});
            s.module_loaded(d.module, handle(0, t, i), handle(1, t, 0));
        }
    });
    std::set<uint32_t> ids;
    std::map<size_t, std::set<std::string>> rewritten_of; // text index -> rewritten texts
    for (int t = 0; t < kThreads; ++t) {
        REQUIRE(got[t].size() == kPerThread);
        for (int i = 0; i < kPerThread; ++i) {
            ids.insert(got[t][i].module);
            rewritten_of[(t + i) % texts.size()].insert(got[t][i].text);
            CHECK(s.module_of(handle(0, t, i)) == got[t][i].module);
        }
    }
    CHECK(ids.size() == kThreads * kPerThread);
    for (const auto& [text, rewritten] : rewritten_of)
        CHECK(rewritten.size() == 1); // compiled or read from the cache, the same text
    const auto modules = s.modules();
    CHECK(modules.size() == kThreads * kPerThread);
    for (const auto& m : modules) {
        CHECK(m.rewritten());
        CHECK_FALSE(m.kernels.empty());
    }
    CHECK(env.log_lines() == 0);
    ModuleCache cache((env.dir / "cache").string());
    const auto entries = cache.list();
    CHECK(entries.size() == texts.size());
    for (const auto& e : entries)
        CHECK(e.valid);
}

TEST_CASE("concurrency: a cache that fails under 16 threads is dropped once, modules still "
          "rewritten") {
    Env env("failing-cache");
    env.vars["CFRJIT_TEST_FAULT"] = "cache";
    const auto texts = example_texts();
    Session s(env.getenv());
    std::atomic<int> rewritten{0};
    on_threads([&](int t) {
        for (int i = 0; i < 4; ++i)
            if (s.prepare(texts[(t + i) % texts.size()].c_str(), 0, 75, "cuModuleLoadData")
                    .rewrite())
                ++rewritten;
    });
    INFO(env.log_text());
    CHECK(rewritten == kThreads * 4);
    CHECK(env.log_lines() == 1);
}

TEST_CASE("concurrency: launches from 16 threads on their own contexts are counted and timed") {
    Env env("launch");
    const auto texts = example_texts();
    Session s(env.getenv());
    const auto d = s.prepare(texts[0].c_str(), 0, 75, "cuModuleLoadData");
    REQUIRE(d.rewrite());
    const void* module = handle(0, 0, 0);
    s.module_loaded(d.module, module, handle(1, 0, 0));
    const std::string kernel = kExamples[0];

    // Events complete at once; each launch's pair is timed at 0.25 ms.
    EventOps ops;
    ops.query = [](void*) { return 0; };
    ops.elapsed_ms = [](void*, void*) { return 0.25f; };
    std::atomic<int> released{0};
    ops.release = [&](const PendingLaunch&) { ++released; };
    const auto sink = s.sink();

    constexpr int kLaunches = 200;
    std::atomic<int> unknown{0};
    on_threads([&](int t) {
        // Each thread gets the kernel through its own handle (cuModuleGetFunction), and half of
        // them through an alias of it as well (cuKernelGetFunction).
        const void* function = handle(2, t, 0);
        s.register_kernel(function, kernel, module);
        const void* alias = handle(2, t, 1);
        if (t % 2 == 1) s.alias_kernel(alias, function);
        void* context = const_cast<void*>(handle(3, t, 0));
        for (int i = 0; i < kLaunches; ++i) {
            const auto id = s.find_kernel(t % 2 == 1 && i % 2 == 1 ? alias : function);
            if (!id) {
                ++unknown;
                continue;
            }
            const Dim3 grid{static_cast<unsigned>(1 + i % 3)}, block{128};
            s.launch_started(*id, grid, block);
            s.pending().add({*id, grid, block, context, const_cast<void*>(handle(3, t, 1)),
                             const_cast<void*>(handle(3, t, 2))});
            if (i % 16 == 0) s.pending().poll(ops, sink, 8);
        }
        s.pending().retire_context(context, ops, sink);
    });
    CHECK(unknown == 0);
    CHECK(s.pending().size() == 0);
    CHECK(released == kThreads * kLaunches);
    uint64_t launches = 0, timed = 0;
    for (const auto& k : s.kernels()) {
        if (k.name != kernel) continue;
        launches += k.launches;
        timed += k.timed;
        CHECK(k.untimed == 0);
        CHECK(k.varied);
    }
    CHECK(launches == kThreads * kLaunches);
    CHECK(timed == kThreads * kLaunches);
}

TEST_CASE("concurrency: modules unloaded and contexts ended while other threads launch") {
    Env env("unload");
    const auto texts = example_texts();
    Session s(env.getenv());
    std::atomic<int> lost{0};
    on_threads([&](int t) {
        const void* context = handle(1, t, 0);
        for (int i = 0; i < 8; ++i) {
            const auto d = s.prepare(texts[(t + i) % texts.size()].c_str(), 0, 75, "cuModuleLoad");
            if (!d.rewrite()) continue;
            const void* module = handle(0, t, i);
            s.module_loaded(d.module, module, context);
            const void* function = handle(2, t, i);
            const auto id = s.register_kernel(function, kExamples[(t + i) % texts.size()], module);
            s.launch_started(id, {1}, {32});
            if (i % 2 == 0) s.module_unloaded(module);
            if (s.find_kernel(function).has_value() == (i % 2 == 0)) ++lost;
        }
        s.context_gone(context);
        for (int i = 0; i < 8; ++i)
            if (s.find_kernel(handle(2, t, i)) || s.module_of(handle(0, t, i))) ++lost;
    });
    CHECK(lost == 0);
    uint64_t launches = 0;
    for (const auto& k : s.kernels())
        launches += k.launches;
    CHECK(launches == kThreads * 8);
}

TEST_CASE("concurrency: processes with 16 threads each share one cache directory") {
    Env env("processes");
    const auto texts = example_texts();
    constexpr int kProcesses = 4;
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            Session s(env.getenv());
            std::atomic<int> rewritten{0};
            on_threads([&](int t) {
                for (int i = 0; i < 2; ++i)
                    if (s.prepare(texts[(p + t + i) % texts.size()].c_str(), 0, 75, "proc")
                            .rewrite())
                        ++rewritten;
            });
            _exit(rewritten == kThreads * 2 ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(env.log_lines() == 0);
    Session again(env.getenv());
    for (const auto& t : texts)
        CHECK(again.prepare(t.c_str(), 0, 75, "check").rewrite());
    for (const auto& m : again.modules())
        CHECK(m.cache == CacheStatus::Hit);
    size_t temporaries = 0;
    for (const auto& e : fs::directory_iterator(env.dir / "cache"))
        if (e.path().filename().string().find(".tmp.") != std::string::npos) ++temporaries;
    CHECK(temporaries == 0);
}
