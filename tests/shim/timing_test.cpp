// Pending launches: collected in order when their events complete, never waited for in the driver,
// drained at exit within a deadline, retired or forgotten with their context; a lost launch is
// reported as lost, once.
#include "runtime/timing.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace cfr::runtime;

namespace {

// Events that complete when the test says so; -1 for events of a context that is gone.
struct FakeEvents {
    std::set<void*> done, gone;
    std::map<uint32_t, double> seen; // id -> ms (negative: lost)
    int released = 0;
    EventOps ops;
    PendingLaunches::Sink sink;

    FakeEvents() {
        ops.query = [this](void* end) { return gone.count(end) ? -1 : done.count(end) ? 0 : 1; };
        ops.elapsed_ms = [](void*, void*) { return 1.5f; };
        ops.release = [this](const PendingLaunch&) { ++released; };
        sink = [this](const PendingLaunch& p, double ms) {
            CHECK(seen.count(p.id) == 0);
            seen[p.id] = ms;
        };
    }
};

} // namespace

TEST_CASE("timing: poll stops at the first launch not done, drain reads the rest") {
    FakeEvents f;
    int e[6];
    PendingLaunches q;
    for (uint32_t k = 0; k < 3; ++k)
        q.add({k, {}, {}, nullptr, &e[2 * k], &e[2 * k + 1]});
    f.done.insert(&e[1]);
    f.done.insert(&e[5]);
    q.poll(f.ops, f.sink);
    CHECK(f.seen == std::map<uint32_t, double>{{0, 1.5}});
    CHECK(q.size() == 2);
    f.done.insert(&e[3]);
    CHECK(q.drain(f.ops, f.sink, std::chrono::steady_clock::now()) == 0);
    CHECK(f.seen == std::map<uint32_t, double>{{0, 1.5}, {1, 1.5}, {2, 1.5}});
    CHECK(f.released == 3);
}

TEST_CASE("timing: drain never blocks past its deadline; what is left is lost") {
    FakeEvents f;
    int e[4];
    PendingLaunches q;
    q.add({7, {}, {}, nullptr, &e[0], &e[1]});
    q.add({8, {}, {}, nullptr, &e[2], &e[3]});
    f.done.insert(&e[3]);
    const auto start = std::chrono::steady_clock::now();
    CHECK(q.drain(f.ops, f.sink, start + std::chrono::milliseconds(30)) == 1);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(f.seen == std::map<uint32_t, double>{{7, -1.0}, {8, 1.5}});
    CHECK(q.size() == 0);
}

TEST_CASE("timing: a context that ends takes its launches; complete ones are still read") {
    FakeEvents f;
    int a0, a1, b0, b1, c0, c1, ctx1, ctx2;
    PendingLaunches q;
    q.add({0, {}, {}, &ctx1, &a0, &a1});
    q.add({1, {}, {}, &ctx2, &b0, &b1});
    q.add({2, {}, {}, &ctx1, &c0, &c1});
    f.done.insert(&a1);
    CHECK(q.retire_context(&ctx1, f.ops, f.sink) == 1);
    CHECK(f.seen == std::map<uint32_t, double>{{0, 1.5}, {2, -1.0}});
    CHECK(q.size() == 1);
    // A context already gone: nothing is asked of the driver.
    f.ops.query = [](void*) -> int {
        FAIL("queried an event of a context that is gone");
        return -1;
    };
    CHECK(q.forget_context(&ctx2, f.sink) == 1);
    CHECK(f.seen.at(1) < 0);
    CHECK(q.size() == 0);
}

TEST_CASE("timing: events that are gone count as lost, not as a time") {
    FakeEvents f;
    int e[2];
    PendingLaunches q;
    q.add({3, {}, {}, nullptr, &e[0], &e[1]});
    f.gone.insert(&e[1]);
    q.poll(f.ops, f.sink);
    CHECK(f.seen == std::map<uint32_t, double>{{3, -1.0}});
    CHECK(f.released == 0);
}
