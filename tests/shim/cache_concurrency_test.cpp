// The module cache under contention: 16 threads writing, reading, listing and clearing the same
// keys, and processes doing the same in one directory. A reader sees a whole entry or none, never
// a damaged one, and no temporary file outlives its writer. Run under TSan in CI.
#include "runtime/cache.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <latch>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using cfr::runtime::ModuleCache;

namespace {

constexpr int kThreads = 16;
constexpr uint64_t kKeys = 4;

fs::path fresh_dir(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / fmt::format("cfrjit-concurrency-{}-{}", name, getpid());
    fs::remove_all(dir);
    return dir;
}

// The payloads a key may hold: different lengths, so that a torn write would show.
std::string payload(uint64_t key, int version) {
    return std::string(1000 + 7919 * static_cast<size_t>(version), static_cast<char>('a' + key));
}

bool is_payload_of(uint64_t key, const std::string& text) {
    for (int v = 0; v < kThreads; ++v)
        if (text == payload(key, v)) return true;
    return false;
}

struct Tally {
    std::atomic<int> hits{0}, misses{0}, damaged{0}, foreign{0}, failed_stores{0};
    bool clean() const { return damaged == 0 && foreign == 0 && failed_stores == 0; }
};

// Each thread writes its own version of every key, reads every key back, and now and then lists
// or clears the directory.
void hammer(ModuleCache& cache, int id, int rounds, Tally& tally) {
    for (int round = 0; round < rounds; ++round) {
        for (uint64_t key = 0; key < kKeys; ++key) {
            try {
                cache.store(key, payload(key, id));
            } catch (const cfr::runtime::CacheError&) {
                ++tally.failed_stores;
            }
            const uint64_t read_key = (key + static_cast<uint64_t>(id)) % kKeys;
            const auto r = cache.load(read_key);
            switch (r.status) {
            case ModuleCache::Lookup::Hit:
                ++tally.hits;
                if (!is_payload_of(read_key, r.payload)) ++tally.foreign;
                break;
            case ModuleCache::Lookup::Miss:
                ++tally.misses;
                break;
            case ModuleCache::Lookup::Damaged:
                ++tally.damaged;
                break;
            }
        }
        if (round % 5 == id % 5) {
            for (const auto& e : cache.list())
                if (!e.valid) ++tally.damaged;
        }
        if (id == 0 && round % 7 == 3) cache.clear();
    }
}

size_t temporary_files(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp.") != std::string::npos) ++n;
    return n;
}

} // namespace

TEST_CASE("concurrency: 16 threads store, load, list and clear one cache") {
    const fs::path dir = fresh_dir("threads");
    ModuleCache cache(dir.string());
    Tally tally;
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            start.arrive_and_wait();
            hammer(cache, t, 20, tally);
        });
    for (auto& t : threads)
        t.join();
    CHECK(tally.damaged == 0);
    CHECK(tally.foreign == 0);
    CHECK(tally.failed_stores == 0);
    CHECK(tally.hits > 0);
    CHECK(temporary_files(dir) == 0);
    for (uint64_t key = 0; key < kKeys; ++key) {
        cache.store(key, payload(key, 3));
        const auto r = cache.load(key);
        CHECK(r.status == ModuleCache::Lookup::Hit);
        CHECK(r.payload == payload(key, 3));
    }
    fs::remove_all(dir);
}

TEST_CASE("concurrency: processes with threads share one cache directory") {
    const fs::path dir = fresh_dir("processes");
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
    constexpr int kProcesses = 6;
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ModuleCache mine(dir.string());
            Tally tally;
            std::vector<std::thread> threads;
            for (int t = 0; t < 4; ++t)
                threads.emplace_back([&, t] { hammer(mine, (p * 4 + t) % kThreads, 10, tally); });
            for (auto& t : threads)
                t.join();
            if (!tally.clean())
                std::fprintf(stderr, "process %d: %d damaged, %d foreign, %d failed stores\n", p,
                             tally.damaged.load(), tally.foreign.load(),
                             tally.failed_stores.load());
            _exit(tally.clean() ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(temporary_files(dir) == 0);
    ModuleCache cache(dir.string());
    for (const auto& e : cache.list()) {
        INFO(e.path << ": " << e.problem);
        CHECK(e.valid);
    }
    fs::remove_all(dir);
}
