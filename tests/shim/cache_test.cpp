// The module cache: round trip, verification of damaged, truncated and foreign entries, the
// directory's safety checks, atomic writes under concurrent writers (threads and processes).
#include "runtime/cache.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

namespace fs = std::filesystem;
using namespace cfr::runtime;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / fmt::format("cfrjit-test-{}-{}", name, getpid());
    fs::remove_all(dir);
    return dir;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& p, const std::string& s) {
    std::ofstream(p, std::ios::binary) << s;
}

} // namespace

TEST_CASE("cache: keys depend on the text, the pipeline, the verify level and the kernels") {
    const CompileSettings p{"p", VerifyLevel::Cheap, {}};
    CHECK(cache_key("a", p) == cache_key("a", p));
    CHECK(cache_key("a", p) != cache_key("b", p));
    CHECK(cache_key("a", p) != cache_key("a", {"q", VerifyLevel::Cheap, {}}));
    // A module compiled at CFRJIT_VERIFY=off is not served to a run at full.
    CHECK(cache_key("a", {"p", VerifyLevel::Off, {}}) !=
          cache_key("a", {"p", VerifyLevel::Full, {}}));
    CHECK(cache_key("a", {"p", VerifyLevel::Off, {}}) != cache_key("a", p));
    // Nor one that rewrote only some kernels to a run that selects others, or all.
    CHECK(cache_key("a", {"p", VerifyLevel::Cheap, {"k*"}}) != cache_key("a", p));
    CHECK(cache_key("a", {"p", VerifyLevel::Cheap, {"k*"}}) !=
          cache_key("a", {"p", VerifyLevel::Cheap, {"j*"}}));
}

TEST_CASE("cache: store and load, directory mode 0700") {
    const fs::path dir = fresh_dir("roundtrip");
    ModuleCache cache(dir.string());
    struct stat st {};
    REQUIRE(stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(cache.load(42).status == ModuleCache::Lookup::Miss);
    cache.store(42, "payload text");
    const auto r = cache.load(42);
    CHECK(r.status == ModuleCache::Lookup::Hit);
    CHECK(r.payload == "payload text");
    for (const auto& e : fs::directory_iterator(dir))
        CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("cache: damaged, truncated and foreign entries are never loaded") {
    const fs::path dir = fresh_dir("damage");
    ModuleCache cache(dir.string());
    const std::string payload(1000, 'x');

    SECTION("a flipped byte") {
        cache.store(1, payload);
        std::string bytes = slurp(cache.path_of(1));
        bytes[bytes.size() - 10] ^= 0x20;
        spit(cache.path_of(1), bytes);
        const auto r = cache.load(1);
        CHECK(r.status == ModuleCache::Lookup::Damaged);
        CHECK_THAT(r.problem, Catch::Contains("checksum"));
        CHECK_FALSE(fs::exists(cache.path_of(1)));
    }
    SECTION("truncated") {
        cache.store(2, payload);
        spit(cache.path_of(2), slurp(cache.path_of(2)).substr(0, 500));
        CHECK(cache.load(2).status == ModuleCache::Lookup::Damaged);
        spit(cache.path_of(2), "short");
        CHECK(cache.load(2).status == ModuleCache::Lookup::Damaged);
    }
    SECTION("another key's entry under this name") {
        cache.store(3, payload);
        fs::copy_file(cache.path_of(3), cache.path_of(4));
        const auto r = cache.load(4);
        CHECK(r.status == ModuleCache::Lookup::Damaged);
        CHECK_THAT(r.problem, Catch::Contains("key"));
    }
    SECTION("not an entry at all") {
        spit(cache.path_of(5), std::string(100, 'P'));
        CHECK(cache.load(5).status == ModuleCache::Lookup::Damaged);
    }
    SECTION("list reports damage") {
        cache.store(6, payload);
        spit(cache.path_of(7), "junk");
        size_t valid = 0, damaged = 0;
        for (const auto& e : cache.list())
            (e.valid ? valid : damaged)++;
        CHECK(valid == 1);
        CHECK(damaged == 1);
        CHECK(cache.clear() == 2);
    }
    fs::remove_all(dir);
}

TEST_CASE("cache: a directory others may write to, or that cannot exist, is refused") {
    const fs::path dir = fresh_dir("perm");
    fs::create_directories(dir);
    chmod(dir.c_str(), 0777);
    CHECK_THROWS_WITH(ModuleCache(dir.string()), Catch::Contains("writable by others"));
    chmod(dir.c_str(), 0700);
    CHECK_NOTHROW(ModuleCache(dir.string()));
    CHECK_THROWS_AS(ModuleCache("/dev/null/cfrjit"), CacheError);
    fs::remove_all(dir);
}

TEST_CASE("cache: concurrent writers of one key from threads and processes") {
    const fs::path dir = fresh_dir("concurrent");
    ModuleCache cache(dir.string());
    const std::string payload(200000, 'y');
    std::vector<pid_t> children;
    for (int p = 0; p < 4; ++p) {
        const pid_t pid = fork();
        if (pid == 0) {
            ModuleCache mine(dir.string());
            bool ok = true;
            for (int i = 0; i < 20; ++i) {
                mine.store(9, payload);
                const auto r = mine.load(9);
                ok = ok && r.status != ModuleCache::Lookup::Damaged;
            }
            _exit(ok ? 0 : 1);
        }
        children.push_back(pid);
    }
    std::vector<std::thread> threads;
    std::atomic<int> damaged{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 20; ++i) {
                cache.store(9, payload);
                if (cache.load(9).status == ModuleCache::Lookup::Damaged) ++damaged;
            }
        });
    for (auto& t : threads)
        t.join();
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(damaged == 0);
    const auto r = cache.load(9);
    CHECK(r.status == ModuleCache::Lookup::Hit);
    CHECK(r.payload == payload);
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++files;
    CHECK(files == 1); // no temporary files left behind
    fs::remove_all(dir);
}
